"""Array and tracer operators/methods (installed by minijax.numpy), repr and NumPy interop,
and a small MLP + softmax cross-entropy under jit against a NumPy implementation."""

import operator

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import nn
from tests.numpy._helpers import check

F32 = np.float32

BINARY_OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow, operator.eq, operator.ne, operator.lt, operator.le,
              operator.gt, operator.ge]
INT_OPS = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


def _np_pow(a, b):
    return np.power(a, b)


@pytest.mark.parametrize("op", BINARY_OPS, ids=lambda o: o.__name__)
def test_binary_operators_on_arrays_and_tracers(op):
    a = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -1.0]], F32)
    b = np.array([2.0, 3.0, -1.5], F32)
    expected = op(a, b)
    check(op(jnp.asarray(a), jnp.asarray(b)), expected)
    check(op(jnp.asarray(a), b), expected)  # NumPy operand on the right
    check(op(a[0, 0], jnp.asarray(b)), op(a[0, 0], b))  # reflected, NumPy scalar on the left
    check(minijax.jit(op)(a, b), expected)
    check(op(jnp.asarray(a), 2.0), op(a, F32(2.0)))
    check(op(2.0, jnp.asarray(b)), op(F32(2.0), b))


@pytest.mark.parametrize("op", INT_OPS, ids=lambda o: o.__name__)
def test_integer_operators(op):
    a = np.array([1, 6, -8, 255], np.int32)
    b = np.array([3, 1, 2, 4], np.int32)
    check(op(jnp.asarray(a), jnp.asarray(b)), op(a, b))
    check(minijax.jit(op)(a, b), op(a, b))
    check(op(jnp.asarray(a), 2), op(a, np.int32(2)))
    check(op(5, jnp.asarray(b)), op(np.int32(5), b))


def test_unary_operators_and_matmul():
    a = np.array([[1.5, -2.0], [3.0, 4.0]], F32)
    x = jnp.asarray(a)
    check(-x, -a), check(+x, +a), check(abs(x), abs(a))
    i = jnp.array([1, -2], jnp.int32)
    check(~i, ~np.array([1, -2], np.int32))
    check(x @ x, a @ a), check(a @ x, a @ a)
    check(minijax.jit(lambda u: -u @ u.T + abs(u))(a), -a @ a.T + abs(a))
    q, r = divmod(x, 1.5)
    check(q, a // F32(1.5)), check(r, a % F32(1.5))
    check(round(x), np.round(a))


def test_unsupported_operand_types():
    x = jnp.ones(2)
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x + [1, 2]
    assert (x == None) is False  # noqa: E711 - __eq__ defers, Python compares identity
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)


def test_methods_and_properties():
    a = np.arange(24, dtype=F32).reshape(2, 3, 4)
    x = jnp.asarray(a)
    check(x.T, a.T), check(x.mT, np.swapaxes(a, -1, -2))
    check(x.reshape(4, 6), a.reshape(4, 6)), check(x.reshape((6, -1)), a.reshape(6, -1))
    check(x.transpose(2, 0, 1), a.transpose(2, 0, 1)), check(x.transpose((1, 0, 2)),
                                                             a.transpose(1, 0, 2))
    check(x.transpose(), a.transpose())
    check(x.ravel(), a.ravel()), check(x.flatten(), a.flatten())
    check(x[:1].squeeze(), a[:1].squeeze()), check(x.swapaxes(0, 2), a.swapaxes(0, 2))
    check(x.astype(jnp.int8), a.astype(np.int8))
    check(x.clip(3, 10), a.clip(3, 10)), check((x / 7).round(2), (a / 7).round(2))
    check(x.sum(axis=(0, 2)), a.sum(axis=(0, 2)))
    check(x.conj(), a), check(x.real, a), check(x.imag, np.zeros_like(a))
    check(x[0].dot(x[1].T), a[0].dot(a[1].T))
    assert x.item(1) == 1.0 and x[1, 2, 3].item() == 23.0
    want = a.copy()
    want[1, 2, 3] = -1.0
    check(x.at[1, 2, 3].set(-1.0), want)  # indexed updates (deeper tests: test_advanced_indexing)


def test_methods_on_tracers():
    a = np.arange(12, dtype=F32).reshape(3, 4)

    def f(x):
        return (x.T.reshape(2, 6).sum(0) * x.mean() - x.max(), x.argmax(1), x.astype(jnp.int32)[1],
                x.cumsum(0)[-1], (x > 4).any(0), x.std(), x[::-1, 1:3].ravel())

    got = minijax.jit(f)(a)
    want = (a.T.reshape(2, 6).sum(0) * a.mean() - a.max(), a.argmax(1).astype(np.int32),
            a.astype(np.int32)[1], a.cumsum(0)[-1], (a > 4).any(0), a.std(),
            a[::-1, 1:3].ravel())
    for g, w in zip(got, want):
        check(g, w, tol=(1e-5, 1e-5))
    with pytest.raises(minijax.errors.ConcretizationTypeError):
        minijax.jit(lambda x: float(x.sum()))(a)


def test_repr_and_numpy_interop():
    x = jnp.array([1.0, 2.0])
    assert repr(x) == "Array([1., 2.], dtype=float32)"
    assert repr(jnp.array([1, 2], jnp.int8)) == "Array([1, 2], dtype=int8)"
    assert repr(jnp.array(1.5)) == "Array(1.5, dtype=float32, weak_type=True)"
    host = np.asarray(x)
    assert isinstance(host, np.ndarray) and host.dtype == F32
    np.testing.assert_array_equal(host, [1.0, 2.0])
    assert x.tolist() == [1.0, 2.0] and float(x[1]) == 2.0 and int(jnp.array(3)) == 3
    assert np.add(np.ones(2, F32), x).dtype == F32


def test_mlp_cross_entropy_under_jit():
    rng = np.random.default_rng(0)
    sizes = [8, 16, 16, 4]
    params = [(rng.normal(size=(m, n)).astype(F32) / np.sqrt(m), rng.normal(size=n).astype(F32))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = rng.normal(size=(32, 8)).astype(F32)
    labels = rng.integers(0, 4, size=32)

    def loss(params, x, labels):
        h = x
        for w, b in params[:-1]:
            h = nn.relu(h @ w + b)
        w, b = params[-1]
        logits = h @ w + b
        logp = nn.log_softmax(logits)
        return -jnp.mean(jnp.sum(nn.one_hot(labels, 4) * logp, axis=-1))

    def np_loss(params, x, labels):
        h = x.astype(np.float64)
        for w, b in params[:-1]:
            h = np.maximum(h @ w + b, 0)
        w, b = params[-1]
        logits = h @ w + b
        logits = logits - logits.max(-1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        return -logp[np.arange(len(labels)), labels].mean()

    # XLA on NVIDIA GPUs runs float32 dots on TF32 tensor cores at DEFAULT precision (as JAX).
    tol = (1e-3, 1e-3) if minijax.default_backend() == "gpu" else (1e-5, 1e-5)
    got = minijax.jit(loss)(params, x, labels.astype(np.int32))
    check(got, np.array(np_loss(params, x, labels)), F32, tol=tol)
    check(loss(params, x, labels.astype(np.int32)), np.array(np_loss(params, x, labels)), F32,
          tol=tol)
