"""Control flow under vmap and grad, against values and errors recorded from JAX 0.10.2."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax


def _switch_arctan2(r):
    index = (jnp.sum(r) > 10).astype(jnp.int32)
    return lax.switch(index, [lambda x: 1 - x, lambda x: jnp.arctan2(x, x)], r)


def test_batched_switch_untaken_branch_gives_no_nan_gradient():
    # s6008-53 / s6049-1: the arctan2 branch (NaN partial at 0) is taken by no example.
    # JAX 0.10.2: [[-1, -1], [-1, -1]].
    x = jnp.array([[.5, -0.], [.2, .3]])
    g = minijax.grad(lambda x: jnp.sum(minijax.vmap(_switch_arctan2)(x)))(x)
    np.testing.assert_array_equal(np.asarray(g), -np.ones((2, 2), np.float32))


def test_batched_cond_unbatched_operand_untaken_branch():
    # The operand is not mapped, the predicate is: JAX 0.10.2 gives [[1, 1], [1, 1]] (no
    # NaN from log(0) in the untaken branch).
    def f(y0):
        return minijax.vmap(lambda r: lax.cond(r > 0, lambda x: jnp.sum(jnp.log(x)),
                                               lambda x: jnp.sum(x), y0))(jnp.array([-1., -2.]))

    j = minijax.jacrev(f)(jnp.array([0., 2.]))
    np.testing.assert_array_equal(np.asarray(j), np.ones((2, 2), np.float32))


def test_batched_switch_mixed_branches_value_and_grad():
    # s6034-224 reduced: per example the index picks x % x, exp or x * 2; x % x at the 0
    # entry of row 0 (which takes exp) has a NaN partial. JAX 0.10.2 (value, gradient):
    def f(x):
        i = jnp.clip(jnp.floor(jnp.sum(x)), 0, 2).astype(jnp.int32)
        return lax.switch(i, [lambda v: v % v, lambda v: jnp.exp(v), lambda v: v * 2], x)

    x = jnp.array([[1., 0.], [1., 1.], [-1., -1.]])
    v, g = minijax.value_and_grad(lambda x: jnp.sum(minijax.vmap(f)(x)))(x)
    np.testing.assert_allclose(float(v), 7.7182817, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(g), [[2.7182817, 1.], [2., 2.], [0., 0.]],
                               rtol=1e-6)


def _weak(x):
    return bool(x.aval.weak_type)


def test_loop_result_has_the_body_carry_weak_type():
    # JAX 0.10.2: a strong carry the body replaces by a Python float comes out weak
    # (Array(5., float32, weak_type=True) for each); a body computing from the carry keeps it.
    x = jnp.float32(1)
    fori = lax.fori_loop(0, 2, lambda i, c: 5.0, x)
    whl = lax.while_loop(lambda c: c < 3, lambda c: 5.0, x)
    carry, ys = lax.scan(lambda c, _: (5.0, 1.0), x, None, length=2)
    for r in (fori, whl, carry):
        assert (r.dtype, _weak(r), float(r)) == (np.float32, True, 5.0)
    assert _weak(ys)
    r = lax.fori_loop(0, 2, lambda i, c: 5.0 * c, x)
    assert (r.dtype, _weak(r), float(r)) == (np.float32, False, 25.0)


def test_fori_loop_zero_cotangent_is_weak_where_the_carry_is():
    # s6050-272 (x64 there; the weak flag is the same in float32). JAX 0.10.2:
    # grad Array(0., float32, weak_type=True); with the carry read, strong 25.
    g = minijax.grad(lambda x: lax.fori_loop(0, 2, lambda i, c: 5.0, x))(jnp.float32(1))
    assert (g.dtype, _weak(g), float(g)) == (np.float32, True, 0.0)
    t = minijax.jvp(lambda x: lax.fori_loop(0, 2, lambda i, c: 5.0, x),
                    (jnp.float32(1),), (jnp.float32(1),))[1]
    assert (t.dtype, _weak(t), float(t)) == (np.float32, True, 0.0)
    g = minijax.grad(lambda x: lax.fori_loop(0, 2, lambda i, c: 5.0 * c, x))(jnp.float32(1))
    assert (g.dtype, _weak(g), float(g)) == (np.float32, False, 25.0)
    # a scan whose carry the body makes weak, beside a strong ys cotangent: JAX 0.10.2
    # (float32 weak 0.0, float32 strong 0.0)
    xs = jnp.arange(3.)
    gx, gxs = minijax.grad(lambda x, xs: lax.scan(lambda c, x: (5.0, x), x, xs)[0],
                           argnums=(0, 1))(jnp.float32(2), xs)
    assert (_weak(gx), _weak(gxs)) == (True, False)
