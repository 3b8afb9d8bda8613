"""Cases of the 11000-seed oracle run (tools/difftest/triage_11000_c.md).

Expected values were printed by JAX 0.10.2 (/work/venv_jax) on CPU for the same inputs:
tests/data/record_fidelity_r12_c.py.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_NAN, _INF = float("nan"), float("inf")


def _chooser_inputs():
    x0 = jnp.asarray(np.array(
        [[[_NAN, -1.02, _INF], [_NAN, -0.64, -0.42], [1.08, _NAN, 3.4e38]],
         [[-0.33, -0.6, -1.57], [-0.39, 2.16, 0.24], [3.4e38, -_INF, 0.74]]], np.float32))
    x1 = jnp.asarray(np.array([[[False, True, True], [True, False, True],
                                [True, False, True]]]))
    return x0, x1


def _masked_min_sum(x0, x1):
    return jnp.sum(jnp.where(x1, jnp.min(x0, axis=0, keepdims=True), x1))


def test_vmapped_min_grad_beside_nan_takes_jaxs_layout_under_jit():
    # s11056-60: the min's JVP is `sum(g * convert(eq)) / count`, whose transpose multiplies
    # 1/0 by a 0 mask beside a NaN column. Op by op that is NaN (JAX too); jitted, XLA
    # rewrites `x * convert(mask)` to a select, but only where the mask reaches the multiply
    # untransposed, which JAX's layout (batch axes to the front; the min compared at its
    # keepdims shape) gives and minijax's old one did not.
    x0, x1 = _chooser_inputs()
    g = jax.vmap(jax.grad(_masked_min_sum), (2, 1))
    one = [2, 6, 15, 17]
    expected_jit = np.zeros(18, np.float32)
    expected_jit[one] = 1.0
    np.testing.assert_array_equal(np.asarray(jax.jit(g)(x0, x1)).ravel(), expected_jit)
    eager = np.asarray(g(x0, x1)).ravel()
    assert np.isnan(eager[[0, 1, 3, 4, 8, 11]]).all()
    np.testing.assert_array_equal(eager[one], 1.0)


def test_vmap_of_binary_op_with_mismatched_batch_axes_moves_them_to_the_front():
    # JAX's broadcast batcher: the first operand's batch axis (1) moves to the front, not the
    # second operand's to axis 1; operands of one shape and batch axis are bound as they are.
    jaxpr = jax.make_jaxpr(jax.vmap(lax.mul, (1, 0)))(jnp.ones((3, 2)), jnp.ones((2, 3)))
    (tr, mul) = jaxpr.eqns
    assert tr.primitive.name == "transpose" and tr.invars[0] is jaxpr.jaxpr.invars[0]
    assert mul.invars[0] is tr.outvars[0] and mul.invars[1] is jaxpr.jaxpr.invars[1]
    jaxpr = jax.make_jaxpr(jax.vmap(lax.mul, (1, 1)))(jnp.ones((3, 2)), jnp.ones((1, 2)))
    assert [e.primitive.name for e in jaxpr.eqns] == ["transpose", "transpose", "mul"]
    jaxpr = jax.make_jaxpr(jax.vmap(lax.mul, (1, 1)))(jnp.ones((3, 2)), jnp.ones((3, 2)))
    assert [e.primitive.name for e in jaxpr.eqns] == ["mul", "transpose"]  # out_axes=0


def test_vmap_of_broadcast_in_dim_puts_the_batch_axis_in_front():
    # JAX's rule: the operand's batch axis moves to the front, and the result's is axis 0
    # (vmap's out_axes=1 then transposes it back).
    f = jax.vmap(lambda v: lax.broadcast_in_dim(v, (2, 3), (1,)), 1, 1)
    jaxpr = jax.make_jaxpr(f)(jnp.ones((3, 4)))
    assert [e.primitive.name for e in jaxpr.eqns] == ["transpose", "broadcast_in_dim",
                                                      "transpose"]
    assert tuple(jaxpr.eqns[1].params["broadcast_dimensions"]) == (0, 2)
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(f(x)), np.broadcast_to(x.T, (2, 4, 3)))


@pytest.mark.devices(2)
def test_concatenate_jvp_with_replicated_tangent_in_shard_map():
    # s11001-250 (JAX is wrong): JAX 0.10.2's concatenate JVP binds the primitive on tangents
    # of different varying manual axes (a NumPy tangent beside a varying one) and raises its
    # internal "requires varying manual axes to match ... Please open an issue"; with
    # check_vma=False it computes [2, 4, 8], and its user-level lax.concatenate of the same
    # operands pvarys them. minijax pvarys in both.
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
    t = np.ones(2, np.float32)

    def run(fn):
        return jax.shard_map(lambda x: lax.psum(fn(x), "d"), mesh=mesh, in_specs=jax.P("d"),
                             out_specs=jax.P())(jnp.arange(4.0))

    got = run(lambda x: jax.jvp(lambda x: lax.concatenate([x[:1], x * x], 0), (x,), (t,))[1])
    np.testing.assert_array_equal(np.asarray(got), [2.0, 4.0, 8.0])
    got = run(lambda x: lax.concatenate([t, x], 0))
    np.testing.assert_array_equal(np.asarray(got), [2.0, 2.0, 2.0, 4.0])


def test_grad_of_checkpoint_saving_a_complex_residual():
    # s11059-189 (JAX is wrong): JAX 0.10.2's remat partial evaluation wraps each saved
    # inexact residual that another known equation reads in reduce_precision, whose dtype
    # rule takes floating types only, so a saved complex residual raises "reduce_precision
    # does not accept dtype complex64"; without the policy JAX gives this value.
    z = jnp.array([0.7 + 1.1j, 0.5], jnp.complex64)

    def h(z):
        return jnp.real(jnp.sum(jnp.sin(z) * jnp.sin(z)))

    g = jax.grad(jax.checkpoint(h, policy=jax.checkpoint_policies.everything_saveable))(z)
    np.testing.assert_allclose(np.asarray(g), np.array([4.5014443 + 0.7575616j, 0.841471 + 0j],
                                                       np.complex64), rtol=1e-6)
    try:
        lax.reduce_precision(z, 8, 23)
    except TypeError as e:
        assert "reduce_precision does not accept dtype complex64" in str(e)
    else:
        raise AssertionError("reduce_precision accepted complex64")
