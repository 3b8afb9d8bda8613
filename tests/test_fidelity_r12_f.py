"""Cases of the 12000-seed oracle run given to helper F (tools/difftest/triage_12000_f.md).

Expected values and shardings were printed by JAX 0.10.2 (/work/venv_jax) on CPU for the same
inputs.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

# Two symmetric positive definite 3x3 matrices: every factorization below is defined.
_A = np.array([[[4., 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]],
               [[5., 0.3, 0.1], [0.3, 2, 0.4], [0.1, 0.4, 3]]], np.float32)


def _split(x):
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
    return jax.device_put(x, jax.NamedSharding(mesh, jax.P("d")))


def _spec(out):
    spec = list(out.sharding.spec)
    while spec and spec[-1] is None:
        spec.pop()
    return spec


_QR_WEIGHTS = np.arange(9.0, dtype=np.float32).reshape(3, 3)
# JAX 0.10.2: jax.vmap(jax.grad(lambda x: jnp.sum(jnp.linalg.qr(x)[0] * W)))(_A)
_QR_GRAD = np.array([[[8.8675559e-02, 4.8691964e-01, 0.0], [-1.1333038e-02, 1.1236610e-01, 0.0],
                      [-6.8673813e-01, -4.1200891e+00, 0.0]],
                     [[4.2156789e-02, 4.8679706e-02, 0.0], [-3.3276418e-01, 1.1987375e+00, 0.0],
                      [-1.1095467e+00, -6.0301952e+00, 0.0]]], np.float32)

_LINALG = {
    "svd": (lambda x: jnp.linalg.svd(x, compute_uv=False),
            lambda a: np.linalg.svd(a, compute_uv=False)),
    "cholesky": (jnp.linalg.cholesky, np.linalg.cholesky),
    "eigvalsh": (jnp.linalg.eigvalsh, np.linalg.eigvalsh),
    "qr_grad": (jax.vmap(jax.grad(lambda x: jnp.sum(jnp.linalg.qr(x)[0] * _QR_WEIGHTS))),
                lambda a: _QR_GRAD),
}


@pytest.mark.devices(2)
@pytest.mark.parametrize("name", sorted(_LINALG))
def test_linalg_custom_calls_keep_the_batch_sharding(name):
    # s12020-215 (grad of qr under vmap), s12029-47 (svd compute_uv=False under vmap): JAX's
    # LAPACK custom calls carry an sdy.sharding_rule that maps the batch axes of every operand
    # and result to shared factors, so Shardy carries the arguments' split over 'd' through
    # them: the outputs are P('d') (JAX 0.10.2). Without the rule minijax's were P().
    f, ref = _LINALG[name]
    out = jax.jit(f)(_split(_A))
    assert _spec(out) == ["d"]
    np.testing.assert_allclose(np.asarray(out), ref(_A), rtol=1e-5, atol=1e-5)


_SCAN_VMA = ("Scan carry input and output got mismatched varying manual axes "
             "[ShapedArray(int32[], weak_type=True), ShapedArray(float16[2]{V:d}), "
             "ShapedArray(float16[2])] and [ShapedArray(int32[], weak_type=True), "
             "ShapedArray(float16[2]{V:d}), ShapedArray(float16[2]{V:d})]. Please open an issue at "
             "https://github.com/jax-ml/jax/issues, and as a temporary workaround pass the "
             "check_vma=False argument to `jax.shard_map`")


def _jvp_of_loop_in_shard_map(trips, tangent):
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))

    def shard(x):
        return jax.jvp(lambda x: jax.lax.fori_loop(0, trips, lambda i, c: jnp.clip(c, -1.0, 1.0),
                                                   x), (x,), (tangent(x),))

    x = np.array([-0.0556, -0.0534, -0.0866, 0.0682], np.float16)
    return jax.shard_map(shard, mesh=mesh, in_specs=jax.P("d"), out_specs=jax.P("d"))(x)


@pytest.mark.devices(2)
@pytest.mark.parametrize("trips", [0, 2])
def test_jvp_of_scan_refuses_a_tangent_carry_less_varying_than_the_body_makes_it(trips):
    # s12035-106: a NumPy tangent of a carry varying over 'd' is not varying; JAX's scan JVP
    # binds the body traced with the primal's tangent type (varying), and scan's abstract eval
    # refuses the mismatch with this ValueError (JAX 0.10.2's words), whatever the trip count.
    with pytest.raises(ValueError) as err:
        _jvp_of_loop_in_shard_map(trips, lambda x: np.full(x.shape, 0.7, np.float16))
    assert str(err.value) == _SCAN_VMA


@pytest.mark.devices(2)
def test_jvp_of_scan_accepts_a_tangent_as_varying_as_its_carry():
    # jnp.ones_like of the varying carry varies as it does: JAX 0.10.2 computes the jvp.
    primal, tangent = _jvp_of_loop_in_shard_map(2, jnp.ones_like)
    np.testing.assert_array_equal(np.asarray(tangent), np.ones(4, np.float16))
    np.testing.assert_array_equal(np.asarray(primal),
                                  np.array([-0.0556, -0.0534, -0.0866, 0.0682], np.float16))


def test_static_fori_loop_index_is_a_weak_int32():
    # JAX's fori_loop with concrete bounds scans from the Python int lower bound: the index is
    # a weak int32 whatever the bounds' dtype, so it does not promote an int8 carry (JAX 0.10.2:
    # int8 4); a strong int32 index made the carry int32 and scan refused the body.
    for lo, hi in [(0, 3), (np.int16(0), np.int16(3)), (jnp.int32(0), 3)]:
        out = jax.lax.fori_loop(lo, hi, lambda i, x: x + i, jnp.int8(1))
        assert out.dtype == np.int8 and int(out) == 4
    jaxpr = jax.make_jaxpr(lambda x: jax.lax.fori_loop(0, 3, lambda i, x: x + i, x))(jnp.int8(1))
    assert jaxpr.eqns[-1].params["jaxpr"].in_avals[0].weak_type


@pytest.mark.devices(2)
@pytest.mark.parametrize("key", [jax.random.PRNGKey, jax.random.key])
def test_constant_keyed_draw_shares_its_sharding_between_uses(key):
    # s12047-118 (random.uniform under vmap(jvp), sharded): JAX's CPU lowering of threefry is a
    # loop, so Shardy does not copy a constant-keyed draw per use and the split over 'd' that
    # one use (x * r) gets reaches the other (w * r): JAX 0.10.2 gives P('d') for both (minijax
    # unrolled the rounds into a constant expression: the second was P()).
    w = np.linspace(0.5, 1.5, 6).reshape(2, 1, 3).astype(np.float32)
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 1, 3, 1).astype(np.float32)

    def f(x):
        r = jax.random.uniform(key(618), (2, 1, 3))
        return x[..., 0] * r, w * r

    outs = jax.jit(f)(_split(x))
    assert [_spec(o) for o in outs] == [["d"], ["d"]]
    for got, want in zip(outs, jax.jit(f)(x)):  # the bits do not depend on the partitioning
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
