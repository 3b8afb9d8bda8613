"""minijax.scipy.special (and the lax special-function primitives under it) against SciPy.

Each entry is checked eagerly and under jit on hypothesis-drawn values (one fixed shape, so
compiled programs are reused) plus hand-picked edge values, in float32 (the result dtype as
JAX's) and, for a subset, float64; derivatives against central differences in float64.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as ss
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minijax
from minijax import lax
from minijax import numpy as jnp
from minijax.scipy import special as sp
from minijax.test_util import check_grads

N = 12  # drawn values per operand; edge values are appended after them


def _draw(data, lo, hi, dtype=np.float32):
    """N values in [lo, hi] (bounds rounded inward to ``dtype``). Values below 1e-30 become 0:
    XLA on CPU flushes subnormals to zero (NumPy does not), and products of such tiny values
    (boxcox's lmbda * log x) would be flushed too."""
    lo_d, hi_d = dtype(lo), dtype(hi)
    lo_d = np.nextafter(lo_d, dtype(np.inf)) if lo_d < lo else lo_d
    hi_d = np.nextafter(hi_d, dtype(-np.inf)) if hi_d > hi else hi_d
    width = 32 if dtype == np.float32 else 64
    elems = st.floats(float(lo_d), float(hi_d), width=width)
    x = data.draw(hnp.arrays(dtype, (N,), elements=elems))
    return np.where(np.abs(x) < 1e-30, dtype(0), x)


# name: (minijax fn, scipy fn, per-operand domains, per-operand edge values, rtol for float32)
CASES = {
    "erf": (sp.erf, ss.erf, [(-4, 4)], [[0.0, -np.inf, np.inf, 6.0]], 1e-5),
    "erfc": (sp.erfc, ss.erfc, [(-4, 4)], [[0.0, -np.inf, np.inf, 9.0]], 1e-5),
    "erfinv": (sp.erfinv, ss.erfinv, [(-0.99, 0.99)], [[0.0, 1.0, -1.0, 0.5]], 1e-5),
    "gammaln": (sp.gammaln, ss.gammaln, [(0.1, 30)], [[1.0, 2.0, 0.0, -1.5]], 1e-5),
    "gamma": (sp.gamma, ss.gamma, [(-4.5, 6)], [[1.0, -0.5, -2.0, 0.0]], 2e-5),
    "gammasgn": (sp.gammasgn, ss.gammasgn, [(-5, 5)], [[-1.0, -1.5, 0.0, np.nan]], 0),
    "loggamma": (sp.loggamma, ss.loggamma, [(0.1, 30)], [[1.0, 2.0, 0.5, 3.0]], 1e-5),
    "digamma": (sp.digamma, ss.digamma, [(0.1, 30)], [[1.0, 0.5, 2.0, 10.0]], 1e-5),
    "betaln": (sp.betaln, ss.betaln, [(0.1, 20), (0.1, 20)], [[1.0, 0.5, 2, 3], [1, 2, 0.5, 3]],
               1e-4),
    "beta": (sp.beta, ss.beta, [(0.1, 10), (0.1, 10)], [[1.0, 0.5, 2, 3], [1, 2, 0.5, 3]], 1e-4),
    "gammainc": (sp.gammainc, ss.gammainc, [(0.05, 20), (0, 30)],
                 [[1.0, 2.0, 0.5, 3.0, 0.0, 1.0, -1.0, 2.0], [0.0, np.inf, 1.0, 3.0, 0.0, -1.0,
                                                               1.0, 1e-3]], 5e-5),
    "gammaincc": (sp.gammaincc, ss.gammaincc, [(0.05, 20), (0, 30)],
                  [[1.0, 2.0, 0.5, 3.0, 0.0, 1.0, -1.0, 25.0], [0.0, np.inf, 1.0, 3.0, 1.0, -1.0,
                                                                1.0, 2.0]], 5e-5),
    "betainc": (sp.betainc, ss.betainc, [(0.1, 10), (0.1, 10), (0, 1)],
                [[1.0, 2.0, 0.5, 0.0, 1.0, 3.0], [1.0, 3.0, 0.5, 1.0, 0.0, 2.0],
                 [0.0, 1.0, 0.5, 0.3, 0.3, 1.5]], 1e-4),
    "xlogy": (sp.xlogy, ss.xlogy, [(-3, 3), (0, 5)], [[0.0, 0.0, 1.0, 2.0], [0.0, 1.0, 0.0, 3]],
              1e-5),
    "xlog1py": (sp.xlog1py, ss.xlog1py, [(-3, 3), (-0.9, 5)],
                [[0.0, 0.0, 1.0, 2.0], [-1.0, 1.0, -1.0, 3]], 1e-5),
    "entr": (sp.entr, ss.entr, [(0, 5)], [[0.0, -1.0, 1.0, np.inf]], 1e-5),
    "rel_entr": (sp.rel_entr, ss.rel_entr, [(0, 5), (0, 5)],
                 [[0.0, 0.0, 1.0, -1.0, 1.0], [0.0, 1.0, 0.0, 1.0, -1.0]], 1e-5),
    "kl_div": (sp.kl_div, ss.kl_div, [(0, 5), (0, 5)],
               [[0.0, 0.0, 1.0, -1.0, 1.0], [0.0, 1.0, 0.0, 1.0, -1.0]], 1e-5),
    "logit": (sp.logit, ss.logit, [(0.001, 0.999)], [[0.0, 1.0, 0.5, 0.25]], 1e-5),
    "expit": (sp.expit, ss.expit, [(-20, 20)], [[0.0, -np.inf, np.inf, 100.0]], 1e-5),
    "ndtr": (sp.ndtr, ss.ndtr, [(-8, 8)], [[0.0, -np.inf, np.inf, -40.0]], 1e-5),
    "ndtri": (sp.ndtri, ss.ndtri, [(0.001, 0.999)], [[0.0, 1.0, 0.5, 0.975]], 1e-4),
    "log_ndtr": (sp.log_ndtr, ss.log_ndtr, [(-30, 10)], [[0.0, -50.0, 12.0, -9.9]], 2e-5),
    "i0": (sp.i0, ss.i0, [(-20, 20)], [[0.0, 1e-3, 8.0, -8.5]], 1e-5),
    "i0e": (sp.i0e, ss.i0e, [(-50, 50)], [[0.0, 1e-3, 8.0, -700.0]], 1e-5),
    "i1": (sp.i1, ss.i1, [(-20, 20)], [[0.0, 1e-3, 8.0, -8.5]], 1e-5),
    "i1e": (sp.i1e, ss.i1e, [(-50, 50)], [[0.0, 1e-3, 8.0, -700.0]], 1e-5),
    "zeta": (sp.zeta, ss.zeta, [(1.1, 10), (0.1, 10)], [[2.0, 1.0, 3.0, 4.0], [1.0, 1.0, 0.5, 2]],
             1e-5),
    "factorial": (sp.factorial, ss.factorial, [(-2, 10)], [[0.0, 1.0, 5.0, -1.0]], 2e-5),
    "comb": (sp.comb, ss.comb, [(0, 20), (0, 20)], [[5.0, 10.0, 3.0, 0.0], [2.0, 3.0, 5.0, 0.0]],
             1e-4),
    "poch": (sp.poch, ss.poch, [(0.1, 5), (0, 4)], [[1.0, 2.0, 0.5, 3], [0.0, 1.0, 2.0, 0.5]],
             1e-4),
    "boxcox": (sp.boxcox, ss.boxcox, [(0.1, 10), (-2, 2)], [[1.0, 2.0, 0.5, 3], [0.0, 1, 0, -1]],
               1e-5),
    "boxcox1p": (sp.boxcox1p, ss.boxcox1p, [(-0.9, 10), (-2, 2)],
                 [[0.0, 2.0, 0.5, 1e-4], [0.0, 1, 0, 0.5]], 1e-5),
}


def _operands(data, domains, edges, dtype):
    return [np.concatenate([_draw(data, lo, hi, dtype), np.asarray(e, dtype)[: len(edges[0])]])
            for (lo, hi), e in zip(domains, edges)]


_JITTED = {}  # one jit per function, so every example reuses its compiled program


def _jit(fn):
    if fn not in _JITTED:
        _JITTED[fn] = minijax.jit(fn)
    return _JITTED[fn]


def _check(fn, ref, ops, rtol, atol=1e-6):
    expected = ref(*[o.astype(np.float64) for o in ops])
    for out in (fn(*ops), _jit(fn)(*ops)):
        assert out.dtype == ops[0].dtype, out.dtype
        np.testing.assert_allclose(np.asarray(out, np.float64), expected, rtol=rtol, atol=atol,
                                   equal_nan=True)


@pytest.mark.parametrize("name", sorted(CASES))
@given(data=st.data())
def test_matches_scipy_float32(name, data):
    fn, ref, domains, edges, rtol = CASES[name]
    _check(fn, ref, _operands(data, domains, edges, np.float32), rtol, 1e-5 if 'gamma' in name else 1e-6)


X64_CASES = ["gammainc", "gammaincc", "betainc", "xlogy", "ndtri", "log_ndtr", "i0e", "zeta"]


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", X64_CASES)
@given(data=st.data())
def test_matches_scipy_float64(name, data):
    fn, ref, domains, edges, _ = CASES[name]
    _check(fn, ref, _operands(data, domains, edges, np.float64), 1e-9, 1e-12)


def test_integer_inputs_give_the_default_float():
    assert sp.gammaln(3).dtype == np.float32
    assert sp.xlogy(np.int32(2), 3).dtype == np.float32
    assert sp.gammainc(np.arange(1, 4), 2).dtype == np.float32


def test_logsumexp_softmax_are_nn_functions():
    assert sp.logsumexp is minijax.nn.logsumexp
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    np.testing.assert_allclose(sp.logsumexp(x, axis=1, b=np.array([1.0, 2.0], np.float32)),
                               ss.logsumexp(x, axis=1, b=[1.0, 2.0]), rtol=1e-6)
    out, sign = sp.logsumexp(x, b=-np.ones_like(x), return_sign=True)
    ref, ref_sign = ss.logsumexp(x, b=-np.ones_like(x), return_sign=True)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    assert sign == ref_sign
    # scipy's softmax normalizes over every axis unless told otherwise
    np.testing.assert_allclose(sp.softmax(x), ss.softmax(x), rtol=1e-6)
    np.testing.assert_allclose(sp.log_softmax(x, axis=0), ss.log_softmax(x, axis=0), rtol=1e-6)


def test_polygamma_and_multigammaln():
    n = np.array([0, 1, 2, 3], np.int32)
    x = np.array([0.5, 1.5, 4.0, 10.0], np.float32)
    np.testing.assert_allclose(sp.polygamma(n, x), ss.polygamma(n, x), rtol=1e-5)
    with pytest.raises(ValueError, match="integer type"):
        sp.polygamma(1.0, x)
    a = np.array([2.0, 3.5, 10.0], np.float32)
    np.testing.assert_allclose(sp.multigammaln(a, 2), ss.multigammaln(a, 2), rtol=1e-5)
    np.testing.assert_allclose(minijax.jit(sp.multigammaln, static_argnums=1)(a, 2),
                               ss.multigammaln(a, 2), rtol=1e-5)


def test_bernoulli_numbers():
    np.testing.assert_allclose(sp.bernoulli(10), ss.bernoulli(10), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sp.bernoulli(1), ss.bernoulli(1))


def test_errors_as_jax():
    with pytest.raises(NotImplementedError, match="Riemann"):
        sp.zeta(2.0)
    with pytest.raises(ValueError, match="complex"):
        sp.entr(np.array([1j]))
    with pytest.raises(TypeError, match="series_order"):
        sp.log_ndtr(1.0, series_order=2.0)
    with pytest.raises(NotImplementedError):
        sp.factorial(3, exact=True)


# ------------------------------------------------------------------------------------------------
# Derivatives (float64 central differences)

GRAD_CASES = {
    "gammaln": (sp.gammaln, [(0.5, 10)]),
    "digamma": (sp.digamma, [(0.5, 10)]),
    "betaln": (sp.betaln, [(0.5, 5), (0.5, 5)]),
    "xlogy": (sp.xlogy, [(-2, 2), (0.5, 3)]),
    "xlog1py": (sp.xlog1py, [(-2, 2), (-0.5, 3)]),
    "entr": (sp.entr, [(0.1, 3)]),
    "rel_entr": (sp.rel_entr, [(0.1, 3), (0.1, 3)]),
    "logit": (sp.logit, [(0.05, 0.95)]),
    "expit": (sp.expit, [(-5, 5)]),
    "ndtr": (sp.ndtr, [(-5, 5)]),
    "ndtri": (sp.ndtri, [(0.05, 0.95)]),
    "log_ndtr": (sp.log_ndtr, [(-30, 10)]),
    "i0e": (sp.i0e, [(0.1, 20)]),
    "i1e": (sp.i1e, [(0.1, 20)]),
    "gammainc": (sp.gammainc, [(0.5, 8), (0.2, 12)]),
    "gammaincc": (sp.gammaincc, [(0.5, 8), (0.2, 12)]),
    "betainc_x": (lambda x: sp.betainc(2.5, 1.5, x), [(0.05, 0.95)]),
    "zeta": (sp.zeta, [(1.5, 6), (0.5, 4)]),
    "poch": (sp.poch, [(0.5, 4), (0.5, 3)]),
}


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
@settings(max_examples=2)  # check_grads compiles afresh per call: many points per example instead
@given(data=st.data())
def test_grads(name, data):
    fn, domains = GRAD_CASES[name]
    args = [data.draw(hnp.arrays(np.float64, (8,), elements=st.floats(lo, hi)))
            for lo, hi in domains]
    check_grads(fn, args, 1, modes=("fwd", "rev"), jit=True, atol=1e-5, rtol=1e-5)


def test_custom_jvps_at_zero():
    # x log y and x log x have derivative log y (resp. log x + 1) in x even where x == 0
    np.testing.assert_allclose(minijax.grad(sp.xlogy)(0.0, 2.0), np.log(2.0))
    np.testing.assert_allclose(minijax.grad(sp.xlog1py)(0.0, 1.0), np.log(2.0))
    # the far tail of log_ndtr: d/dx log ndtr(x) ~ -x there, not 0/0
    np.testing.assert_allclose(minijax.grad(sp.log_ndtr)(-40.0), 40.0, rtol=1e-3)


def test_second_order_in_x():
    """igamma's x-derivative is a density; its own derivative is closed form too."""
    with _x64():
        check_grads(lambda x: lax.igamma(2.5, x), (np.array([0.5, 2.0, 7.0]),), 2,
                    jit=True, atol=1e-5, rtol=1e-5)
        check_grads(lambda x: lax.igamma_grad_a(2.5, x), (np.array([0.5, 2.0, 7.0]),), 1,
                    jit=True, atol=1e-5, rtol=1e-5)


def _x64():
    from minijax.config import config_context

    return config_context("jax_enable_x64", True)


def test_undefined_derivatives_raise():
    with pytest.raises(ValueError, match="with respect to a"):
        minijax.grad(sp.betainc)(2.0, 3.0, 0.5)
    with pytest.raises(ValueError, match="with respect to x"):
        minijax.grad(lambda x: lax.zeta(x, 2.0))(3.0)


def test_random_gamma_grad_is_implicit_derivative():
    """d sample / d a at fixed quantile: -(dP/da) / (dP/dx), with both from SciPy."""
    a = np.array([0.5, 1.5, 3.0, 8.0], np.float32)
    x = np.array([0.2, 1.0, 4.0, 6.0], np.float32)
    h = 1e-5
    a64, x64 = a.astype(np.float64), x.astype(np.float64)
    dp_da = (ss.gammainc(a64 + h, x64) - ss.gammainc(a64 - h, x64)) / (2 * h)
    dp_dx = np.exp((a64 - 1) * np.log(x64) - x64 - ss.gammaln(a64))
    np.testing.assert_allclose(lax.random_gamma_grad(a, x), -dp_da / dp_dx, rtol=1e-4)
    np.testing.assert_allclose(lax.igamma_grad_a(a, x), dp_da, rtol=1e-4, atol=1e-7)


def test_vmap_and_half_precision():
    a = jnp.array([[0.5, 2.0], [3.0, 1.0]], jnp.float32)
    out = minijax.vmap(sp.gammainc)(a, a + 1)
    np.testing.assert_allclose(out, ss.gammainc(np.asarray(a), np.asarray(a) + 1), rtol=1e-5)
    half = lax.igamma(jnp.array([2.0], jnp.bfloat16), jnp.array([1.5], jnp.bfloat16))
    assert half.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(half, np.float32), ss.gammainc(2.0, 1.5), rtol=1e-2)
