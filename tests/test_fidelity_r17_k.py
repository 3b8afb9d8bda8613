"""Run 20000's s20024-151 and s20026-367 (tools/difftest/triage_20000_k.md).

s20024-151: ``jit`` passed closed-over non-scalar NumPy constants to its executable as
arguments; JAX 0.10.2 bakes every constant into the module, and XLA simplifies the program
around them, so ``jit(grad(grad(x / x)))`` with NumPy weights rounded differently.
s20026-367: ``Array.__index__`` accepted a bool (and a one-element) array, so ``x **
jnp.asarray(False)`` became ``integer_pow[y=0]`` (gradient 0 at x = 0); in JAX a bool is no
index, the power is ``lax.pow`` and its gradient at 0 is NaN. Expected outcomes were recorded
from JAX 0.10.2 by tests/data/record_fidelity_r17_k.py over tests/data/fidelity_r17_k_cases.py.
"""
import json
import operator
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r17_k_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r17_k_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "operator": operator}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcomes_as_jax(src, expected):
    assert json.loads(json.dumps(describe(eval(src, _ENV)))) == expected


def test_jit_bakes_non_scalar_numpy_constants():
    text = jax.jit(lambda x: x * _ENV["W"]).lower(_ENV["X"]).as_text()
    assert "%arg1" not in text  # main's only parameter is x
    assert "stablehlo.constant dense<[5.000000e-01, 0.833333313, 1.16666663" in text
