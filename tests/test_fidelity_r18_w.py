"""Run 22000's s22012-472 (tools/difftest/triage_22000_w.md): a ``jit`` equation keeps the
concrete NumPy constants its function closed over in its callee's ClosedJaxpr, as JAX 0.10.2
does, rather than taking them as leading operands; the derived calls (JVP, linearization,
batching, transpose) keep them too, and an eager derived call bakes them into its module.
Expected jaxprs and values were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r18_w.py."""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
import fidelity_r18_w_cases as record  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_w_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(record.SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert _JAX["setup"] == record.SETUP
    assert [src for src, _ in _JAX["jaxprs"]] == record.JAXPRS
    assert [src for src, _ in _JAX["values"]] == record.VALUES


@pytest.mark.parametrize("src,expected", _JAX["jaxprs"], ids=range(len(_JAX["jaxprs"])))
def test_jaxprs_keep_closed_constants_as_jax(src, expected):
    assert str(eval(src, _ENV)) == expected


@pytest.mark.parametrize("src,expected", _JAX["values"], ids=range(len(_JAX["values"])))
def test_values_as_jax(src, expected):
    got = [np.asarray(leaf).tolist() for leaf in jax.tree_util.tree_leaves(eval(src, _ENV))]
    assert got == expected
