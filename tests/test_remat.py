"""checkpoint / remat: same derivatives as without it, and the policy really changes what is
saved: asserted on the jaxpr of the backward pass (which equations it recomputes, which
residuals it takes)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import checkpoint
from minijax import checkpoint_policies as cp
from minijax.test_util import check_grads

X = np.float32(0.7)


def count(jaxpr, name):
    """Equations named ``name`` in ``jaxpr``, nested jaxprs (checkpoint bodies) included."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    n = 0
    for eqn in jaxpr.eqns:
        n += eqn.primitive.name == name
        for p in eqn.params.values():
            if hasattr(p, "eqns"):
                n += count(p, name)
    return n


def backward_eqn(closed):
    """The one checkpoint equation of a grad jaxpr: the transposed (backward) part."""
    eqns = [e for e in closed.jaxpr.eqns if e.primitive.name == "remat2"]
    assert len(eqns) == 1, closed
    return eqns[0]


def sin2(x):
    return jnp.sin(jnp.sin(x))


def d_sin2(x):
    return np.cos(np.sin(x)) * np.cos(x)


# ------------------------------------------------------------------------------------------------
# What gets saved


def test_nothing_saveable_recomputes_and_saves_only_inputs():
    plain = minijax.make_jaxpr(minijax.grad(sin2))(X)
    remat = minijax.make_jaxpr(minijax.grad(checkpoint(sin2)))(X)  # default policy: nothing
    assert count(plain, "sin") == 2
    assert count(remat, "sin") == 3  # sin(x) recomputed in the backward pass
    bwd = backward_eqn(remat)
    assert count(bwd.params["jaxpr"], "sin") == 1 and count(bwd.params["jaxpr"], "cos") == 2
    assert len(bwd.invars) == 2  # residual x, and the output cotangent
    # the forward part no longer computes the cosines: they are recomputed later
    assert [e.primitive.name for e in remat.jaxpr.eqns] == ["sin", "sin", "remat2"]


def test_everything_saveable_saves_residuals():
    remat = minijax.make_jaxpr(minijax.grad(checkpoint(sin2, policy=cp.everything_saveable)))(X)
    assert count(remat, "sin") == 2
    bwd = backward_eqn(remat)
    assert count(bwd.params["jaxpr"], "sin") == 0 and count(bwd.params["jaxpr"], "cos") == 0
    assert len(bwd.invars) == 3  # cos(x), cos(sin(x)) and the cotangent


def mlp(ws, x):
    h = x
    for w in ws:
        h = jnp.tanh(h @ w)
    return jnp.sum(h)


def _mlp_args(dtype=np.float32):
    rng = np.random.default_rng(0)
    ws = [(rng.normal(size=(4, 4)) / 2).astype(dtype) for _ in range(3)]
    return ws, rng.normal(size=(2, 4)).astype(dtype)


@pytest.mark.parametrize("policy, dots_in_bwd, tanh_in_bwd", [
    (cp.nothing_saveable, 3 + 5, 3),  # forward matmuls recomputed (+5 transposed: not x's)
    (cp.dots_saveable, 5, 3),  # matmul results saved, tanh recomputed from them
    (cp.everything_saveable, 5, 0),
])
def test_mlp_policies_change_the_backward_pass(policy, dots_in_bwd, tanh_in_bwd):
    ws, x = _mlp_args()
    closed = minijax.make_jaxpr(minijax.grad(checkpoint(mlp, policy=policy)))(ws, x)
    body = backward_eqn(closed).params["jaxpr"]
    assert count(body, "dot_general") == dots_in_bwd
    assert count(body, "tanh") == tanh_in_bwd
    grads = minijax.grad(checkpoint(mlp, policy=policy))(ws, x)
    for g, e in zip(grads, minijax.grad(mlp)(ws, x)):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_dots_with_no_batch_dims_saveable():
    def f(w, a, b):
        h = jnp.tanh(minijax.lax.dot_general(a, w, (((2,), (0,)), ((), ()))))  # no batch dims
        return jnp.sum(jnp.tanh(h @ b))  # batched (leading axis): recomputed

    rng = np.random.default_rng(1)
    w = rng.normal(size=(4, 4)).astype(np.float32)
    a = rng.normal(size=(2, 3, 4)).astype(np.float32)
    b = rng.normal(size=(2, 4, 3)).astype(np.float32)
    body = lambda pol: backward_eqn(minijax.make_jaxpr(minijax.grad(  # noqa: E731
        checkpoint(f, policy=pol)))(w, a, b)).params["jaxpr"]

    def forward_dots(jaxpr):  # recomputed a @ w (contracts w's axis 0) or h @ b (gives f32[2,3,3])
        return [e for e in jaxpr.eqns if e.primitive.name == "dot_general" and (
            e.outvars[0].aval.shape == (2, 3, 3)
            or e.params["dimension_numbers"] == (((2,), (0,)), ((), ())))]

    assert len(forward_dots(body(cp.nothing_saveable))) == 2
    assert len(forward_dots(body(cp.dots_saveable))) == 0
    kept = forward_dots(body(cp.dots_with_no_batch_dims_saveable))
    assert [e.params["dimension_numbers"][1] for e in kept] == [((0,), (0,))]
    g = minijax.grad(checkpoint(f, policy=cp.dots_with_no_batch_dims_saveable))(w, a, b)
    np.testing.assert_allclose(g, minijax.grad(f)(w, a, b), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------------
# Correctness, composition


@pytest.mark.parametrize("policy", [None, cp.everything_saveable, cp.dots_saveable])
def test_checkpoint_grads_match_finite_differences(policy):
    prev = minijax.config.jax_enable_x64
    minijax.config.update("jax_enable_x64", True)
    try:
        ws, x = _mlp_args(np.float64)
        check_grads(checkpoint(mlp, policy=policy), (ws, x), order=2, modes=("rev",), jit=True)
        check_grads(checkpoint(mlp, policy=policy), (ws, x), order=1, modes=("fwd",), jit=True)
    finally:
        minijax.config.update("jax_enable_x64", prev)


def test_checkpoint_eager_jit_vmap_higher_order():
    f = checkpoint(sin2)
    xs = np.linspace(-1, 1, 4).astype(np.float32)
    np.testing.assert_allclose(f(X), np.sin(np.sin(X)), rtol=1e-6)
    np.testing.assert_allclose(minijax.jit(f)(X), np.sin(np.sin(X)), rtol=1e-6)
    np.testing.assert_allclose(minijax.grad(f)(X), d_sin2(X), rtol=1e-6)
    np.testing.assert_allclose(minijax.jit(minijax.grad(f))(X), d_sin2(X), rtol=1e-6)
    np.testing.assert_allclose(minijax.vmap(minijax.grad(f))(xs), d_sin2(xs), rtol=1e-5)
    g = minijax.jit(minijax.grad(lambda xs: jnp.sum(minijax.vmap(f)(xs))))(xs)
    np.testing.assert_allclose(g, d_sin2(xs), rtol=1e-5)
    second = -np.sin(np.sin(X)) * np.cos(X) ** 2 - np.cos(np.sin(X)) * np.sin(X)
    np.testing.assert_allclose(minijax.grad(minijax.grad(f))(X), second, rtol=1e-5)
    _, t = minijax.jvp(minijax.grad(f), (X,), (np.float32(1),))
    np.testing.assert_allclose(t, second, rtol=1e-5)


def test_remat_alias_decorators_and_static_argnums():
    assert minijax.remat is minijax.checkpoint

    @minijax.remat
    def a(x):
        return jnp.sin(x) * 2

    @functools.partial(checkpoint, policy=cp.dots_saveable, static_argnums=(1,))
    def b(x, power):
        return jnp.sin(x) ** power

    np.testing.assert_allclose(minijax.grad(a)(X), 2 * np.cos(X), rtol=1e-6)
    np.testing.assert_allclose(minijax.grad(b)(X, 2), 2 * np.sin(X) * np.cos(X), rtol=1e-6)
    text = str(minijax.make_jaxpr(b, static_argnums=1)(X, 3))
    assert "remat2[" in text and "differentiated=False" in text


def test_prevent_cse_puts_an_optimization_barrier():
    for prevent_cse in (True, False):
        f = minijax.grad(checkpoint(sin2, prevent_cse=prevent_cse))
        text = minijax.jit(f).lower(X).as_text()
        assert ("optimization_barrier" in text) == prevent_cse
        np.testing.assert_allclose(minijax.jit(f)(X), d_sin2(X), rtol=1e-6)
    text = minijax.jit(checkpoint(sin2)).lower(X).as_text()  # not differentiated: no barrier
    assert "optimization_barrier" not in text


# --- derived once per structure ------------------------------------------------------------------


def test_identical_layers_share_one_derivation_and_match_unrematerialized_grads():
    from minijax import rematerialization as rm

    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(8, 8)).astype(np.float32) / 3,
               rng.normal(size=8).astype(np.float32)) for _ in range(12)]
    x = rng.normal(size=(4, 8)).astype(np.float32)

    def layer(h, w, b):
        return jnp.tanh(h @ w + b)

    def make_loss(layer_fn):
        def loss(params, x):
            for w, b in params:
                x = layer_fn(x, w, b)
            return jnp.sum(x ** 2)
        return loss

    caches = (rm._jvp_cache, rm._partial_eval_cache, rm._transpose_cache)
    before = [len(c.data) for c in caches]
    remat_loss = make_loss(checkpoint(layer, policy=cp.dots_saveable))
    got = minijax.jit(minijax.grad(remat_loss))(params, x)
    want = minijax.grad(make_loss(layer))(params, x)
    for (gw, gb), (ww, wb) in zip(got, want):
        np.testing.assert_allclose(gw, ww, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gb, wb, rtol=1e-5, atol=1e-6)
    # 12 calls: the first layer's input is not differentiated, the 11 others are alike
    assert all(len(c.data) - n <= 2 for c, n in zip(caches, before))


def test_a_changed_closed_over_value_is_seen_by_the_next_call():
    """Each call still traces the body: a closed-over scalar (a literal in the body) or array
    (an operand) that changed gives the new derivative, not the cached one."""
    scale = {"s": 2.0, "v": np.full(3, 2.0, np.float32)}
    f = checkpoint(lambda x: jnp.sum(jnp.sin(x) * scale["s"] * scale["v"]))
    x = np.linspace(0.1, 0.5, 3).astype(np.float32)
    np.testing.assert_allclose(minijax.grad(f)(x), 4 * np.cos(x), rtol=1e-6)
    scale["s"], scale["v"] = 3.0, np.full(3, 5.0, np.float32)
    np.testing.assert_allclose(minijax.grad(f)(x), 15 * np.cos(x), rtol=1e-6)


def test_a_custom_rule_closing_over_a_tracer_is_not_reused_across_traces():
    def outer(x, k):
        @minijax.custom_jvp
        def g(u):
            return jnp.sin(u)

        g.defjvp(lambda p, t: (jnp.sin(p[0]), k * t[0]))  # k: a tracer of the jit trace

        layer = checkpoint(lambda u: g(u) * 2.0)
        return minijax.grad(lambda u: layer(layer(u)))(x)

    jitted = minijax.jit(outer)
    for k in (1.0, 3.0):
        np.testing.assert_allclose(jitted(np.float32(0.3), np.float32(k)), 4 * k * k, rtol=1e-6)
