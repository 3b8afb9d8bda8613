"""Exponential and trigonometric integrals of ``jax.scipy.special``: ``expi``, ``exp1``,
``expn``, ``sici``, and ``spence`` (the dilogarithm), with Cephes' rational approximations and
series as JAX has them, and JAX's derivative rules."""

import functools

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.custom_derivatives import custom_jvp
from minijax.lax.control_flow.common import vary_like
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import lax_const, promote_args_inexact


# --- Ei(x) for x > 0: a rational function on (0, 2], then exp(x)/x (1 + R(1/x)) on the
# octaves (2, 4], (4, 8], ..., (64, inf) -----------------------------------------------------

_EXPINT1_A = [
        -5.350447357812543, 218.50491688166133, -4176.572384826693, 55411.76756393557,
        -331338.13311781443, 1592627.1633849454
    ]
_EXPINT1_B = [
        1.0, -52.505479591128626, 1259.6161867867906, -17565.495819735348,
        149306.2117002726, -729494.9239640528, 1592627.1633849454
    ]
_EXPINT_K = [  # (numerator, denominator) in 1/x for each octave above 2
    (
    [
            0.019818085032596897, -1.2716456259849176, -2.0881603356812284, 2.7555445091879367,
            -0.44095070487016, 0.046656238059358916, -0.0015450426796734852,
            7.059980605299618e-05
        ],
    [
            1.0, 1.4764986709149215, 0.5629177174822436, 0.16990178978793072,
            0.02291647179034212, 0.0044501504397287525, 0.00017274396122065214,
            3.953167195549672e-05
        ],
    ),
    (
    [
            -1.3732153758712087, -0.7084559133740839, 1.580806855547941, -0.2601500427425623,
            0.029946746941137137, -0.001038086040188744, 4.371064420753005e-05,
            2.141783679522603e-06
        ],
    [
            1.0, 0.8585231423622028, 0.4483285822873995, 0.07687932158124476,
            0.024498682410218877, 0.0008832165941927797, 0.00045909522995113536,
            -4.729848351866523e-06, 2.66519553739071e-06
        ],
    ),
    (
    [
            -2.1069346016919166, 1.7327338696646881, -0.2423619178935842, 0.02322724180937566,
            0.00023728804404931798, -8.343219561192553e-05, 1.3634087956052505e-05,
            -3.655412321999254e-07, 1.4649417339759612e-08, 6.17640786371036e-10
        ],
    [
            1.0, -0.2298062239901678, 0.11050770414740378, -0.015665429666307924,
            0.002761106850817353, -0.00020891480122840484, 1.7085289388076754e-05,
            -4.4593117963566865e-07, 1.3946349303538475e-08, 6.150865933977338e-10
        ],
    ),
    (
    [
            -0.24581193676740204, -0.14833822533220778, 0.07248291795735552,
            -0.013483156873809405, 0.001342775069788637, -7.942465637159712e-05,
            2.644179518984236e-06, -4.239473659313765e-08
        ],
    [
            1.0, -0.10442259084438711, -0.26764531281014026, 0.09695000254621984,
            -0.01601745692712991, 0.001496414899205908, -8.462452563778485e-05,
            2.7289384034767266e-06, -4.239462431819542e-08
        ],
    ),
    (
    [
            0.12125611181054567, -0.5823133179043894, 0.2348887314557017, -0.030400343181132484,
            0.0015100821468651906, -2.5231370954995714e-05
        ],
    [
            1.0, -1.002252150365854, 0.2928709694872224, -0.03337004338674008,
            0.0015605448811273888, -2.5231370936032347e-05
        ],
    ),
    (
    [
            -0.7657847078286127, 0.6886192415566705, -0.2132598113545206, 0.033461075523841935,
            -0.003076541477344756, 0.00017471193164549074, -6.1037116822741705e-06,
            1.218032765428652e-07, -1.0860761027932903e-09
        ],
    [
            1.0, -1.8888028686623086, 1.066691687211409, -0.27519159823063805,
            0.039308526882338234, -0.003414684558602365, 0.00018668443707035555,
            -6.345146083130515e-06, 1.239754287483207e-07, -1.0860761027931265e-09
        ],
    ),
]


def _expint_small(x):
    f = jnp.polyval(np.array(_EXPINT1_A, x.dtype), x) / jnp.polyval(np.array(_EXPINT1_B, x.dtype), x)
    return x * f + np.euler_gamma + jnp.log(x)


def _expint_octave(num, den):
    def f(x):
        one = lax_const(x, 1.0)
        w = one / x
        f = jnp.polyval(np.array(num, x.dtype), w) / jnp.polyval(np.array(den, x.dtype), w)
        f = w * f + one  # before exp(x) * w, in JAX's order
        return jnp.exp(x) * w * f

    return f


def _expi_pos(x):
    conds = [(lax_const(x, 0) < x) & (x <= lax_const(x, 2))] + [
        (lax_const(x, 2**i) < x) & (x <= lax_const(x, 2 ** (i + 1))) for i in range(1, 6)]
    funcs = [_expint_small] + [_expint_octave(n, d) for n, d in _EXPINT_K]
    return jnp.piecewise(x, conds, funcs)


# JAX's expi: a custom_jvp of a jit named expi (promoting inside), its rule a jit named expi_jvp
@custom_jvp
@eager_jit(inline=False)
def expi(x):
    """The exponential integral Ei(x) = -PV int_(-x)^inf exp(-t)/t dt."""
    (x,) = promote_args_inexact("expi", x)
    if dtypes.is_complex(x.dtype):
        raise ValueError("expi does not support complex-valued inputs.")
    return jnp.piecewise(x, [x < 0], [lambda x: -exp1(-x), _expi_pos])


@expi.defjvp
@eager_jit(inline=False)
def expi_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expi(x), jnp.exp(x) / x * x_dot


# --- E_n(x) -----------------------------------------------------------------------------------


def _expn_series(x, n):
    """The power series, for x <= 1. Constants in x's or n's dtype (JAX's ``_c``), so a
    float16/bfloat16 carry stays in its dtype."""
    eps = dtypes.finfo(x.dtype).eps
    zero, one = lax_const(x, 0.0), lax_const(x, 1.0)
    psi = -np.euler_gamma - jnp.log(x)
    lower, psi = vary_like((lax_const(n, 1), psi), n)
    psi = lax.fori_loop(lower, n, lambda i, psi: psi + one / i, psi)
    n1 = jnp.where(n == lax_const(n, 1), lax_const(x, 2.0), n)
    init = dict(x=x, z=-x, xk=zero, yk=one, pk=one - n,
                ans=jnp.where(n == lax_const(n, 1), zero, one / (one - n1)),
                t=np.inf)

    def body(d):
        d = dict(d)
        d["xk"] = d["xk"] + one
        d["yk"] = d["yk"] * (d["z"] / d["xk"])  # JAX's order: it rounds otherwise in bf16
        d["pk"] = d["pk"] + one
        d["ans"] = d["ans"] + jnp.where(d["pk"] != zero, d["yk"] / d["pk"], zero)
        d["t"] = jnp.where(d["ans"] != zero, jnp.abs(d["yk"] / d["ans"]), one)
        return d

    d = lax.while_loop(lambda d: (d["x"] > lax_const(d["x"], 0.0)) & (d["t"] > eps), body,
                       vary_like(init, n))
    return d["z"] ** (n - lax_const(n, 1)) * psi / jnp.exp(lax.lgamma(n)) - d["ans"]


def _expn_continued_fraction(x, n):
    """The continued fraction, for x > 1 (terms rescaled when they grow past 2^57)."""
    big = lax_const(x, 1.44115188075855872e17)
    eps = dtypes.finfo(x.dtype).eps
    zero, one = lax_const(x, 0.0), lax_const(x, 1.0)
    init = dict(k=lax_const(n, 1), pkm2=one, qkm2=x, pkm1=one, qkm1=x + n, ans=one / (x + n),
                t=lax_const(x, np.inf), r=zero, x=x)

    def body(d):
        d = dict(d)
        x = d["x"]
        d["k"] = k = d["k"] + lax_const(d["k"], 1)
        odd = k % lax_const(k, 2) == lax_const(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - lax_const(k, 1)) / lax_const(k, 2), k / lax_const(k, 2))
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nz = qk != zero
        d["r"] = r = jnp.where(nz, pk / qk, d["r"])
        d["t"] = jnp.where(nz, jnp.abs((d["ans"] - r) / r), one)
        d["ans"] = jnp.where(nz, r, d["ans"])
        d["pkm2"], d["pkm1"], d["qkm2"], d["qkm1"] = d["pkm1"], pk, d["qkm1"], qk
        is_big = jnp.abs(pk) > big
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            d[key] = jnp.where(is_big, d[key] / big, d[key])
        return d

    d = lax.while_loop(lambda d: (d["x"] > lax_const(d["k"], 0)) & (d["t"] > eps), body,
                       vary_like(init, n))
    return d["ans"] * jnp.exp(-x)


def _expn_large_n(x, n):
    """The asymptotic expansion in n, for n >= 5000."""
    xk = x + n
    yk = lax_const(x, 1.0) / (xk * xk)
    ans = yk * n * (lax_const(x, 6) * x * x - lax_const(x, 8) * n * x + n * n)
    ans = yk * (ans + n * (n - lax_const(x, 2) * x))
    ans = yk * (ans + n)
    return (ans + lax_const(x, 1.0)) * jnp.exp(-x) / xk


# JAX's expn: a custom_jvp (the order not differentiated) of jnp.vectorize of a jit named expn
# that promotes inside (exp1's order 1 enters as an int), its rule a jit named expn_jvp
@functools.partial(custom_jvp, nondiff_argnums=(0,))
@jnp.vectorize
@eager_jit(inline=False)
def expn(n, x):
    """The generalized exponential integral E_n(x) = int_1^inf exp(-xt) / t^n dt."""
    n, x = promote_args_inexact("expn", n, x)
    if dtypes.is_complex(x.dtype):
        raise ValueError("expn does not support complex-valued inputs.")
    zero, one = lax_const(x, 0), lax_const(x, 1)
    conds = [(n < lax_const(n, 0)) | (x < zero), (x == zero) & (n < lax_const(n, 2)),
             (x == zero) & (n >= lax_const(n, 2)), (n == lax_const(n, 0)) & (x >= zero),
             n >= lax_const(n, 5000), x > one]
    n1 = jnp.where(n == lax_const(n, 1), n + n, n)
    # Every branch runs on every element (vectorized, they are selects): the continued fraction
    # gets a point of its own region elsewhere, or it would never converge at a tiny x (JAX
    # 0.10.2 hangs there; the values are JAX's everywhere else), and the series an x below 1 in
    # place of an x > 1 (a NaN x or n stays: the series is its branch, and gives NaN as JAX's)
    # and the order 1 in place of one outside [0, 5000) (its psi loop runs to n, endless for a
    # huge n, and its terms never converge for n = -inf: JAX's hangs on expn([inf, 2], 0.5)).
    # These guards are the only equations JAX's jaxpr lacks (docs/sharp_bits.md).
    vals = [np.nan, np.inf, one / n1, jnp.exp(-x) / x, _expn_large_n,
            lambda x, n: _expn_continued_fraction(jnp.where(x > 1, x, 2.0), n),
            lambda x, n: _expn_series(jnp.where(x > 1, 0.5, x),
                                      jnp.where((n < 0) | (n >= 5000), 1.0, n))]
    return jnp.piecewise(x, conds, vals, n=n)


@expn.defjvp
@eager_jit(inline=False)
def expn_jvp(n, primals, tangents):
    # d/dx E_n(x) = -E_(n-1)(x)
    (x,), (x_dot,) = primals, tangents
    return expn(n, x), lax.mul(lax.neg(x_dot), expn(lax.sub(n, lax_const(n, 1)), x))


def exp1(x):
    """E_1(x) = int_x^inf exp(-t) / t dt."""
    (x,) = promote_args_inexact("exp1", x)
    if jnp.iscomplexobj(x):
        raise ValueError("exp1 does not support complex-valued inputs.")
    return expn(1, x)


# --- Si(x), Ci(x) -----------------------------------------------------------------------------

_SICI_SN = [
        -8.391678279103039e-11, 4.625917144270128e-08, -9.757593038436328e-06,
        0.0009769454381704354, -0.04134703162294066, 1.0
    ]
_SICI_SD = [
        2.0326926619595193e-12, 1.279978911799433e-09, 4.418278428012189e-07,
        9.964121220438756e-05, 0.01420852393261499, 1.0
    ]
_SICI_CN = [
        2.0252400238910228e-11, -1.3524950491579076e-08, 3.593250514199931e-06,
        -0.0004740072068734079, 0.028915965260755523, -1.0
    ]
_SICI_CD = [
        4.077460400618806e-12, 3.067809975818878e-09, 1.2321035568588342e-06,
        0.00031744202477503275, 0.051002805623644606, 4.0
    ]
# the auxiliary functions f and g, rational in 1/x^2, on (4, 8) and [8, 1e9]
_SICI_ASYMPT = {
    "fn4": [
        4.236128628922166, 5.4593771716181285, 1.6208328770153833, 0.16700661183132304,
        0.006810201324725182, 0.00010893658065032867, 5.489002234213736e-07
    ],
    "fd4": [
        1, 8.16496634205391, 7.308288225055645, 1.867922579501842, 0.1787920529631499,
        0.007017106683227897, 0.00011003435715391573, 5.489002527562557e-07
    ],
    "gn4": [
        0.08710016989731142, 0.6113791099522193, 0.3971802963923375, 0.07485277376284691,
        0.005388686814621773, 0.00016199979459893403, 1.9796387414096365e-06,
        7.825790407440903e-09
    ],
    "gd4": [
        1, 1.6440220241335535, 0.666296701268988, 0.09887717612776888, 0.006223963454417684,
        0.0001732210814741771, 2.0265918208634397e-06, 7.825792189335346e-09
    ],
    "fn8": [
        0.4558808734704653, 0.7137152741001467, 0.16030015822231947, 0.01160642294081244,
        0.00034955644244785906, 4.8621543082645475e-06, 3.200927900910049e-08,
        9.41779576128513e-11, 9.70507110881952e-14
    ],
    "fd8": [
        1.0, 0.9174636118736841, 0.17868554533207454, 0.012225359477197129,
        0.00035869648188185157, 4.924350643178815e-06, 3.21956939101046e-08,
        9.437205903502767e-11, 9.70507110881952e-14
    ],
    "gn8": [
        0.6973599534432762, 0.33041097930563207, 0.03848787676499743, 0.001717182390523479,
        3.4894116550227946e-05, 3.471311670841167e-07, 1.7040445278204452e-09,
        3.859459254302766e-12, 3.1404009894636335e-15
    ],
    "gd8": [
        1.0, 1.6854889881101165, 0.48785225869530496, 0.04679131942596258,
        0.0019028442667439953, 3.684755044425611e-05, 3.5704322344374083e-07,
        1.7269374896631615e-09, 3.878301660239547e-12, 3.1404009894636335e-15
    ],
}


# sici in JAX's operations and order (its jaxpr): each series whole, then its where
def _sici_series(x):
    def si_series(x):
        t = x * x
        return (x * jnp.polyval(np.array(_SICI_SN, x.dtype), t)
                / jnp.polyval(np.array(_SICI_SD, x.dtype), t))

    def ci_series(x):
        t = x * x
        return (np.euler_gamma + jnp.log(x) + t * jnp.polyval(np.array(_SICI_CN, x.dtype), t)
                / jnp.polyval(np.array(_SICI_CD, x.dtype), t))

    # the mask made before the series it picks from, as JAX's call does
    return jnp.where(x == 0, 0.0, si_series(x)), jnp.where(x == 0, -np.inf, ci_series(x))


def _sici_asympt(x):
    s, co = jnp.sin(x), jnp.cos(x)
    z = 1.0 / (x * x)
    c = {k: np.array(v, x.dtype) for k, v in _SICI_ASYMPT.items()}
    f4 = jnp.polyval(c["fn4"], z) / (x * jnp.polyval(c["fd4"], z))
    g4 = z * jnp.polyval(c["gn4"], z) / jnp.polyval(c["gd4"], z)
    f8 = jnp.polyval(c["fn8"], z) / (x * jnp.polyval(c["fd8"], z))
    g8 = z * jnp.polyval(c["gn8"], z) / jnp.polyval(c["gd8"], z)
    near = x < 8.0
    f, g = jnp.where(near, f4, f8), jnp.where(near, g4, g8)
    return np.pi / 2 - f * co - g * s, f * s - g * co


def _sici_approx(x):
    si = np.pi / 2 - jnp.cos(x) / x
    ci = jnp.sin(x) / x
    return jnp.where(jnp.isposinf(x), np.pi / 2, si), jnp.where(jnp.isposinf(x), 0.0, ci)


def _jitted_sici():
    # JAX's sici is a custom_jvp of a jit named sici (promoting inside), its rule a jit named
    # sici_jvp: eagerly each one compiled program, whose fusions round as JAX's (op by op,
    # Ci(10) in a vector and Si's gradient at 3 differed in the last bits)
    @eager_jit(inline=False)
    def sici(x):
        """The sine and cosine integrals (Si(x), Ci(x)); Ci is NaN for x < 0 only at -inf, as
        JAX (SciPy's Ci of a negative x is complex)."""
        (x,) = promote_args_inexact("sici", x)
        if dtypes.is_complex(x.dtype):
            raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
        x_abs = jnp.abs(x)
        series, asympt, approx = _sici_series(x_abs), _sici_asympt(x_abs), _sici_approx(x_abs)
        conds = [x_abs <= 4, (x_abs > 4) & (x_abs <= 1e9)]
        si = jnp.select(conds, [series[0], asympt[0]], approx[0])
        ci = jnp.select(conds, [series[1], asympt[1]], approx[1])
        return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), np.nan, ci)

    sici = custom_jvp(sici)

    @eager_jit(inline=False)
    def sici_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)

    sici.defjvp(sici_jvp)
    return sici


sici = _jitted_sici()


# --- Spence's function (the dilogarithm of 1 - x) ---------------------------------------------

_SPENCE_A = [
        4.6512858607399003e-05, 0.007315890452380947, 0.13384763957830903,
        0.8796913117545303, 2.7114985119655346, 4.256971560081218, 3.297713409852251, 1.0
    ]
_SPENCE_B = [
        0.0006909904889125533, 0.02540437639325444, 0.2829748606025681, 1.4117259775183106,
        3.6380053334513707, 5.03278880143317, 3.547713409852251, 1.0
    ]


def _spence_poly(w):
    return -w * jnp.polyval(np.array(_SPENCE_A, w.dtype), w) / jnp.polyval(
        np.array(_SPENCE_B, w.dtype), w)


def _spence_calc(x):
    # piecewise, as JAX's: only a lane's own branch is differentiated (a where's unselected
    # 1 / x would give 0 * inf = NaN gradients at a tiny x)
    inverted = x > 2.0
    x = jnp.piecewise(x, [inverted], [lambda x: 1.0 / x, lambda x: x])
    above = x > 1.5
    below = x < 0.5
    inverted = inverted | above
    w = jnp.piecewise(x, [above, below], [lambda x: 1.0 / x - 1.0, lambda x: -x, lambda x: x - 1.0])
    y = _spence_poly(w)
    y = jnp.where(below, np.pi**2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
    return jnp.where(inverted, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
    """Spence's function int_1^x log(t) / (1 - t) dt for x >= 0 (NaN below)."""
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    return jnp.piecewise(x, [x < 0.0, x == 1.0, x == 0.0], [np.nan, 0, np.pi**2 / 6, _spence_calc])
