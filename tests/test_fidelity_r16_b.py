"""Run 19000's s19013-606 and s19029-272 (tools/difftest/triage_19000_b.md).

b1: ``jnp.linalg.norm(x, keepdims=True)`` reshaped after the square root; JAX's reduction keeps
the axis before its convert back to bfloat16, and under jit XLA then drops the bf16 round trip
around the root (3.4095454, no bfloat16). The matrix norms also take JAX's ``initial=0`` (empty
matrices give 0) and its p-norm exponent arrays (``lax.pow``).
b2: ``nn.gelu`` bound lax primitives; JAX's formula uses jnp's jitted ufuncs, so an eager JVP
runs each one's derivative (tanh's) as one fused program, which rounds differently.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r16_b.py over the
cases in tests/data/fidelity_r16_b_cases.py.
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
from fidelity_r16_b_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r16_b_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_dtypes_weak_types_and_exact_values_as_jax(src, expected):
    assert describe(eval(src, _ENV), jax.tree_util.tree_leaves) == expected


def test_matrix_norm_error_as_jax():
    with pytest.raises(ValueError, match=r"^Invalid order '3' for matrix norm\.$"):
        jnp.linalg.norm(np.ones((2, 2), np.float32), ord=3)
