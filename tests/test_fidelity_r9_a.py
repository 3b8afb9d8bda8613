"""Cases of the oracle run of seeds 9000-9059 (helper A's share) where minijax differed from JAX
0.10.2, each against values recorded from JAX 0.10.2 (the snippet that made each is in its
test)."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax, nn


def _hex(a):
    return [float(v).hex() for v in np.asarray(a).tolist()]


def test_tanh_derivative_is_jaxs_product_form():
    # s9016-21. JAX's tanh JVP is (g + g * ans) * (1 - ans): the cotangent -inf of sqrt at
    # tanh(-0) = -0 meets `g * ans` = -inf * -0 = NaN (minijax's g * (1 - ans**2) gave -inf),
    # and the two forms round differently:
    # x = jnp.array([-0.0, 0.0, 1.5, -0.25], jnp.float32)
    # jax.vjp(lambda x: jnp.sqrt(jnp.tanh(x)), x)[1](jnp.array([1., .5, .75, 1.25]))[0]
    # y = jnp.array([-2.0, -0.7, 0.3, 1.1, 0.01, -5.0], jnp.float32)
    # jax.vmap(jax.grad(jax.grad(lax.tanh)))(y)  (as float.hex)
    x = jnp.asarray(np.array([-0.0, 0.0, 1.5, -0.25], np.float32))
    ct = jnp.asarray(np.array([1.0, 0.5, 0.75, 1.25], np.float32))
    g = minijax.vjp(lambda x: jnp.sqrt(jnp.tanh(x)), x)[1](ct)[0]
    np.testing.assert_array_equal(np.asarray(g), np.array([np.nan, np.nan, 0.07122717052698135,
                                                           np.nan], np.float32))
    y = jnp.asarray(np.array([-2.0, -0.7, 0.3, 1.1, 0.01, -5.0], np.float32))
    h = minijax.vmap(minijax.grad(minijax.grad(lax.tanh)))(y)
    assert _hex(h) == ['0x1.16f9e00000000p-3', '0x1.88d2a80000000p-1', '-0x1.10fd360000000p-1',
                       '-0x1.2670f40000000p-1', '-0x1.47a2dc0000000p-6', '0x1.7d00000000000p-12']


def test_differentiated_prod_returns_the_product_trees_primal():
    # s9035-213. Under jvp/vjp JAX's reduce_prod primal is its pairwise product tree's,
    # ((a * c) * b for 3 factors), not the reduce's ((a * b) * c): with an infinite complex
    # factor the NaNs differ, in float32 the rounding:
    # z = jnp.array([1.7743481-2.719595j, 1.5853399+0.12835233j, inf+0j], jnp.complex64)
    # jax.vjp(jnp.prod, z)[0]                                   -> inf+nanj
    # jax.jvp(lambda x: jnp.prod(x, axis=1), (x,), (jnp.ones_like(x),))[0]  (as float.hex)
    z = jnp.asarray(np.array([1.7743481397628784 - 2.719594955444336j,
                              1.585339903831482 + 0.1283523291349411j, complex(np.inf, 0.0)],
                             np.complex64))
    p = complex(minijax.vjp(jnp.prod, z)[0])
    assert p.real == np.inf and np.isnan(p.imag)
    x = jnp.asarray(np.array([[1.1, 0.3, 7.7, 1.9, 3.3], [0.7, 1.3, 2.9, 0.11, 5.5]], np.float32))
    p, _ = minijax.jvp(lambda x: jnp.prod(x, axis=1), (x,), (jnp.ones_like(x),))
    assert _hex(p) == ['0x1.fdd3820000000p+3', '0x1.98ba720000000p+0']
    # undifferentiated, the reduce's own order (JAX 0.10.2 too): 0x1.fdd386p+3, 0x1.98ba74p+0
    assert _hex(jnp.prod(x, axis=1)) == ['0x1.fdd3860000000p+3', '0x1.98ba740000000p+0']


def test_exponential_linear_units_are_jitted_as_jaxs():
    # s9028-321. JAX's nn.elu/celu/selu are jits: a default alpha of 1 is a constant and XLA
    # folds `1 * expm1(x)`, so elu(nan+0j) keeps its 0 imaginary part (an explicit alpha, or
    # the complex product run op by op, gives nan+nanj):
    # x = jnp.array([nan+0j, -1+0j, 0+nanj, -2+nanj], jnp.complex64)
    # jax.nn.elu(x), jax.nn.celu(x), jax.vmap(jax.nn.elu)(x), jax.nn.elu(x, 1.0)
    nan = float("nan")
    x = jnp.asarray(np.array([complex(nan, 0.0), -1.0, complex(0.0, nan), complex(-2.0, nan)],
                             np.complex64))
    m = -0.63212055
    for got, want in [(nn.elu(x), [complex(nan, 0), m, complex(nan, nan), complex(nan, nan)]),
                      (minijax.vmap(nn.elu)(x), [complex(nan, 0), m, complex(nan, nan),
                                                  complex(nan, nan)]),
                      (nn.celu(x), [0, m, 0, complex(nan, nan)]),
                      (nn.elu(x, 1.0), [complex(nan, nan), m, complex(nan, nan),
                                        complex(nan, nan)])]:
        got, want = np.asarray(got), np.array(want, np.complex64)
        # each part on its own: a complex NaN is NaN whichever part is
        np.testing.assert_allclose(got.real, want.real, rtol=1e-6)
        np.testing.assert_allclose(got.imag, want.imag, rtol=1e-6)


def test_scan_residuals_of_its_consts_are_hoisted_out_of_the_loop():
    # s9042-212. JAX's scan partial eval hoists what only known consts feed out of the known
    # loop: the residual -2 x**-3 of `x ** -2` is a const of the backward scan, not a stack, so
    # the second derivative sums the (mostly zero) carry cotangents over the iterations first
    # and multiplies by d(-2 x**-3) = inf once (inf); inside the loop it was 0 * inf (NaN):
    # f = lambda x: lax.scan(lambda c, _: (x ** -2, None), x, None, length=3)[0]
    # g = lambda x: jax.vjp(f, x)[1](w)[0]
    # g(x), jax.grad(lambda x: (g(x) * w).sum())(x), jax.jacfwd(g)(x)
    x = jnp.asarray(np.array([-2.109375, -0.0, -0.498046875], np.float32))
    w = jnp.asarray(np.array([0.5, 1.0, 1.5], np.float32))

    def f(x):
        return lax.scan(lambda c, _: (x ** -2, None), x, None, length=3)[0]

    def g(x):
        return minijax.vjp(f, x)[1](w)[0]

    np.testing.assert_array_equal(np.asarray(g(x)), np.array(
        [0.10654635727405548, np.nan, 24.283462524414062], np.float32))
    want = np.array([0.07576630264520645, np.inf, 219.40821838378906], np.float32)
    np.testing.assert_array_equal(
        np.asarray(minijax.grad(lambda x: (g(x) * w).sum())(x)), want)
    np.testing.assert_array_equal(
        np.asarray(minijax.jit(minijax.grad(lambda x: (g(x) * w).sum()))(x)), want)
    np.testing.assert_array_equal(np.asarray(minijax.jacfwd(g)(x)), np.array(
        [[0.1515326052904129, 0, 0], [np.nan] * 3, [0, 0, 146.2721405029297]], np.float32))
