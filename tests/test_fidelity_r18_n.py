"""Run 21000's s21025-444 (tools/difftest/triage_21000_n.md): ``grad(jnp.linalg.det)`` of a
1x1 matrix whose determinant is denormal was NaN in minijax (the derivative went through the
LU and divided by the determinant); JAX 0.10.2 gives 1.0. JAX computes det of sizes other
than 2 and 3 as ``sign * exp(logabsdet)`` with a custom JVP from the adjugate
(``_cofactor_solve``), finite on singular matrices. Expected outcomes were recorded from JAX
0.10.2 by tests/data/record_fidelity_r18_n.py over tests/data/fidelity_r18_n_cases.py.
"""
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import assert_equals_one

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r18_n_cases import describe, inputs, program  # noqa: E402

_RECORDS = jax_records.load("fidelity_r18_n_jax.json")
_JAX = _RECORDS[0]
_INPUTS = inputs(np)
_RUN = program(jax, jnp)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert list(_JAX["cases"]) == list(_INPUTS)


@pytest.mark.parametrize("name", list(_INPUTS))
def test_det_and_its_derivatives_as_jax(name):
    got = describe(_RUN(_INPUTS[name]), jax.tree_util.tree_leaves, np)
    assert_equals_one(got, [r["cases"][name] for r in _RECORDS])


def test_s21025_444_grad_of_a_denormal_determinant():
    x = np.array([[4.2e-45]], np.float32)
    value, grad = jax.value_and_grad(lambda a: jnp.linalg.det(a))(x)
    # under differentiation the value is the rule's (the entry itself), not the flushed 0.0
    assert value.dtype == np.float32 and value == np.float32(4.2e-45)
    np.testing.assert_array_equal(grad, np.ones((1, 1), np.float32))
