"""Run 24000's records s24016-190, s24041-71, s24051-96 and s24057-240
(tools/difftest/triage_24000_p.md): ``jnp.signbit`` of unsigned integers is ``x < 0`` as in
JAX (not a constant, so the result keeps x's sharding); a convolution of weak operands is
weak; an eager shard_map's results have its traced body's weak types; a JVP below another
transformation (the JVP of a vjp, a grad, a vmap) types a jnp call's tangent as its primal's.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r20_p.py over
the cases in tests/data/fidelity_r20_p_cases.py.
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
from fidelity_r20_p_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r20_p_jax.json").read_text())


@pytest.fixture(scope="module")
def env():
    env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(SETUP, env)
    return env


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.devices(2)
@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_types_shardings_and_values_as_jax(env, src, expected):
    got = describe(eval(src, env), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected
