"""Cases of the 10000-seed oracle run (tools/difftest/triage_10000.md).

Expected values were printed by JAX 0.10.2 (/work/venv_jax) on CPU for the same inputs.
"""
import numpy as np

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_INF = float("inf")


def test_complex_log2_divides_each_part_by_real_ln2():
    # s10035-142: JAX's log2 of a complex value scales the real and imaginary parts of log(z)
    # by the real ln 2; a complex divisor log(2+0j) made log2(-inf+0j)'s imaginary part NaN.
    z = jnp.asarray(np.array([complex(-_INF, 0.0), -1 + 0j, complex(_INF, -_INF), 2 + 2j],
                             np.complex64))
    expected = np.array([complex(_INF, 4.53236), 4.53236j, complex(_INF, -1.13309),
                         1.5 + 1.13309j], np.complex64)
    for got in (jnp.log2(z), jax.jit(jnp.log2)(z),
                jax.vmap(jax.vmap(jnp.log2))(z.reshape(2, 2)).reshape(4)):
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)
    g = jax.grad(lambda x: jnp.log2(x).real)(jnp.complex64(2 + 2j))
    np.testing.assert_allclose(np.asarray(g), np.complex64(0.36067376 - 0.36067376j), rtol=1e-6)


def test_cond_and_switch_results_take_branch_zero_weak_type():
    # s10046-123: JAX's cond/switch results have branch 0's types, weak type included (a
    # weak branch 0 makes a weak result even where the other branch is strong and runs, and
    # a strong branch 0 a strong one); JAX 0.10.2 printed these weak types.
    weak = jnp.arange(4) / -1.5
    strong = jnp.ones(4, jnp.float32)
    w, s = (lambda _: weak), (lambda _: strong)
    for p in (True, False):
        assert lax.cond(p, w, s, 0).weak_type is False
        assert lax.cond(p, s, w, 0).weak_type is True
        assert jax.jit(lambda p: lax.cond(p, s, w, 0))(p).weak_type is True
    for i in (0, 1, 2):
        assert lax.switch(i, [w, s, s], 0).weak_type is True
        assert lax.switch(i, [s, w, w], 0).weak_type is False
    assert lax.cond(True, lambda _: jnp.float32(2), lambda _: 1.0, 0).weak_type is True


def test_cumprod_jvp_primal_is_the_associative_scan():
    # s10008-166: under jvp JAX computes cumprod's primal with the tangent, from the parallel
    # prefix scan: its first element is the input's own (nan+0j; the eager primitive gives
    # nan+nanj, 1+0j times it) and float32 products round in the scan's order.
    z = jnp.asarray(np.array([complex(np.nan, 0), 2 + 1j, 0.5 - 1j], np.complex64))
    out, tan = jax.jvp(jnp.cumprod, (z,), (jnp.ones_like(z),))
    np.testing.assert_array_equal(np.asarray(out), np.array(
        [complex(np.nan, 0), complex(np.nan, np.nan), complex(np.nan, np.nan)], np.complex64))
    np.testing.assert_array_equal(np.asarray(tan)[:1], np.array([1 + 0j], np.complex64))
    assert np.isnan(np.asarray(jnp.cumprod(z))[0].imag)
    x = jnp.asarray(np.linspace(0.7, 1.9, 7).astype(np.float32))
    out, _ = jax.jvp(jnp.cumprod, (x,), (jnp.ones_like(x),))
    assert [float(v).hex() for v in np.asarray(out)][3:5] == [
        "0x1.cd42c20000000p-1", "0x1.59f2120000000p+0"]
    assert [float(v).hex() for v in np.asarray(jnp.cumprod(x))][3:5] == [
        "0x1.cd42c40000000p-1", "0x1.59f2140000000p+0"]


def test_eager_linearization_inlines_the_tangent_of_inline_jnp_functions():
    # s10057-197: JAX jits jnp.multiply with inline=True, so in an eager grad/vjp its tangent
    # is inlined into the linear program and the transpose's multiply and reduce_sum run one by
    # one: 8 * 3.4e38 overflows to inf beside -inf, NaN (JAX 0.10.2). Run as one compiled
    # call, XLA contracts them to an FMA and gets -inf, as under an outer jit (JAX too).
    x = jnp.asarray(np.array([-_INF, 3.4028234663852886e38, -0.29221341013908386], np.float32))
    w = jnp.asarray(np.arange(1.0, 10.0, dtype=np.float32).reshape(3, 3))

    def f(v):
        return jnp.sum(jnp.outer(v, v) * w)

    assert np.isnan(np.asarray(jax.grad(f)(x))).all()
    assert np.isnan(np.asarray(jax.value_and_grad(f)(x)[1])).all()
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.grad(f))(x)), [-_INF] * 3)
    d = x[None, :]
    ct = jax.vjp(lambda v: v * d, x[:, None])[1](w)[0]
    assert np.isnan(np.asarray(ct)).all()
