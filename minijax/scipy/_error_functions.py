"""The error-function family of ``jax.scipy.special``: ``wofz`` (Faddeeva), ``erfcx``,
``dawsn``, ``owens_t``, with JAX's rational and quadrature approximations and its derivative
rules (each a ``custom_jvp`` of the closed-form derivative)."""

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.custom_derivatives import custom_jvp
from minijax.numpy._util import lax_const, promote_args_inexact
from minijax.numpy.creation import to_array

_TWO_OVER_SQRT_PI = float(2.0 / np.sqrt(np.pi))

# Weideman (1994): w(z) in the upper half plane as a polynomial in Z = (L + iz) / (L - iz).
_WOFZ_L = 4.756828460010884
_WOFZ_C = np.array([
    -1.3034426067909105e-12, 3.741183837373847e-12, 8.030427700497756e-12,
    -2.154359355749088e-11, -5.544244996323793e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.231020211492061e-10, -3.2080151339721323e-09,
    8.124886421653591e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.401531731283225e-06, 6.821031944357515e-06, -2.1409619201999998e-05,
    -0.0001307544925457942, -0.00024532980270038237, 0.00039259136070109705,
    0.004519541105349309, 0.0190061557848455, 0.05730440352983728, 0.14060716226893755,
    0.2954445107150874, 0.5460139720639338, 0.9019254893648001, 1.345544169234545,
    1.8256696296324815, 2.2635372999002676, 2.5722534081245696
])


def _wofz_upper(z):
    re = jnp.real(z)
    iz = lax.complex(-jnp.imag(z), re)
    denom = _WOFZ_L - iz
    p = jnp.polyval(jnp.asarray(_WOFZ_C, dtype=z.dtype), (_WOFZ_L + iz) / denom)
    return 2 * p / (denom * denom) + float(1.0 / np.sqrt(np.pi)) / denom


@custom_jvp
def _wofz(z):
    # the lower half plane by reflection: w(-z) = 2 exp(-z^2) - w(z)
    upper = jnp.imag(z) >= 0
    w_upper = _wofz_upper(jnp.where(upper, z, -z))
    return jnp.where(upper, w_upper, 2 * jnp.exp(-z * z) - w_upper)


_wofz.defjvps(lambda g, ans, z: g * (-2 * z * ans + lax.complex(
    jnp.zeros_like(jnp.real(z)), jnp.full_like(jnp.real(z), _TWO_OVER_SQRT_PI))))


def wofz(z):
    """The Faddeeva function exp(-z^2) erfc(-iz), for complex (or real, promoted) ``z``."""
    (z,) = promote_args_inexact("wofz", z)
    z = to_array(z)
    if not dtypes.is_complex(z.dtype):
        z = z.astype(jnp.result_type(z.dtype, np.complex64))
    return _wofz(z)


def _erfcx_asymptotic(x, nterms):
    """erfcx(x) ~ 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k, where exp(x^2) overflows."""
    coeffs = [7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, 0.75, -0.5,
              1.0]
    t = lax_const(x, 1.0) / lax.square(x)
    p = jnp.polyval(np.array(coeffs[-nterms:], dtype=x.dtype), t)
    return p / (x * lax_const(x, np.sqrt(np.pi)))


def _erfcx_impl(x, nterms):
    # lax.select with x's-dtype constants, in JAX's order, so the jaxpr prints as JAX's
    large = x > lax_const(x, np.sqrt(np.log(np.finfo(x.dtype).max)))
    safe_x = lax.select(large, lax.full_like(x, 1.0), x)
    direct = lax.exp(lax.square(safe_x)) * lax.erfc(safe_x)
    return lax.select(large, _erfcx_asymptotic(x, nterms), direct)


@custom_jvp
def _erfcx(x):
    if x.dtype == np.float64:
        return _erfcx_impl(x, nterms=9)
    if x.dtype == np.float32:
        return _erfcx_impl(x, nterms=5)
    return _erfcx_impl(x.astype(np.float32), nterms=5).astype(x.dtype)


_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - lax_const(x, 2.0 / np.sqrt(np.pi))))


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x) (complex: wofz(ix))."""
    (x,) = promote_args_inexact("erfcx", x)
    x = to_array(x)
    if dtypes.is_complex(x.dtype):
        return _wofz(lax.complex(-jnp.imag(x), jnp.real(x)))
    return _erfcx(x)


# Cephes' rational approximations of Dawson's integral on [0, 3.25), [3.25, 6.25), [6.25, inf).
_DAWSN_AN = np.array([
    1.1368149897175597e-11, 8.492622676674738e-10, 1.9443420417555306e-08,
    9.531517412544844e-07, 3.078283098749132e-06, 0.00035251336852028877,
    -0.0008501498467244109, 0.04226182230055466, -0.09174803717734524, 1.0
])
_DAWSN_AD = np.array([
    2.403720730667626e-11, 1.488646813684934e-09, 5.212652810105416e-08, 1.2725847827318697e-06,
    2.324902498207895e-05, 0.00032552474182605793, 0.003488058146571626, 0.027944853119882897,
    0.15887424196012057, 0.5749186294893204, 1.0
])
_DAWSN_BN = np.array([
    0.5089551564179009, -0.24475441814269785, 0.09415123353035344, -0.021871125514203903,
    0.003662076123295692, -0.0004232091144603888, 3.5964130479389666e-05,
    -2.1464035171996896e-06, 9.100107800763914e-08, -2.4027452082825098e-09,
    3.592333854409284e-11
])
_DAWSN_BD = np.array([
    1.0, -0.6318398698733682, 0.2367067882282487, -0.053180636700322324, 0.008480417185862954,
    -0.0009479967684866654, 7.810255929445524e-05, -4.558751532524426e-06,
    1.8910035811142186e-07, -4.913246913319206e-09, 7.184664032357345e-11
])
_DAWSN_CN = np.array([
    -0.5905928605347732, 0.6292352427243688, -0.17285897538038814, 0.016483704782518965,
    -0.0004868276130204627
])
_DAWSN_CD = np.array([
    1.0, -2.698200571975449, 1.7327079904594784, -0.3937085822819395, 0.03442789240412334,
    -0.0009736552260409412
])


def _dawsn_impl(x):
    # JAX's operations in JAX's order (lax.select, x's-dtype constants), so the jaxpr prints as
    # JAX's; dawsn is odd: evaluated at |x|, times sign(x) (sign(0) = 0 = dawsn(0)).
    sign = jnp.sign(x)
    ax = lax.abs(x)
    an, ad, bn, bd, cn, cd = (np.array(c, dtype=x.dtype) for c in
                              (_DAWSN_AN, _DAWSN_AD, _DAWSN_BN, _DAWSN_BD, _DAWSN_CN, _DAWSN_CD))
    t = lax_const(x, 1.0) / lax.square(ax)
    # each region evaluated at a harmless point outside itself (no inf/NaN in the unused lanes)
    r1 = ax < lax_const(x, 3.25)
    ax_1 = lax.select(r1, ax, lax.full_like(ax, 1.0))
    ax2_1 = lax.square(ax_1)
    val1 = ax_1 * jnp.polyval(an, ax2_1) / jnp.polyval(ad, ax2_1)
    t_2 = lax.select((ax >= lax_const(x, 3.25)) & (ax < lax_const(x, 6.25)), t,
                     lax.full_like(t, 1.0))
    ax_2 = lax.select((ax >= lax_const(x, 3.25)) & (ax < lax_const(x, 6.25)), ax,
                      lax.full_like(ax, 1.0))
    val2 = (lax_const(x, 0.5) / ax_2) * (
        lax_const(x, 1.0) + t_2 * jnp.polyval(bn, t_2) / jnp.polyval(bd, t_2))
    t_3 = lax.select(ax >= lax_const(x, 6.25), t, lax.full_like(t, 1.0))
    ax_3 = lax.select(ax >= lax_const(x, 6.25), ax, lax.full_like(ax, 1.0))
    val3 = (lax_const(x, 0.5) / ax_3) * (
        lax_const(x, 1.0) + t_3 * jnp.polyval(cn, t_3) / jnp.polyval(cd, t_3))
    return sign * lax.select(ax < lax_const(x, 3.25), val1,
                             lax.select(ax < lax_const(x, 6.25), val2, val3))


@custom_jvp
def _dawsn(x):
    if x.dtype in (np.float32, np.float64):
        return _dawsn_impl(x)
    return _dawsn_impl(x.astype(np.float32)).astype(x.dtype)


# (to_array: an eager grad's primal may be a Python-float-like scalar, which a weak constant,
# JAX's Python scalar, cannot multiply here)
_dawsn.defjvps(
    lambda g, ans, x: g * (lax_const(x, 1.0) - lax_const(x, 2.0) * to_array(x) * ans))


def dawsn(x):
    """Dawson's integral exp(-x^2) int_0^x exp(t^2) dt."""
    (x,) = promote_args_inexact("dawsn", x)
    x = to_array(x)
    if dtypes.is_complex(x.dtype):
        raise ValueError("dawsn does not support complex-valued inputs.")
    return _dawsn(x)


# Owen's T: 13-point Gauss-Legendre quadrature of a / (2 pi) int_0^1 exp(-h^2 (1 + a^2 t^2)/2)
# / (1 + a^2 t^2) dt, with |a| > 1 reduced to |a| <= 1 by T(h, a) = ... - T(ah, 1/a).
_OWENS_T_QUAD_PTS = np.array([
    0.0035082039676451716, 0.031279042338030756, 0.08526682628321945, 0.16245071730812277,
    0.25851196049125436, 0.3680755384069753, 0.485010929056047, 0.6027751415261857,
    0.7147788421775323, 0.814755109887601, 0.8971102975594897, 0.9572380808594426,
    0.991788329746297
])
_OWENS_T_QUAD_WTS = np.array([
    0.018831438115323503, 0.01856708624397765, 0.018042093461223385, 0.017263829606398752,
    0.016243219975989858, 0.014994592034116705, 0.013535474469662087, 0.011886351605820165,
    0.010070377242777432, 0.008113054574229958, 0.006041900952847024, 0.0038862217010742057,
    0.001679303108454609
])


def _owens_t_quadrature(h, a):
    r = jnp.square(a)[..., None] * jnp.expand_dims(_OWENS_T_QUAD_PTS, tuple(range(a.ndim)))
    integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1.0 + r)) / (1.0 + r)
    return a * (integrand @ _OWENS_T_QUAD_WTS)


# JAX's operations in JAX's order (its jaxpr), named as JAX's custom_jvp
@custom_jvp
def _owens_t_impl(h, a):
    h = jnp.abs(h)
    abs_a = jnp.abs(a)
    root_2 = lax_const(h, np.sqrt(2))
    h_normed = h / root_2
    mod_a = jnp.where(abs_a <= 1.0, abs_a, jnp.reciprocal(abs_a))
    mod_h = jnp.where(abs_a <= 1.0, h, abs_a * h)
    result = _owens_t_quadrature(mod_h, mod_a)
    # exact values at h = 0 and a = 1
    result = jnp.where(mod_h == 0.0, jnp.arctan(mod_a) / (2 * np.pi), result)
    result = jnp.where(mod_a == 1.0,
                       0.125 * lax.erfc(-mod_h / root_2) * lax.erfc(mod_h / root_2), result)
    # |a| > 1: T(h, a) = (ndtr(h) + ndtr(ah)) / 2 - ndtr(h) ndtr(ah) - T(ah, 1/a), in erf or
    # erfc form by the size of ah
    normh = lax.erfc(h_normed)
    normah = lax.erfc(abs_a * h_normed)
    result = jnp.where(
        abs_a > 1.0,
        jnp.where(abs_a * h <= 0.67,
                  0.25 - 0.25 * lax.erf(h_normed) * lax.erf(abs_a * h_normed) - result,
                  0.25 * (normh + normah - normh * normah) - result),
        result)
    result = lax.sign(a) * result
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(result, np.nan), result)


@_owens_t_impl.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    h, a = to_array(h), to_array(a)  # (as in dawsn's rule)
    result = _owens_t_impl(h, a)
    root_2 = lax_const(h, np.sqrt(2))
    dout_dh = (-lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / root_2)
               / lax_const(h, 2.0 * np.sqrt(2.0 * np.pi)))  # 2 x: exact, as JAX folds it
    dout_da = (lax.exp(-0.5 * (lax.square(a) + 1.0) * lax.square(h))
               / (2.0 * np.pi * (lax.square(a) + 1.0)))
    return result, (dout_dh * dh + dout_da * da).astype(result.dtype)


def owens_t(h, a):
    """Owen's T function: the probability that X > h and 0 < Y < aX, X and Y independent
    standard normals."""
    h, a = promote_args_inexact("owens_t", h, a)
    return _owens_t_impl(h, a)
