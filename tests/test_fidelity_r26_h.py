"""Issue 21, run 30000, helper h (tools/difftest/triage_30000_h.md). Expected values recorded
from JAX 0.10.2 (/work/venv_jax) by the snippets quoted in each test:

1. s30014-337: the transpose of a ``checkpoint`` types its residuals as the body declares them
   (JAX's ``jaxpr.in_avals``): a strong NumPy tangent the body was traced with as a Python
   float's weak one stays weak, so the gradient is weak as JAX's.
2. s30027-275: ``checkpoint``'s partial evaluation rounds each floating residual another known
   equation reads (JAX's ``_insert_reduce_precision``), so XLA's excess precision (a bfloat16
   ``tanh`` fused into its float32 reader) does not reach the backward pass.
3. s30040-72: a scatter batched with unbatched indices keeps the indices and makes the batch
   axis a window axis of the updates (JAX's ``_scatter_batching_rule``), not a batching-dims
   pair over broadcast indices.
"""
import numpy as np

import minijax as jax
import minijax.numpy as jnp
from minijax.ad_checkpoint import saved_residuals


def test_checkpoint_transpose_keeps_the_bodys_weak_residuals():
    # JAX 0.10.2: Array(0., dtype=float32, weak_type=True)
    x1 = 0.7364060282707214
    t = np.ones((), np.float32) * np.float32(0.7)

    def f(x):
        return jax.checkpoint(lambda y: y * x)(x)

    def s(x):
        return jax.jvp(f, (x,), (t,))

    r = jax.grad(lambda x: jax.jacrev(s)(x)[1])(x1)
    assert r.dtype == np.float32 and r.weak_type
    assert float(r) == 0.0


def _bf16_program():
    x = jnp.asarray(np.array([0.953125, 1.125, 0.78125], np.float32), jnp.bfloat16)
    w = jnp.asarray(np.array([0.5, 1.0, 1.5], np.float32), jnp.bfloat16)

    def h(x, u):
        t4 = jnp.tanh(x).at[0].mul(u)
        return jnp.sum((t4 + t4) * w) + jnp.sum(t4 * w)

    return h, x, jnp.float32(-0.0)


def test_checkpoint_rounds_saved_residuals_as_jax():
    h, x, u = _bf16_program()
    pol = jax.checkpoint_policies.everything_saveable
    hg = jax.jit(jax.grad(jax.checkpoint(h, policy=pol), argnums=(0, 1)))
    gx, gu = hg(x, u)
    # JAX 0.10.2: [-0, 1.03906, 2.57812] bf16 and 1.1132812 (1.5 * bf16(tanh(0.953125)));
    # without the checkpoint JAX's jit gives 1.1117918 (the float32 tanh)
    np.testing.assert_array_equal(np.asarray(gx, np.float32), [-0.0, 1.0390625, 2.578125])
    assert float(gu) == np.float32(1.1132812)
    assert float(jax.jit(jax.grad(h, argnums=1))(x, u)) == np.float32(1.1117918)
    # JAX 0.10.2's known equations: the bf16 tanh and its f32 copy are rounded where computed
    names = [e.primitive.name for e in
             jax.make_jaxpr(hg)(x, u).jaxpr.eqns[0].params["jaxpr"].jaxpr.eqns]
    assert names[:7] == ["tanh", "reduce_precision", "sub", "broadcast_in_dim",
                         "convert_element_type", "reduce_precision", "scatter-mul"]
    # saved_residuals looks through the rounding, as JAX's
    srcs = [s for _, s in saved_residuals(
        jax.checkpoint(h, policy=pol), x, u)]
    assert not any("reduce_precision" in s for s in srcs)


def test_scatter_batched_with_unbatched_indices_is_a_window_axis():
    xx = np.arange(12, dtype=np.float32).reshape(4, 3)
    for fun, prim, idx_shape, upd_shape in [
            (lambda c: c.at[7].min(-0.0), "scatter-min", (1,), (3,)),
            (lambda c: c.at[jnp.array([1, 3])].add(jnp.float32(2.5)), "scatter-add", (2, 1),
             (3, 2))]:
        v = jax.vmap(fun, in_axes=1)
        eqn = [e for e in jax.make_jaxpr(v)(xx).jaxpr.eqns if e.primitive.name == prim][0]
        dn = eqn.params["dimension_numbers"]
        # JAX 0.10.2: ScatterDimensionNumbers(update_window_dims=(0,),
        # inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(),
        # scatter_indices_batching_dims=()) on f32[3,4], the indices as given
        assert tuple(dn.update_window_dims) == (0,)
        assert tuple(dn.inserted_window_dims) == (1,)
        assert tuple(dn.scatter_dims_to_operand_dims) == (1,)
        assert tuple(dn.operand_batching_dims) == ()
        assert tuple(dn.scatter_indices_batching_dims) == ()
        assert [tuple(a.aval.shape) for a in eqn.invars] == [(3, 4), idx_shape, upd_shape]
    # JAX 0.10.2 (and NumPy): the values
    v2 = jax.vmap(lambda c: c.at[jnp.array([1, 3])].add(jnp.float32(2.5)), in_axes=1)
    np.testing.assert_array_equal(
        np.asarray(v2(xx)), [[0.0, 5.5, 6.0, 11.5], [1.0, 6.5, 7.0, 12.5],
                             [2.0, 7.5, 8.0, 13.5]])
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda c: c.at[7].min(-0.0),
                                                      in_axes=1)(xx)), xx.T)
    # a batched operand with unbatched indices and batched updates
    upd = np.array([[10.0, -1.0], [0.5, 7.0], [3.0, 3.0]], np.float32)
    got = jax.vmap(lambda c, u: c.at[jnp.array([0, 2])].max(u), in_axes=(1, 0))(xx, upd)
    want = xx.T.copy()
    for b in range(3):
        for j, i in enumerate([0, 2]):
            want[b, i] = max(want[b, i], upd[b, j])
    np.testing.assert_array_equal(np.asarray(got), want)
