"""Run 18000, helper Y. Expected values were printed by JAX 0.10.2
(tests/data/record_fidelity_r15_y.py)."""

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

nan = np.nan


# s18004-114: cholesky's JVP masks L with tril as JAX does, so a second derivative beside an
# inf entry keeps the finite rows (minijax's upper-triangle NaNs spread everywhere).
def test_cholesky_hessian_beside_inf():
    a = np.array([[np.inf, 1.0], [-0.0, 1.5]], np.float32)
    h = jax.hessian(lambda x: jnp.sum(jnp.linalg.cholesky(x)))(a)
    expected = [[nan] * 4, [nan] * 4, [nan] * 4, [0.0, 0.0, 0.0, -0.1360827535390854]]
    np.testing.assert_allclose(np.asarray(h).reshape(4, 4), expected, rtol=1e-6)


# The finite case still matches central differences of the gradient.
def test_cholesky_hessian_vector_product_fd():
    a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float64)
    v = np.array([[0.3, -0.2], [0.5, 0.1]], np.float64)
    w = np.array([[1.0, 0.0], [0.7, 1.3]])
    with jax.enable_x64(True):
        g = jax.grad(lambda x: jnp.sum(jnp.linalg.cholesky(x) * w))
        hv = np.tensordot(np.asarray(jax.hessian(
            lambda x: jnp.sum(jnp.linalg.cholesky(x) * w))(a)), v, axes=2)
        eps = 1e-5
        fd = (np.asarray(g(a + eps * v)) - np.asarray(g(a - eps * v))) / (2 * eps)
    np.testing.assert_allclose(hv, fd, rtol=1e-6, atol=1e-8)


# s18013-99: the transposed scan sums a const's cotangent into its accumulator with add_any,
# as JAX, so a weak const keeps a weak cotangent under a strong carry cotangent.
@pytest.mark.parametrize("body,y,expected", [
    (lambda y: lambda c, _: (lax.max(c, y), None), -1.58, [(1.0, False), (0.0, True)]),
    (lambda y: lambda c, _: (c * y, None), 0.75,
     [(0.5625, False), (-0.13319998979568481, True)]),
])
def test_scan_const_cotangent_stays_weak(body, y, expected):
    f = lambda c, y: lax.scan(body(y), c, None, length=2)[0]
    cts = jax.vjp(f, -0.0888, y)[1](np.float32(1.0))
    for ct, (value, weak) in zip(cts, expected):
        assert ct.dtype == np.float32
        assert jax.core.get_aval(ct).weak_type == weak
        np.testing.assert_allclose(np.asarray(ct), value, rtol=1e-6)
