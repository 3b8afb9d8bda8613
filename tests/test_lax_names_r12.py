"""Round 12's small ``jax.lax`` names, against NumPy and finite differences (JAX 0.10.2's
values where NumPy has no twin are written inline, each checked by hand against its definition).
"""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax


def _fd_grad(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


# ------------------------------------------------------------------------------------------------
# stack / unstack


def test_stack_unstack_values_and_jaxpr():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(lax.stack([x, 2 * x], axis=1), np.stack([x, 2 * x], axis=1))
    np.testing.assert_array_equal(lax.stack([x, x], axis=-1), np.stack([x, x], axis=-1))
    pieces = lax.unstack(x, axis=1)
    assert isinstance(pieces, tuple) and len(pieces) == 3
    for got, want in zip(pieces, np.moveaxis(x, 1, 0)):
        np.testing.assert_array_equal(got, want)
    assert lax.unstack(np.ones((0, 3), np.float32)) == ()
    assert str(lax.stack([1.0, 2.0]).aval) == "~float32[2]"
    jaxpr = minijax.make_jaxpr(lambda a, b: lax.stack([a, b], 1))(x[0], x[1])
    assert "stack[axis=1]" in str(jaxpr)
    assert "unstack[axis=0]" in str(minijax.make_jaxpr(lax.unstack)(x))
    assert lax.stack_p.name == "stack" and lax.unstack_p.name == "unstack"


def test_stack_unstack_transforms():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    w = np.arange(3.0, dtype=np.float32)

    def f(a):  # reverses the rows through an unstack and a stack
        return (lax.stack(lax.unstack(a)[::-1], 0) * w).sum()

    np.testing.assert_allclose(minijax.grad(f)(x), np.broadcast_to(w, (2, 3)))

    def g(a):
        return (lax.stack([a, a * a], axis=1) * np.arange(2.0, dtype=np.float32)[:, None]).sum()

    np.testing.assert_allclose(minijax.jit(minijax.grad(g))(x), 2 * x, rtol=1e-6)
    np.testing.assert_allclose(minijax.grad(g)(x), _fd_grad(lambda v: (
        np.stack([v, v * v], 1) * np.arange(2.0)[:, None]).sum(), x), rtol=1e-3)
    got = minijax.vmap(lambda a, b: lax.stack([a, b], 0), (0, None))(x, w)
    np.testing.assert_array_equal(got, np.stack([x, np.broadcast_to(w, x.shape)], 1))
    got = minijax.vmap(lambda a: lax.stack([a, -a], 0), 1)(x)
    np.testing.assert_array_equal(got, np.stack([x.T, -x.T], 1))
    got = minijax.vmap(lambda a: lax.unstack(a, 0), 1)(x)
    for g_, want in zip(got, x):
        np.testing.assert_array_equal(g_, want)


def test_stack_unstack_errors():
    with pytest.raises(ValueError, match=r"All input arrays must have the same shape\. "
                                         r"Got \(2,\), \(3,\)\."):
        lax.stack([np.ones(2, np.float32), np.ones(3, np.float32)])
    with pytest.raises(TypeError, match="lax.stack requires arguments to have the same dtypes"):
        lax.stack([np.ones(2, np.float32), np.ones(2, np.int32)])
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 2"):
        lax.stack([np.ones(2, np.float32)], axis=3)
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 1"):
        lax.unstack(np.ones(2, np.float32), axis=2)
