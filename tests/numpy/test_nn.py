"""minijax.nn functions against NumPy references."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from minijax import nn
from tests.numpy._helpers import check
from tests.ops.op_db import array, shapes

F32 = np.float32
_erf = np.vectorize(math.erf)


def _softplus(x):
    return np.logaddexp(x, 0)


def _np_logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


ACTIVATIONS = [
    ("relu", nn.relu, lambda x: np.maximum(x, 0)),
    ("relu6", nn.relu6, lambda x: np.clip(x, 0, 6)),
    ("sigmoid", nn.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    ("silu", nn.silu, lambda x: x / (1 + np.exp(-x))),
    ("swish", nn.swish, lambda x: x / (1 + np.exp(-x))),
    ("softplus", nn.softplus, _softplus),
    ("log_sigmoid", nn.log_sigmoid, lambda x: -_softplus(-x)),
    ("gelu_tanh", nn.gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi)
                                                             * (x + 0.044715 * x**3)))),
    ("gelu_exact", lambda x: nn.gelu(x, approximate=False),
     lambda x: x * (1 + _erf(x / np.sqrt(2))) / 2),
    ("tanh", nn.tanh, np.tanh),
    ("elu", nn.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    ("leaky_relu", nn.leaky_relu, lambda x: np.where(x >= 0, x, 0.01 * x)),
    ("hard_tanh", nn.hard_tanh, lambda x: np.clip(x, -1, 1)),
]


@pytest.mark.parametrize("name,fn,ref", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
@given(st.data())
def test_activation(name, fn, ref, data):
    x = data.draw(array(data.draw(shapes(max_dims=3)), np.float32, -8, 8))
    expected = ref(x.astype(np.float64))
    check(fn(x), expected, F32, tol=(1e-5, 1e-6))
    check(minijax.jit(fn)(x), expected, F32, tol=(1e-5, 1e-6))


@given(st.data())
def test_softmax_family(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    x = data.draw(array(shape, np.float32, -50, 50)).astype(np.float64)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    sm = e / e.sum(axis=axis, keepdims=True)
    check(nn.softmax(x.astype(F32), axis=axis), sm, F32, tol=(1e-5, 1e-6))
    check(nn.log_softmax(x.astype(F32), axis=axis), np.log(sm), F32, tol=(1e-5, 1e-5))
    keepdims = data.draw(st.booleans())
    check(nn.logsumexp(x.astype(F32), axis=axis, keepdims=keepdims),
          _np_logsumexp(x, axis, keepdims), F32, tol=(1e-5, 1e-5))
    check(nn.logsumexp(x.astype(F32)), _np_logsumexp(x), F32, tol=(1e-5, 1e-5))


def test_stability_and_infinities():
    big = np.array([1000.0, 1000.0, -np.inf], F32)
    check(nn.softmax(big), np.array([0.5, 0.5, 0.0]), F32)
    check(nn.logsumexp(big), np.array(1000.0 + np.log(2.0)), F32)
    check(nn.logsumexp(np.full(3, -np.inf, F32)), np.array(-np.inf), F32)
    check(nn.log_softmax(big), np.array([-np.log(2), -np.log(2), -np.inf]), F32)
    check(nn.softplus(np.array([100.0, -100.0], F32)), np.array([100.0, 0.0]), F32)
    out, sign = nn.logsumexp(np.array([1.0, 2.0], F32), b=np.array([1.0, -1.0], F32),
                             return_sign=True)
    check(out, np.log(np.e**2 - np.e), F32), check(sign, np.array(-1.0), F32)
    assert np.isnan(np.asarray(nn.logsumexp(np.array([1.0, 2.0], F32),
                                            b=np.array([1.0, -1.0], F32))))


def test_softmax_derivative_keeps_row_sums_not_a_matrix_of_them():
    # d(e / s)/ds needs s**-2 of the (rows, 1) sums (JAX's rule), so reverse mode keeps no
    # second (rows, cols) array beside exp(x - max); and no select guards the max (it would
    # keep XLA from fusing the softmax on a GPU). The selects of max(-inf, .)'s JVP are there,
    # as in JAX 0.10.2's jaxpr, but their tangent dies at stop_gradient (XLA drops them).
    x, g = np.ones((4, 8), np.float32), np.ones((4, 8), np.float32)
    jaxpr = str(minijax.make_jaxpr(lambda x, g: minijax.vjp(nn.softmax, x)[1](g))(x, g))
    assert "f32[4,1] = integer_pow[y=-2]" in jaxpr
    assert "is_finite" not in jaxpr
    # the forward pass's select_n never reaches the derivative: a plain sub feeds the exp
    assert "= sub a " in jaxpr and "select_n" not in jaxpr.split("= sub a ")[1]


def test_one_hot_and_standardize():
    labels = np.array([0, 2, 1, 5])
    check(nn.one_hot(labels, 3), np.eye(3, dtype=F32)[[0, 2, 1]].tolist() + [[0, 0, 0]], F32)
    check(nn.one_hot(labels[:3], 3, axis=0), np.eye(3, dtype=F32)[[0, 2, 1]].T, F32)
    check(nn.one_hot(np.array([[1], [0]]), 2, dtype=jnp.int32),
          np.array([[[0, 1]], [[1, 0]]], np.int32))
    x = np.arange(12, dtype=F32).reshape(3, 4) ** 1.5
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    check(nn.standardize(x), (x - mean) / np.sqrt(var + 1e-5), F32, tol=(1e-4, 1e-4))
    check(nn.standardize(x, axis=0), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), F32,
          tol=(1e-4, 1e-4))


# ------------------------------------------------------------------------------------------------
# Derivatives at ties and kinks: the stable max-based formulas must not leak max's tie rule.


def test_softplus_and_logaddexp_grad_at_tie():
    # d/dx log(1 + e^x) = sigmoid(x) = 1/2 at 0; d/dx log(e^x + e^y) at x == y is 1/2 each.
    assert float(minijax.grad(nn.softplus)(0.0)) == 0.5
    assert float(minijax.grad(nn.log_sigmoid)(0.0)) == 0.5
    gx, gy = minijax.grad(jnp.logaddexp, (0, 1))(1.5, 1.5)
    assert (float(gx), float(gy)) == (0.5, 0.5)
    gx, gy = minijax.grad(jnp.logaddexp2, (0, 1))(-2.0, -2.0)
    np.testing.assert_allclose([float(gx), float(gy)], [0.5, 0.5], rtol=1e-6)
    # infinities: JAX's custom JVP values (exp(x - out) with +inf replaced by 0)
    gx, gy = minijax.grad(jnp.logaddexp, (0, 1))(np.inf, np.inf)
    assert (float(gx), float(gy)) == (1.0, 1.0)
    gx, gy = minijax.grad(jnp.logaddexp, (0, 1))(-np.inf, 1.0)
    assert (float(gx), float(gy)) == (0.0, 1.0)


def test_tie_points_check_grads():
    from minijax.test_util import check_grads

    tie = np.array([0.3, 0.3, -1.0], F32)
    check_grads(jnp.logaddexp, (np.float32(0.7), np.float32(0.7)), order=2, rtol=2e-2)
    check_grads(jnp.logaddexp, (tie, tie[::-1].copy()), order=1, rtol=2e-2)
    check_grads(nn.softplus, (np.zeros(3, F32),), order=2, rtol=2e-2)
    check_grads(nn.log_sigmoid, (np.zeros(3, F32),), order=1, rtol=2e-2)
    check_grads(lambda x: nn.logsumexp(x), (tie,), order=2, rtol=2e-2)
    check_grads(lambda x: nn.logsumexp(x, b=np.array([1.0, 2.0, 1.0], F32)), (tie,), order=1,
                rtol=2e-2)
    check_grads(lambda x: nn.log_softmax(x), (tie,), order=1, rtol=2e-2)
    check_grads(lambda x: nn.softmax(x), (tie,), order=1, rtol=2e-2)
    g = minijax.grad(lambda x: nn.logsumexp(x))(tie)
    e = np.exp(tie - tie.max())
    np.testing.assert_allclose(np.asarray(g), e / e.sum(), rtol=1e-6)


def test_kink_derivatives_match_jax():
    # JAX defines relu'(0) = 0 and relu6'(0) = relu6'(6) = 0 (custom JVPs), and writes
    # hard_tanh with `where` (derivative 1 at +-1); the max/min tie rule would give 1/2.
    x = np.array([-1.0, 0.0, 0.5, 6.0, 7.0], F32)
    d_relu = minijax.vmap(minijax.grad(nn.relu))(x)
    np.testing.assert_array_equal(np.asarray(d_relu), [0, 0, 1, 1, 1])
    d_relu6 = minijax.jit(minijax.vmap(minijax.grad(nn.relu6)))(x)
    np.testing.assert_array_equal(np.asarray(d_relu6), [0, 0, 1, 0, 0])
    d_tanh = minijax.vmap(minijax.grad(nn.hard_tanh))(np.array([-1.0, 1.0, 2.0], F32))
    np.testing.assert_array_equal(np.asarray(d_tanh), [1, 1, 0])
    assert float(minijax.grad(nn.hard_sigmoid)(-3.0)) == 0.0
    np.testing.assert_array_equal(np.asarray(nn.relu6(x)), np.clip(x, 0, 6))
