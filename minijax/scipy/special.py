"""``jax.scipy.special``: SciPy's special functions on minijax arrays.

Each is a thin layer over one ``lax`` primitive or a short composition of them: arguments are
promoted to a common inexact dtype (integers become the default float), as in JAX.
``logsumexp`` *is* ``minijax.nn.logsumexp``. Derivatives follow JAX, with ``custom_jvp`` where
the plain composition would differentiate badly (``xlogy``/``xlog1py``/``entr`` at 0, ``logit``,
``log_ndtr`` in the far tail, ``zeta`` in its first argument).
"""

from __future__ import annotations

import importlib as _importlib
import operator
from functools import partial

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.autodiff import jvp
from minijax.core import concrete_or_error
from minijax.custom_derivatives import custom_jvp
from minijax.nn.functions import log_softmax as _nn_log_softmax
from minijax.nn.functions import logsumexp
from minijax.nn.functions import softmax as _nn_softmax
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import lax_const, promote_args_inexact
from minijax.numpy.creation import to_array

__all__ = [
    "bernoulli", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "digamma", "entr",
    "erf", "erfc", "erfinv", "expit", "factorial", "gamma", "gammainc", "gammaincc", "gammaln",
    "gammasgn", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax", "loggamma",
    "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "poch", "polygamma", "rel_entr",
    "softmax", "xlog1py", "xlogy", "zeta",
    # defined in the modules of _LAZY below
    "bessel_jn", "dawsn", "erfcx", "exp1", "expi", "expn", "fresnel", "hyp1f1", "hyp2f1",
    "owens_t", "sici", "spence", "sph_harm_y", "wofz",
]


def _promote(name, *args):
    """``args`` as arrays of one inexact dtype (weakly typed if all were Python scalars)."""
    return [to_array(x) for x in promote_args_inexact(name, *args)]


def _real(name, *args):
    """``args`` promoted to one inexact dtype; complex refused as JAX refuses it."""
    args = _promote(name, *args)
    if dtypes.is_complex(jnp.result_type(args[0])):
        raise ValueError(f"{name} does not support complex-valued inputs.")
    return args


# ------------------------------------------------------------------------------------------------
# Normalizing functions: minijax.nn's, with scipy's default of reducing over every axis.


def softmax(x, /, *, axis=None):
    """``exp(x) / sum(exp(x))`` over ``axis`` (every axis by default)."""
    return _nn_softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """``x - logsumexp(x)`` over ``axis`` (every axis by default)."""
    return _nn_log_softmax(x, axis=axis)


# ------------------------------------------------------------------------------------------------
# Error function and the normal distribution


def erf(x):
    (x,) = _promote("erf", x)
    return lax.erf(x)


def erfc(x):
    (x,) = _promote("erfc", x)
    return lax.erfc(x)


def erfinv(x):
    (x,) = _promote("erfinv", x)
    return lax.erf_inv(x)


def _float_only(name, x):
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    return x


def _ndtr(x):
    # erf near 0 (where 1 + erf is accurate), erfc in the tails (no cancellation there).
    # lax.select, as JAX's (no where jit); its constants are NumPy scalars of x's dtype, strong,
    # so the result is strong for a weak x too.
    dtype = x.dtype.type
    half_sqrt2 = dtype(0.5) * np.sqrt(2.0, dtype=dtype)
    w = x * half_sqrt2
    z = jnp.abs(w)
    y = lax.select(z < half_sqrt2, dtype(1.0) + lax.erf(w),
                   lax.select(w > dtype(0.0), dtype(2.0) - lax.erfc(z), lax.erfc(z)))
    return dtype(0.5) * y


def ndtr(x):
    """The standard normal CDF (float32 or float64 input)."""
    return _ndtr(_float_only("ndtr", x))


# Cephes' piecewise rational approximations of ndtri (as JAX 0.10.2's): for p > exp(-2), in
# w = p - 1/2; below, in 1/z with z = sqrt(-2 log p), one table for z >= 8 (p < exp(-32)).
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def ndtri(p):
    """The inverse of ``ndtr`` (float32 or float64 input); 0 and 1 map to -inf and inf."""
    p = _float_only("ndtri", p)
    dtype = p.dtype.type
    coeffs = [np.array(c, dtype=dtype) for c in
              (_NDTRI_P0, _NDTRI_Q0, _NDTRI_P1, _NDTRI_Q1, _NDTRI_P2, _NDTRI_Q2)]
    p0, q0, p1, q1, p2, q2 = coeffs
    maybe_complement_p = jnp.where(p > dtype(-np.expm1(-2.)), dtype(1.) - p, p)
    # 0 would make NaNs below in a branch whose value is not used: any other value will do
    sanitized_mcp = jnp.where(maybe_complement_p == dtype(0.), jnp.full(p.shape, dtype(0.5)),
                              maybe_complement_p)
    w = sanitized_mcp - dtype(0.5)
    ww = lax.square(w)
    x_for_big_p = w + w * ww * (jnp.polyval(p0, ww) / jnp.polyval(q0, ww))
    x_for_big_p *= -dtype(np.sqrt(2. * np.pi))
    z = lax.sqrt(dtype(-2.) * lax.log(sanitized_mcp))
    first_term = z - lax.log(z) / z
    second_term_small_p = jnp.polyval(p2, 1 / z) / jnp.polyval(q2, 1 / z) / z
    second_term_otherwise = jnp.polyval(p1, 1 / z) / jnp.polyval(q1, 1 / z) / z
    x_for_small_p = first_term - second_term_small_p
    x_otherwise = first_term - second_term_otherwise
    x = jnp.where(sanitized_mcp > dtype(np.exp(-2.)), x_for_big_p,
                  jnp.where(z >= dtype(8.0), x_for_small_p, x_otherwise))
    x = jnp.where(p > dtype(1. - np.exp(-2.)), x, -x)
    infinity = jnp.full(p.shape, dtype(np.inf))
    return jnp.where(p == dtype(0.0), -infinity, jnp.where(p == dtype(1.0), infinity, x))


# log_ndtr: log(ndtr(x)) directly in the middle, -ndtr(-x) (= log1p(-ndtr(-x)) to first order)
# above ``upper``, and an asymptotic series of log ndtr below ``lower``, where ndtr underflows.
_LOG_NDTR_BOUNDS = {np.dtype(np.float32): (np.array(-10, np.float32), np.array(5, np.float32)),
                    np.dtype(np.float64): (np.array(-20, np.float64), np.array(8, np.float64))}
_LOG_SQRT_2PI = np.log(np.sqrt(2 * np.pi))


def _log_ndtr_series(x, series_order):
    """1 + sum_n (-1)^n (2n-1)!! / x^(2n), its even and odd terms summed apart (as JAX)."""
    dtype = x.dtype.type
    if series_order <= 0:
        return np.array(1, dtype)
    x2 = lax.square(x)
    sums = [jnp.zeros_like(x), jnp.zeros_like(x)]  # even, odd
    x2n = x2
    for n in range(1, series_order + 1):
        sums[n % 2] += np.array(np.prod(np.arange(2 * n - 1, 1, -2)), dtype) / x2n
        x2n *= x2
    return dtype(1.0) + sums[0] - sums[1]


def _log_ndtr_tail(x, series_order):
    dtype = x.dtype.type
    log_scale = -dtype(0.5) * lax.square(x) - lax.log(-x) - dtype(0.5 * np.log(2.0 * np.pi))
    return log_scale + lax.log(_log_ndtr_series(x, series_order))


# A custom_jvp of the whole function, nondiff series_order (JAX's: its jaxpr's custom_jvp_call is
# named log_ndtr, and the argument checks run inside it)
@partial(custom_jvp, nondiff_argnums=(1,))
def log_ndtr(x, series_order=3):
    """``log(ndtr(x))``, accurate far into both tails (float32 or float64 input)."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = jnp.asarray(x)
    if x.dtype not in _LOG_NDTR_BOUNDS:
        raise TypeError(f"x.dtype={x.dtype} is not supported.")
    lower, upper = _LOG_NDTR_BOUNDS[x.dtype]
    above = lax.gt(x, upper)
    # lax.min/max keep the unselected branches finite (their gradients would be NaN at 0)
    ndtr_res = _ndtr(jnp.where(above, -x, lax.max(x, lower)))
    return jnp.where(above, -ndtr_res,
                     jnp.where(lax.gt(x, lower), lax.log(ndtr_res),
                               _log_ndtr_tail(lax.min(x, lower), series_order)))


@log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    ans = log_ndtr(x, series_order=series_order)
    # d/dx log ndtr(x) = pdf(x) / ndtr(x), formed in logs so the tail does not give 0/0
    log_pdf = lax.sub(lax.mul(lax_const(x, -0.5), lax.square(x)), lax_const(x, _LOG_SQRT_2PI))
    return ans, lax.mul(t, lax.exp(lax.sub(log_pdf, ans)))


# ------------------------------------------------------------------------------------------------
# Gamma and beta functions


def gammaln(x):
    """``log|Gamma(x)|``."""
    (x,) = _promote("gammaln", x)
    return lax.lgamma(x)


@eager_jit(inline=False)  # a jit in JAX
def gammasgn(x):
    """The sign of ``Gamma(x)``: NaN at the poles (non-positive integers) and for NaN."""
    (x,) = _real("gammasgn", x)
    typ = x.dtype.type
    floor_x = lax.floor(x)
    negative = x < 0
    nan = (negative & (x == floor_x)) | jnp.isnan(x)
    minus = (negative & (jnp.remainder(floor_x, 2) != 0)) | ((x == 0) & jnp.signbit(x))
    return jnp.select([nan, minus], [typ(np.nan), typ(-1.0)], typ(1.0))


# Lanczos's approximation (g = 7, 9 coefficients, GSL's lanczos_7_c), JAX's for complex gamma
_LANCZOS_G = 7.0
_LANCZOS_COEFFS = np.array([
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
])


def _complex_loggamma(z):
    """log Gamma(z) by Lanczos's approximation, reflected (Gamma(z) Gamma(1 - z) =
    pi / sin(pi z)) where Re(z) < 0.5."""
    reflect = jnp.real(z) < 0.5
    zz = jnp.where(reflect, 1.0 - z, z) - 1.0
    coeffs = jnp.asarray(_LANCZOS_COEFFS, dtype=z.dtype)
    ks = lax.expand_dims(jnp.arange(1, 9, dtype=z.dtype), tuple(range(zz.ndim)))
    ag = coeffs[0] + jnp.sum(lax.expand_dims(coeffs[1:], tuple(range(zz.ndim)))
                             / (lax.expand_dims(zz, (zz.ndim,)) + ks), axis=-1)
    t = zz + _LANCZOS_G + 0.5
    half_log2pi = jnp.asarray(0.5 * np.log(2.0 * np.pi), dtype=z.dtype)
    lanczos = half_log2pi + (zz + 0.5) * jnp.log(t) - t + jnp.log(ag)
    # the unselected reflection gets a harmless point: a NaN there would reach gradients
    z_safe = jnp.where(reflect, z, jnp.full_like(z, 0.5))
    reflected = jnp.log(jnp.asarray(np.pi, dtype=z.dtype)) - jnp.log(jnp.sin(np.pi * z_safe)) - lanczos
    return jnp.where(reflect, reflected, lanczos)


def _complex_nan_or_pole(z):
    """Where complex gamma is NaN (poles: non-positive real integers; NaN), and z with those
    replaced by 1 (so the unselected computation stays finite)."""
    pole = (jnp.imag(z) == 0) & (jnp.real(z) == jnp.floor(jnp.real(z))) & (jnp.real(z) <= 0)
    bad = pole | jnp.isnan(z)
    return bad, jnp.where(bad, jnp.ones_like(z), z), jnp.array(complex(np.nan, np.nan), z.dtype)


def _complex_gamma(z):
    bad, z_safe, nan = _complex_nan_or_pole(z)
    return jnp.where(bad, nan, jnp.exp(_complex_loggamma(z_safe)))


@eager_jit(inline=False)  # a jit in JAX
def _complex_loggamma_scipy(z):
    """SciPy's branch (one cut, along the negative real axis): z is first shifted right of
    Re = 0.5, log Gamma(z) = log Gamma(z + n) - sum_(k<n) log(z + k)."""
    bad, z_safe, nan = _complex_nan_or_pole(z)
    n = jnp.maximum(0, jnp.ceil(0.5 - jnp.real(z_safe)).astype(int))

    def body(state):
        k, sum_log = state
        live = k < n
        zk = jnp.where(live, z_safe + k, jnp.ones_like(z_safe))
        return k + 1, sum_log + jnp.where(live, jnp.log(zk), jnp.zeros_like(sum_log))

    _, sum_log = lax.while_loop(lambda state: jnp.any(state[0] < n), body,
                                (0, jnp.zeros_like(z_safe)))
    return jnp.where(bad, nan, _complex_loggamma(z_safe + n) - sum_log)


def loggamma(x):
    """The principal branch of ``log(Gamma(x))``: NaN for real ``x <= 0``; complex ``x`` on
    SciPy's branch."""
    (x,) = _promote("loggamma", x)
    if dtypes.is_complex(x.dtype):
        return _complex_loggamma_scipy(x)
    res = lax.lgamma(x)  # before the comparison, as JAX's (the order of its equations)
    return jnp.where(x > 0, res, np.nan)


def gamma(x):
    (x,) = _promote("gamma", x)
    if dtypes.is_complex(x.dtype):
        return _complex_gamma(x)
    return gammasgn(x) * jnp.exp(lax.lgamma(x))


def _algdiv(a, b):
    """``lgamma(b) - lgamma(a + b)`` for ``a <= b``, ``b >= 8`` (cdflib's algdiv, as JAX's): no
    cancellation between two large log-gammas."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """``log|B(a, b)|`` = lgamma(a) + lgamma(b) - lgamma(a + b), the last two through
    ``_algdiv`` when the larger argument is 8 or more (JAX 0.10.2's, from cdflib)."""
    a, b = _promote("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return jnp.where(b < 8, small_b, large_b)


def beta(a, b):
    a, b = _real("beta", a, b)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * jnp.exp(betaln(a, b))


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (differentiable in ``x`` only)."""
    a, b, x = _real("betainc", a, b, x)
    return lax.betainc(a, b, x)


def digamma(x):
    (x,) = _promote("digamma", x)
    return lax.digamma(x)


def polygamma(n, x):
    """The ``n``-th derivative of digamma; ``n`` must have an integer dtype."""
    if not jnp.issubdtype(jnp.result_type(n), np.integer):
        raise ValueError(
            f"Argument `n` to polygamma must be of integer type. Got dtype {jnp.result_type(n)}.")
    n, x = _real("polygamma", n, x)
    return lax.polygamma(n, x)


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    a, x = _promote("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x)."""
    a, x = _promote("gammaincc", a, x)
    return lax.igammac(a, x)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (a static int)."""
    d = concrete_or_error(int, d, "d argument of multigammaln")
    a, d_ = _real("multigammaln", a, d)
    # JAX's constants are in a's dtype (log(pi) too): a float16 a stays float16
    constant = lax.mul(lax.mul(lax.mul(lax_const(a, 0.25), d_), lax.sub(d_, lax_const(a, 1))),
                       lax.log(lax_const(a, np.pi)))
    b = lax.div(jnp.arange(d, dtype=d_.dtype), lax_const(a, 2))
    res = jnp.sum(gammaln(jnp.expand_dims(a, -1) - jnp.expand_dims(b, tuple(range(a.ndim)))),
                  axis=-1)
    return res + constant


def factorial(n, exact=False):
    """``Gamma(n + 1)`` (0 for negative ``n``); ``exact=True`` is refused, as in JAX."""
    if exact:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("factorial with exact=True")
    (n,) = _promote("factorial", n)
    return jnp.where(n < 0, 0, jnp.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition=False):
    """The number of combinations of ``N`` things taken ``k`` at a time, via gammaln."""
    N, k = _promote("comb", N, k)
    if repetition:
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    ok = (k <= N) & (N >= 0) & (k >= 0)
    safe_n, safe_k = jnp.where(ok, N, 0.0), jnp.where(ok, k, 0.0)
    out = jnp.exp(gammaln(safe_n + 1) - gammaln(safe_k + 1) - gammaln(safe_n + 1 - safe_k))
    return jnp.where(ok, out, 0.0)


# A custom_jvp promoting inside, as JAX's (its equation is named poch and takes the operands
# as given); the rules call poch and digamma again, as JAX's do.
@custom_jvp
def poch(z, m):
    """The Pochhammer symbol ``Gamma(z + m) / Gamma(z)``."""
    z, m = _promote("poch", z, m)
    if dtypes.is_complex(jnp.result_type(z)):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return jnp.where(m == 0.0, jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


poch.defjvps(
    lambda z_dot, ans, z, m: (digamma(z + m) - digamma(z)) * poch(z, m) * z_dot,
    lambda m_dot, ans, z, m: digamma(z + m) * poch(z, m) * m_dot,
)


# ------------------------------------------------------------------------------------------------
# Logs, entropies, logistic


def _custom_xlogy(name, log, log_arg, doc):
    # JAX's public xlogy/xlog1py are custom_jvps (their equations' names), promoting inside
    def f(x, y):
        x, y = _promote(name, x, y)
        return jnp.where((x != 0) | jnp.isnan(y), x * log(y), jnp.zeros_like(x))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    f = custom_jvp(f)

    def jvp_rule(primals, tangents):
        (x, y), (dx, dy) = primals, tangents
        out = f(x, y)
        # An integer primal (xlogy(-1, p) in gumbel's ppf) has a float0 tangent: JAX 0.10.2's
        # rule multiplies it and raises (a JAX bug, tests/test_fidelity_r22_i.py); minijax
        # takes it as the zero it stands for.
        dx, dy = (jnp.zeros_like(out) if t.dtype == dtypes.float0 else t for t in (dx, dy))
        return out, (dx * log(y) + dy * x / log_arg(y)).astype(out.dtype)

    jvp_rule.__name__ = f"_{name}_jvp"  # shown in the custom_jvp_call, as JAX's
    f.defjvp(jvp_rule)
    return f


xlogy = _custom_xlogy("xlogy", jnp.log, lambda y: y,
                      "``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN).")
xlog1py = _custom_xlogy("xlog1py", jnp.log1p, lambda y: 1 + y,
                        "``x * log1p(y)``, 0 where ``x == 0`` (unless ``y`` is NaN).")


@custom_jvp
def _xlogx(x):
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _xlogx(x), dx * (jnp.log(x) + 1)


def entr(x):
    """``-x log x`` for ``x >= 0`` (0 at 0), ``-inf`` below."""
    (x,) = _real("entr", x)
    return lax.select(x < 0, lax.full_like(x, -np.inf), lax.neg(_xlogx(x)))  # as JAX's


def rel_entr(p, q):
    """``p log(p / q)`` for p, q > 0; 0 where p == 0 and q >= 0; inf elsewhere."""
    p, q = _real("rel_entr", p, q)
    # JAX's zero is lax._const(p, 0): weak for weak p (rel_entr(2, 1.5) is weak), in p's dtype
    zero = lax_const(p, 0.0)
    both_positive = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    p_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    safe_p, safe_q = jnp.where(both_positive, p, 1), jnp.where(both_positive, q, 1)
    value = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return jnp.where(both_positive, value, jnp.where(p_zero, zero, np.inf))


def kl_div(p, q):
    """``rel_entr(p, q) - p + q``."""
    p, q = _real("kl_div", p, q)
    return rel_entr(p, q) - p + q


@custom_jvp
def logit(x):
    """``log(x / (1 - x))``."""
    # promoted inside, as JAX's logit, the custom_jvp itself (its equation's name)
    (x,) = _promote("logit", x)
    # JAX's lax._const 1: a weak array x gives a strong result
    return lax.log(lax.div(x, lax.sub(lax_const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(lax_const(x, 1), x))))


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    (x,) = _promote("expit", x)
    return lax.logistic(x)


def boxcox(x, lmbda):
    """``(x**lmbda - 1) / lmbda``, ``log(x)`` at ``lmbda == 0``."""
    x, lmbda = _promote("boxcox", x, lmbda)
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    log_x = jnp.log(x)
    return jnp.where(zero, log_x, jnp.expm1(safe * log_x) / safe)


def boxcox1p(x, lmbda):
    """``boxcox(1 + x, lmbda)``, accurate for small ``x``."""
    x, lmbda = _promote("boxcox1p", x, lmbda)
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    log1p_x = jnp.log1p(x)
    return jnp.where(zero, log1p_x, jnp.expm1(safe * log1p_x) / safe)


# ------------------------------------------------------------------------------------------------
# Bessel functions


def i0e(x):
    (x,) = _promote("i0e", x)
    return lax.bessel_i0e(x)


def i0(x):
    (x,) = _promote("i0", x)
    return jnp.exp(jnp.abs(x)) * lax.bessel_i0e(x)


def i1e(x):
    (x,) = _promote("i1e", x)
    return lax.bessel_i1e(x)


def i1(x):
    (x,) = _promote("i1", x)
    return jnp.exp(jnp.abs(x)) * lax.bessel_i1e(x)


# ------------------------------------------------------------------------------------------------
# Hurwitz zeta and Bernoulli numbers

# (2k)! / B_2k for k = 1..16: the Euler-Maclaurin correction terms of zeta.
_BERNOULLI_DENOMINATORS = np.array([
    12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1307674368000.0 / 691,
    74724249600.0, -10670622842880000.0 / 3617, 5109094217170944000.0 / 43867,
    -802857662698291200000.0 / 174611, 14101100039391805440000.0 / 77683,
    -1693824136731743669452800000.0 / 236364091,
    186134520519971831808000000.0 / 657931,
    -37893265687455865519472640000000.0 / 3392780147,
    759790291646040068357842010112000000.0 / 1723168255201,
    -134196726836183700385281186201600000000.0 / 7709321041217,
])


def _zeta_series(x, q):
    """Euler-Maclaurin summation of sum_k (q + k)^-s: N direct terms, the integral of the rest,
    and M Bernoulli corrections. Differentiable in both arguments: zeta's JVP is this series'
    JVP, primal included (as JAX's). Its constants are NumPy scalars of the dtype, as JAX's, so
    that primal is strongly typed."""
    s, q = _promote("zeta", x, q)
    dtype = s.dtype.type
    n = m = dtype(8) if s.dtype == np.float32 else dtype(16)
    s_, q_ = jnp.expand_dims(s, -1), jnp.expand_dims(q, -1)
    k = np.arange(n, dtype=s.dtype)
    direct = jnp.sum((q_ + k) ** -s_, -1)
    integral = lax.div((q + n) ** (dtype(1) - s), s - dtype(1))
    j = np.arange(2 * m, dtype=s.dtype)
    ratios = jnp.cumprod((s_ + j) / (q_ + n), -1)[..., ::2]
    ratios = jnp.clip(ratios, max=np.finfo(s.dtype).max)
    corrections = ratios / _BERNOULLI_DENOMINATORS[:int(m)].astype(s.dtype)
    return direct + integral + (q + n) ** -s * (dtype(0.5) + corrections.sum(-1))


def _custom_zeta():
    # JAX's public zeta is the custom_jvp (its equation's name), promoting inside it
    @custom_jvp
    def zeta(x, q):
        x, q = _real("zeta", x, q)
        return lax.zeta(x, q)

    def zeta_jvp(primals, tangents):
        return jvp(_zeta_series, primals, tangents)

    zeta_jvp.__name__ = "jvp"  # JAX's rule is partial(jvp, series), printed by its name
    zeta.defjvp(zeta_jvp)
    return zeta


_zeta = _custom_zeta()


def zeta(x, q=None):
    """The Hurwitz zeta function sum_k (k + q)^-x (``q`` is required, as in JAX)."""
    if q is None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the Hurwitz Zeta "
            "function.")
    return _zeta(x, q)


def bernoulli(n):
    """The Bernoulli numbers B_0 ... B_n (B_1 = -1/2), from zeta(2k) = |B_2k| (2 pi)^2k / 2(2k)!"""
    n = concrete_or_error(operator.index, n, "Argument n of bernoulli")
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    first = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return first[: n + 1]
    bn = jnp.zeros(n + 1).at[:3].set(first)
    m = jnp.arange(4, n + 1, 2, dtype=bn.dtype)
    q1 = 1.0 / np.pi**2 * jnp.cumprod(-(m - 1) * m / 4 / np.pi**2)
    k = jnp.arange(2, 50, dtype=bn.dtype)
    q2 = jnp.sum(k[:, None] ** (-m[None, :]), axis=0)
    return bn.at[4::2].set(q1 * (1 + q2))


# ------------------------------------------------------------------------------------------------
# Functions in their own modules, which build on the ones above: loaded on first use (they
# import this module, so importing them here would be circular).

_LAZY = {
    "bessel_jn": "_bessel_sph_harm", "sph_harm_y": "_bessel_sph_harm",
    "dawsn": "_error_functions", "erfcx": "_error_functions", "owens_t": "_error_functions",
    "wofz": "_error_functions", "fresnel": "_fresnel",
    "exp1": "_expint", "expi": "_expint", "expn": "_expint", "sici": "_expint", "spence": "_expint",
    "hyp1f1": "_hypergeometric", "hyp2f1": "_hypergeometric",
}


def __getattr__(name):
    if name in _LAZY:
        return getattr(_importlib.import_module(f"minijax.scipy.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    # the public names only (JAX's module has no helpers or imports beside them)
    return sorted({*(n for n in globals() if n.startswith("_")), *__all__})
