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
from tests.op_db import array, shapes

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
