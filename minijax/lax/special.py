"""Special-function primitives XLA has no single op for: the regularized incomplete gamma and
beta functions (and the derivatives JAX exposes), Hurwitz zeta, scaled Bessel functions I0/I1.

``zeta`` and ``bessel_i1e`` lower to their CHLO ops. The others lower by tracing a ``lax``
implementation (``_lower_with``) into the enclosing module, as JAX does: Cephes/XLA's series
and continued fractions as ``while_loop``s that stop once every element has converged.
float16 and bfloat16 are computed in float32 (the constants below need its precision).

Derivatives follow JAX: ``igamma``/``igammac`` in both operands (the ``a`` derivative is the
``igamma_grad_a`` primitive), ``betainc`` in ``x`` only, ``zeta`` in ``q``; a derivative JAX
does not define raises a ValueError naming the operand.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import chlo

from minijax import dtypes
from minijax.interpreters import ad
from minijax.interpreters.mlir import lower_traced
from minijax.lax.control_flow import while_loop
from minijax.lax.control_flow.common import vary_like
from minijax.lax.convert import convert_element_type
from minijax.lax.elementwise import (
    abs,
    add,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    digamma,
    div,
    eq,
    exp,
    ge,
    gt,
    le,
    lgamma,
    log,
    log1p,
    lt,
    mul,
    ne,
    neg,
    reciprocal,
    rem,
    select,
    sign,
    sqrt,
    sub,
)
from minijax.core import get_aval
from minijax.lax.families import (
    FLOAT,
    broadcast_elementwise_shapes,
    check_dtype_allowed,
    coerce_scalars,
    const,
    elementwise_prim,
    naryop,
)
from minijax.lax.reductions import reduce_or
from minijax.lax.structural import broadcast_in_dim, full_like

__all__ = [
    "igamma", "igammac", "igamma_grad_a", "random_gamma_grad", "betainc", "zeta",
    "bessel_i0e", "bessel_i1e",
    "igamma_p", "igammac_p", "igamma_grad_a_p",
    "regularized_incomplete_beta_p", "zeta_p", "bessel_i0e_p", "bessel_i1e_p",
]


def _lower_with(impl):
    """A lowering rule that emits ``impl(*operands)`` (lax code, operands already broadcast to
    the result shape) in place, computing half precisions in float32."""

    def lower(ctx, *values):
        aval = ctx.avals_out[0]
        dtype = np.dtype(aval.dtype)
        wide = np.dtype(np.float32) if dtype.itemsize < 4 else dtype

        def fn(*xs):
            xs = [convert_element_type(x, wide) for x in xs]
            return [convert_element_type(impl(*xs), dtype)]

        return lower_traced(ctx.module_ctx, fn, [aval.update(weak_type=False)] * len(values),
                            values)[0]

    return lower


def _full(x, value):
    return full_like(x, value)


def _any(pred):
    return reduce_or(pred, tuple(range(pred.ndim)))


def _isnan(x):
    return ne(x, x)


def _eps(x):
    return float(dtypes.finfo(x.dtype).eps)


# ------------------------------------------------------------------------------------------------
# Regularized incomplete gamma: P(a, x) by its power series where x < max(a, 1), Q(a, x) by
# Legendre's continued fraction elsewhere (Cephes igam/igamc). Both carry the derivative in ``a``
# of their sum alongside, for igamma_grad_a and random_gamma_grad.

_VALUE, _DERIVATIVE, _SAMPLE_DERIVATIVE = range(3)
# JAX's continued fraction stops after 2000 steps. Its series has no bound: it runs until the
# terms stop mattering, which near x ~ a takes ~5 sqrt(a) steps (4553 at a = 1e6; a 2000 cap put
# grad(random.gamma) at 0.88 there for JAX's 1.0008) and, once a + 1 == a, up to ~1/eps steps:
# at most ~1e8 in float32, ~1e16 in float64 (JAX hangs, e.g. float64 alpha >= 1e20). The series
# stops at the int32 counter's limit instead, ~30 s of CPU, so a 2^31-step bound only changes
# results JAX would take over half a minute per element to give.
_CF_MAX_ITERATIONS = 2000
_SERIES_MAX_ITERATIONS = 2**31 - 1


def _series(ax, x, a, enabled, mode):
    """P(a, x) = ax / a * sum_n x^n / ((a+1)...(a+n)), or its derivative (``mode``)."""
    eps = _eps(x)

    def cond(vals):
        return bitwise_and(lt(vals[0], const(vals[0], _SERIES_MAX_ITERATIONS)), _any(vals[1]))

    def body(vals):
        i, on, r, c, total, dc, dtotal = vals
        r1 = add(r, const(r, 1.0))
        dc1 = sub(mul(dc, div(x, r1)), div(mul(c, x), mul(r1, r1)))
        c1 = mul(c, div(x, r1))
        total1, dtotal1 = add(total, c1), add(dtotal, dc1)
        if mode == _VALUE:
            still = gt(div(c1, total1), const(x, eps))
        else:
            still = gt(abs(div(dc1, dtotal1)), const(x, eps))
        keep = [select(on, new, old) for new, old in
                zip((r1, c1, total1, dc1, dtotal1), (r, c, total, dc, dtotal))]
        return (add(i, const(i, 1)), bitwise_and(on, still), *keep)

    one, zero = _full(a, 1.0), _full(a, 0.0)
    _, _, _, _, total, _, dtotal = while_loop(
        cond, body, vary_like((np.int32(0), enabled, a, one, one, zero, zero), x))
    if mode == _VALUE:
        return div(mul(total, ax), a)
    dlogax_da = sub(log(x), digamma(add(a, const(a, 1.0))))
    d = add(mul(total, dlogax_da), dtotal)
    if mode == _DERIVATIVE:
        return div(mul(ax, d), a)
    return div(mul(neg(d), x), a)


def _continued_fraction(ax, x, a, enabled, mode):
    """Q(a, x) = ax * (continued fraction), or its derivative (``mode``). JAX's loop op for op
    (its carry, its float counter ``c``, the convergents rescaled after the shift): XLA's
    float contraction follows the graph, so another arrangement of the same arithmetic moves
    the result by ulps."""
    eps = _eps(x)

    def cond(vals):
        c, on = vals[5], vals[0]
        return bitwise_and(lt(c, const(c, _CF_MAX_ITERATIONS)), _any(on))

    def body(vals):
        (on, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2, dqkm2, dpkm1, dqkm1, dans) = vals
        c = add(c, const(c, 1.0))
        y = add(y, const(y, 1.0))
        z = add(z, const(z, 2.0))
        yc = mul(y, c)
        pk = sub(mul(pkm1, z), mul(pkm2, yc))
        qk = sub(mul(qkm1, z), mul(qkm2, yc))
        nonzero = ne(qk, const(qk, 0.0))
        r = div(pk, qk)
        t = select(nonzero, abs(div(sub(ans, r), r)), _full(r, 1.0))
        ans = select(nonzero, r, ans)
        dpk = add(sub(sub(mul(dpkm1, z), pkm1), mul(dpkm2, yc)), mul(pkm2, c))
        dqk = add(sub(sub(mul(dqkm1, z), qkm1), mul(dqkm2, yc)), mul(qkm2, c))
        dans_new = select(nonzero, div(sub(dpk, mul(ans, dqk)), qk), dans)
        dchange = select(nonzero, abs(sub(dans_new, dans)), _full(dans, 1.0))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2, dqkm2, dpkm1, dqkm1 = dpkm1, dqkm1, dpk, dqk
        # The convergents grow without bound: rescale them (their ratio is what counts).
        rescale = gt(abs(pk), div(const(pk, 1.0), const(pk, eps)))
        pkm2, pkm1, qkm2, qkm1, dpkm2, dqkm2, dpkm1, dqkm1 = (
            select(rescale, mul(v, const(v, eps)), v)
            for v in (pkm2, pkm1, qkm2, qkm1, dpkm2, dqkm2, dpkm1, dqkm1))
        still = gt(t, const(t, eps)) if mode == _VALUE else gt(dchange, const(dchange, eps))
        new = (ans, t, y, z)
        kept = [select(on, n, o) for n, o in zip(new, vals[1:5])]
        carried = [select(on, n, o) for n, o in
                   zip((pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans_new), vals[6:])]
        return (bitwise_and(on, still), *kept, c, *carried)

    y = sub(const(a, 1.0), a)
    z = add(add(x, y), const(x, 1.0))
    c = const(x, 0.0)
    pkm2, qkm2 = _full(x, 1.0), x
    pkm1, qkm1 = add(x, const(x, 1.0)), mul(z, x)
    ans = div(pkm1, qkm1)
    t = _full(x, 1.0)
    zero = _full(x, 0.0)
    dqkm1 = neg(x)
    dans = div(sub(zero, mul(ans, dqkm1)), qkm1)
    init = (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, zero, zero, zero, dqkm1, dans)
    vals = while_loop(cond, body, vary_like(init, a))
    ans, dans = vals[1], vals[14]
    if mode == _VALUE:
        return mul(ans, ax)
    dlogax_da = sub(log(x), digamma(a))
    if mode == _DERIVATIVE:
        return mul(ax, add(mul(ans, dlogax_da), dans))
    return neg(mul(add(dans, mul(ans, dlogax_da)), x))


def _log_ax(a, x):
    """log(x^a e^-x / Gamma(a)) and whether it underflows."""
    log_ax = sub(sub(mul(a, log(x)), x), lgamma(a))
    return log_ax, lt(log_ax, const(log_ax, -float(np.log(dtypes.finfo(x.dtype).max))))


def _igamma_impl(a, x):
    x_zero, x_inf = eq(x, const(x, 0.0)), eq(x, const(x, np.inf))
    bad = bitwise_or(bitwise_or(lt(x, const(x, 0.0)), lt(a, const(a, 0.0))),
                     bitwise_or(bitwise_and(eq(a, const(a, 0.0)), x_zero),
                                bitwise_or(_isnan(a), _isnan(x))))
    use_cf = bitwise_and(ge(x, const(x, 1.0)), gt(x, a))
    log_ax, underflow = _log_ax(a, x)
    ax = exp(log_ax)
    on = bitwise_not(bitwise_or(bitwise_or(x_zero, bad), bitwise_or(underflow, x_inf)))
    out = select(use_cf,
                 sub(const(x, 1.0), _continued_fraction(ax, x, a, bitwise_and(on, use_cf), _VALUE)),
                 _series(ax, x, a, bitwise_and(on, bitwise_not(use_cf)), _VALUE))
    out = select(x_zero, _full(out, 0.0), out)
    out = select(x_inf, _full(out, 1.0), out)
    return select(bad, _full(out, np.nan), out)


def _igammac_impl(a, x):
    a_zero, x_inf = eq(a, const(a, 0.0)), eq(x, const(x, np.inf))
    bad = bitwise_or(bitwise_or(lt(x, const(x, 0.0)), lt(a, const(a, 0.0))),
                     bitwise_or(bitwise_and(a_zero, eq(x, const(x, 0.0))),
                                bitwise_or(_isnan(a), _isnan(x))))
    use_series = bitwise_or(lt(x, const(x, 1.0)), lt(x, a))
    log_ax, underflow = _log_ax(a, x)
    ax = exp(log_ax)
    on = bitwise_not(bitwise_or(bitwise_or(bad, underflow), bitwise_or(x_inf, a_zero)))
    out = select(use_series,
                 sub(const(x, 1.0), _series(ax, x, a, bitwise_and(on, use_series), _VALUE)),
                 _continued_fraction(ax, x, a, bitwise_and(on, bitwise_not(use_series)), _VALUE))
    out = select(bitwise_or(x_inf, a_zero), _full(out, 0.0), out)
    return select(bad, _full(out, np.nan), out)


def _igamma_derivative_impl(mode):
    def impl(a, x):
        x_zero = eq(x, const(x, 0.0))
        bad = bitwise_or(bitwise_or(lt(x, const(x, 0.0)), le(a, const(a, 0.0))),
                         bitwise_or(_isnan(a), _isnan(x)))
        use_cf = bitwise_and(gt(x, const(x, 1.0)), gt(x, a))
        log_ax, underflow = _log_ax(a, x)
        ax = exp(log_ax)
        on = bitwise_not(bitwise_or(bitwise_or(x_zero, bad), underflow))
        out = select(use_cf,
                     neg(_continued_fraction(ax, x, a, bitwise_and(on, use_cf), mode)),
                     _series(ax, x, a, bitwise_and(on, bitwise_not(use_cf)), mode))
        out = select(x_zero, _full(out, 0.0), out)
        return select(bad, _full(out, np.nan), out)

    return impl


# ------------------------------------------------------------------------------------------------
# Regularized incomplete beta I_x(a, b): the continued fraction of DLMF 8.17.22 evaluated with
# the modified Lentz algorithm, on x < (a+1)/(a+b+2) where it converges fast, else on the
# symmetric side (I_x(a, b) = 1 - I_{1-x}(b, a)).


def _betainc_impl(a, b, x):
    dtype = x.dtype
    tiny = float(dtypes.finfo(dtype).eps) / 2
    max_iterations = 200 if dtype == np.float32 else 600
    a_zero = bitwise_or(eq(a, const(a, 0.0)), eq(b, const(b, np.inf)))
    b_zero = bitwise_or(eq(b, const(b, 0.0)), eq(a, const(a, np.inf)))
    x_zero, x_one = eq(x, const(x, 0.0)), eq(x, const(x, 1.0))
    is_zero = bitwise_or(bitwise_and(b_zero, bitwise_not(x_one)), bitwise_and(a_zero, x_zero))
    is_one = bitwise_or(bitwise_and(a_zero, bitwise_not(x_zero)), bitwise_and(b_zero, x_one))
    is_nan = bitwise_or(bitwise_or(bitwise_or(lt(a, const(a, 0.0)), lt(b, const(b, 0.0))),
                                   bitwise_or(lt(x, const(x, 0.0)), gt(x, const(x, 1.0)))),
                        bitwise_or(bitwise_and(a_zero, b_zero),
                                   bitwise_or(_isnan(a), bitwise_or(_isnan(b), _isnan(x)))))
    direct = lt(x, div(add(a, const(a, 1.0)), add(add(a, b), const(x, 2.0))))
    a, b = select(direct, a, b), select(direct, b, a)
    x = select(direct, x, sub(const(x, 1.0), x))

    def clamp_small(v):
        return select(lt(abs(v), const(x, tiny)), _full(v, tiny), v)

    def cond(vals):
        return bitwise_and(lt(vals[0], const(vals[0], max_iterations)), vals[1])

    def body(vals):
        n, _, c, d, h = vals
        dn = _numerator(n, a, b, x)
        c1 = clamp_small(add(const(x, 1.0), div(dn, c)))
        d1 = reciprocal(clamp_small(add(const(x, 1.0), mul(dn, d))))
        delta = mul(c1, d1)
        unconverged = _any(ge(abs(sub(delta, const(delta, 1.0))), const(x, tiny)))
        return (add(n, const(n, 1)), unconverged, c1, d1, mul(h, delta))

    one = _full(x, 1.0)
    # n = 0 has numerator 1 and denominator 0, so the first convergent is 1/(1 + d_1 ...).
    h0 = _full(x, tiny)
    _, _, _, _, fraction = while_loop(
        cond, body, vary_like((np.int32(1), np.bool_(True), h0, _full(x, 0.0), h0), a, b))
    # Near a = 0, a * Gamma(a) = Gamma(a + 1) -> 1 keeps the prefactor finite.
    lbeta_small_a = sub(lgamma(b), lgamma(add(a, b)))
    small_a = lt(a, const(a, 2 * float(dtypes.finfo(dtype).tiny)))
    factor = select(small_a, exp(sub(mul(log1p(neg(x)), b), lbeta_small_a)),
                    div(exp(sub(add(mul(log(x), a), mul(log1p(neg(x)), b)),
                                add(lgamma(a), lbeta_small_a))), a))
    out = mul(fraction, factor)
    out = select(direct, out, sub(one, out))
    out = select(is_zero, _full(out, 0.0), out)
    out = select(is_one, one, out)
    return select(is_nan, _full(out, np.nan), out)


def _numerator(n, a, b, x):
    """The n-th partial numerator (n >= 1) of the incomplete beta continued fraction: 1, then
    d_{n-1} with d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and
    d_{2m} = m(b-m)x / ((a+2m-1)(a+2m)) (DLMF 8.17.23)."""
    def scalar_pred(p):
        return broadcast_in_dim(p, x.shape, ())

    m_int = div(sub(n, const(n, 1)), const(n, 2))
    m = convert_element_type(m_int, x.dtype)
    a2m = add(a, mul(const(m, 2.0), m))
    first_odd = div(neg(mul(add(a, b), x)), add(a, const(a, 1.0)))  # m = 0: exact near a = 0
    odd = div(neg(mul(mul(add(a, m), add(add(a, b), m)), x)), mul(a2m, add(a2m, const(a2m, 1.0))))
    odd = select(scalar_pred(eq(m_int, const(m_int, 0))), first_odd, odd)
    even = div(mul(mul(m, sub(b, m)), x), mul(sub(a2m, const(a2m, 1.0)), a2m))
    d = select(scalar_pred(eq(rem(n, const(n, 2)), const(n, 0))), odd, even)
    return select(scalar_pred(eq(n, const(n, 1))), _full(x, 1.0), d)


# ------------------------------------------------------------------------------------------------
# Exponentially scaled Bessel I0: Cephes' Chebyshev expansions on [0, 8] and (8, inf).

_I0E_A = [
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1,
]
_I0E_B = [
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1,
]


def _chebyshev(x, coefficients):
    b0 = b1 = b2 = _full(x, 0.0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = add(sub(mul(x, b1), b2), const(x, c))
    return mul(const(x, 0.5), sub(b0, b2))


def _i0e_impl(x):
    # float32 needs only the last (largest) terms, as in Cephes' single-precision i0ef.
    few = x.dtype == np.float32
    coef_a, coef_b = (_I0E_A[-18:], _I0E_B[-7:]) if few else (_I0E_A, _I0E_B)
    x = abs(x)
    small = _chebyshev(sub(mul(const(x, 0.5), x), const(x, 2.0)), coef_a)
    large = div(_chebyshev(sub(div(const(x, 32.0), x), const(x, 2.0)), coef_b), sqrt(x))
    return select(le(x, const(x, 8.0)), small, large)


# ------------------------------------------------------------------------------------------------
# The primitives


igamma_p = elementwise_prim("igamma", FLOAT, _lower_with(_igamma_impl))
igammac_p = elementwise_prim("igammac", FLOAT, _lower_with(_igammac_impl))
igamma_grad_a_p = elementwise_prim("igamma_grad_a", FLOAT,
                                   _lower_with(_igamma_derivative_impl(_DERIVATIVE)))
regularized_incomplete_beta_p = elementwise_prim("regularized_incomplete_beta", FLOAT,
                                                 _lower_with(_betainc_impl))
zeta_p = naryop("zeta", chlo.zeta, FLOAT)
bessel_i0e_p = elementwise_prim("bessel_i0e", FLOAT, _lower_with(_i0e_impl))
bessel_i1e_p = naryop("bessel_i1e", chlo.bessel_i1e, FLOAT)


def _refused(error):
    """A derivative rule refusing in JAX 0.10.2's words (``error`` is raised)."""
    def rule(g, *args):
        raise error

    return rule


def _not_differentiable(name, operand):
    # JAX 0.10.2 has no derivative rule for zeta and igamma_grad_a at all (its
    # NotImplementedError); minijax's in q and x are beyond it (sharp_bits)
    return _refused(ValueError(f"{name}: the derivative with respect to {operand} is not "
                               "supported"))


# JAX's igamma/igammac/betainc rules multiply the tangent with `*`, jnp's promotion: a weak
# tangent meeting a strong factor is converted first, so its transpose is weak again.
def _igamma_dx(g, a, x):
    # The Gamma(a, 1) density, in JAX's order: exp(-x + (a - 1) log x - lgamma(a)).
    return g * exp(sub(add(neg(x), mul(sub(a, const(a, 1.0)), log(x))), lgamma(a)))


def _gamma_density_da(g, a, x):
    """d/da of the Gamma(a, 1) density x^(a-1) e^-x / Gamma(a): d/dx of igamma_grad_a."""
    return mul(_igamma_dx(g, a, x), sub(log(x), digamma(a)))


ad.defjvp(igamma_p, lambda g, a, x: g * igamma_grad_a(a, x), _igamma_dx)
ad.defjvp(igammac_p, lambda g, a, x: neg(g * igamma_grad_a(a, x)),
          lambda g, a, x: neg(_igamma_dx(g, a, x)))
ad.defjvp(igamma_grad_a_p, _not_differentiable("igamma_grad_a", "a"), _gamma_density_da)
ad.defjvp(regularized_incomplete_beta_p,
    *[_refused(ValueError("Betainc gradient with respect to a and b not supported."))] * 2,
    lambda g, a, b, x: exp(sub(add(mul(sub(b, const(b, 1.0)), log1p(neg(x))),
                                   mul(sub(a, const(a, 1.0)), log(x))),
                               sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b))))) * g)
ad.defjvp(zeta_p, _not_differentiable("zeta", "x"),
          lambda g, s, q: mul(g, neg(mul(s, zeta(add(s, const(s, 1.0)), q)))))
# JAX writes both rules with operators (jnp's arithmetic), whose calls type a weak primal's
# terms weakly: a strong tangent's gradient with respect to a Python float x stays weak
ad.defjvp2(bessel_i0e_p, lambda g, y, x: g * (bessel_i1e(x) - sign(x) * y))


def _bessel_i1e_jvp(g, y, x):
    # i1e' = i0e - i1e * (sign(x) + 1/x), with its limit 1/2 at 0.
    eps = _eps(x)
    not_tiny = gt(abs(x), const(x, eps))
    safe_x = select(not_tiny, x, _full(x, eps))
    dy = bessel_i0e(safe_x) - y * (sign(safe_x) + reciprocal(safe_x))
    return g * select(not_tiny, dy, _full(x, 0.5))


ad.defjvp2(bessel_i1e_p, _bessel_i1e_jvp)


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return igamma_p.bind(*coerce_scalars(a, x))


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return igammac_p.bind(*coerce_scalars(a, x))


def igamma_grad_a(a, x):
    """d/da of ``igamma(a, x)``."""
    return igamma_grad_a_p.bind(*coerce_scalars(a, x))


def random_gamma_grad(a, x):
    """d/da of a Gamma(a, 1) sample ``x`` held at a fixed quantile (implicit differentiation:
    -(dP/da) / (dP/dx)). Not a primitive (nor in JAX): the series and continued fraction are
    staged as they are, so it differentiates (forward mode) through its while loops."""
    a, x = coerce_scalars(a, x)
    a_aval, x_aval = get_aval(a), get_aval(x)
    if a_aval.dtype != x_aval.dtype:
        raise TypeError(f"random_gamma_grad requires arguments to have the same dtypes, got "
                        f"{a_aval.str_short(True)}, {x_aval.str_short(True)}")
    check_dtype_allowed("random_gamma_grad", a_aval.dtype, FLOAT)
    shape = broadcast_elementwise_shapes("random_gamma_grad", [a_aval, x_aval])
    a, x = (broadcast_in_dim(v, shape, tuple(range(len(shape))) if v_aval.shape else ())
            for v, v_aval in ((a, a_aval), (x, x_aval)))
    dtype = np.dtype(a_aval.dtype)
    wide = np.dtype(np.float32) if dtype.itemsize < 4 else dtype
    out = _igamma_derivative_impl(_SAMPLE_DERIVATIVE)(convert_element_type(a, wide),
                                                      convert_element_type(x, wide))
    return convert_element_type(out, dtype)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    return regularized_incomplete_beta_p.bind(*coerce_scalars(a, b, x))


def zeta(x, q):
    """The Hurwitz zeta function sum_n (n + q)^-x."""
    return zeta_p.bind(*coerce_scalars(x, q))


def bessel_i0e(x):
    """exp(-|x|) I0(x)."""
    return bessel_i0e_p.bind(x)


def bessel_i1e(x):
    """exp(-|x|) I1(x)."""
    return bessel_i1e_p.bind(x)
