"""Cases of the oracle run of seeds 12000-12059 (helper E's share) where minijax differed from
JAX 0.10.2, each against JAX 0.10.2's recorded behaviour (the snippet that showed it is in each
test)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp


def test_complex_scatter_min_max_order_lexicographically():
    # s12053-0. lax.min/max order complex numbers by real part, then imaginary part; the
    # combining scatters too. JAX 0.10.2:
    # x = jnp.array([1, 1, 2+2j, 2-1j, -1+3j], jnp.complex64); i = jnp.array([0, 2, 3, 4, 4])
    # u = jnp.array([5j, 2, 2, -1+2j, -1+4j], jnp.complex64)
    # x.at[i].min(u) -> [5j, 1, 2, 2-1j, -1+2j]; x.at[i].max(u) -> [1, 1, 2+2j, 2, -1+4j]
    x = jnp.array([1, 1, 2 + 2j, 2 - 1j, -1 + 3j], jnp.complex64)
    i = jnp.array([0, 2, 3, 4, 4])
    u = jnp.array([5j, 2, 2, -1 + 2j, -1 + 4j], jnp.complex64)
    want_min = [5j, 1, 2, 2 - 1j, -1 + 2j]
    np.testing.assert_array_equal(x.at[i].min(u), np.array(want_min, np.complex64))
    np.testing.assert_array_equal(minijax.jit(lambda x, u: x.at[i].min(u))(x, u),
                                  np.array(want_min, np.complex64))
    np.testing.assert_array_equal(x.at[i].max(u), np.array([1, 1, 2 + 2j, 2, -1 + 4j],
                                                           np.complex64))
    # the update wins at index 2, so the operand's cotangent there is 0:
    # jax.vjp(lambda x: x.at[jnp.array([0, 2])].min(jnp.array([0, 2]), mode='drop'),
    #         jnp.array([1, 1, 2+2j], jnp.complex64)) -> out [0, 1, 2]; pullback([.5, 1, 1.5])
    #         -> [0, 1, 0]
    out, pullback = minijax.vjp(
        lambda x: x.at[jnp.array([0, 2])].min(jnp.array([0, 2]), mode="drop"),
        jnp.array([1, 1, 2 + 2j], jnp.complex64))
    np.testing.assert_array_equal(out, np.array([0, 1, 2], np.complex64))
    (ct,) = pullback(jnp.array([0.5, 1, 1.5], jnp.complex64))
    np.testing.assert_array_equal(ct, np.array([0, 1, 0], np.complex64))


def test_symmetrize_broadcasts_a_row_or_column_as_jax():
    # s12037-112. JAX's lax.linalg.eigh/cholesky symmetrize with jnp's operators,
    # (x + _H(x)) / 2, before any shape check: a (..., 1, n) or (..., n, 1) operand broadcasts
    # to (..., n, n), and integers/bools divide into float32. JAX 0.10.2:
    # jnp.linalg.eigvalsh(jnp.array([[-1.5, 3.0]])) -> [-1.6217083, 3.1217082]
    # jax.vmap(jnp.linalg.eigvalsh)(jnp.arange(6.).reshape(2, 1, 3))
    #     -> [[-0.4364916, 3.385212e-07, 3.4364905], [-0.12372433, -2.7603718e-07, 12.123724]]
    # jax.grad(lambda x: (jnp.linalg.eigvalsh(x) * jnp.array([1., 2.])).sum())(
    #     jnp.array([[-1.5, 3.0]])) -> [[1.1837723, 2.1324556]]
    # jax.lax.linalg.eigh(jnp.array([[1, 2]], jnp.int32))[1] -> float32 [-0.08113885, 3.081139]
    # jax.lax.linalg.eigh(jnp.array([[True, True]]))[1] -> [0., 1.]   (True + True is True)
    # jnp.linalg.cholesky(jnp.array([[4.0], [1.0]])) -> [[nan, 0], [nan, nan]]
    # jnp.linalg.eigvalsh(jnp.ones((2, 3)))
    #     -> TypeError: add got incompatible shapes for broadcasting: (2, 3), (3, 2).
    # jnp.linalg.eigh(jnp.ones((1, 2)), symmetrize_input=False) -> ValueError: Argument to
    #     symmetric eigendecomposition must have shape [..., n, n], got shape (1, 2)
    row = jnp.array([[-1.5, 3.0]])
    np.testing.assert_allclose(jnp.linalg.eigvalsh(row), [-1.6217083, 3.1217082], rtol=1e-6)
    np.testing.assert_allclose(
        minijax.vmap(jnp.linalg.eigvalsh)(jnp.arange(6.0).reshape(2, 1, 3)),
        [[-0.4364916, 3.385212e-07, 3.4364905], [-0.12372433, -2.7603718e-07, 12.123724]],
        rtol=1e-5, atol=1e-5)
    grad = minijax.grad(lambda x: (jnp.linalg.eigvalsh(x) * jnp.array([1.0, 2.0])).sum())(row)
    np.testing.assert_allclose(grad, [[1.1837723, 2.1324556]], rtol=1e-5)
    w = minijax.lax.linalg.eigh(jnp.array([[1, 2]], jnp.int32))[1]
    assert w.dtype == np.float32
    np.testing.assert_allclose(w, [-0.08113885, 3.081139], rtol=1e-5)
    np.testing.assert_allclose(minijax.lax.linalg.eigh(jnp.array([[True, True]]))[1], [0, 1],
                               atol=1e-6)
    chol = jnp.linalg.cholesky(jnp.array([[4.0], [1.0]]))
    np.testing.assert_array_equal(chol, [[np.nan, 0], [np.nan, np.nan]])
    with pytest.raises(TypeError, match="add got incompatible shapes for broadcasting"):
        jnp.linalg.eigvalsh(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match=r"symmetric eigendecomposition must have shape "
                                         r"\[\.\.\., n, n\], got shape \(1, 2\)"):
        jnp.linalg.eigh(jnp.ones((1, 2)), symmetrize_input=False)


def test_vmap_gives_an_unbatched_operand_a_size1_batch_axis():
    # s12054-234. JAX's broadcast batcher gives an unbatched operand a size-1 batch axis and
    # lets the elementwise primitive broadcast it: XLA then sees div(x, broadcast(y)), which it
    # computes as x * (1 / y); 1 / -FLT_MAX is subnormal, flushed to 0, so M / M is 0 there
    # (and rem's JVP, -trunc(x / y), is 0). JAX 0.10.2, M = float32(-3.4028235e38):
    # y = jnp.array([M, 1, 2]); x = jnp.array([[M, 1, 2], [M, 3, -5]])
    # jax.vmap(lambda xr: xr / y)(x) -> [[0, 1, 1], [0, 3, -2.5]]
    # jax.vmap(jax.grad(lambda xr, y: jnp.sum(lax.rem(xr, y)), argnums=1), (0, None))(x, y)
    #     -> [[-0, -1, -1], [-0, -3, 2]]
    # jax.vmap(lambda xr, y: xr / y, (None, 0))(y, x) -> [[1, 1, 1], [1, 1/3, -0.4]]
    m = np.float32(-3.4028234663852886e38)
    y = jnp.array([m, 1, 2], jnp.float32)
    x = jnp.array([[m, 1, 2], [m, 3, -5]], jnp.float32)
    np.testing.assert_array_equal(minijax.vmap(lambda xr: xr / y)(x), [[0, 1, 1], [0, 3, -2.5]])
    grad = minijax.vmap(minijax.grad(lambda xr, y: jnp.sum(minijax.lax.rem(xr, y)), argnums=1),
                        (0, None))(x, y)
    np.testing.assert_array_equal(grad, [[0, -1, -1], [0, -3, 2]])
    np.testing.assert_allclose(minijax.vmap(lambda xr, y: xr / y, (None, 0))(y, x),
                               [[1, 1, 1], [1, 1 / 3, -0.4]], rtol=1e-7)
