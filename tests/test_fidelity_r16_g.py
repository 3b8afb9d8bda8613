"""Weak types of a scan's cotangents (tools/difftest/triage_19000_g.md; triage_17000_r R3,
triage_14000_r R3). JAX transposes a scan's body at the cotangents' own types, with its carry
binders typed as the carry cotangents and a call's linear binders as the caller's: a convert of
a weak carry binder to strong transposes to a strong cotangent, while a carry the body makes
strong through a weak intermediate keeps a weak one. Expected outcomes were recorded from JAX
0.10.2 by tests/data/record_fidelity_r16_g.py over the cases in
tests/data/fidelity_r16_g_cases.py.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r16_g_cases import CASES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r16_g_jax.json").read_text())


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_values_dtypes_and_weak_types_as_jax(src, expected):
    got = [{"value": np.asarray(x).tolist(), "dtype": str(x.dtype),
            "weak_type": bool(x.aval.weak_type)}
           for x in jax.tree_util.tree_leaves(eval(src, {"jax": jax, "jnp": jnp, "lax": lax,
                                                         "np": np}))]
    assert got == expected
