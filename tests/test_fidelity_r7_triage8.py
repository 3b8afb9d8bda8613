"""Cases of the oracle run of seeds 8000-8059 where minijax differed from JAX 0.10.2, each
against values recorded from JAX 0.10.2 (the snippet that made each is in its test)."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax, nn


def test_erf_family_derivatives_round_as_jax_in_half_precision():
    # s8053-92, s8006-181. JAX's erf/erfc/erf_inv JVPs multiply g by the exp first and the
    # constant last; in float16/bfloat16 the other order rounds differently:
    # x16 = np.array([-1.927734375, 0.58349609375, -1.5341796875, 0.251953125], np.float16)
    # t16 = np.linspace(0.5, 1.5, 4).astype(np.float16) * np.float16(0.7)
    # jax.jvp(lambda x: jax.nn.gelu(x, approximate=False), (x16,), (t16,))[1].view(np.uint16)
    # jax.jvp(lax.erf, (x16,), (t16,))[1].view(np.uint16)
    # jax.jit(jax.grad(lambda x: jnp.sum(lax.erf_inv(x.astype(jnp.bfloat16)).astype(
    #     jnp.float32) * jnp.linspace(0.5, 1.5, 4))))(xb)
    # jax.jvp(lax.erf_inv, (xb.astype(jnp.bfloat16),), (jnp.full(4, 0.7, jnp.bfloat16),))[1]
    # JAX 0.10.2: [43050, 14407, 44698, 14812], [8426, 14205, 11675, 15475],
    # [0.4883880615234375, 0.847869873046875, 1.667724609375, 1.9818115234375],
    # [0.68359375, 0.71484375, 1.0078125, 0.9296875]
    x16 = np.array([-1.927734375, 0.58349609375, -1.5341796875, 0.251953125], np.float16)
    t16 = np.linspace(0.5, 1.5, 4).astype(np.float16) * np.float16(0.7)
    gelu_t = minijax.jvp(lambda x: nn.gelu(x, approximate=False), (x16,), (t16,))[1]
    assert np.asarray(gelu_t).view(np.uint16).tolist() == [43050, 14407, 44698, 14812]
    erf_t = minijax.jvp(lax.erf, (x16,), (t16,))[1]
    assert np.asarray(erf_t).view(np.uint16).tolist() == [8426, 14205, 11675, 15475]

    xb = jnp.asarray([0.34087860584259033, -0.39897599816322327, -0.6708468198776245,
                      0.630724310874939], jnp.float32)
    g = minijax.jit(minijax.grad(lambda x: jnp.sum(lax.erf_inv(x.astype(jnp.bfloat16)).astype(
        jnp.float32) * jnp.linspace(0.5, 1.5, 4))))(xb)
    assert np.asarray(g).tolist() == [0.4883880615234375, 0.847869873046875, 1.667724609375,
                                      1.9818115234375]
    t = minijax.jvp(lax.erf_inv, (xb.astype(jnp.bfloat16),), (jnp.full(4, 0.7, jnp.bfloat16),))[1]
    assert np.asarray(t.astype(jnp.float32)).tolist() == [0.68359375, 0.71484375, 1.0078125,
                                                          0.9296875]


def test_vmap_triangular_solve_of_unbatched_a_solves_one_wide_b():
    # s8041-227. JAX's batching rule folds a batched B into one wider B when A is unbatched,
    # so grad(vmap(...)) takes its A derivative's cheaper association for that wide B:
    # a, b as below, w = jnp.linspace(0.5, 1.5, 9).reshape(3, 3, 1)
    # jax.grad(lambda a, b: jnp.sum(jax.vmap(lambda b: lax.linalg.triangular_solve(a, b,
    #     left_side=True, lower=True))(b) * w), argnums=(0, 1))(a, b)
    # JAX 0.10.2: a's gradient [[-1.7214103, 0, 0], [-18.749514, nan, 0], [-21.240726, -inf, inf]]
    # (b's finite, as below), where solving each column alone gives -inf at [1, 1]
    a = jnp.asarray([[-2.6339402198791504, -1.0964252948760986, 0.12819606065750122],
                     [0.8767444491386414, -0.9110104441642761, -0.56047123670578],
                     [-0.5226723551750183, 0.8469104766845703, 0.047714170068502426]])
    b = jnp.asarray([[[-0.45073559880256653], [0.1747700423002243], [1.813494086265564]],
                     [[-0.8714930415153503], [-np.inf], [0.26652559638023376]],
                     [[-0.9006492495536804], [-0.4398505389690399], [0.23495568335056305]]])
    w = jnp.linspace(0.5, 1.5, 9).reshape(3, 3, 1)
    f = lambda a, b: jnp.sum(minijax.vmap(lambda b: lax.linalg.triangular_solve(
        a, b, left_side=True, lower=True))(b) * w)
    ga, gb = minijax.grad(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(np.asarray(ga), [[-1.7214103, 0, 0], [-18.749514, np.nan, 0],
                                                [-21.240726, -np.inf, np.inf]], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(gb).ravel(), [
        1.3266668, 13.926566, 15.7186, 1.9197066, 20.821243, 23.5779, 2.5127463, 27.715921,
        31.4372], rtol=1e-5)
    # the right side folds the batch into B's rows: vmap's out_axes=1 keeps JAX's (1, 3, 3)
    out = minijax.vmap(lambda b: lax.linalg.triangular_solve(a, b, lower=True), 0, 1)(
        jnp.swapaxes(b, 1, 2))
    assert out.shape == (1, 3, 3)


def test_custom_vjp_bwd_may_return_another_inexact_dtype():
    # s8037-163 (s8012-30). JAX 0.10.2 lets a custom_vjp's bwd return a cotangent of another
    # dtype for an inexact input of the same shape (its "temporary dtype exception") and passes
    # it on as it is; here `3.0 * ct` of a NumPy bfloat16 cotangent is float32:
    # f = jax.custom_vjp(lambda x, y: x * y)
    # f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (3.0 * ct * r[1], ct * r[0]))
    # x = jnp.zeros(3, jnp.bfloat16); ct = np.linspace(.5, 1.5, 3).astype(jnp.bfloat16)
    # jax.vjp(f, x, x)[1](ct) -> (Array([0., 0., 0.], float32), Array([0, 0, 0], bfloat16))
    # jax.vjp(lambda x: f(lax.digamma(x), x), x)[1](ct) -> TypeError:
    # "lax.mul requires arguments to have the same dtypes, got float32, bfloat16. ..."
    f = minijax.custom_vjp(lambda x, y: x * y)
    f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (3.0 * ct * r[1], ct * r[0]))
    x = jnp.zeros(3, jnp.bfloat16)
    ct = np.linspace(0.5, 1.5, 3).astype(jnp.bfloat16)
    gx, gy = minijax.vjp(f, x, x)[1](ct)
    assert gx.dtype == np.float32 and gy.dtype == jnp.bfloat16
    pullback = minijax.vjp(lambda x: f(lax.digamma(x), x), x)[1]
    with np.testing.assert_raises_regex(TypeError, "lax.mul requires arguments to have the "
                                        "same dtypes, got float32, bfloat16"):
        pullback(ct)
