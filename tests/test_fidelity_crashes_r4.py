"""Programs minijax failed to compile (or crashed on) where JAX 0.10.2 computes; the expected
values are JAX 0.10.2's outputs for the same programs (tools/difftest/FINDINGS.md)."""

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

pytestmark = pytest.mark.devices(2)


def _mesh():
    return jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))


def test_sharded_jit_closed_over_constant_beside_a_sharded_operand():
    # s5000-10: a replicated constant argument next to a sharded operand crashed XLA's SPMD
    # partitioner ("Expected instruction to have shape equal to f32[2,3], actual shape is
    # f32[1,3]"); JAX bakes the constant into the module, minijax now leaves it unannotated.
    x = np.array([[-1.9, 0.5, 2.16], [0.0, 9.05, np.inf]], np.float32)
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = jax.device_put(x, jax.NamedSharding(_mesh(), jax.P("d")))
    val, grad = jax.jit(jax.value_and_grad(lambda x: jnp.sum(jnp.cumprod(x, axis=0) * w)))(y)
    assert np.isposinf(np.asarray(val))
    np.testing.assert_allclose(np.asarray(grad), [[0.0, 37.2, np.inf], [-5.7, 2.0, 10.8]],
                               rtol=1e-6)


def _grad_of_empty(x0, x1):
    w = np.zeros((0,), np.float32)
    g = jax.grad(lambda a, b: jnp.sum(jnp.log(b) * w) + 0.0 * jnp.sum(a), argnums=(0, 1))
    return jax.tree_util.tree_map(lambda l: lax.psum(l, "d"), g(x0, x1))


@pytest.mark.parametrize("jitted", [False, True])
def test_shard_map_whose_used_operands_are_all_empty(jitted):
    # s5017-270, s5035-37, s5044-278, s4004-186, s4010-23: XLA refused the manual region
    # ("'func.call' op expected at least one operand of @xla.sdy.manual_computation_body to
    # be produced by a xla.sdy.GlobalToLocalShape CustomCallOp"). JAX 0.10.2's eager shard_map
    # gives (zeros(3), empty) (its jit of this program hits the same XLA refusal).
    f = jax.shard_map(_grad_of_empty, mesh=_mesh(), in_specs=(jax.P(), jax.P("d")),
                      out_specs=jax.P())
    f = jax.jit(f) if jitted else f
    g0, g1 = f(np.zeros((3,), np.float32), np.zeros((0,), np.float32))
    np.testing.assert_array_equal(np.asarray(g0), np.zeros(3, np.float32))
    assert g1.shape == (0,) and g1.dtype == jnp.float32


def test_shard_map_empty_bool_and_int_operands_beside_a_used_one():
    def body(a, b, c):
        return lax.psum(jnp.sum(a) + jnp.sum(c) + jnp.sum(b.astype(jnp.float32)), "d"), b
    f = jax.jit(jax.shard_map(body, mesh=_mesh(), in_specs=(jax.P("d"), jax.P("d"), jax.P()),
                              out_specs=(jax.P(), jax.P("d"))))
    s, b = f(np.arange(4, dtype=np.float32), np.zeros((0, 2), np.bool_),
             np.zeros((2, 0), np.int32))
    assert float(s) == 6.0
    assert b.shape == (0, 2) and b.dtype == jnp.bool_


def test_jvp_tangents_of_constant_outputs_are_arrays_under_an_outer_transform():
    # s4011-904: under grad, jvp's materialized zero tangent was minijax's internal WeakScalar
    # (no .dtype). JAX 0.10.2: Arrays, f32[] weak, and the grad is zeros(3).
    x2 = jnp.asarray(np.int8(2))
    seen = []

    def h(x):
        p, t = jax.jvp(lambda x: jax.nn.relu6(x2 * 3.0), (x,), (x,))
        seen.append((t.dtype, t.shape, t.weak_type))
        _, ct = jax.vjp(lambda y: x2 * 3.0, x)
        (c,) = ct(jnp.float32(1.0))
        seen.append((c.dtype, c.shape, c.weak_type))
        return p + t + jnp.sum(c)

    np.testing.assert_array_equal(np.asarray(jax.grad(h)(jnp.ones(3))), np.zeros(3))
    assert seen == [(jnp.float32, (), True), (jnp.float32, (3,), False)]


def test_vmap_select_batched_which_beside_unbatched_scalar_cases():
    # s4007-518: per example lax.select(bool[3,1], f32[], f32[]) is invalid, but JAX 0.10.2's
    # vmap computes it (its batching rule broadcasts the scalar cases to `which`'s shape).
    w = np.array([[[True], [False], [True]], [[False], [False], [True]]])
    y = jnp.float32(1.5)
    out = jax.vmap(lambda w, y: lax.select(w, y, 2 * y), (0, None))(w, y)
    assert out.shape == (2, 3, 1) and out.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(out), np.where(w, 1.5, 3.0))
    # its gradient: d/dy sum(where(w, y, 2y)) = 3 * 1 + 3 * 2 (JAX 0.10.2: 9.0)
    g = jax.grad(lambda y: jnp.sum(jax.vmap(lambda w: lax.select(w, y, 2 * y))(w)))(y)
    assert float(g) == 9.0
    with pytest.raises(TypeError, match="must be scalar or have the same shape"):
        lax.select(w[0], y, y)


def test_eigh_svd_jvp_diagonal_beside_an_inf():
    # The eigenvalue / singular value tangent is the diagonal of V^H dA V; minijax took it
    # with a product by the identity (0 * inf = NaN along the row). JAX 0.10.2's values:
    a = jnp.array([[2.0, 1.0, 0.5], [1.0, 3.0, np.inf], [0.5, np.inf, 1.0]], jnp.float32)
    t = jnp.ones_like(a)
    _, dw = jax.jvp(lambda m: jnp.linalg.eigh(m)[0], (a,), (t,))
    np.testing.assert_array_equal(np.asarray(dw), [1.0, np.nan, np.nan])
    _, ds = jax.jvp(lambda m: jnp.linalg.svd(m, compute_uv=False), (a,), (t,))
    np.testing.assert_array_equal(np.asarray(ds), [np.nan, np.nan, 1.0])


def test_svd_jvp_repeated_singular_values_is_nan_as_jax():
    # s5057-6: JAX 0.10.2's svd JVP guards only F's diagonal, so at a zero matrix (all
    # singular values 0) dU, dV and the hessian of sum(svd(a, compute_uv=False)) are NaN
    # (minijax guarded every s_i = s_j and gave 0). The singular values' tangent is finite.
    z = jnp.zeros((2, 2), jnp.float32)
    t = jnp.array([[1.0, 2.0], [3.0, 4.0]], jnp.float32)
    _, (du, ds, dvh) = jax.jvp(jnp.linalg.svd, (z,), (t,))
    np.testing.assert_array_equal(np.asarray(ds), [1.0, 4.0])
    assert np.isnan(np.asarray(du)).all() and np.isnan(np.asarray(dvh)).all()
    h = jax.hessian(lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False)))(z)
    assert h.shape == (2, 2, 2, 2) and np.isnan(np.asarray(h)).all()


@pytest.mark.parametrize("spec, shape, expected", [
    # JAX 0.10.2's values for x = arange(prod(shape)) + 1 (a repeat keeps its last size)
    ("ii->i", (1, 2), [1.0, 0.0]),
    ("ii->i", (2, 1), [1.0]),
    ("ii", (1, 2), 1.0),
    ("iij->ij", (1, 2, 3), [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]),
    ("iji->ij", (1, 2, 3), [[1.0, 4.0], [0.0, 0.0], [0.0, 0.0]]),
    ("jii->ij", (3, 2, 1), [[1.0, 3.0, 5.0]]),
])
def test_einsum_repeated_label_with_a_size_one_axis(spec, shape, expected):
    x = jnp.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1)
    np.testing.assert_array_equal(np.asarray(jnp.einsum(spec, x)), expected)
