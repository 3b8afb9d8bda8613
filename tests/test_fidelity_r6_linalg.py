"""Linear algebra and cumulative reductions beside non-finite values, against values recorded
from JAX 0.10.2."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax

inf, nan = np.inf, np.nan
SWAP = np.array([[0., 1.], [1., 0.]], np.float32)


def test_solve_keeps_nonfinite_rows_apart():
    # LU's row permutation is an indexing in JAX, so an inf in b stays in its own row.
    # JAX 0.10.2: solve(eye(2), [1, inf]) = [nan, inf]; with rows swapped every row is NaN.
    np.testing.assert_array_equal(
        np.asarray(jnp.linalg.solve(jnp.eye(2), jnp.array([1., inf]))), [nan, inf])
    np.testing.assert_array_equal(
        np.asarray(jnp.linalg.solve(jnp.asarray(SWAP), jnp.array([1., inf]))), [nan, nan])


def test_solve_batched_and_vmapped_permutation():
    # JAX 0.10.2: both rows [[nan, nan], [nan, nan]] for (swap, [1, inf]) and (eye, [inf, 2]);
    # with finite right sides the two layouts agree with NumPy.
    a = jnp.stack([jnp.asarray(SWAP), jnp.eye(2)])
    b = jnp.array([[1., inf], [inf, 2.]])
    want = np.full((2, 2), nan, np.float32)
    np.testing.assert_array_equal(np.asarray(minijax.vmap(jnp.linalg.solve)(a, b)), want)
    np.testing.assert_array_equal(np.asarray(jnp.linalg.solve(a, b[..., None])[..., 0]), want)
    bf = jnp.array([[1., 3.], [4., 2.]])
    np.testing.assert_allclose(np.asarray(minijax.vmap(jnp.linalg.solve)(a, bf)),
                               [[3., 1.], [4., 2.]])
    np.testing.assert_allclose(np.asarray(jnp.linalg.solve(a, bf[..., None])[..., 0]),
                               [[3., 1.], [4., 2.]])


def test_solve_derivatives_beside_inf():
    # JAX 0.10.2: grad wrt b of solve(swap, b)[0] at [1, inf] is [0, 1]; the vjp with
    # cotangent [inf, 1] is [nan, nan]; the jvp in a with da = inf at (0, 0) is [nan, -inf].
    a = jnp.asarray(SWAP)
    g = minijax.grad(lambda b: jnp.linalg.solve(a, b)[0])(jnp.array([1., inf]))
    np.testing.assert_array_equal(np.asarray(g), [0., 1.])
    _, vjp = minijax.vjp(lambda b: jnp.linalg.solve(a, b), jnp.array([1., 2.]))
    np.testing.assert_array_equal(np.asarray(vjp(jnp.array([inf, 1.]))[0]), [nan, nan])
    da = jnp.array([[inf, 0.], [0., 0.]])
    x, dx = minijax.jvp(lambda a: jnp.linalg.solve(a, jnp.array([1., 2.])), (a,), (da,))
    np.testing.assert_array_equal(np.asarray(x), [2., 1.])
    np.testing.assert_array_equal(np.asarray(dx), [nan, -inf])


def test_lu_jvp_permutes_tangent_rows_by_indexing():
    # JAX 0.10.2: the lu factor's tangent at the row swap with da = inf at (0, 0) is
    # [[nan, 0], [nan, nan]] (a permutation matmul made it all NaN).
    da = jnp.array([[inf, 0.], [0., 0.]])
    lu, dlu = minijax.jvp(lambda a: lax.linalg.lu(a)[0], (jnp.asarray(SWAP),), (da,))
    np.testing.assert_array_equal(np.asarray(lu), np.eye(2))
    np.testing.assert_array_equal(np.asarray(dlu), [[nan, 0.], [nan, nan]])


def test_cumlogsumexp_jvp_primal_is_the_scans():
    # s6030-249: over a size-1 axis the scan's primal is the input; the primitive's own
    # (-inf + x with x = +-3.4e38 + 0j) is NaN. JAX 0.10.2: [[-3.4e38, 3.4e38, 1]].
    x = jnp.array([[-3.4e38 + 0j, 3.4e38 + 0j, 1 + 0j]], jnp.complex64)
    out, _ = minijax.vjp(lambda x: lax.cumlogsumexp(x, axis=0), x)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(x))


def test_cumlogsumexp_jvp_beside_infinities():
    # JAX 0.10.2 (real): primal [[-3.4e38, 3.4e38, 3.4e38], [-inf, inf, inf]], tangent
    # [[1, 1, 1], [1, 1, 8.389056]] forward; reversed over axis 0 the primal is
    # [[-3.4e38, inf, 2.3132617], [-inf, inf, 2]], the tangent [[1, inf, .99999994], [1, 1, 1]].
    x = jnp.array([[-3.4e38, 3.4e38, 1.], [-inf, inf, 2.]], jnp.float32)
    y, t = minijax.jvp(lambda x: lax.cumlogsumexp(x, axis=1), (x,), (jnp.ones_like(x),))
    np.testing.assert_array_equal(np.asarray(y), np.float32([[-3.4e38, 3.4e38, 3.4e38],
                                                             [-inf, inf, inf]]))
    np.testing.assert_allclose(np.asarray(t), [[1, 1, 1], [1, 1, 8.389056]], rtol=1e-6)
    y, t = minijax.jvp(lambda x: lax.cumlogsumexp(x, axis=0, reverse=True), (x,),
                       (jnp.ones_like(x),))
    np.testing.assert_allclose(np.asarray(y), np.float32([[-3.4e38, inf, 2.3132617],
                                                          [-inf, inf, 2.]]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(t), [[1, inf, .99999994], [1, 1, 1]], rtol=1e-6)
