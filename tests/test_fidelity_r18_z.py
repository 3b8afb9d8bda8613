"""lax API gaps filled as JAX 0.10.2 has them (tools/difftest/triage_22000_z.md): ``lax.tile``
(the ``tile`` primitive: values, weak types, its errors, jit, vmap, grad, jvp). Expected
outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r18_z.py over the cases in
tests/data/fidelity_r18_z_cases.py.
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
from fidelity_r18_z_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_z_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcomes_as_jax(src, expected):
    got = describe(lambda: eval(src, _ENV), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected
