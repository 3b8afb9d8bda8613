"""Tangents and cotangents are summed by JAX's ``add_any`` primitive (``add_jaxvals_p``).

Expected values, dtypes, weak types and printed jaxprs were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r13_c.py (the same expressions under ``jax``).
"""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.interpreters import ad


def _where_div(x, c):
    return jnp.where(c, x, lax.div(x, np.float32(2)))


def test_cotangent_sum_keeps_first_cotangents_weak_type():
    # case s15014-292 (triage_15000_v V2): the where's weak cotangent is written first, the
    # div's strong one second; JAX 0.10.2: Array(1., dtype=float32, weak_type=True)
    r = minijax.grad(minijax.jit(_where_div))(0.58, jnp.asarray(True))
    assert r.dtype == np.float32 and r.weak_type
    np.testing.assert_array_equal(np.asarray(r), np.float32(1.0))
    # the other branch: 1/2 from the div
    r = minijax.grad(minijax.jit(_where_div))(0.58, jnp.asarray(False))
    np.testing.assert_array_equal(np.asarray(r), np.float32(0.5))


def test_grad_jaxpr_prints_add_any():
    # jax.make_jaxpr(jax.grad(lambda x: jnp.sin(x) * x))(1.) in JAX 0.10.2
    want = ("{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = cos a\n"
            "    _:f32[] = mul b a\n    d:f32[] = mul b 1.0:f32[]\n    e:f32[] = mul 1.0:f32[] a\n"
            "    f:f32[] = mul e c\n    g:f32[] = add_any d f\n  in (g,) }")
    assert str(minijax.make_jaxpr(minijax.grad(lambda x: jnp.sin(x) * x))(1.)) == want


def test_jvp_parts_summed_with_add_any():
    # a per-operand JVP rule's parts (mul's) are summed with add_any, as JAX's standard_jvp
    want = ("{ lambda ; a:f32[] b:f32[] c:f32[] d:f32[]. let\n    e:f32[] = mul a b\n"
            "    f:f32[] = mul c b\n    g:f32[] = mul a d\n    h:f32[] = add_any f g\n"
            "  in (e, h) }")
    got = minijax.make_jaxpr(
        lambda x, y, tx, ty: minijax.jvp(lambda a, b: a * b, (x, y), (tx, ty)))(1., 2., 3., 4.)
    assert str(got) == want


def _jvp_mul(x):
    return minijax.jvp(lambda a, b: a * b, (x, 2.), (1., 3.))[1]


def test_add_any_batching_broadcasts_unbatched_operand():
    # JAX 0.10.2: Array([2., 5., 8.]); its jaxpr ends "d:f32[3] = broadcast_in_dim b;
    # e:f32[3] = add_any d c" (the unbatched part broadcast, order kept)
    xs = jnp.arange(3.)
    np.testing.assert_array_equal(np.asarray(minijax.vmap(_jvp_mul)(xs)),
                                  np.float32([2., 5., 8.]))
    eqns = minijax.make_jaxpr(minijax.vmap(_jvp_mul))(xs).jaxpr.eqns
    bcast, add = eqns[-2:]
    assert bcast.primitive.name == "broadcast_in_dim" and add.primitive.name == "add_any"
    assert add.invars[0] is bcast.outvars[0] and add.outvars[0].aval.shape == (3,)


def test_add_any_transposes_to_both_operands():
    # reverse over forward: the linearized jaxpr's add_any is transposed. d2/dx2 x sin x =
    # 2 cos x - x sin x; JAX 0.10.2: Array(0.2391336, dtype=float32, weak_type=True)
    r = minijax.hessian(lambda x: jnp.sin(x) * x)(1.)
    assert r.weak_type
    np.testing.assert_allclose(np.asarray(r), 2 * np.cos(1.0) - np.sin(1.0), rtol=1e-6)
    # d/dx of jvp(a*a at x, tangent x) = d/dx 2x^2 = 4x
    g = minijax.grad(lambda x: minijax.jvp(lambda a: a * a, (x,), (x,))[1])(1.5)
    np.testing.assert_allclose(np.asarray(g), 6.0, rtol=1e-6)


def test_add_any_types():
    # JAX 0.10.2 add_jaxvals_p: under jit the first operand's type (weak or strong); run
    # eagerly it is lax.add (weak only when both are). Values 3.0 in every case.
    bind = ad.add_jaxvals_p.bind
    for a, b, jit_weak in [(1.0, np.float32(2), True), (np.float32(2), 1.0, False)]:
        r = minijax.jit(bind)(a, b)
        assert r.dtype == np.float32 and r.weak_type is jit_weak
        np.testing.assert_array_equal(np.asarray(r), np.float32(3))
        r = bind(jnp.asarray(a), jnp.asarray(b))
        assert r.dtype == np.float32 and not r.weak_type
        np.testing.assert_array_equal(np.asarray(r), np.float32(3))
    text = str(minijax.make_jaxpr(bind)(1.0, np.float32(2)))
    assert text == "{ lambda ; a:f32[] b:f32[]. let c:f32[] = add_any a b in (c,) }"


def test_eager_vmap_of_add_any_types_as_its_impl():
    # Run 18000 (s18015-648, s18004-592, s18010-221): hessian's eager vmap of a sum of a weak
    # and a strong cotangent. JAX 0.10.2 prints [[f32 weak 0, f32 weak 0], [f32 0, f32 0]].
    h = minijax.hessian(lambda a, b: lax.rem(lax.max(3.0, a), b), argnums=(0, 1))(
        -0.403, jnp.asarray(np.float32(-0.0)))
    got = [[(x.dtype, x.weak_type, float(x)) for x in r] for r in h]
    f32 = np.dtype(np.float32)
    assert got == [[(f32, True, 0.0), (f32, True, 0.0)], [(f32, False, 0.0), (f32, False, 0.0)]]
