"""Run 21000's s21031-348 (tools/difftest/triage_21000_r.md): the gradient of ``jnp.median``
under a sharded ``jit(vmap(grad))`` came out replicated where JAX 0.10.2 keeps the operand's
split (``P(None, 'd')``). minijax's quantile was its own algorithm (NaN check after the sort,
order statistics picked element by element); it is now JAX's ``_quantile`` step by step, so
the program Shardy propagates through, the arithmetic (q's dtype, ``nearest`` ties) and the
errors are JAX's. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r18_r.py over tests/data/fidelity_r18_r_cases.py.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r18_r_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_r_jax.json").read_text())

pytestmark = pytest.mark.devices(4)


@pytest.fixture(scope="module")
def env():
    env = {"jax": jax, "jnp": jnp, "np": np}
    exec(SETUP, env)
    return env


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_quantile_as_jax(env, src, expected):
    try:
        got = describe(eval(src, env), jax.tree_util.tree_leaves)
    except Exception as e:
        got = ["error", type(e).__name__]
    assert json.loads(json.dumps(got)) == expected
