"""Weak types of derivatives at Python-scalar inputs, against JAX 0.10.2's recorded table.

tests/data/record_weak_derivatives.py recorded, under real JAX, the dtype and weak_type of
grad, jvp's tangent and vjp's cotangents of each differentiable jnp/lax/nn function at Python
floats (and at one Python float beside a float32 array); this replays the same expressions on
minijax. A rule that makes a strong constant where JAX's keeps the operand's weak type (or
the reverse) shows here as one row.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import minijax

DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from record_weak_derivatives import table  # noqa: E402

RECORDED = json.loads((DATA / "weak_derivatives_jax.json").read_text())


def test_recorded_with_jax_0_10_2():
    assert RECORDED["jax_version"] == "0.10.2"


def test_weak_types_of_derivatives_match_jax():
    expected = {tuple(r[:3]): r[3] for r in RECORDED["rows"]}
    got = {tuple(r[:3]): r[3] for r in table(minijax)}
    assert got.keys() == expected.keys()
    diffs = [(k, expected[k], got[k]) for k in expected if expected[k] != got[k]]
    assert not diffs, "\n".join(f"{k}: JAX {e}, minijax {g}" for k, e, g in diffs)


@pytest.mark.parametrize("expr, want_weak", [
    ("lax.max(x, 1e30)", True), ("jnp.abs(x)", True), ("nn.relu(x)", True),
    ("x ** 2.5", False), ("nn.logsumexp(x)", False), ("nn.gelu(x)", True),
])
def test_grad_weak_type_spot_checks(expr, want_weak):
    env = {"jnp": minijax.numpy, "lax": minijax.lax, "nn": minijax.nn}
    g = minijax.grad(eval("lambda x: " + expr, env))(0.92)
    assert (g.dtype, g.weak_type) == (minijax.numpy.float32, want_weak)


X1 = minijax.numpy.array([1.0, 2.0, 3.0])


# JAX 0.10.2 (tools/difftest/triage_13000_n.md): every one of these is weakly typed float32.
@pytest.mark.parametrize("name, fn", [
    ("jacfwd of a dict of deg2rad and the input (s13027-160)",
     lambda x: minijax.jacfwd(lambda x: {"a": minijax.numpy.deg2rad(x), "b": x})(x)["b"]),
    ("jacfwd of the identity", lambda x: minijax.jacfwd(lambda x: x)(x)),
    ("jacrev of the identity", lambda x: minijax.jacrev(lambda x: x)(x)),
    ("jacrev of abs (s13040-188)", lambda x: minijax.jacrev(minijax.numpy.abs)(x)),
    ("grad of .at[1:].max (s13048-124)",
     lambda x: minijax.grad(lambda x: minijax.numpy.sum(X1.at[1:].max(x)))(x)),
    ("grad of .at[1:].set", lambda x: minijax.grad(lambda x: minijax.numpy.sum(X1.at[1:].set(x)))(x)),
    ("grad of .at[1].add", lambda x: minijax.grad(lambda x: minijax.numpy.sum(X1.at[1].add(x)))(x)),
])
def test_jacobians_and_scatter_updates_keep_a_python_scalars_weak_type(name, fn):
    g = fn(-1.15)
    assert (g.dtype, g.weak_type) == (minijax.numpy.float32, True), name


def test_triangular_solve_of_weak_operands_is_weak():
    # case s13016-105; JAX 0.10.2: weak_type True (its linalg primitives' standard weak-type
    # rule: weak when every operand is), value [[1.]]
    t = minijax.numpy.reshape(-0.1275, (1, -1))
    r = minijax.lax.linalg.triangular_solve(t, t, left_side=True, lower=True)
    assert r.weak_type
    np.testing.assert_allclose(r, [[1.0]])
    strong = minijax.numpy.float32(-0.1275).reshape(1, 1)
    assert not minijax.lax.linalg.triangular_solve(strong, t, left_side=True, lower=True).weak_type
