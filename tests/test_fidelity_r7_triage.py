"""Cases of the oracle run of seeds 7000-7059 where minijax differed from JAX 0.10.2, each
against values recorded from JAX 0.10.2 (the snippet that made each is in its test)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import nn


def test_softplus_and_leaky_relu_of_integers_are_weak():
    # s7006-229, s7012-172, s7043-64. JAX promotes an integer/bool input inside the op, beside
    # a Python scalar, so the float result is weak:
    # jax.nn.softplus(jnp.array([True, False])), jax.nn.leaky_relu(jnp.array([3, -4]), 0.2),
    # JAX 0.10.2: Array([1.3132617, 0.6931472], float32, weak_type=True),
    # Array([3., -0.8], float32, weak_type=True)
    b = jnp.array([True, False])
    i = jnp.array([3, -4], jnp.int32)
    for f, x, expected in [(nn.softplus, b, [1.3132617, 0.6931472]),
                           (lambda v: nn.leaky_relu(v, 0.2), i, [3.0, -0.8])]:
        for g in (f, minijax.vmap(f), minijax.jit(f)):
            got = g(x)
            assert got.dtype == np.float32 and got.weak_type
            np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)
    # a float or strong-integer path stays as in JAX: log_sigmoid(int32) is strong float32
    assert not nn.log_sigmoid(i).weak_type
    assert nn.softplus(jnp.array([1.0], jnp.float16)).dtype == np.float16


def test_scan_slice_of_weak_xs_is_weak():
    # s7019-127. JAX traces scan's body with the xs slices' own avals, weak ones included, so a
    # y passed on (or computed from it with Python scalars) stacks weak, and so does its jacobian:
    # t3 = jnp.where(jnp.array([True, False]), jnp.array([1, 1], jnp.uint8), -1.5)
    # lax.scan(lambda c, y: (c, y * 2), x, t3)[1], jax.jacfwd(...)(x), JAX 0.10.2:
    # Array([2., -3.], float32, weak_type=True), zeros (2, 3) float32 weak_type=True
    t3 = jnp.where(jnp.array([True, False]), jnp.array([1, 1], jnp.uint8), -1.5)
    x = jnp.ones((3,), jnp.float32)
    f = lambda x: minijax.lax.scan(lambda c, y: (c, y * 2), x, t3)[1]
    ys = f(x)
    assert ys.weak_type
    np.testing.assert_array_equal(np.asarray(ys), [2.0, -3.0])
    jac = minijax.jacfwd(minijax.jit(f))(x)
    assert jac.shape == (2, 3) and jac.weak_type
    # the carry is unaffected: a strong init stays strong
    assert not minijax.lax.scan(lambda c, y: (c + y, y), x[0], t3)[0].weak_type


def test_slogdet_custom_jvp_and_small_sign():
    # s7014-32, s7013-259, s7042-142. JAX 0.10.2 differentiates slogdet with a custom rule
    # (d logabsdet = trace(solve(a, da)), the sign's derivative zero for real matrices) and
    # takes a 1x1/2x2 sign as jnp.sign of the closed-form determinant. JAX 0.10.2:
    # jax.jacrev(jax.jit(jnp.linalg.slogdet))(x1): sign block all NaN, logabsdet block NaN but
    # inf at [1, 2]; jnp.linalg.slogdet(c).sign nan+nanj, logabsdet inf;
    # jax.jvp(jnp.linalg.slogdet, (a,), (ones,)) and jax.grad(logabsdet)(b) as below
    inf, nan = np.inf, np.nan
    x1 = jnp.array([[-0.05, inf, 0.38], [4.2e-45, -0.0, 4.2e-45], [-3.4e38, 0.5, -0.13]],
                   jnp.float32)
    sign_j, logdet_j = minijax.jacrev(minijax.jit(jnp.linalg.slogdet))(x1)
    assert np.isnan(np.asarray(sign_j)).all()
    expected = np.full((3, 3), nan, np.float32)
    expected[1, 2] = inf
    np.testing.assert_array_equal(np.asarray(logdet_j), expected)
    c = jnp.array([[-3.4e38 + 0j, -inf + 0j], [-0.59 - 0.57j, -0.0 + 0j]], jnp.complex64)
    sign, logdet = jnp.linalg.slogdet(c)
    assert np.isnan(complex(sign).real) and np.isnan(complex(sign).imag) and float(logdet) == inf
    a = jnp.array([[1.0 + 1j, 2.0], [0.5j, -1.0]], jnp.complex64)
    (s, l), (ds, dl) = minijax.jvp(jnp.linalg.slogdet, (a,), (jnp.ones_like(a),))
    np.testing.assert_allclose(complex(s), -0.4472136 - 0.8944272j, rtol=1e-6)
    np.testing.assert_allclose(float(l), 0.804719, rtol=1e-6)
    np.testing.assert_allclose(complex(ds), -0.80498445 + 0.40249223j, rtol=1e-5)
    np.testing.assert_allclose(float(dl), 0.2, rtol=1e-5)
    b = jnp.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], jnp.float32)
    np.testing.assert_allclose(
        np.asarray(minijax.grad(lambda b: jnp.linalg.slogdet(b)[1])(b)),
        [[0.6111111, -0.22222222, 0.05555556], [-0.22222222, 0.44444445, -0.11111112],
         [0.05555556, -0.11111112, 0.2777778]], rtol=1e-5)


def test_jacobian_basis_converted_before_reshape():
    # s7041-31 and 7 more. JAX's basis is jnp.eye in the inputs' common dtype, reshaped per
    # leaf: XLA folds `convert(eq(iota, iota)) * d` to a select only when no reshape sits
    # between, so for a non-vector leaf JAX's off-diagonal 0 * NaN stays NaN. JAX 0.10.2:
    # jax.jit(jax.jacrev(jnp.arcsin))(x).ravel() for x (3, 1), and for x.ravel() (3,)
    nan = np.nan
    x = jnp.array([[-0.078], [np.inf], [0.5]], jnp.float32)
    got = np.asarray(minijax.jit(minijax.jacrev(jnp.arcsin))(x)).ravel()
    np.testing.assert_allclose(got, [1.0030559, nan, 0, 0, nan, 0, 0, nan, 1.1547005],
                               rtol=1e-6)
    got = np.asarray(minijax.jit(minijax.jacrev(jnp.arcsin))(x.ravel())).ravel()
    np.testing.assert_allclose(got, [1.0030559, 0, 0, 0, nan, 0, 0, 0, 1.1547005], rtol=1e-6)
    # leaves of two dtypes share a float32 basis, each block in its leaf's dtype:
    # jax.jit(jax.jacfwd(lambda a, b: a.sum() * jnp.arcsin(b), argnums=(0, 1)))(h, x)
    h = jnp.array([1.0, 2.0], jnp.float16)
    da, db = minijax.jit(minijax.jacfwd(lambda a, b: a.sum() * jnp.arcsin(b),
                                        argnums=(0, 1)))(h, x)
    assert da.dtype == np.float32 and db.dtype == np.float32
    np.testing.assert_allclose(np.asarray(da).ravel(), [-0.0780792, -0.0780792, nan, nan,
                                                        0.5235988, 0.5235988], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(db).ravel(), [3.0091677, 0, 0, nan, nan, nan, 0, 0,
                                                        3.4641016], rtol=1e-5)


def test_prod_over_empty_axis_has_materialized_zero_tangent():
    # s7058-168. JAX's reduce_prod JVP (a product tree of no factors) returns materialized
    # zeros, so a later sqrt at 0 gives 0 / 0 = NaN where a symbolic zero would skip it:
    # jax.jvp(lambda x: jnp.std(jnp.prod(x, axis=-1)), (x,), (t,)) with x, t zeros (2, 0),
    # JAX 0.10.2: (0., nan); the prod's own jvp (ones(2), zeros(2))
    x = t = jnp.zeros((2, 0), jnp.float32)
    p, dp = minijax.jvp(lambda x: jnp.prod(x, axis=-1), (x,), (t,))
    np.testing.assert_array_equal(np.asarray(p), [1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(dp), [0.0, 0.0])
    s, ds = minijax.jvp(lambda x: jnp.std(jnp.prod(x, axis=-1)), (x,), (t,))
    assert float(s) == 0.0 and np.isnan(float(ds))
    assert minijax.grad(lambda x: jnp.std(jnp.prod(x, axis=-1)))(x).shape == (2, 0)


def test_norm_eager_is_one_program():
    # s7036-178 (its eager part). JAX's jnp.linalg.norm is a jit, so XLA sees sqrt(sum(x*x))
    # over a length-1 axis whole and 3.4e38 does not overflow: jnp.linalg.norm(x0, axis=1),
    # JAX 0.10.2 [3.4028235e+38, 3.4028235e+38, 4.2038954e-45] eagerly and under jit
    x0 = jnp.array([[3.4028234663852886e+38], [-3.4028234663852886e+38], [4.2e-45]],
                   jnp.float32)
    expected = np.array([3.4028235e+38, 3.4028235e+38, 4.2038954e-45], np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.linalg.norm(x0, axis=1)), expected)
    np.testing.assert_array_equal(
        np.asarray(minijax.jit(lambda x: jnp.linalg.norm(x, axis=1))(x0)), expected)
    np.testing.assert_allclose(float(jnp.linalg.norm(jnp.arange(6.0).reshape(2, 3),
                                                     axis=(0, 1))), 7.4161983, rtol=1e-6)
    # a list axis reaches JAX 0.10.2's jit as given: its "Non-hashable static arguments"
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        jnp.linalg.norm(jnp.arange(6.0).reshape(2, 3), axis=[0, 1])
