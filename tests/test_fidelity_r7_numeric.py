"""Derivatives beside inf/NaN/3.4e38 that differed from JAX (FINDINGS 121's cases), each against
values recorded from JAX 0.10.2 (the snippet that made each is in its test)."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax

nan, inf = np.nan, np.inf


def test_cumlogsumexp_second_derivative_beside_inf():
    # s5033-141. JAX's scan combines with logaddexp's custom JVP, so differentiated again the
    # derivative of an infinite entry is 1, not exp(inf)/exp(inf) = NaN:
    # jax.jacrev(jax.grad(f))(x).reshape(9, 9) with f below, JAX 0.10.2
    x = jnp.array([[1.0, -0.0, 1.0], [1.0, 1.0, 0.0], [1.0, 1.0, inf]], jnp.float32)
    f = lambda x: lax.cumlogsumexp(x, axis=0, reverse=True).sum()
    a, b, c, d, e = 0.22222221, -0.1111111, 0.13122493, -0.06561247, 2.7182817
    p, q, r, s = 0.4722222, -0.3611111, 0.49396563, -0.4283532
    expected = np.zeros((9, 9), np.float32)
    expected[[0, 3, 6], 0] = a, b, b
    expected[[1, 4, 7], 1] = c, d, d
    expected[2, 2] = e
    expected[[0, 3, 6], 3] = b, p, q
    expected[[1, 4, 7], 4] = d, r, s
    expected[5, 5] = 2.0
    expected[[0, 3, 6], 6] = b, q, p
    expected[[1, 4, 7], 7] = d, s, r
    got = np.asarray(minijax.jacrev(minijax.grad(f))(x)).reshape(9, 9)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    fwd = np.asarray(minijax.jacfwd(minijax.grad(f))(x)).reshape(9, 9)
    np.testing.assert_allclose(fwd, expected, rtol=1e-5, atol=1e-6)


def test_cumlogsumexp_hessian_at_infinities_and_float_max():
    # jax.hessian(f)(x), jax.grad(f)(x), JAX 0.10.2: the row of 3.4e38 is NaN in JAX too
    x = jnp.array([-inf, 1.0, 3.4e38, inf], jnp.float32)
    f = lambda x: (lax.cumlogsumexp(x) * jnp.arange(1.0, 5.0)).sum()
    np.testing.assert_allclose(np.asarray(minijax.grad(f)(x)), [1.0, 12.873127, inf, 4.0],
                               rtol=1e-6)
    expected = np.zeros((4, 4), np.float32)
    expected[1, 1] = 10.873127
    expected[2] = nan
    np.testing.assert_allclose(np.asarray(minijax.hessian(f)(x)), expected, rtol=1e-6)


def test_scatter_mul_zero_operand_tangent_beside_nan_update():
    # s5040-282. JAX's scatter_mul JVP skips a zero operand tangent, so differentiating the
    # gradient with respect to the updates does not meet 0 * NaN:
    # jax.jacfwd(jax.grad(f, argnums=(0, 1)), argnums=(0, 1))(x0, x2), JAX 0.10.2
    x0 = jnp.array([[[0.5, 2.0, -1.0]]], jnp.float32)
    x2 = jnp.array([[nan, -0.69, inf]], jnp.float32)
    f = lambda x0, x2: (x0.at[-1].mul(x2) * jnp.arange(1.0, 4.0)).sum()
    (d00, d01), (d10, d11) = minijax.jacfwd(minijax.grad(f, argnums=(0, 1)),
                                            argnums=(0, 1))(x0, x2)
    zeros, diag = np.zeros((3, 3), np.float32), np.diag([1.0, 2.0, 3.0]).astype(np.float32)
    for got, expected in ((d00, zeros), (d01, diag), (d10, diag), (d11, zeros)):
        np.testing.assert_array_equal(np.asarray(got).reshape(3, 3), expected)
    t = minijax.jvp(lambda u: x0.at[-1].mul(u), (x2,), (jnp.ones_like(x2),))[1]
    np.testing.assert_array_equal(np.asarray(t), [[[0.5, 2.0, -1.0]]])


def _window_max(x, window, strides, padding, base_dilation=None):
    return lax.reduce_window(x, -jnp.inf, lax.max, window, strides, padding, base_dilation)


def _weighted_grad(x, *args, sign=1.0):
    """grad of sum(w * reduce_window max (or min of -x)) with w = 1, 2, ... per output."""
    x = jnp.array(x, jnp.float32) * sign

    def f(v):
        if sign > 0:
            out = _window_max(v, *args)
        else:
            out = lax.reduce_window(v, jnp.inf, lax.min, *args)
        return (out * (1.0 + jnp.arange(out.size, dtype=jnp.float32).reshape(out.shape))).sum()

    return np.asarray(minijax.grad(f)(x))


def test_reduce_window_max_min_vjp_is_select_and_scatter_add():
    # s5015-57. JAX's VJP is select_and_scatter_add: each window's cotangent goes to its FIRST
    # element when nothing beats it (a window of only -inf), padding and base-dilation holes
    # being elements too (a cotangent chosen there is dropped). Each expected value is
    # jax.grad(f)(x) of _weighted_grad's f, JAX 0.10.2.
    cases = [
        (([-inf, -inf, 1.0, 2.0], (2,), (2,), "VALID"), [1.0, 0.0, 0.0, 2.0]),
        (([-inf, -inf, -inf, 2.0], (2,), (1,), "SAME"), [1.0, 2.0, 0.0, 7.0]),
        (([-inf, -inf, -inf], (2,), (1,), [(1, 1)]), [2.0, 3.0, 4.0]),
        (([-inf, 3.0, -inf], (3,), (1,), [(2, 2)]), [0.0, 9.0, 5.0]),
        (([-inf, -inf, 1.0], (2,), (1,), [(0, 0)], (2,)), [1.0, 3.0, 4.0]),
        (([-inf, -inf, 1.0], (3,), (1,), [(1, 1)], (2,)), [2.0, 0.0, 9.0]),
        (([-inf, 1.0, -inf, -inf], (2,), (1,), "VALID"), [0.0, 3.0, 3.0, 0.0]),
        (([nan, 1.0, 2.0, nan, -inf, 5.0], (2,), (2,), "VALID"),
         [0.0, 1.0, 0.0, 2.0, 0.0, 3.0]),
    ]
    for args, expected in cases:
        np.testing.assert_array_equal(_weighted_grad(*args), expected, err_msg=str(args))
        np.testing.assert_array_equal(_weighted_grad(*args, sign=-1.0), expected,
                                      err_msg=f"min {args}")
    x = jnp.array([[-inf, -inf, 3.0], [-inf, 1.0, -inf], [2.0, -inf, -inf]], jnp.float32)
    np.testing.assert_array_equal(_weighted_grad(x, (2, 2), (1, 1), "SAME"),
                                  [[0.0, 0.0, 5.0], [0.0, 6.0, 6.0], [11.0, 8.0, 9.0]])
    # jax.vmap(jax.grad(lambda v: _window_max(v, (2,), (1,), 'SAME').sum()))(x)
    got = minijax.vmap(minijax.grad(lambda v: _window_max(v, (2,), (1,), "SAME").sum()))(x)
    np.testing.assert_array_equal(np.asarray(got), [[1.0, 0.0, 2.0], [0.0, 2.0, 1.0],
                                                    [1.0, 1.0, 1.0]])
    # jax.jacrev(lambda v: _window_max(v, (2,), (1,), 'SAME'))(jnp.array([-inf, -inf, 3.]))
    got = minijax.jacrev(lambda v: _window_max(v, (2,), (1,), "SAME"))(
        jnp.array([-inf, -inf, 3.0], jnp.float32))
    np.testing.assert_array_equal(np.asarray(got), [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0],
                                                    [0.0, 0.0, 1.0]])
    # the JVP is still select_and_gather_add's (a window of only -inf has tangent 0):
    # jax.jvp(lambda v: _window_max(v, (2,), (2,), 'VALID'), (x,), (t,)) for x = [-inf,
    # -inf, 1, 2], t = [1, 2, 3, 4] gives [0, 4]
    t = minijax.jvp(lambda v: _window_max(v, (2,), (2,), "VALID"),
                    (jnp.array([-inf, -inf, 1.0, 2.0], jnp.float32),),
                    (jnp.array([1.0, 2.0, 3.0, 4.0], jnp.float32),))[1]
    np.testing.assert_array_equal(np.asarray(t), [0.0, 4.0])
