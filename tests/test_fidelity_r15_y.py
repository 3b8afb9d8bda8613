"""Run 18000, helper Y. Expected values were printed by JAX 0.10.2
(tests/data/record_fidelity_r15_y.py)."""

import numpy as np

import minijax as jax
import minijax.numpy as jnp

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
