"""checkpoint's eager impl evaluates its body on the values, as JAX 0.10.2's remat_impl
(core.eval_jaxpr): a strong tangent of a body traced with a Python float's weak one gives a
strong result; staged (jit) the body's declared (weak) types stand. Expected dtypes, weak types
and values are JAX 0.10.2's (triage_16000_w W3, case s16028-328)."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

SIN, COS = 0.9494856, -0.31381056  # sin(1.89), cos(1.89) in f32, from JAX 0.10.2


def _types(tree):
    return [(str(x.dtype), x.aval.weak_type) for x in jax.tree_util.tree_leaves(tree)]


@pytest.mark.parametrize("wrap", [lambda f: jax.checkpoint(f),
                                  lambda f: jax.checkpoint(jax.checkpoint(f))])
def test_jvp_of_a_checkpoint_at_a_python_float_with_a_strong_tangent_is_strong(wrap):
    # s16028-328 reduced: JAX 0.10.2 gives (3.78 weak, 1.4 strong)
    p, t = jax.jvp(wrap(lambda x: x + x), (1.89,), (np.float32(.7),))
    assert _types((p, t)) == [("float32", True), ("float32", False)]
    np.testing.assert_allclose([p, t], [3.78, 1.4], rtol=1e-6)


def test_staged_checkpoint_keeps_the_body_weak_types():
    # under jit the equation's types are the body's: JAX 0.10.2 gives both weak
    p, t = jax.jit(lambda x, t: jax.jvp(jax.checkpoint(lambda x: x + x), (x,), (t,)))(
        1.89, np.float32(.7))
    assert _types((p, t)) == [("float32", True), ("float32", True)]


def test_linearize_of_a_checkpoint_with_a_strong_tangent_is_strong():
    for policy in (None, jax.checkpoint_policies.everything_saveable):
        f = jax.checkpoint(jnp.sin, policy=policy)
        t = jax.linearize(f, 1.89)[1](np.float32(.7))
        assert _types(t) == [("float32", False)]  # JAX 0.10.2
        np.testing.assert_allclose(t, 0.7 * COS, rtol=1e-6)


def test_vmap_of_jvp_of_a_checkpoint_keeps_the_values_types():
    # The batched checkpoint runs eagerly on strong tangents of a body traced weak: JAX 0.10.2
    # gives the values' types (minijax raised the batching rule's type-check AssertionError)
    ts = np.ones(3, np.float32)
    p, t = jax.vmap(lambda t: jax.jvp(jax.checkpoint(jnp.sin), (1.89,), (t,)))(ts)
    assert _types((p, t)) == [("float32", True), ("float32", False)]
    np.testing.assert_allclose([p, t], [[SIN] * 3, [COS] * 3], rtol=1e-6)
    t = jax.vmap(jax.linearize(jax.checkpoint(jnp.sin), 1.89)[1])(ts)
    assert _types(t) == [("float32", False)]
    p, t = jax.vmap(lambda t: jax.jvp(lambda x: jax.jvp(jax.checkpoint(jnp.sin), (x,), (t,))[1],
                                      (1.89,), (t,)))(ts)
    assert _types((p, t)) == [("float32", False), ("float32", False)]
    np.testing.assert_allclose([p, t], [[COS] * 3, [-SIN] * 3], rtol=1e-6)
    # staged, the body's types: JAX 0.10.2 gives both weak
    p, t = jax.jit(jax.vmap(lambda t: jax.jvp(jax.checkpoint(jnp.sin), (1.89,), (t,))))(ts)
    assert _types((p, t)) == [("float32", True), ("float32", True)]


def test_jacfwd_of_a_checkpoint_stays_weak():
    # s13002-88 (jacfwd's basis of a Python float is weak, as JAX's _possible_downcast)
    r = jax.jacfwd(jax.checkpoint(lambda x: x * 2.0))(-0.62)
    assert _types(r) == [("float32", True)]
    np.testing.assert_allclose(r, 2.0)
