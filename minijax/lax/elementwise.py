"""Elementwise primitives: unary and binary math, comparisons, bitwise ops, select, clamp.

Each primitive is defined once here with all of its rules; the Python function of the same
name (``lax.sin``) binds it. JVP and transpose rules (``minijax.interpreters.ad``) sit beside
each primitive, written with the lax functions below (Python resolves them at call time).

Names, accepted dtypes and lowerings follow JAX's ``jax.lax``:

- Operands share one dtype (weak types aside) and one rank, with sizes that agree or are 1
  (a size-1 axis broadcasts, as in JAX's lax); a rank-0 operand broadcasts too.
  The Python wrappers turn Python scalars into weakly typed scalars of the other operand's
  dtype (``lax.mul(x_f32, 2.0)`` binds ``mul x 2.0:f32[]``).
- Integer ``div`` truncates toward zero and ``rem`` takes the sign of the dividend (C, XLA).
  Integer division by zero is XLA's business (it gives -1 for ``div`` and x for ``rem``).
- Shifts by an amount >= the bit width give 0 (logical) or the sign fill (arithmetic), as XLA.
- Ops StableHLO lacks come from CHLO (asin ... erf_inv, lgamma, digamma, next_after), which
  XLA expands when it compiles the module.
"""

from __future__ import annotations

import builtins
import enum
import operator

import numpy as np
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import (
    Primitive, ShapedArray, concrete_or_error, current_trace, get_aval, is_eval_trace_current)
from minijax.interpreters import ad, batching, lax_ops
from minijax.interpreters.partial_eval import in_linearization
from minijax.lax.accuracy import (
    AccuracyMode,
    accuracy_attr,
    lower_with_accuracy,
    pp_params_without_none_accuracy,
)
from minijax.lax.convert import convert_element_type
from minijax.lax.extended import extended_array_types, lax_mix_error, on_planes
from minijax.lax.families import (
    ANY,
    BOOL,
    COMPLEX,
    FLOAT,
    INEXACT,
    INT,
    INT_OR_BOOL,
    NUMBER,
    REAL,
    SIGNED,
    broadcast_elementwise_shapes,
    check_dtype_allowed,
    check_same_dtypes,
    coerce_scalars,
    const,
    elementwise_prim,
    elementwise_shape,
    full_like_shape,
    hlo_compare,
    hlo_elementwise,
    minmax_values,
    naryop,
    rule_const,
)
from minijax.lowering.stablehlo import tensor_type
from minijax.tree_util import tree_map_internal
from minijax.lax import sharding_rules

# fmt: off
__all__ = [
    "RoundingMethod",
    # arithmetic
    "add", "sub", "mul", "div", "rem", "pow", "integer_pow", "max", "min", "atan2", "nextafter",
    "neg", "abs", "sign", "square", "reciprocal",
    # transcendental and special functions
    "exp", "exp2", "log", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "logistic", "sqrt", "rsqrt", "cbrt",
    "erf", "erfc", "erf_inv", "lgamma", "digamma", "polygamma",
    # rounding and classification
    "floor", "ceil", "round", "is_finite",
    # complex numbers
    "real", "imag", "conj", "complex",
    # bitwise
    "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "population_count", "clz",
    "shift_left", "shift_right_arithmetic", "shift_right_logical",
    # comparisons and selection
    "eq", "ne", "lt", "le", "gt", "ge", "select", "select_n", "clamp",
    # autodiff
    "stop_gradient",
]
# fmt: on


def _const(ctx, value, dtype=None):
    """A constant of the rule's result shape, with ``dtype`` (default: the first input's)."""
    return full_like_shape(value, ctx.avals_out[0].shape, dtype or ctx.avals_in[0].dtype)


def _real_dtype(dtype):
    return np.dtype(np.finfo(dtype).dtype) if dtype.kind == "c" else dtype


# ------------------------------------------------------------------------------------------------
# Arithmetic

add_p = naryop("add", hlo.add, NUMBER)
sub_p = naryop("sub", hlo.subtract, NUMBER)


def _mul_lower(ctx, x, y, *, out_dtype):
    if out_dtype is not None:  # the operands converted to the result's dtype, as JAX's
        x, y = (hlo.convert(tensor_type(ctx.avals_out[0]), v) for v in (x, y))
    return hlo.multiply(x, y)


mul_p = elementwise_prim("mul", NUMBER, _mul_lower)


def _mul_abstract_eval(x, y, *, out_dtype):
    """``elementwise_shape``'s rule, with JAX's ``out_dtype``: operands of any number dtypes
    (no agreement asked) and a result of ``out_dtype``; ``None`` is the plain product."""
    avals = (x, y)
    if x.dtype not in NUMBER or y.dtype not in NUMBER:
        for i, a in enumerate(avals):
            check_dtype_allowed("mul", a.dtype, NUMBER, i)
    dtype = (check_same_dtypes("mul", avals) if out_dtype is None
             else dtypes.canonicalize_dtype(out_dtype))
    return ShapedArray(broadcast_elementwise_shapes("mul", avals), dtype,
                       x.weak_type and y.weak_type)


mul_p.def_abstract_eval(_mul_abstract_eval)
# out_dtype shows only when set, as JAX's _binary_with_out_dtype_pp_rule
mul_p.pp_params = lambda p: p if p["out_dtype"] is not None else {
    k: v for k, v in p.items() if k != "out_dtype"}
div_p = naryop("div", hlo.divide, NUMBER)  # integers: truncation toward zero
rem_p = naryop("rem", hlo.remainder, INT | FLOAT)  # sign of the dividend, like C's fmod
neg_p = naryop("neg", hlo.negate, NUMBER)
atan2_p = naryop("atan2", hlo.atan2, INEXACT)
nextafter_p = naryop("nextafter", chlo.next_after, FLOAT)


def _linear_ct(x, ct):
    """The cotangent of the linear operand ``x`` of an elementwise op (summed down to rank 0
    where ``x`` was a broadcast rank-0 operand), or None when ``x`` is not linear."""
    return ad.unbroadcast(x.aval, ct) if ad.is_undefined_primal(x) else None


def _nonlinear(name):
    return TypeError(f"{name} is not linear in both operands; it cannot be transposed that way")


def _mul_transpose(ct, x, y, *, out_dtype):
    if ad.is_undefined_primal(x) and ad.is_undefined_primal(y):
        raise _nonlinear("mul")
    # with out_dtype, the cotangent comes back in the operand's dtype, as JAX's rule
    if ad.is_undefined_primal(x):
        dtype = None if out_dtype is None else x.aval.dtype
        return [ad.unbroadcast(x.aval, mul(ct, y, out_dtype=dtype)), None]
    dtype = None if out_dtype is None else y.aval.dtype
    return [None, ad.unbroadcast(y.aval, mul(x, ct, out_dtype=dtype))]


def _div_transpose(ct, x, y):
    if ad.is_undefined_primal(y):
        raise _nonlinear("div")  # linear in the numerator only
    return [ad.unbroadcast(x.aval, div(ct, y)), None]


def _hypot2(x, y):
    return add(square(x), square(y))


def _additive_jvp(prim, combine, negate_y):
    """JAX's ``_add_jvp``/``_sub_jvp``: with both tangents nonzero the tangent is ``prim`` of
    them (``add``/``sub``, not an ``add_any`` of per-operand parts), else the nonzero one
    (negated for ``sub``'s ``y``) broadcast to the output's shape."""
    def jvp(primals, tangents):
        xd, yd = tangents
        out = prim.bind(*primals)
        if type(xd) is ad.Zero and type(yd) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        if type(yd) is ad.Zero:
            return out, _maybe_broadcast(xd, get_aval(out).shape)
        if type(xd) is ad.Zero:
            yd = neg(yd) if negate_y else yd
            return out, _maybe_broadcast(yd, get_aval(out).shape)
        return out, combine(xd, yd)
    return jvp


def _maybe_broadcast(x, shape):
    """JAX's ``_maybe_broadcast``: a tangent with size-1 axes is reshaped to its kept axes,
    then broadcast, so its transpose is a ``reshape`` back (``x + zeros((4, 3))`` of an
    f32[1,3] ``x``: ``reduce_sum`` then ``reshape``, as JAX's jaxpr)."""
    x_shape = get_aval(x).shape
    if x_shape == shape or not x_shape:
        return ad.broadcast_to_shape(x, shape)
    dims = tuple(i for i, (a, b) in enumerate(zip(x_shape, shape)) if a == b)
    return lax_ops.broadcast_in_dim(lax_ops.reshape(x, tuple(x_shape[i] for i in dims)), shape,
                                    dims)


# add and sub are defined below: the lambdas look them up when a JVP runs
ad.primitive_jvps[add_p] = _additive_jvp(add_p, lambda a, b: add(a, b), False)
ad.primitive_transposes[add_p] = lambda ct, x, y: [_linear_ct(x, ct), _linear_ct(y, ct)]
ad.primitive_jvps[sub_p] = _additive_jvp(sub_p, lambda a, b: sub(a, b), True)
ad.primitive_transposes[sub_p] = lambda ct, x, y: [_linear_ct(x, ct), _linear_ct(y, neg(ct))]
ad.defjvp(mul_p, lambda g, x, y, **params: mul(g, y, **params),
          lambda g, x, y, **params: mul(x, g, **params))
ad.primitive_transposes[mul_p] = _mul_transpose
# d/dy as JAX writes it: the primal-only factor y**-2 has y's shape (a softmax's row sums,
# not the whole matrix), so that is what a linearized program keeps from the forward pass.
ad.defjvp(div_p, lambda g, x, y: div(g, y), lambda g, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))
ad.primitive_transposes[div_p] = _div_transpose
# rem(x, y) = x - y * trunc(x / y): d/dy is -trunc(x / y), x / y computed twice as JAX's rule
ad.defjvp(rem_p, lambda g, x, y: g,
          lambda g, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))))
ad.deflinear(neg_p, lambda ct, x: [neg(ct)])
ad.defjvp(atan2_p, lambda g, x, y: mul(g, div(y, _hypot2(x, y))),
          lambda g, x, y: mul(g, div(neg(x), _hypot2(x, y))))
# nextafter has no derivative rule: JAX refuses its JVP ("Differentiation rule for
# 'nextafter' not implemented")


def _minmax_lowering(hlo_op, pick_x_direction):
    def lower(ctx, x, y):
        return minmax_values(hlo_op, pick_x_direction, x, y, ctx.avals_in[0].dtype)

    return lower


max_p = elementwise_prim("max", ANY, _minmax_lowering(hlo.maximum, "GT"))
min_p = elementwise_prim("min", ANY, _minmax_lowering(hlo.minimum, "LT"))


def _balanced_eq(x, ans, y):
    """1 where x is the result, 0 where it is not, 1/2 at ties: max/min split the tangent
    evenly between equal operands, as JAX does (with ``ans``'s weak type, as JAX's
    ``_ones(z)``/``_zeros(z)``)."""
    x_won = select(eq(x, ans), ad.full_like(ans, 1), ad.full_like(ans, 0))
    y_won = select(eq(y, ans), ad.full_like(ans, 2), ad.full_like(ans, 1))
    return div(x_won, y_won)


for _p in (max_p, min_p):
    ad.defjvp2(_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
               lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))


def _abs_lowering(ctx, x):
    return hlo.abs(x)  # complex → its real dtype (inferred by StableHLO)


abs_p = elementwise_prim("abs", SIGNED | INEXACT, _abs_lowering, result_dtype=_real_dtype)


def _abs_jvp(g, ans, x):
    if get_aval(x).dtype.kind != "c":
        return select(ge(x, const(x, 0)), g, neg(g))

    conj_x = conj(x)  # before the conversion of ans, as JAX's rule stages them
    return real(mul(g, div(conj_x, _replace_zero(convert_element_type(ans, get_aval(x).dtype)))))


def _replace_zero(x):
    # JAX's _const: a weak zero only beside a weak scalar (a weak f32[3]'s eq is on a strong 0.0)
    return select(eq(x, rule_const(x, 0)), ad.full_like(x, 1), x)


ad.defjvp2(abs_p, _abs_jvp)


def _sign_lowering(ctx, x):
    dtype = ctx.avals_in[0].dtype
    if dtype.kind == "u":  # stablehlo.sign has no unsigned form: x == 0 ? 0 : 1
        is_zero = hlo_compare(x, _const(ctx, 0), "EQ", dtype)
        return hlo.select(is_zero, _const(ctx, 0), _const(ctx, 1))
    return hlo.sign(x)


sign_p = elementwise_prim("sign", NUMBER, _sign_lowering)
ad.defjvp_zero(sign_p)


def _square_lowering(ctx, x):
    if ctx.avals_in[0].dtype.kind in "iu":
        return hlo.multiply(x, x)
    return chlo.square(x)


square_p = elementwise_prim("square", NUMBER, _square_lowering)
ad.defjvp(square_p, lambda g, x: mul(g, mul(rule_const(x, 2), x)))


def _pow_abstract_eval(x, y):
    """pow(x, y): x floating or complex; y of x's dtype, or any integer dtype (JAX's rule)."""
    check_dtype_allowed("pow", x.dtype, INEXACT, position=0)
    check_dtype_allowed("pow", y.dtype, INT | INEXACT, position=1)
    if y.dtype != x.dtype and not dtypes.is_int(y.dtype):
        raise TypeError(
            "the first argument to pow must have an inexact dtype (float or complex), and the "
            "second argument must have an inexact or integer dtype, and two inexact dtypes "
            f"must match, but got {x.dtype.name} and {y.dtype.name} respectively."
        )
    shape = broadcast_elementwise_shapes("pow", [x, y])
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


def _pow_lowering(ctx, x, y):
    x_aval, y_aval = ctx.avals_in
    if y_aval.dtype != x_aval.dtype:  # an integer exponent: StableHLO wants one dtype
        y = hlo.convert(tensor_type(ctx.avals_out[0]), y)
    return hlo.power(x, y)


pow_p = Primitive("pow")
pow_p.def_abstract_eval(_pow_abstract_eval)
pow_p.def_lowering(hlo_elementwise(_pow_lowering))
pow_p.def_batching(batching.elementwise_rule(pow_p))


def _pow_jvp_x(g, ans, x, y):
    """y * x ** (y - 1); for an integer y, exactly 0 where y == 0 (even at x == 0).

    Both operands are converted to the result dtype (x's) as strong values first, as JAX's
    rule: the tangent of x is strong even at Python-scalar operands, and an integer y's
    ``y - 1`` rounds in that float (int32 min stays -2**31, an even power) instead of
    wrapping to int32 max. The ones are JAX's ``_ones(y)``, full arrays."""
    y_is_int = dtypes.is_int(get_aval(y).dtype)
    dtype = get_aval(x).dtype
    x, y = convert_element_type(x, dtype), convert_element_type(y, dtype)
    if not y_is_int:
        return mul(g, mul(y, pow(x, sub(y, ad.full_like(y, 1)))))

    shape = get_aval(ans).shape
    x, y = ad.broadcast_to_shape(x, shape), ad.broadcast_to_shape(y, shape)
    jac = select(eq(y, rule_const(y, 0)), ad.full_like(y, 0),
                 mul(_replace_zero(y), pow(x, sub(y, ad.full_like(y, 1)))))
    return mul(g, jac)


def _pow_jvp_y(g, ans, x, y):
    # log(x) * x ** y, 0 where x == 0; the strong conversion is JAX's (its transpose gives
    # the cotangent back y's weak type)
    return convert_element_type(mul(g, mul(log(_replace_zero(x)), ans)), get_aval(y).dtype)


ad.defjvp2(pow_p, _pow_jvp_x, _pow_jvp_y)


def _integer_pow_abstract_eval(x, *, y):
    out = elementwise_shape("integer_pow", NUMBER)(x)
    if y < 0 and dtypes.is_int(x.dtype):
        raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow({x}, {y})")
    return out


def _integer_pow_lowering(ctx, x, *, y):
    """Square-and-multiply with ``stablehlo.multiply`` (XLA fuses it); 1/acc for y < 0."""
    if y == 0:
        return _const(ctx, 1)
    n, acc = builtins.abs(y), None
    while n > 0:
        if n & 1:
            acc = x if acc is None else hlo.multiply(acc, x)
        n >>= 1
        if n > 0:
            x = hlo.multiply(x, x)
    return hlo.divide(_const(ctx, 1), acc) if y < 0 else acc


integer_pow_p = Primitive("integer_pow")
integer_pow_p.def_abstract_eval(_integer_pow_abstract_eval)
integer_pow_p.def_lowering(_integer_pow_lowering)
integer_pow_p.def_batching(batching.elementwise_rule(integer_pow_p))


def _integer_pow_jvp(g, x, *, y):
    if y == 0:
        # materialized zeros, as JAX's: a consumer's rule then runs on them (``inv(x**0)``'s
        # tangent is ``solve(A, 0)``, NaN for a singular A), where a symbolic zero skips it
        return ad.zeros_like_aval(get_aval(g))
    if y == 1:
        return g
    if y == 2:
        return mul(g, mul(rule_const(x, y), x))
    return mul(g, mul(rule_const(x, y), integer_pow(x, y - 1)))


ad.defjvp(integer_pow_p, _integer_pow_jvp)

# ------------------------------------------------------------------------------------------------
# Transcendental and special functions (floating or complex unless noted)

def _with_accuracy(p):
    """``p`` takes JAX's ``accuracy`` parameter, shown in a jaxpr only when set."""
    p.pp_params = pp_params_without_none_accuracy
    return p


def _accuracy_op(name, build, allowed):
    """A unary op lowered to ``build`` with its ``result_accuracy`` (JAX's _nary_lower_hlo)."""
    return _with_accuracy(elementwise_prim(name, allowed, lower_with_accuracy(build)))


exp_p = _accuracy_op("exp", hlo.exponential, INEXACT)
log_p = _accuracy_op("log", hlo.log, INEXACT)
expm1_p = _accuracy_op("expm1", hlo.exponential_minus_one, INEXACT)
log1p_p = _accuracy_op("log1p", hlo.log_plus_one, INEXACT)


def _complex_sin_cos_terms(ctx, x):
    """The terms of JAX's complex sin/cos lowering for ``x = a + bi``: ``a == 0``, sin(a),
    cos(a), sinh(b), cosh(b), the hyperbolic ones from expm1 (no cancellation at small b)."""
    rdtype = _real_dtype(ctx.avals_in[0].dtype)
    a, b = hlo.real(x), hlo.imag(x)
    two = _const(ctx, 2, rdtype)
    e1m, e2m = hlo.exponential_minus_one(b), hlo.exponential_minus_one(hlo.negate(b))
    snh = hlo.divide(hlo.subtract(e1m, e2m), two)
    csh = hlo.divide(hlo.add(hlo.add(e1m, e2m), two), two)
    a_is_zero = hlo_compare(a, _const(ctx, 0, rdtype), "EQ", rdtype)
    return a_is_zero, hlo.sine(a), hlo.cosine(a), snh, csh, _const(ctx, 0, rdtype)


# Complex sin/cos lower through JAX's formula, whose select at a zero real part keeps
# cos(0 + inf i) = inf + 0i (C99's ccos) where the 0 * inf term would give a NaN.
# Their real lowerings take the accuracy; the complex formula ignores it, as JAX's.
def _sin_lowering(ctx, x, accuracy=None):
    if ctx.avals_in[0].dtype.kind != "c":
        return _lower_sine(ctx, x, accuracy=accuracy)
    a_is_zero, sn, cs, snh, csh, zero = _complex_sin_cos_terms(ctx, x)
    re, im = hlo.multiply(sn, csh), hlo.multiply(cs, snh)
    return hlo.select(a_is_zero, hlo.complex(zero, im), hlo.complex(re, im))


def _cos_lowering(ctx, x, accuracy=None):
    if ctx.avals_in[0].dtype.kind != "c":
        return _lower_cosine(ctx, x, accuracy=accuracy)
    a_is_zero, sn, cs, snh, csh, zero = _complex_sin_cos_terms(ctx, x)
    re, im = hlo.multiply(cs, csh), hlo.multiply(hlo.negate(sn), snh)
    return hlo.select(a_is_zero, hlo.complex(re, zero), hlo.complex(re, im))


_lower_sine = lower_with_accuracy(hlo.sine)
_lower_cosine = lower_with_accuracy(hlo.cosine)
sin_p = _with_accuracy(elementwise_prim("sin", INEXACT, _sin_lowering))
cos_p = _with_accuracy(elementwise_prim("cos", INEXACT, _cos_lowering))
tan_p = _accuracy_op("tan", hlo.tan, INEXACT)
asin_p = naryop("asin", chlo.asin, INEXACT)
acos_p = naryop("acos", chlo.acos, INEXACT)
atan_p = naryop("atan", chlo.atan, INEXACT)
sinh_p = naryop("sinh", chlo.sinh, INEXACT)
cosh_p = naryop("cosh", chlo.cosh, INEXACT)
tanh_p = _accuracy_op("tanh", hlo.tanh, INEXACT)
asinh_p = naryop("asinh", chlo.asinh, INEXACT)
acosh_p = naryop("acosh", chlo.acosh, INEXACT)
atanh_p = naryop("atanh", chlo.atanh, INEXACT)
sqrt_p = _accuracy_op("sqrt", hlo.sqrt, INEXACT)
rsqrt_p = _accuracy_op("rsqrt", hlo.rsqrt, INEXACT)
cbrt_p = _accuracy_op("cbrt", hlo.cbrt, FLOAT)
erf_p = naryop("erf", chlo.erf, FLOAT)
erfc_p = naryop("erfc", chlo.erfc, FLOAT)
erf_inv_p = naryop("erf_inv", chlo.erf_inv, FLOAT)
lgamma_p = naryop("lgamma", chlo.lgamma, FLOAT)
digamma_p = naryop("digamma", chlo.digamma, FLOAT)
polygamma_p = naryop("polygamma", chlo.polygamma, FLOAT)  # (m, x): the m-th derivative of digamma

_SQRT_PI = float(np.sqrt(np.pi))
ad.defjvp2(exp_p, lambda g, ans, x, **_: mul(g, ans))
ad.defjvp(log_p, lambda g, x, **_: div(g, x))
ad.defjvp2(expm1_p, lambda g, ans, x, accuracy=None: (
    mul(g, exp(x, accuracy=accuracy)) if accuracy is AccuracyMode.HIGHEST
    else mul(g, add(ans, const(ans, 1)))))
ad.defjvp(log1p_p, lambda g, x, **_: div(g, add(x, const(x, 1))))


def _sin_jvp(g, x, accuracy=None):
    # a linearization (grad, vjp) takes cos without the accuracy, as JAX's _sin_lin
    if accuracy is not None and in_linearization(current_trace()):
        accuracy = None
    return mul(g, cos(x, accuracy=accuracy))


ad.defjvp(sin_p, _sin_jvp)
ad.defjvp(cos_p, lambda g, x, accuracy=None: neg(mul(g, sin(x, accuracy=accuracy))))
ad.defjvp2(tan_p, lambda g, ans, x, **_: mul(g, add(rule_const(x, 1), square(ans))))
ad.defjvp(asin_p, lambda g, x: mul(g, rsqrt(sub(rule_const(x, 1), square(x)))))
ad.defjvp(acos_p, lambda g, x: mul(g, neg(rsqrt(sub(rule_const(x, 1), square(x))))))
ad.defjvp(atan_p, lambda g, x: div(g, add(rule_const(x, 1), square(x))))
ad.defjvp(sinh_p, lambda g, x: mul(g, cosh(x)))
ad.defjvp(cosh_p, lambda g, x: mul(g, sinh(x)))
# JAX's form (g + g ans)(1 - ans): at ans = -0 an infinite cotangent gives NaN, not -inf
ad.defjvp2(tanh_p, lambda g, ans, x, accuracy=None: (
    mul(g, mul(rule_const(x, 4), mul(logistic(mul(rule_const(x, 2), x), accuracy=accuracy),
                                      logistic(mul(rule_const(x, -2), x), accuracy=accuracy))))
    if accuracy is AccuracyMode.HIGHEST
    else mul(add(g, mul(g, ans)), sub(const(x, 1), ans))))
ad.defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(square(x), const(x, 1)))))
# JAX's forms: x^2 - 1 (its domain is x >= 1, so (x+1)(x-1)'s accuracy near 0 is not needed)
# and 1/(1+x) times g/(1-x)
ad.defjvp(acosh_p, lambda g, x: mul(g, rsqrt(sub(square(x), const(x, 1)))))
ad.defjvp(atanh_p, lambda g, x: mul(reciprocal(add(const(x, 1), x)), div(g, sub(const(x, 1), x))))
ad.defjvp2(sqrt_p, lambda g, ans, x, **_: mul(g, div(rule_const(x, 0.5), ans)))
ad.defjvp2(rsqrt_p, lambda g, ans, x, **_: mul(g, mul(rule_const(x, -0.5), div(ans, x))))
ad.defjvp2(cbrt_p, lambda g, ans, x, **_: mul(g, mul(rule_const(x, 1 / 3), integer_pow(ans, -2))))
# JAX's product order: g times exp first, then the constant (its half-precision rounding)
ad.defjvp(erf_p, lambda g, x: mul(rule_const(x, 2 / _SQRT_PI), mul(g, exp(neg(square(x))))))
ad.defjvp(erfc_p, lambda g, x: mul(rule_const(x, -2 / _SQRT_PI), mul(g, exp(neg(square(x))))))
ad.defjvp2(erf_inv_p, lambda g, ans, x: mul(rule_const(x, _SQRT_PI / 2), mul(g, exp(square(ans)))))
ad.defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))
ad.defjvp(digamma_p, lambda g, x: mul(g, polygamma(rule_const(x, 1), x)))
# JAX writes `g * ...`: jnp promotion, so a weak g meeting a strong factor is converted first
def _polygamma_dm(g, m, x):
    raise ValueError("polygamma gradient with respect to m is not supported")  # JAX's words


ad.defjvp(polygamma_p, _polygamma_dm, lambda g, m, x: g * polygamma(add(m, rule_const(m, 1)), x))


def _exp2_lowering(ctx, x, accuracy=None):
    # exp(x * ln 2), as JAX lowers it (XLA has no exp2 op), the accuracy on the exp.
    return hlo.exponential(hlo.multiply(_const(ctx, np.log(2)), x),
                           result_accuracy=accuracy_attr(accuracy))


exp2_p = _with_accuracy(elementwise_prim("exp2", INEXACT, _exp2_lowering))
ad.defjvp2(exp2_p, lambda g, ans, x, **_: mul(log(rule_const(x, 2)), mul(g, ans)))


def _logistic_lowering(ctx, x, accuracy=None):
    # 1 / (1 + exp(-x)): JAX avoids stablehlo.logistic over numerical problems it had with it;
    # its lowering drops the accuracy.
    one = _const(ctx, 1)
    return hlo.divide(one, hlo.add(one, hlo.exponential(hlo.negate(x))))


logistic_p = _with_accuracy(elementwise_prim("logistic", INEXACT, _logistic_lowering))
ad.defjvp2(logistic_p, lambda g, ans, x, accuracy=None: (
    mul(g, mul(ans, logistic(neg(x)))) if accuracy is AccuracyMode.HIGHEST
    else mul(g, mul(ans, sub(const(ans, 1), ans)))))

# ------------------------------------------------------------------------------------------------
# Rounding and classification (floating only)


class RoundingMethod(enum.IntEnum):
    """How ``round`` breaks ties (``0.5``): away from zero (default) or to the nearest even."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def _round_lowering(ctx, x, *, rounding_method):
    if rounding_method == RoundingMethod.AWAY_FROM_ZERO:
        return hlo.round_nearest_afz(x)
    return hlo.round_nearest_even(x)


floor_p = naryop("floor", hlo.floor, FLOAT)
ceil_p = naryop("ceil", hlo.ceil, FLOAT)
round_p = elementwise_prim("round", FLOAT, _round_lowering)
is_finite_p = naryop("is_finite", hlo.is_finite, FLOAT, result_dtype=lambda _: dtypes.bool_)
for _p in (floor_p, ceil_p, round_p, is_finite_p):
    ad.defjvp_zero(_p)  # piecewise constant

# ------------------------------------------------------------------------------------------------
# Complex numbers

_COMPLEX_PARTS = frozenset([dtypes.float32, dtypes.float64])  # the real dtypes complex supports


def _complex_dtype(dtype):
    return dtypes.complex128 if dtype in (dtypes.float64, dtypes.complex128) else dtypes.complex64


real_p = naryop("real", hlo.real, COMPLEX, result_dtype=_real_dtype)
imag_p = naryop("imag", hlo.imag, COMPLEX, result_dtype=_real_dtype)
complex_p = naryop("complex", hlo.complex, _COMPLEX_PARTS, result_dtype=_complex_dtype)


def _conj_lowering(ctx, x, *, input_dtype):
    if ctx.avals_in[0].dtype.kind == "c":
        return chlo.conj(x)
    return hlo.complex(x, _const(ctx, 0))  # a real operand becomes complex with zero imag


conj_p = elementwise_prim("conj", _COMPLEX_PARTS | COMPLEX, _conj_lowering, _complex_dtype)

# Transposes of the real-linear maps between real and complex numbers, w.r.t. the pairing
# <a, b> = Re(sum(a * b)) that JAX uses: Re(ct * (x + iy)) = Re(ct) x - Im(ct) y, and so on.
# The zero is a strong NumPy scalar, as JAX's, so the complex cotangent is strong.
ad.deflinear(real_p, lambda ct, z: [complex(ct, np.zeros((), dtypes.dtype_of(ct)[0]))])
ad.deflinear(imag_p, lambda ct, z: [complex(np.zeros((), dtypes.dtype_of(ct)[0]), neg(ct))])
ad.deflinear(complex_p, lambda ct, x, y: [_linear_ct(x, real(ct)), _linear_ct(y, neg(imag(ct)))])
ad.deflinear(conj_p, lambda ct, z, *, input_dtype: [
    conj(ct) if input_dtype.kind == "c" else real(ct)])

# ------------------------------------------------------------------------------------------------
# Bitwise (booleans and integers; shifts, popcount and clz on integers only)

not_p = naryop("not", hlo.not_, INT_OR_BOOL)
and_p = naryop("and", hlo.and_, INT_OR_BOOL)
or_p = naryop("or", hlo.or_, INT_OR_BOOL)
xor_p = naryop("xor", hlo.xor, INT_OR_BOOL)
population_count_p = naryop("population_count", hlo.popcnt, INT)
clz_p = naryop("clz", hlo.count_leading_zeros, INT)
shift_left_p = naryop("shift_left", hlo.shift_left, INT)
shift_right_arithmetic_p = naryop("shift_right_arithmetic", hlo.shift_right_arithmetic, INT)
shift_right_logical_p = naryop("shift_right_logical", hlo.shift_right_logical, INT)
for _p in (not_p, and_p, or_p, xor_p, population_count_p, clz_p, shift_left_p,
           shift_right_arithmetic_p, shift_right_logical_p):
    ad.defjvp_zero(_p)  # integer and boolean results

# ------------------------------------------------------------------------------------------------
# Comparisons (→ bool). compare_type: FLOAT for floats and complex, SIGNED, UNSIGNED (and bool).


def _comparison(name, direction, allowed):
    def lower(ctx, x, y):
        return hlo_compare(x, y, direction, ctx.avals_in[0].dtype)

    return elementwise_prim(name, allowed, lower, result_dtype=lambda _: dtypes.bool_)


eq_p = _comparison("eq", "EQ", ANY)
ne_p = _comparison("ne", "NE", ANY)
lt_p = _comparison("lt", "LT", REAL)
le_p = _comparison("le", "LE", REAL)
gt_p = _comparison("gt", "GT", REAL)
ge_p = _comparison("ge", "GE", REAL)
for _p in (eq_p, ne_p, lt_p, le_p, gt_p, ge_p):
    ad.defjvp_zero(_p)

# ------------------------------------------------------------------------------------------------
# select_n and clamp


def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise TypeError("select_n must have at least one case")
    if any(c.shape != cases[0].shape for c in cases[1:]):
        raise TypeError(
            "select_n cases must have the same shapes, got "
            f"{', '.join(c.str_short(True) for c in cases)}."
        )
    if which.shape and which.shape != cases[0].shape:
        raise TypeError(
            "select_n `which` must be scalar or have the same shape as cases, got `which` "
            f"{which.str_short(True)} but cases {cases[0].str_short(True)}."
        )
    dtype = check_same_dtypes("select", cases)
    if which.dtype not in BOOL | INT:
        raise TypeError(
            f"select_n `which` must be boolean or integer type, got {which.str_short(True)}."
        )
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise TypeError(
            f"select_n with boolean `which` cannot have > 2 cases, got {len(cases)} cases."
        )
    return ShapedArray(cases[0].shape, dtype, all(c.weak_type for c in cases))


def _select_n_lowering(ctx, which, *cases):
    """Boolean ``which``: one select. Integer: a balanced tree of selects on ``which < mid``."""
    which_aval = ctx.avals_in[0]
    if len(cases) == 1:
        return cases[0]
    if which_aval.dtype == dtypes.bool_:
        return hlo.select(which, cases[1], cases[0])

    def tree(offset, cases):
        if len(cases) == 1:
            return cases[0]
        mid = len(cases) // 2
        bound = full_like_shape(offset + mid, which_aval.shape, which_aval.dtype)
        pred = hlo_compare(which, bound, "LT", which_aval.dtype)
        return hlo.select(pred, tree(offset, cases[:mid]), tree(offset + mid, cases[mid:]))

    return tree(0, cases)  # a rank-0 predicate selects whole tensors (StableHLO allows it)


select_n_p = Primitive("select_n")
select_n_p.def_abstract_eval(_select_n_abstract_eval)
select_n_p.def_lowering(_select_n_lowering)
# Only `which` may stay rank 0 while the cases are arrays; the cases must agree in shape.
_select_n_elementwise = batching.elementwise_rule(select_n_p, scalar_ok=lambda i: i == 0,
                                                  size1_ok=False)


def _scalar_cases_under_batched_which(vals, dims):
    which, *cases = vals
    return (dims[0] is not batching.not_mapped and batching.ndim(which) > 1
            and all(d is batching.not_mapped and batching.ndim(c) == 0
                    for c, d in zip(cases, dims[1:])))


def _select_n_batching(vals, dims):
    """JAX's rule: a batched `which` beside unbatched scalar cases (per example an invalid
    select_n, which JAX's vmap computes) broadcasts the cases to `which`'s shape."""
    if _scalar_cases_under_batched_which(vals, dims):
        which, *cases = vals
        return select_n_p.bind(which, *[lax_ops.broadcast_in_dim(c, get_aval(which).shape, ())
                                        for c in cases]), dims[0]
    return _select_n_elementwise(vals, dims)


_select_n_batching.accepts_invalid = _scalar_cases_under_batched_which
select_n_p.def_batching(_select_n_batching)


def _select_n_transpose(ct, which, *cases):
    """Case i gets the cotangent where ``which`` picked it, zero elsewhere. As JAX's rule, an
    integer ``which`` picks case i where it equals i, so an out-of-range ``which`` (undefined
    forward) sends the cotangent to no case."""
    zeros = ad.full_like(ct, 0)
    if get_aval(which).dtype == np.bool_:
        def pick(i):
            return select_n(which, *[ct if j == i else zeros for j in range(len(cases))])
    else:
        def pick(i):
            return select(eq(which, rule_const(which, i)), ct, zeros)
    return [None] + [pick(i) if ad.is_undefined_primal(case) else None
                     for i, case in enumerate(cases)]


def _select_n_jvp(primals, tangents):
    """JAX's rule: `which` is fixed whatever its tangent, and a case without a tangent gets
    zeros of a case tangent's type (of an integer tangent too, where a deflinear JVP would take
    the integer case as data)."""
    which, *cases = primals
    out = select_n_p.bind(which, *cases)
    case_tangents = tangents[1:]
    nonzero = [t for t in case_tangents if type(t) is not ad.Zero]
    if not nonzero:
        return out, ad.Zero(case_tangents[0].aval)
    zeros = ad.full_like(nonzero[0], 0)
    return out, select_n_p.bind(which, *[zeros if type(t) is ad.Zero else t
                                         for t in case_tangents])


ad.primitive_jvps[select_n_p] = _select_n_jvp
ad.primitive_transposes[select_n_p] = _select_n_transpose  # linear in the cases


def _clamp_abstract_eval(min, operand, max):
    for name, bound in (("min", min), ("max", max)):
        if bound.shape and bound.shape != operand.shape:
            raise TypeError(
                f"clamp requires {name}.shape == operand.shape or {name}.shape == (), got "
                f"min {min.str_short(True)}, operand {operand.str_short(True)}, "
                f"max {max.str_short(True)}."
            )
    dtype = check_same_dtypes("clamp", [min, operand, max])
    check_dtype_allowed("clamp", dtype, ANY)
    weak = min.weak_type and operand.weak_type and max.weak_type
    return ShapedArray(operand.shape, dtype, weak)


clamp_p = Primitive("clamp")
clamp_p.def_abstract_eval(_clamp_abstract_eval)
clamp_p.def_lowering(lambda ctx, lo, x, hi: hlo.clamp(lo, x, hi))  # rank-0 bounds are native
clamp_p.def_batching(batching.elementwise_rule(clamp_p, scalar_ok=lambda i: i != 1,
                                                size1_ok=False))


def _clamp_part(pred, g, x):
    """g (broadcast to x's shape) where pred, else zero."""
    g = ad.broadcast_to_shape(g, get_aval(x).shape)
    return select(pred, g, ad.full_like(g, 0))


ad.defjvp(clamp_p,
    lambda g, lo, x, hi: _clamp_part(bitwise_and(gt(lo, x), lt(lo, hi)), g, x),
    lambda g, lo, x, hi: _clamp_part(bitwise_and(gt(x, lo), lt(x, hi)), g, x),
    lambda g, lo, x, hi: _clamp_part(lt(hi, x), g, x),
)

# stop_gradient: the identity, with a zero derivative (JAX's stop_gradient primitive)
stop_gradient_p = naryop("stop_gradient", lambda x: x, ANY)
ad.defjvp_zero(stop_gradient_p)


def _stop_gradient_impl(x):
    """Eagerly JAX's impl returns its operand as bind canonicalized it: a Python scalar typed
    (a checkpoint body's ``stop_gradient`` of its Python-float operand, or of a literal, whose
    weak scalar checkpoint gives back typed, is a scalar again), a NumPy value a TypedNdArray
    of its canonical dtype; an Array is returned as it is."""
    return dtypes.canonical_value(x)  # an Array (or a WeakScalar) as it is


stop_gradient_p.def_impl(_stop_gradient_impl)


def _stop_gradient_jvp(primals, tangents):
    # JAX's rule applies stop_gradient to the primal as given, eagerly the identity: a tracer's
    # Python scalar primal (vjp's TypedFloat input, a concrete value) comes back typed, not as
    # an array, under vjp/linearize (whose known values are eager) too
    (x,) = primals
    out = (dtypes.canonical_scalar(x) if type(x) in dtypes.python_scalar_types
           else stop_gradient_p.bind(x))
    return out, ad.Zero.from_primal_value(out)


stop_gradient_p.jvp = _stop_gradient_jvp
ad.raw_primal_primitives.add(stop_gradient_p)

# ------------------------------------------------------------------------------------------------
# The Python functions (JAX's signatures)


def add(x, y):
    return add_p.bind(*coerce_scalars(x, y))


def sub(x, y):
    return sub_p.bind(*coerce_scalars(x, y))


def mul(x, y, *, out_dtype=None):
    """``x * y``; with ``out_dtype``, operands of other dtypes multiply into that dtype."""
    return mul_p.bind(*coerce_scalars(x, y), out_dtype=out_dtype)


def div(x, y):
    """Division; integers truncate toward zero (``lax.div(-7, 2) == -3``)."""
    return div_p.bind(*coerce_scalars(x, y))


def rem(x, y):
    """Remainder with the sign of the dividend (C's ``%``/``fmod``), not Python's ``%``."""
    return rem_p.bind(*coerce_scalars(x, y))


def pow(x, y):
    """``x ** y`` for a floating or complex ``x``; ``y`` of ``x``'s dtype or an integer dtype."""
    return pow_p.bind(*coerce_scalars(x, y))


def integer_pow(x, y):
    """``x ** y`` for a static Python integer ``y``, as repeated multiplication."""
    y = concrete_or_error(operator.index, y, "the exponent y of lax.integer_pow")
    return integer_pow_p.bind(x, y=y)


def max(x, y):
    return max_p.bind(*coerce_scalars(x, y))


def min(x, y):
    return min_p.bind(*coerce_scalars(x, y))


def atan2(x, y):
    return atan2_p.bind(*coerce_scalars(x, y))


def nextafter(x1, x2):
    return nextafter_p.bind(*coerce_scalars(x1, x2))


def neg(x):
    return neg_p.bind(x)


def abs(x):
    return abs_p.bind(x)


def sign(x):
    return sign_p.bind(x)


def square(x):
    return square_p.bind(x)


def reciprocal(x):
    return integer_pow(x, -1)


def exp(x, *, accuracy=None):
    return exp_p.bind(x, accuracy=accuracy)


def exp2(x, *, accuracy=None):
    return exp2_p.bind(x, accuracy=accuracy)


def log(x, *, accuracy=None):
    return log_p.bind(x, accuracy=accuracy)


def log1p(x, *, accuracy=None):
    return log1p_p.bind(x, accuracy=accuracy)


def expm1(x, *, accuracy=None):
    return expm1_p.bind(x, accuracy=accuracy)


def sin(x, *, accuracy=None):
    return sin_p.bind(x, accuracy=accuracy)


def cos(x, *, accuracy=None):
    return cos_p.bind(x, accuracy=accuracy)


def tan(x, *, accuracy=None):
    return tan_p.bind(x, accuracy=accuracy)


def asin(x):
    return asin_p.bind(x)


def acos(x):
    return acos_p.bind(x)


def atan(x):
    return atan_p.bind(x)


def sinh(x):
    return sinh_p.bind(x)


def cosh(x):
    return cosh_p.bind(x)


def tanh(x, *, accuracy=None):
    return tanh_p.bind(x, accuracy=accuracy)


def asinh(x):
    return asinh_p.bind(x)


def acosh(x):
    return acosh_p.bind(x)


def atanh(x):
    return atanh_p.bind(x)


def logistic(x, *, accuracy=None):
    return logistic_p.bind(x, accuracy=accuracy)


def sqrt(x, *, accuracy=None):
    return sqrt_p.bind(x, accuracy=accuracy)


def rsqrt(x, *, accuracy=None):
    return rsqrt_p.bind(x, accuracy=accuracy)


def cbrt(x, *, accuracy=None):
    return cbrt_p.bind(x, accuracy=accuracy)


def erf(x):
    return erf_p.bind(x)


def erfc(x):
    return erfc_p.bind(x)


def erf_inv(x):
    return erf_inv_p.bind(x)


def lgamma(x):
    return lgamma_p.bind(x)


def digamma(x):
    return digamma_p.bind(x)


def polygamma(m, x):
    """The ``m``-th derivative of digamma at ``x`` (``m`` a non-negative integer value)."""
    return polygamma_p.bind(*coerce_scalars(m, x))


def floor(x):
    return floor_p.bind(x)


def ceil(x):
    return ceil_p.bind(x)


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


def is_finite(x):
    return is_finite_p.bind(x)


def real(x):
    return real_p.bind(x)


def imag(x):
    return imag_p.bind(x)


def complex(x, y):
    return complex_p.bind(*coerce_scalars(x, y))


def conj(x):
    return conj_p.bind(x, input_dtype=get_aval(x).dtype)


def bitwise_not(x):
    return not_p.bind(x)


def bitwise_and(x, y):
    return and_p.bind(*coerce_scalars(x, y))


def bitwise_or(x, y):
    return or_p.bind(*coerce_scalars(x, y))


def bitwise_xor(x, y):
    return xor_p.bind(*coerce_scalars(x, y))


def population_count(x):
    return population_count_p.bind(x)


def clz(x):
    return clz_p.bind(x)


def shift_left(x, y):
    return shift_left_p.bind(*coerce_scalars(x, y))


def shift_right_arithmetic(x, y):
    return shift_right_arithmetic_p.bind(*coerce_scalars(x, y))


def shift_right_logical(x, y):
    return shift_right_logical_p.bind(*coerce_scalars(x, y))


def eq(x, y):
    if type(x) in extended_array_types or type(y) in extended_array_types:
        # typed keys: equal where all their words are (lax.extended)
        return on_planes(eq, (0, 1), (x, y), {}, bitwise_and, lax_mix_error("eq"))
    return eq_p.bind(*coerce_scalars(x, y))


def ne(x, y):
    if type(x) in extended_array_types or type(y) in extended_array_types:
        # typed keys: unequal where any of their words is (lax.extended)
        return on_planes(ne, (0, 1), (x, y), {}, bitwise_or, lax_mix_error("ne"))
    return ne_p.bind(*coerce_scalars(x, y))


def lt(x, y):
    return lt_p.bind(*coerce_scalars(x, y))


def le(x, y):
    return le_p.bind(*coerce_scalars(x, y))


def gt(x, y):
    return gt_p.bind(*coerce_scalars(x, y))


def ge(x, y):
    return ge_p.bind(*coerce_scalars(x, y))


def select_n(which, *cases):
    """``cases[which]`` elementwise: a boolean ``which`` picks ``cases[1]`` where True."""
    if type(which) in extended_array_types:  # JAX 0.10.2's words
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype}.")
    if cases and (type(cases[0]) in extended_array_types
                  or type(cases[-1]) in extended_array_types):
        # typed keys: each key word's plane (lax.extended). Only the end cases are looked at,
        # as concatenate's operands
        return on_planes(select_n, (1,), (which, *cases), {}, mix_error=lax_mix_error("select_n"))
    return select_n_p.bind(which, *coerce_scalars(*cases))


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (``select_n(pred, on_false, on_true)``)."""
    return select_n(pred, on_false, on_true)


def clamp(min, x, max):
    """``x`` clipped to ``[min, max]``; note JAX's argument order (bounds around ``x``)."""
    return clamp_p.bind(*coerce_scalars(min, x, max))


def stop_gradient(x):
    """``x`` (any pytree), with a zero derivative: gradients do not flow through it.

    Every leaf binds the primitive, integer and boolean ones too (as in JAX 0.10.2), except
    an extended dtype's (a PRNG key), returned as it is. Eagerly a Python int, float or complex
    comes back carrying its dtype (JAX 0.10.2's ``TypedInt``/``TypedFloat``/``TypedComplex``),
    a NumPy value as a TypedNdArray.
    """
    def stop(leaf):
        if type(leaf) in dtypes.python_scalar_types and is_eval_trace_current():
            return dtypes.canonical_scalar(leaf)  # a typed one (or a bool) as it is
        if dtypes.issubdtype(get_aval(leaf).dtype, dtypes.extended):
            return leaf
        return stop_gradient_p.bind(leaf)

    return tree_map_internal(stop, x)


# Every primitive defined above is public as ``<name>_p`` (as in jax.lax): defining one is enough.
__all__ += sorted(n for n, v in list(globals().items())
                  if isinstance(v, Primitive) and not n.startswith("_"))

# Sharding rules (operands split over Explicit mesh axes)
select_n_p.sharding_rule = sharding_rules.select_n
clamp_p.sharding_rule = sharding_rules.operand(1)
integer_pow_p.sharding_rule = sharding_rules.operand(0)
pow_p.sharding_rule = sharding_rules.broadcasting("pow")
