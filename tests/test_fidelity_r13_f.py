"""Round 13, helper F (triage_15000_v V1, FINDINGS 227): a transformation above a staging trace
sees a jnp function's ``jit(inline=True)`` call as one equation, which the staging trace then
inlines with the callee's types, as JAX's pjit staging rule does. Expected values, dtypes and
weak types recorded from JAX 0.10.2 (jax.jit / jax.jvp / jax.make_jaxpr of the same lambdas).
"""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

T = np.float32(0.35)  # a strong tangent for a weak (Python float) primal


def _jvp_under_jit(fn):
    return minijax.jit(lambda x: minijax.jvp(fn, (x,), (T,)))(0.5)


@pytest.mark.parametrize("fn, primal, tangent, tangent_weak", [
    # JAX 0.10.2: the tangent is typed by the call's JVP at the primal's tangent aval (weak)
    (jnp.negative, -0.5, -0.35, True),       # case s15005-241
    (jnp.sin, 0.479425549507, 0.307153880596, True),
    (lambda y: jnp.negative(jnp.ravel(y)), [-0.5], [-0.35], True),
    (minijax.jit(lambda y: -y, inline=True), -0.5, -0.35, True),
    # a jnp function whose result is strong anyway, and a bare primitive (no call): strong
    (jnp.sum, 0.5, 0.35, False),
    (lax.neg, -0.5, -0.35, False),
], ids=["negative", "sin", "ravel_negative", "user_jit_inline", "sum", "lax_neg"])
def test_jvp_under_jit_tangent_weak_type(fn, primal, tangent, tangent_weak):
    p, t = _jvp_under_jit(fn)
    np.testing.assert_allclose(np.asarray(p), primal, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(t), tangent, rtol=1e-6)
    assert t.dtype == np.float32 and p.dtype == np.float32
    assert p.weak_type is (fn is not jnp.sum)
    assert t.weak_type is tangent_weak


def test_jvp_under_jit_strong_primal_stays_strong():
    x = np.ones(3, np.float32)
    p, t = minijax.jit(lambda x: minijax.jvp(jnp.negative, (x,), (np.full(3, T),)))(x)
    np.testing.assert_allclose(np.asarray(t), np.full(3, -0.35), rtol=1e-6)
    assert not p.weak_type and not t.weak_type


def test_linearize_under_jit_strong():
    t = minijax.jit(lambda x: minijax.linearize(jnp.sin, x)[1](T))(0.5)
    np.testing.assert_allclose(np.asarray(t), 0.307153880596, rtol=1e-6)
    assert t.dtype == np.float32 and not t.weak_type


def test_staging_inlines_the_call_jaxpr_as_jax():
    jaxpr = minijax.make_jaxpr(lambda x: minijax.jvp(jnp.negative, (x,), (T,)))(0.5)
    assert str(jaxpr) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = neg a\n"
        "    c:f32[] = neg 0.3499999940395355:f32[]\n"
        "  in (b, c) }")


def test_inlined_python_scalar_conversion_is_folded_as_jax():
    """A Python scalar argument of the inlined call is promoted by a conversion in the callee;
    JAX's staging folds it into a literal (``mul b 2.0:f32[]``)."""
    x = np.ones(3, np.float32)
    jaxpr = minijax.make_jaxpr(minijax.grad(lambda x: jnp.sum(jnp.sin(x) * 2.0)))(x)
    assert [e.primitive.name for e in jaxpr.eqns] == [
        "sin", "cos", "mul", "reduce_sum", "broadcast_in_dim", "mul", "mul"]
    inline = minijax.jit(lambda y: jnp.sin(y) * 2.0, inline=True)
    jaxpr = minijax.make_jaxpr(lambda x: minijax.jvp(inline, (x,), (x,)))(x)
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "cos", "mul", "mul", "mul"]
    np.testing.assert_allclose(
        np.asarray(minijax.jit(lambda x: minijax.jvp(inline, (x,), (x,)))(x)[1]),
        np.cos(1.0) * 2.0 * np.ones(3), rtol=1e-6)
