"""Cases of the oracle run of seeds 10000-10059 (helper G's share) where minijax differed from
JAX 0.10.2, each against JAX 0.10.2's recorded behaviour (the snippet that showed it is in each
test)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp


def test_index_into_empty_axis_under_an_empty_outer_vmap():
    # s10050-98. JAX checks a gather's slice sizes against its full, batched shapes only, and
    # accepts any slice size when the indices are empty: an outer vmap of size 0 makes them so.
    # x1 = jnp.zeros((0,), bool); f = lambda i: x1[i]
    # jax.vmap(jax.vmap(f, -1), 1)(jnp.zeros((2, 0, 1), jnp.int8)).shape  -> (0, 1, 2)
    # jax.checkpoint(jax.vmap(jax.vmap(f, -1), 1))(...)                   -> (0, 1, 2)
    # jax.vmap(lambda y: jax.vmap(f)(jnp.zeros((1, 2), jnp.int8)))(jnp.zeros((0,)))
    #     -> TypeError: Slice size at index 0 in gather op is out of range, ... got 1.
    x1 = jnp.zeros((0,), bool)

    def f(i):
        return x1[i]

    idx = jnp.zeros((2, 0, 1), jnp.int8)
    out = minijax.vmap(minijax.vmap(f, -1), 1)(idx)
    assert out.shape == (0, 1, 2) and out.dtype == np.bool_
    out = minijax.checkpoint(minijax.vmap(minijax.vmap(f, -1), 1))(idx)
    assert out.shape == (0, 1, 2)
    # The empty outer vmap does not map the indices: they are not empty, JAX refuses.
    with pytest.raises(TypeError, match="Slice size at index 0 in gather op is out of range"):
        minijax.vmap(lambda y: minijax.vmap(f)(jnp.zeros((1, 2), jnp.int8)))(jnp.zeros((0,)))


@minijax.custom_vjp
def _cv_clip(x):
    return x


_cv_clip.defvjp(lambda x: (x, None), lambda _, ct: (jnp.clip(ct, -0.75, 0.75),))


def test_linearized_custom_vjp_run_forward_under_vjp_raises():
    # s10022-316. linearize's f_jvp runs its custom_lin forward, which JAX refuses, also when
    # an enclosing vjp traces it (minijax staged it as the vjp's own and transposed it):
    # c = np.linspace(.5, 1.5, 3).astype(np.float32); x = jnp.array([-0.29, 0.43, -0.32])
    # lin = lambda x: jax.linearize(cv_clip, x)[1](c)
    # jax.vjp(lin, x)[1](x)  -> TypeError: can't apply forward-mode autodiff (jvp) to a
    #                           custom_vjp function.
    # jax.vjp(lambda x: jax.linearize(lambda x: jnp.sin(cv_clip(x)), x)[1](c), x)  -> same
    # jax.grad(lambda x: jax.linearize(cv_clip, x)[1](x).sum())(x)
    #     -> NotImplementedError: Differentiation rule for 'custom_lin' not implemented
    c = np.linspace(0.5, 1.5, 3).astype(np.float32)
    x = jnp.asarray(np.array([-0.29, 0.43, -0.32], np.float32))
    msg = "can't apply forward-mode autodiff"
    with pytest.raises(TypeError, match=msg):
        minijax.vjp(lambda x: minijax.linearize(_cv_clip, x)[1](c), x)[1](x)
    with pytest.raises(TypeError, match=msg):
        minijax.vjp(lambda x: minijax.linearize(lambda x: jnp.sin(_cv_clip(x)), x)[1](c), x)
    with pytest.raises(TypeError, match=msg):
        minijax.linearize(_cv_clip, x)[1](c)
    with pytest.raises(NotImplementedError, match="'custom_lin' not implemented"):
        minijax.grad(lambda x: minijax.linearize(_cv_clip, x)[1](x).sum())(x)
    # a linearization's own custom_lin is still transposed: vjp of the clip
    np.testing.assert_allclose(np.asarray(minijax.vjp(_cv_clip, x)[1](x * 3)[0]),
                               [-0.75, 0.75, -0.75])


@minijax.custom_vjp
def _cv_up(x):
    return x


_cv_up.defvjp(lambda x: (x, None), lambda _, ct: (ct.astype(jnp.float32) * 3,))


def test_jit_transpose_traces_on_a_custom_vjp_cotangents_dtype():
    # s10025-286. A custom_vjp bwd may give a float32 cotangent for a bfloat16 input; JAX
    # passes it on, and its transpose of a jit traces the callee's transpose on it (minijax
    # traced it on bfloat16 and called it with float32: an ill-typed program):
    # up: custom_vjp identity, bwd (ct.astype(jnp.float32) * 3,); x = bf16 [1, 2, 3]
    # f = jax.jit(lambda x: -x.reshape(3))
    # jax.vjp(lambda x: up(f(x)), x)[1](jnp.ones(3, jnp.bfloat16))  -> ([-3., -3., -3.] f32,)
    # jax.jit(that)(x)                                                -> the same
    # g = jax.jit(lambda x: (jnp.sin(x), x + 1))
    # jax.vjp(lambda x: up(g(x)[0]) + g(x)[1], x)[1](ones bf16)
    #     -> TypeError: lax.mul requires arguments to have the same dtypes, got float32, bfloat16
    # jax.jit(jax.vjp(lambda x: m3(jnp.roll(x, 5), x) ...)) of the case: JAX's own
    #     AssertionError (bf16[3], f32[3]) adding the callee's cotangents; minijax a TypeError
    x = jnp.asarray(np.array([1.0, 2.0, 3.0], jnp.bfloat16))
    ones = jnp.ones(3, jnp.bfloat16)
    f = minijax.jit(lambda x: -x.reshape(3))
    for run in (lambda x: minijax.vjp(lambda x: _cv_up(f(x)), x)[1](ones),
                minijax.jit(lambda x: minijax.vjp(lambda x: _cv_up(f(x)), x)[1](ones))):
        (ct,) = run(x)
        assert ct.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(ct), [-3.0, -3.0, -3.0])
    g = minijax.jit(lambda x: (jnp.sin(x), x + 1))
    with pytest.raises(TypeError, match="lax.mul requires arguments to have the same dtypes"):
        minijax.vjp(lambda x: _cv_up(g(x)[0]) + g(x)[1], x)[1](ones)
    # h = jax.jit(lambda x: (x[::-1], x))
    # jax.jit(lambda x: jax.vjp(lambda x: up(h(x)[0]) + h(x)[1], x)[1](ones))(x)
    #     -> AssertionError: (ShapedArray(bfloat16[3]), ShapedArray(float32[3])) (JAX's own)
    h = minijax.jit(lambda x: (x[::-1], x))
    # minijax: the TypeError of add_any (JAX's add_jaxvals_p), which sums the two cotangents
    with pytest.raises(TypeError, match="add_any: operands of one type expected"):
        minijax.jit(lambda x: minijax.vjp(lambda x: _cv_up(h(x)[0]) + h(x)[1], x)[1](ones))(x)
