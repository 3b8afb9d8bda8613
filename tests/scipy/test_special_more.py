"""minijax.scipy.special's error-function family (wofz, erfcx, dawsn, owens_t, fresnel),
exponential and trigonometric integrals (expi, exp1, expn, sici, spence), hypergeometric
functions (hyp1f1, hyp2f1), bessel_jn and sph_harm_y against scipy.special: hypothesis-drawn
points under module-level jits (one program per family, shared by every example), edge values,
errors as JAX's, and derivatives against central differences."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as ss
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minijax
from minijax.scipy import special
from minijax.test_util import check_grads

N = 12


def _floats(data, lo, hi, shape=(N,), dtype=np.float32):
    width = 32 if dtype == np.float32 else 64
    lo_d = float(np.nextafter(dtype(lo), dtype(np.inf)))
    hi_d = float(np.nextafter(dtype(hi), dtype(-np.inf)))
    return data.draw(hnp.arrays(dtype, shape, elements=st.floats(lo_d, hi_d, width=width)))


def _close(got, want, rtol, atol=0.0, dtype=np.float32):
    assert got.dtype == dtype, got.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol, equal_nan=True)


# ------------------------------------------------------------------------------------------------
# error-function family

_errors = minijax.jit(lambda x, y, z, h, a: (
    special.erfcx(x), special.dawsn(y), special.wofz(z), special.erfcx(z), special.owens_t(h, a),
    *special.fresnel(y)))


@given(data=st.data())
def test_error_functions(data):
    x = _floats(data, -8, 40)
    # JAX's float32 erfcx is 0 on (~9.1, sqrt(log(max))): erfc underflows before the switch
    # to the asymptotic series (test_error_function_edges pins that down)
    x = np.where((x > 8.9) & (x < 9.5), x + 1, x).astype(np.float32)
    y = _floats(data, -12, 12)
    z = (_floats(data, -6, 6) + 1j * _floats(data, -6, 6)).astype(np.complex64)
    h, a = _floats(data, -5, 5), _floats(data, -6, 6)
    erfcx, dawsn, wofz, erfcx_c, owens_t, s, c = _errors(x, y, z, h, a)
    _close(erfcx, ss.erfcx(x.astype(np.float64)), 2e-6)
    _close(dawsn, ss.dawsn(y.astype(np.float64)), 2e-6, 1e-7)
    z64 = z.astype(np.complex128)
    # Weideman's approximation: ~1e-6 relative in complex64 (w underflows only far below)
    np.testing.assert_allclose(wofz, ss.wofz(z64), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(erfcx_c, ss.erfcx(z64), rtol=1e-5, atol=1e-6)
    assert wofz.dtype == erfcx_c.dtype == np.complex64
    _close(owens_t, ss.owens_t(h.astype(np.float64), a.astype(np.float64)), 1e-5, 1e-7)
    s_ref, c_ref = ss.fresnel(y.astype(np.float64))
    _close(s, s_ref, 1e-5, 1e-6)
    _close(c, c_ref, 1e-5, 1e-6)


def test_error_function_edges():
    np.testing.assert_allclose(special.erfcx(np.float32([0.0, 1e4, -30.0])),
                               ss.erfcx([0.0, 1e4, -30.0]), rtol=1e-6)
    assert special.erfcx(np.float32(9.25)) == 0.0  # as JAX 0.10.2 (see test_error_functions)
    assert special.wofz(1.0).dtype == np.complex64  # real input: promoted to complex
    s, c = special.fresnel(np.float32([0.0, np.inf, -np.inf, 5e4]))
    np.testing.assert_allclose(s, [0.0, 0.5, -0.5, 0.5], atol=1e-5)
    np.testing.assert_allclose(c, [0.0, 0.5, -0.5, 0.5], atol=1e-5)
    np.testing.assert_array_equal(special.owens_t(np.float32([np.nan, 1.0]),
                                                  np.float32([1.0, np.nan])), [np.nan] * 2)
    np.testing.assert_allclose(special.owens_t(0.0, np.float32([0.5, 1.0, 3.0])),
                               np.arctan([0.5, 1.0, 3.0]) / (2 * np.pi), rtol=1e-6)
    with pytest.raises(ValueError, match="complex"):
        special.dawsn(1j)
    with pytest.raises(NotImplementedError, match="complex"):
        special.fresnel(1j)
    assert special.dawsn(np.float16(1.0)).dtype == np.float16  # computed in float32


# ------------------------------------------------------------------------------------------------
# exponential and trigonometric integrals

_expints = minijax.jit(lambda x, xp, n, xs, w: (
    special.expi(x), special.exp1(xp), special.expn(n, xp), *special.sici(xs),
    special.spence(w)))


@given(data=st.data())
def test_exponential_integrals(data):
    x = _floats(data, -40, 80)
    x = np.where(np.abs(x) < 1e-3, np.float32(0.5), x).astype(np.float32)  # Ei has a log pole
    xp = _floats(data, 0, 40)
    # x = 0 is an edge of its own (below); XLA flushes float32 subnormals to 0
    xp = np.where(xp < 1e-6, np.float32(0.5), xp).astype(np.float32)
    n = data.draw(hnp.arrays(np.float32, (N,), elements=st.integers(0, 8).map(float)))
    xs = _floats(data, -60, 60)
    w = _floats(data, 0, 20)
    expi, exp1, expn, si, ci, spence = _expints(x, xp, n, xs, w)
    _close(expi, ss.expi(x.astype(np.float64)), 2e-5, 1e-30)
    _close(exp1, ss.exp1(xp.astype(np.float64)), 2e-5, 1e-30)
    _close(expn, ss.expn(n.astype(np.float64), xp.astype(np.float64)), 2e-5, 1e-30)
    si_ref, ci_ref = ss.sici(xs.astype(np.float64))
    _close(si, si_ref, 1e-5, 1e-6)
    # SciPy's Ci(x < 0) is complex; JAX returns Ci(|x|)
    _close(ci, np.where(xs < 0, ss.sici(np.abs(xs).astype(np.float64))[1], ci_ref), 1e-5, 1e-6)
    _close(spence, ss.spence(w.astype(np.float64)), 1e-5, 1e-7)


def test_exponential_integral_edges():
    # E_n(0) is 1/n in JAX 0.10.2 (SciPy: 1/(n - 1)); minijax follows JAX
    np.testing.assert_allclose(special.expn(np.float32([1, 0, 3, -1]), np.float32([0, 0, 0, 1])),
                               [np.inf, np.inf, 1 / 3, np.nan], rtol=1e-6)
    # tiny x: the continued fraction's lanes must not loop forever (JAX 0.10.2 hangs here)
    np.testing.assert_allclose(special.expn(np.float32([2, 1]), np.float32([1e-20, 1e-30])),
                               ss.expn([2, 1], [1e-20, 1e-30]), rtol=1e-5)
    assert np.isnan(special.expn(2.0, -1.0))
    np.testing.assert_allclose(special.expn(6000.0, 2.0), ss.expn(6000, 2.0), rtol=1e-5)
    si, ci = special.sici(np.float32([0.0, np.inf, -np.inf, 2e9]))
    np.testing.assert_allclose(si, [0.0, np.pi / 2, -np.pi / 2, np.pi / 2], rtol=1e-6)
    assert ci[0] == -np.inf and ci[1] == 0.0 and np.isnan(ci[2])
    np.testing.assert_allclose(special.spence(np.float32([-1.0, 0.0, 1.0])),
                               [np.nan, np.pi**2 / 6, 0.0], rtol=1e-6)
    with pytest.raises(TypeError, match="not supported"):
        special.spence(np.int32(1))
    for f in (special.expi, special.exp1):
        with pytest.raises(ValueError, match="complex"):
            f(1j)
    assert special.expn(2, 1).dtype == np.float32


# ------------------------------------------------------------------------------------------------
# hypergeometric functions

_hyp = minijax.jit(lambda a, b, x, c, y: (special.hyp1f1(a, b, x), special.hyp2f1(a, b, c, y)))


@given(data=st.data())
def test_hypergeometric(data):
    a, b = _floats(data, -2.5, 2.5), _floats(data, 0.5, 4)
    x = _floats(data, -5, 5)
    c = _floats(data, 0.5, 4)
    y = _floats(data, -0.9, 0.8)
    h1, h2 = _hyp(a, b, x, c, y)
    a64, b64, c64 = (v.astype(np.float64) for v in (a, b, c))
    _close(h1, ss.hyp1f1(a64, b64, x.astype(np.float64)), 1e-4, 1e-5)
    _close(h2, ss.hyp2f1(a64, b64, c64, y.astype(np.float64)), 1e-4, 1e-5)


@pytest.mark.usefixtures("x64")
def test_hyp1f1_asymptotic():
    """|x| >= 100: the asymptotic series (its exp(x) overflows float32 there)."""
    a, b = np.array([0.5, 1.5, -0.5, 2.5]), np.array([1.0, 2.5, 1.5, 0.7])
    x = np.array([100.0, 105.0, 120.0, 140.0])
    np.testing.assert_allclose(special.hyp1f1(a, b, x), ss.hyp1f1(a, b, x), rtol=1e-8)


def test_hypergeometric_special_cases():
    x64 = np.float64
    cases = [  # (a, b, c, x): each branch of hyp2f1's selection
        (1.0, 2.0, 3.0, 0.0), (0.0, 2.0, 3.0, 0.5), (1.0, 2.0, -1.0, 0.5),  # 1, 1, inf
        (1.5, 2.5, 2.0, 0.5), (1.0, 2.0, 2.0, 0.5), (2.0, 1.0, 2.0, 0.5),  # d <= -1, b == c, a == c
        (0.3, 0.2, 2.5, 1.0), (0.5, 0.5, 1.0, 1.0), (1.0, 2.0, 3.0, 1.5),  # x = 1, d <= 0, x > 1
        (-2.0, 1.5, 2.5, 0.7), (1.5, -3.0, 2.5, 0.95),  # terminating polynomials
        (0.5, 1.5, 3.0, 0.95), (0.5, 1.5, 4.0, 0.95), (0.5, 0.5, 1.5, 0.95),  # near 1, integer d
    ]
    a, b, c, x = (np.float32([case[i] for case in cases]) for i in range(4))
    out = special.hyp2f1(a, b, c, x)
    expected = ss.hyp2f1(a.astype(x64), b.astype(x64), c.astype(x64), x.astype(x64))
    expected[2] = expected[8] = np.inf  # JAX's convention (SciPy: inf and nan)
    np.testing.assert_allclose(out, expected, rtol=1e-4)
    np.testing.assert_allclose(special.hyp1f1(np.float32([0, 2, 2]), np.float32([1, 2, 0]), 1.5),
                               [1.0, np.exp(1.5), np.inf], rtol=1e-6)
    with pytest.raises(ValueError, match="complex"):
        special.hyp1f1(1j, 1.0, 1.0)


# ------------------------------------------------------------------------------------------------
# bessel_jn, sph_harm_y


@pytest.mark.usefixtures("x64")
@given(data=st.data())
def test_bessel_jn(data):
    z = _floats(data, 0.5, 25, shape=(2, 3), dtype=np.float64)
    out = special.bessel_jn(z, v=4)
    assert out.shape == (5, 2, 3) and out.dtype == np.float64
    np.testing.assert_allclose(out, np.stack([ss.jv(k, z) for k in range(5)]), rtol=1e-8,
                               atol=1e-10)


def test_bessel_jn_float32_and_errors():
    z = np.float32([8.0, 12.5, 20.0])  # float32 recurrences stay finite for |z| >~ 5 here
    np.testing.assert_allclose(special.bessel_jn(z, v=2), np.stack([ss.jv(k, z) for k in range(3)]),
                               atol=1e-6)
    assert special.bessel_jn(z, v=2, n_iter=60).shape == (3, 3)
    with pytest.raises(ValueError, match="complex"):
        special.bessel_jn(np.complex64(1.0), v=1)


_sph = minijax.jit(special.sph_harm_y, static_argnames="n_max")


@given(data=st.data())
def test_sph_harm_y(data):
    n = data.draw(hnp.arrays(np.int32, (N,), elements=st.integers(0, 5)))
    m = np.array([data.draw(st.integers(-int(k), int(k))) for k in n], np.int32)
    # off the poles, where sqrt(1 - cos(theta)^2) loses every digit in float32
    theta, phi = _floats(data, 0.05, np.pi - 0.05), _floats(data, 0, 2 * np.pi)
    out = _sph(n, m, theta, phi, n_max=5)
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, ss.sph_harm_y(n, m, theta.astype(np.float64),
                                                  phi.astype(np.float64)), atol=2e-5)


def test_sph_harm_y_defaults_and_errors():
    n, m = np.array([2, 1]), np.array([-1, 1])
    out = special.sph_harm_y(n, m, np.float32([0.4, 2.0]), np.float32([1.0, 0.3]))
    np.testing.assert_allclose(out, ss.sph_harm_y(n, m, [0.4, 2.0], [1.0, 0.3]), atol=1e-6)
    with pytest.raises(NotImplementedError, match="diff_n"):
        special.sph_harm_y(n, m, 0.4, 1.0, diff_n=1)


def test_new_names_listed():
    new = {"bessel_jn", "dawsn", "erfcx", "exp1", "expi", "expn", "fresnel", "hyp1f1", "hyp2f1",
           "owens_t", "sici", "spence", "sph_harm_y", "wofz"}
    assert new <= set(special.__all__) and new <= set(dir(special))


# ------------------------------------------------------------------------------------------------
# derivatives (JAX's rules) against central differences, in float64

GRADS = {
    "erfcx": (special.erfcx, [np.array([-1.5, 0.2, 3.0, 30.0])]),
    "dawsn": (special.dawsn, [np.array([-4.0, 0.3, 5.0, 8.0])]),
    "wofz": (special.wofz, [np.array([0.3 + 0.5j, -1.0 - 2.0j, 2.0 + 0.1j])]),
    "owens_t": (special.owens_t, [np.array([-1.0, 0.4, 2.0]), np.array([0.5, -2.0, 1.5])]),
    "fresnel": (special.fresnel, [np.array([-2.0, 0.5, 1.3, 4.0])]),
    "expi": (special.expi, [np.array([-3.0, 0.4, 3.0, 40.0])]),
    "expn": (lambda x: special.expn(np.array([1.0, 2.0, 3.0, 5.0]), x),
             [np.array([0.5, 1.5, 3.0, 0.2])]),
    "sici": (special.sici, [np.array([-3.0, 0.5, 5.0, 12.0])]),
    "hyp1f1": (special.hyp1f1, [np.array([0.5, 1.5]), np.array([1.5, 2.5]), np.array([0.3, -2.0])]),
    "hyp2f1": (special.hyp2f1, [np.array([0.5, 1.2]), np.array([0.7, -0.4]),
                                np.array([2.5, 1.5]), np.array([0.3, -0.6])]),
}


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", sorted(GRADS))
def test_grads(name):
    fn, args = GRADS[name]
    check_grads(fn, args, 1, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5, jit=True)
