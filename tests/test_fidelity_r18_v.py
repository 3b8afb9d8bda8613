"""Weak types through linalg (tools/difftest/triage_22000_v.md, found by helper p in run 21000):
JAX 0.10.2's linalg primitives, dot_general and custom_linear_solve keep a weakly typed input
weak (all operands weak -> weak outputs, lu's int32 ones included), einsum converts its result
to the operands' weak type, the square 2-D main diagonal of jnp.diagonal is strong, and
jnp.linalg.diagonal/trace read the last two axes. Expected outcomes were recorded from JAX
0.10.2 by tests/data/record_fidelity_r18_v.py over tests/data/fidelity_r18_v_cases.py.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import assert_equals_one
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r18_v_cases import CASES, SETUP, describe  # noqa: E402

_RECORDS = jax_records.load("fidelity_r18_v_jax.json")
_JAX = _RECORDS[0]
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("i", range(len(CASES)))
def test_dtypes_weak_types_and_values_as_jax(i):
    got = json.loads(json.dumps(describe(eval(CASES[i], _ENV), jax.tree_util.tree_leaves,
                                         jax.typeof)))
    assert_equals_one(got, [r["cases"][i][1] for r in _RECORDS])


def test_gamma_grad_bit_for_bit_as_jax():
    # Recorded from JAX 0.10.2 (CPU, float32): jax.grad of sum(random.gamma(random.key(729), a))
    # (JAX's rule maps random_gamma_grad over the elements with lax.map on CPU) and a jitted
    # scalar random_gamma_grad, both through the continued fraction (x > max(a, 1)). minijax's
    # loop, the same arithmetic arranged otherwise, was two float32 ulps off at a = 1.5.
    a = jnp.array([0.3, 1.5, 4.0], jnp.float32)
    grad = jax.grad(lambda a: jnp.sum(jax.random.gamma(jax.random.key(729), a)))(a)
    np.testing.assert_array_equal(
        np.asarray(grad), np.array([1.9570139646530151, 1.1599888801574707, 1.1514579057693481],
                                   np.float32))
    x = np.float32(1.6220048666000366)  # the sample at a = 1.5
    jitted = jax.jit(lax.random_gamma_grad)(np.float32(1.5), x)
    assert np.asarray(jitted) == np.float32(1.1599886417388916)
