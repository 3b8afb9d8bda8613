"""Round 13, helper D: checkpoint's transpose typing (V5) and nested jits kept whole by
checkpoint's partial evaluation (Q1). Expected values were printed by JAX 0.10.2."""

import numpy as np

import minijax as jax
from minijax import lax


def _weak(x):
    return jax.core.get_aval(x).weak_type


# V5 (case s15057-29): staged, the transposed checkpoint body takes its cotangents at the
# body's output types (a strong cotangent of a weak output is weak); eagerly, at the values'.

def test_staged_checkpoint_transpose_types_cotangent_as_output():
    g = jax.jit(lambda x: jax.vjp(jax.checkpoint(lax.sin), x)[1](np.float32(1)))(-0.12)[0]
    assert g.dtype == np.float32 and _weak(g)  # JAX 0.10.2: f32, weak
    np.testing.assert_allclose(g, 0.99280864, rtol=1e-6)
    g = jax.jit(lambda x: jax.vjp(jax.checkpoint(lax.lgamma), x)[1](np.float32(1)))(-0.12)[0]
    assert g.dtype == np.float32 and _weak(g)  # JAX 0.10.2: f32, weak
    np.testing.assert_allclose(g, 7.5393023, rtol=1e-6)


def test_eager_checkpoint_transpose_keeps_cotangent_type():
    g = jax.vjp(jax.checkpoint(lax.lgamma), -0.12)[1](np.float32(1))[0]
    assert g.dtype == np.float32 and not _weak(g)  # JAX 0.10.2: f32, strong
    np.testing.assert_allclose(g, 7.5393023, rtol=1e-6)
    # without checkpoint the jitted cotangent stays strong (the jit's transpose is traced at
    # the actual cotangent types)
    g = jax.jit(lambda x: jax.vjp(lax.sin, x)[1](np.float32(1)))(-0.12)[0]
    assert not _weak(g)  # JAX 0.10.2: strong


# Q1 (case s14016-184): an eager gradient through checkpoint keeps a nested jit (jnp.hypot) as
# jits -- a known call and a staged call -- so each runs compiled, as JAX's partial-eval rule
# for jit splits it; flattened, float16 intermediates were rounded op by op.

_B = np.array([[1.404296875, -0.10113525390625, -0.367919921875]], np.float16)
_W = np.array([[0.5, 1., 1.5]], np.float16)


def _hypot_grad(policy):
    import minijax.numpy as jnp
    return jax.grad(lambda c, b: jnp.sum(
        jax.checkpoint(lambda c, b: jnp.hypot(c, b), policy=policy)(c, b) * _W), argnums=1)


def test_eager_grad_through_checkpoint_runs_nested_jit_whole():
    c = jax.numpy.sin(jax.numpy.asarray(
        [[0.79541015625, -1.0029296875, -1.841796875]], jax.numpy.float16)
        @ jax.numpy.asarray([[2.5, -5.5, -2.0], [-1.0, 4.0, 2.0], [0.0, -1.5, 3.0]],
                            jax.numpy.float16))
    for policy in (None, jax.checkpoint_policies.checkpoint_dots):
        g = _hypot_grad(policy)(c, _B)
        assert g.dtype == np.float16
        # eager and jitted alike, as in JAX 0.10.2, whose value depends on the CPU's float16
        # code: 0.496826171875 on the Intel host that recorded it, 0.497314453125 on an AMD
        # EPYC (Zen 4) host
        assert float(g[0, 0]) == float(jax.jit(_hypot_grad(policy))(c, _B)[0, 0])
        assert float(g[0, 0]) in (0.496826171875, 0.497314453125)


def test_checkpoint_grad_jaxpr_splits_nested_jit():
    # JAX 0.10.2's make_jaxpr: the forward calls jit[hypot]; the differentiated checkpoint
    # holds two jit[hypot] equations (the recomputation with residuals, then the transpose)
    text = str(jax.make_jaxpr(_hypot_grad(None))(_B, _B))
    outer = text[text.rindex("\n{ lambda"):]  # the program, after the shared callees
    assert outer.count("jit[name=hypot") == 3, text
    body = outer[outer.index("remat2["):]
    assert body.count("jit[name=hypot") == 2, text


def test_nested_jit_whose_outputs_need_no_tangent_operand():
    # Run 17000 (s17115-5 and 22 more): a nested jit whose outputs are all known (sign's
    # derivative is zero, so its tangent operand is dead) is a known call without that
    # operand. JAX 0.10.2 prints [0. 0. 0.] eagerly and jitted, and 2 cos(1) = 1.0806046 with
    # a live second output.
    pol = jax.checkpoint_policies.everything_saveable
    f = lambda x: jax.jit(lambda x: jax.numpy.sign(jax.numpy.sin(x)))(x).sum()  # noqa: E731
    for g in (jax.grad(jax.checkpoint(f, policy=pol)),
              jax.jit(jax.grad(jax.checkpoint(f, policy=pol)))):
        np.testing.assert_array_equal(g(jax.numpy.ones(3)), [0.0, 0.0, 0.0])
    h = lambda x: jax.jit(lambda x: (jax.numpy.sign(x), jax.numpy.sin(x) * 2))(x)  # noqa: E731
    g = jax.grad(jax.checkpoint(lambda x: sum(a.sum() for a in h(x)), policy=pol))
    np.testing.assert_allclose(g(jax.numpy.ones(3)), [1.0806046] * 3, rtol=1e-6)
