"""Op-table entries for the elementwise primitives and the dtype conversions.

References are NumPy (or ``math`` vectorized) computed in float64/complex128/int64 from the
exact input values, then cast back to the result dtype, so the tolerance only has to cover
XLA's error, not the reference's. scipy is not available: erf_inv and digamma have small
float64 references below.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from minijax import lax
from tests.ops.kinks import away
from tests.ops.op_db import (
    FLOAT_DTYPES,
    INT_DTYPES,
    NO_DERIVATIVE,
    ZERO_DERIVATIVE,
    GradSpec,
    array,
    shapes,
)
# gradient checks run eagerly (CPU s on the dev VM, the 65 entries: 357 -> 59)
from tests.ops.op_db import register_eager_grads as register

F32, F16, BF16, C64 = np.float32, np.float16, ml_dtypes.bfloat16, np.complex64


SIGNED_INTS = [np.int8, np.int16, np.int32]
BOOL = [np.bool_]
FC = FLOAT_DTYPES + [C64]

# --- strategies -----------------------------------------------------------------------------------


def _inward(lo, hi, dtype):
    """Bounds rounded inward to values ``array`` can use: hypothesis rejects float bounds that
    the element width cannot represent exactly (0.1 as float16)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "fVc" or dtype in (np.float64, np.complex128):
        return lo, hi
    w = np.float16 if dtype == np.float16 else np.float32
    lo_w, hi_w = w(lo), w(hi)
    if lo_w < lo:
        lo_w = np.nextafter(lo_w, w(np.inf))
    if hi_w > hi:
        hi_w = np.nextafter(hi_w, w(-np.inf))
    return float(lo_w), float(hi_w)


def bounded(shape, dtype, lo, hi):
    return array(shape, dtype, *_inward(lo, hi, dtype)).map(flush_subnormals)


_F32_TINY = float(np.finfo(np.float32).tiny)


def flush_subnormals(x):
    """Zeros float32-subnormal inputs: XLA on CPU treats them as zero (denormals-are-zero, as
    in JAX), NumPy does not. float16 is computed in float32 there, so its subnormals stay."""
    if x.dtype in (np.dtype(np.float32), np.dtype(BF16)):
        return np.where(np.abs(x.astype(np.float64)) < _F32_TINY, np.zeros_like(x), x)
    if x.dtype == np.complex64:
        return flush_subnormals(x.real) + 1j * flush_subnormals(x.imag).astype(np.complex64)
    return x


def operands(dtypes, *domains, post=None, max_dims=3):
    """One drawn shape and dtype; operand i has elements in ``domains[i]`` = (lo, hi).
    ``post(arrays) -> arrays`` adjusts them (nonzero divisors, ties ...)."""

    @st.composite
    def strat(draw):
        shape = draw(shapes(max_dims=max_dims))
        dtype = draw(st.sampled_from(dtypes))
        xs = tuple(draw(bounded(shape, dtype, lo, hi)) for lo, hi in domains)
        return post(xs) if post else xs

    return strat()


def unary(dtypes, lo=-10.0, hi=10.0):
    return operands(dtypes, (lo, hi))


def binary(dtypes, lo=-10.0, hi=10.0, post=None):
    return operands(dtypes, (lo, hi), (lo, hi), post=post)


def _nonzero_divisor(xs):
    x, y = xs
    return x, np.where(y == 0, np.ones_like(y), y)


def _with_ties(xs):
    """Makes about half of y equal to x, so eq/le/ge/max see equal elements too."""
    x, y = xs
    take = (np.arange(x.size).reshape(x.shape) % 2) == 0
    return x, np.where(take, x, y)


def _with_nonfinite(xs):
    (x,) = xs
    flat = x.reshape(-1).copy()
    specials = np.array([np.inf, -np.inf, np.nan], np.float32).astype(x.dtype)
    flat[::2] = specials[np.arange(flat[::2].size) % 3]
    return (flat.reshape(x.shape),)


def _half_integers(xs):
    """Rounds to multiples of 0.5 so ties (…​.5) are common for ``round``."""
    return tuple((np.round(x.astype(np.float64) * 2) / 2).astype(x.dtype) for x in xs)


# --- references -----------------------------------------------------------------------------------


def _wide(x):
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    if x.dtype.kind in "fV":
        return x.astype(np.float64)
    if x.dtype.kind in "iu":
        return x.astype(np.int64)
    return x


def _cast_back(result, dtype):
    """The reference result in the primitive's result dtype for operands of ``dtype``."""
    result = np.asarray(result)
    dtype = np.dtype(dtype)
    if result.dtype == np.bool_:
        return result
    if dtype.kind == "c" and result.dtype.kind != "c":
        return result.astype(np.finfo(dtype).dtype)  # abs/real/imag of complex: the real dtype
    if result.dtype.kind == "c" and dtype.kind != "c":
        return result.astype(np.complex64)  # conj/complex of float32
    return result.astype(dtype)


def wide(fn):
    """A reference computed on widened operands, cast back to the result dtype."""
    return lambda *xs: _cast_back(fn(*map(_wide, xs)), xs[0].dtype)


def _vec(fn):
    return np.vectorize(fn, otypes=[np.float64])


def _erf_inv(y):
    """Bisection on erf(x) = y in float64 (erf is increasing; |x| < 6 for |y| < 1)."""
    if abs(y) >= 1:
        return math.copysign(math.inf, y) if abs(y) == 1 else math.nan
    lo, hi = -6.0, 6.0
    for _ in range(80):  # 12 / 2**80: far below float64's resolution
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.erf(mid) < y else (lo, mid)
    return 0.5 * (lo + hi)


def _digamma(x):
    """Recurrence up to x >= 8, then the asymptotic series (float64-accurate); reflection for
    x < 0.5."""
    if x < 0.5:
        return _digamma(1 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 8:
        acc -= 1 / x
        x += 1
    inv2 = 1 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return acc + math.log(x) - 0.5 / x - series


def _nextafter(x, y):
    """nextafter on the bits, for every float width (NumPy has no bfloat16 nextafter)."""
    bits = np.dtype(f"uint{8 * x.dtype.itemsize}")
    xb, out = x.view(bits).astype(np.int64), x.copy()
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    away_from_zero = (yf > xf) == (xf > 0)
    step = np.where(away_from_zero, 1, -1)
    moved = (xb + step).astype(bits).view(x.dtype)
    tiny = np.where(yf > 0, 1, 1 << (8 * x.dtype.itemsize - 1) | 1).astype(bits).view(x.dtype)
    out = np.where(xf == 0, tiny, moved)
    return np.where(xf == yf, y, out).astype(x.dtype)


def _round_afz(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _bits(dtype):
    return 8 * np.dtype(dtype).itemsize


def _unsigned(x):
    return x.view(np.dtype(f"uint{_bits(x.dtype)}"))


def _popcount(x):
    u = _unsigned(x).astype(np.uint64)
    return np.vectorize(lambda v: bin(int(v)).count("1"), otypes=[np.int64])(u).astype(x.dtype)


def _clz(x):
    u = _unsigned(x).astype(np.uint64)
    width = _bits(x.dtype)
    return np.vectorize(lambda v: width - int(v).bit_length(), otypes=[np.int64])(u).astype(x.dtype)


def _shift_right_logical(x, y):
    return (_unsigned(x) >> _unsigned(y)).view(x.dtype)


def _shift_amounts(xs):
    x, y = xs
    return x, (np.abs(y.astype(np.int64)) % _bits(x.dtype)).astype(x.dtype)


def _float_to_int(x, dtype):
    """XLA's float → int: truncate toward zero, saturate at the range, NaN → 0."""
    info = np.iinfo(dtype)
    t = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0))
    return np.clip(t, info.min, info.max).astype(dtype)


# --- the table ------------------------------------------------------------------------------------

LOOSE = {"float32": (1e-5, 1e-5), "float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2),
         "complex64": (2e-5, 1e-5)}
SPECIAL = {"float32": (5e-5, 5e-5), "float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2)}


def _separate(args):
    """max/min: the operands differ by >= 0.1 (in the real part) everywhere."""
    x, y = args
    close = np.abs(np.real(x - y)) < 0.1
    return x, np.where(close, y + 0.5, y)


def _rem_post(args):
    """|y| >= 0.5 and x / y at least 0.1 away from an integer (where rem jumps)."""
    x, y = args
    y = np.where(np.abs(y) < 0.5, np.where(y < 0, -0.5, 0.5), y)
    q = x / y
    whole = np.trunc(q)
    frac = np.clip(np.abs(q - whole), 0.1, 0.9)
    frac = np.where(q == whole, 0.5, frac)
    return (whole + np.where(q < 0, -frac, frac)) * y, y


def _atan2_post(args):
    """Away from the origin and from the branch cut (x = 0, y < 0), where atan2 jumps by 2 pi."""
    x, y = args
    near = np.hypot(x, y) < 0.5
    x = np.where(near, x + 1.0, x)
    on_cut = (np.abs(x) < 0.2) & (y < 0)
    return np.where(on_cut, np.where(x < 0, x - 0.5, x + 0.5), x), y


# arithmetic
register("add", lax.add, wide(np.add), binary(FLOAT_DTYPES + INT_DTYPES + [C64]))
register("sub", lax.sub, wide(np.subtract), binary(FLOAT_DTYPES + INT_DTYPES + [C64]))
register("mul", lax.mul, wide(np.multiply), binary(FLOAT_DTYPES + INT_DTYPES + [C64]))
register("div", lax.div, wide(np.divide), binary(FC, post=_nonzero_divisor), tol=LOOSE,
         grad=GradSpec(post=away(0.5, which=(1,))))
register("div_int", lax.div, wide(lambda x, y: np.trunc(x / y)),
         binary(INT_DTYPES, post=_nonzero_divisor), grad=ZERO_DERIVATIVE)
register("rem", lax.rem, wide(np.fmod), binary(FLOAT_DTYPES + INT_DTYPES, post=_nonzero_divisor),
         grad=GradSpec(post=_rem_post))
register("pow", lax.pow, wide(np.power), operands(FLOAT_DTYPES, (0.1, 10), (-3, 3)), tol=LOOSE,
         grad=GradSpec(domain=[(0.5, 5), (-2, 2)]))
register("pow_complex", lax.pow, wide(np.power), operands([C64], (0.1, 3), (-2, 2)),
         tol={"complex64": (1e-4, 1e-5)}, grad=GradSpec(domain=[(0.5, 3), (-1, 1)]))
register("pow_int_exponent", lambda x, n: lax.pow(x, n),
         lambda x, n: _cast_back(np.power(_wide(x), n.astype(np.float64)), x.dtype),
         st.tuples(shapes(), st.sampled_from(FLOAT_DTYPES)).flatmap(
             lambda sd: st.tuples(array(sd[0], sd[1], -4, 4), array(sd[0], np.int32, -3, 3))
         ).map(lambda xs: (np.where(xs[0] == 0, np.ones_like(xs[0]), xs[0]), xs[1])), tol=LOOSE,
         grad=GradSpec(post=away(0.5)))
register("max", lax.max, wide(np.maximum),
         binary(FLOAT_DTYPES + INT_DTYPES + BOOL + [C64], post=_with_ties),
         grad=GradSpec(post=_separate))
register("min", lax.min, wide(np.minimum),
         binary(FLOAT_DTYPES + INT_DTYPES + BOOL + [C64], post=_with_ties),
         grad=GradSpec(post=_separate))
register("atan2", lax.atan2, wide(np.arctan2), binary(FLOAT_DTYPES), tol=LOOSE,
         grad=GradSpec(post=_atan2_post))
register("nextafter", lax.nextafter, _nextafter, binary(FLOAT_DTYPES, post=_with_ties),
         grad=NO_DERIVATIVE)
register("neg", lax.neg, wide(np.negative), unary(FLOAT_DTYPES + SIGNED_INTS + [C64]))
register("abs", lax.abs, wide(np.abs), unary(FLOAT_DTYPES + SIGNED_INTS + [C64]), tol=LOOSE,
         grad=GradSpec(post=away(0.2)))
register("sign", lax.sign, wide(np.sign), unary(FLOAT_DTYPES + INT_DTYPES + [C64]), tol=LOOSE,
         grad=ZERO_DERIVATIVE)
register("square", lax.square, wide(np.square), unary(FLOAT_DTYPES + INT_DTYPES + [C64]),
         tol=LOOSE)
register("reciprocal", lax.reciprocal, wide(lambda x: 1 / x), unary(FC, 0.1, 10), tol=LOOSE,
         grad=GradSpec(domain=(0.5, 10)))
# transcendental (complex64 where XLA supports it well)
register("exp", lax.exp, wide(np.exp), unary(FC), tol=LOOSE)
register("exp2", lax.exp2, wide(np.exp2), unary(FLOAT_DTYPES),
         tol={**LOOSE, "float16": (1e-2, 1e-3), "bfloat16": (6e-2, 1e-2)})
register("log", lax.log, wide(np.log), unary(FLOAT_DTYPES, 0.01, 10), tol=LOOSE,
         grad=GradSpec(domain=(0.5, 10)))
register("log_complex", lax.log, wide(np.log), operands([C64], (0.1, 10)), tol=LOOSE,
         grad=GradSpec(domain=(0.5, 10)))
register("log1p", lax.log1p, wide(np.log1p), unary(FLOAT_DTYPES, -0.9, 10), tol=LOOSE,
         grad=GradSpec(domain=(-0.5, 10)))
register("expm1", lax.expm1, wide(np.expm1), unary(FLOAT_DTYPES), tol=LOOSE)
register("sin", lax.sin, wide(np.sin), unary(FC), tol=LOOSE)
register("cos", lax.cos, wide(np.cos), unary(FC), tol=LOOSE)
register("tan", lax.tan, wide(np.tan), unary(FLOAT_DTYPES, -1.5, 1.5), tol=LOOSE,
         grad=GradSpec(domain=(-1.2, 1.2)))
register("asin", lax.asin, wide(np.arcsin), unary(FLOAT_DTYPES, -1, 1), tol=LOOSE,
         grad=GradSpec(domain=(-0.8, 0.8)))
register("acos", lax.acos, wide(np.arccos), unary(FLOAT_DTYPES, -1, 1), tol=LOOSE,
         grad=GradSpec(domain=(-0.8, 0.8)))
register("atan", lax.atan, wide(np.arctan), unary(FLOAT_DTYPES), tol=LOOSE)
register("sinh", lax.sinh, wide(np.sinh), unary(FLOAT_DTYPES, -5, 5), tol=LOOSE)
register("cosh", lax.cosh, wide(np.cosh), unary(FLOAT_DTYPES, -5, 5), tol=LOOSE)
register("tanh", lax.tanh, wide(np.tanh), unary(FC, -5, 5), tol=LOOSE,
         grad=GradSpec(domain=(-1, 1)))  # complex tanh has poles at +-i pi/2
register("asinh", lax.asinh, wide(np.arcsinh), unary(FLOAT_DTYPES), tol=LOOSE)
register("acosh", lax.acosh, wide(np.arccosh), unary(FLOAT_DTYPES, 1, 10), tol=LOOSE,
         grad=GradSpec(domain=(1.5, 10)))
register("atanh", lax.atanh, wide(np.arctanh), unary(FLOAT_DTYPES, -0.9, 0.9), tol=LOOSE,
         grad=GradSpec(domain=(-0.7, 0.7)))
register("logistic", lax.logistic, wide(lambda x: 1 / (1 + np.exp(-x))), unary(FLOAT_DTYPES),
         tol=LOOSE)
register("sqrt", lax.sqrt, wide(np.sqrt), unary(FLOAT_DTYPES, 0, 10), tol=LOOSE,
         grad=GradSpec(domain=(0.5, 10)))
register("sqrt_complex", lax.sqrt, wide(np.sqrt), operands([C64], (0.1, 10)), tol=LOOSE,
         grad=GradSpec(domain=(0.5, 10)))
register("rsqrt", lax.rsqrt, wide(lambda x: 1 / np.sqrt(x)), unary(FLOAT_DTYPES, 0.01, 10),
         tol=LOOSE, grad=GradSpec(domain=(0.5, 10)))
register("cbrt", lax.cbrt, wide(np.cbrt), unary(FLOAT_DTYPES), tol=LOOSE,
         grad=GradSpec(post=away(0.5)))
register("erf", lax.erf, wide(_vec(math.erf)), unary(FLOAT_DTYPES, -3, 3), tol=SPECIAL)
register("erfc", lax.erfc, wide(_vec(math.erfc)), unary(FLOAT_DTYPES, -3, 3), tol=SPECIAL)
register("erf_inv", lax.erf_inv, wide(_vec(_erf_inv)), unary(FLOAT_DTYPES, -0.99, 0.99),
         tol=SPECIAL, grad=GradSpec(domain=(-0.8, 0.8)))
register("lgamma", lax.lgamma, wide(_vec(math.lgamma)), unary(FLOAT_DTYPES, 0.1, 10),
         tol=SPECIAL, grad=GradSpec(domain=(0.5, 10)))
register("digamma", lax.digamma, wide(_vec(_digamma)), unary(FLOAT_DTYPES, 0.1, 10),
         tol=SPECIAL, grad=GradSpec(domain=(0.5, 10)))
# rounding and classification: zero derivative wherever one exists
register("floor", lax.floor, wide(np.floor), unary(FLOAT_DTYPES), grad=ZERO_DERIVATIVE)
register("ceil", lax.ceil, wide(np.ceil), unary(FLOAT_DTYPES), grad=ZERO_DERIVATIVE)
register("round", lax.round, wide(_round_afz),
         operands(FLOAT_DTYPES, (-5, 5), post=_half_integers), grad=ZERO_DERIVATIVE)
register("round_even", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
         wide(np.round), operands(FLOAT_DTYPES, (-5, 5), post=_half_integers),
         grad=ZERO_DERIVATIVE)
register("is_finite", lax.is_finite, wide(np.isfinite),
         operands(FLOAT_DTYPES, (-10, 10), post=_with_nonfinite), grad=ZERO_DERIVATIVE)
# complex numbers
register("real", lax.real, wide(np.real), unary([C64]))
register("imag", lax.imag, wide(np.imag), unary([C64]))
register("conj", lax.conj, wide(lambda x: np.conj(x.astype(np.complex128))), unary([C64, F32]))
register("complex", lax.complex,
         lambda x, y: (x + 1j * y.astype(np.complex64)).astype(np.complex64), binary([F32]))
# bitwise (integer and boolean operands only: zero derivative)
register("not", lax.bitwise_not, np.invert, unary(INT_DTYPES + BOOL, -100, 100),
         grad=ZERO_DERIVATIVE)
register("and", lax.bitwise_and, np.bitwise_and, binary(INT_DTYPES + BOOL, -100, 100),
         grad=ZERO_DERIVATIVE)
register("or", lax.bitwise_or, np.bitwise_or, binary(INT_DTYPES + BOOL, -100, 100),
         grad=ZERO_DERIVATIVE)
register("xor", lax.bitwise_xor, np.bitwise_xor, binary(INT_DTYPES + BOOL, -100, 100),
         grad=ZERO_DERIVATIVE)
register("population_count", lax.population_count, _popcount, unary(INT_DTYPES, -100, 100),
         grad=ZERO_DERIVATIVE)
register("clz", lax.clz, _clz, unary(INT_DTYPES, -100, 100), grad=ZERO_DERIVATIVE)
register("shift_left", lax.shift_left, np.left_shift,
         binary(INT_DTYPES, -100, 100, post=_shift_amounts), grad=ZERO_DERIVATIVE)
register("shift_right_arithmetic", lax.shift_right_arithmetic, np.right_shift,
         binary(INT_DTYPES, -100, 100, post=_shift_amounts), grad=ZERO_DERIVATIVE)
register("shift_right_logical", lax.shift_right_logical, _shift_right_logical,
         binary(INT_DTYPES, -100, 100, post=_shift_amounts), grad=ZERO_DERIVATIVE)

# comparisons
_ORDERED = FLOAT_DTYPES + INT_DTYPES + BOOL
for _name, _fn, _ref, _dts in [
    ("eq", lax.eq, np.equal, _ORDERED + [C64]), ("ne", lax.ne, np.not_equal, _ORDERED + [C64]),
    ("lt", lax.lt, np.less, _ORDERED), ("le", lax.le, np.less_equal, _ORDERED),
    ("gt", lax.gt, np.greater, _ORDERED), ("ge", lax.ge, np.greater_equal, _ORDERED),
]:
    register(_name, _fn, wide(_ref), binary(_dts, post=_with_ties), grad=ZERO_DERIVATIVE)

for _y in (0, 1, 2, 3, 5, -1, -2):
    _dts = FLOAT_DTYPES + [C64] + (SIGNED_INTS if _y >= 0 else [])
    register(
        f"integer_pow[y={_y}]", lambda x, y=_y: lax.integer_pow(x, y),
        # float64 x**y, then the dtype (ints: wrap-around in int64 first, as XLA's multiply)
        wide(lambda x, y=_y: x**y if x.dtype.kind in "iu" else np.power(x, float(y))),
        unary(_dts, -3, 3) if _y >= 0 else unary(FC, 0.5, 3), tol=LOOSE,
    )


# --- select_n and clamp ---------------------------------------------------------------------------


@st.composite
def _select_args(draw, n_cases, which_dtype, scalar_which=False):
    shape = draw(shapes())
    dtype = draw(st.sampled_from(FLOAT_DTYPES + INT_DTYPES + BOOL))
    which_shape = () if scalar_which else shape
    if which_dtype == np.bool_:
        which = draw(array(which_shape, np.bool_))
    else:
        which = draw(array(which_shape, which_dtype, 0, n_cases - 1))
    return (which, *(draw(array(shape, dtype)) for _ in range(n_cases)))


def _select_n_ref(which, *cases):
    return np.choose(which.astype(np.int64), cases).astype(cases[0].dtype)


def _clamp_post(args):
    """lo + 0.5 <= hi, and x at least 0.1 away from both bounds."""
    lo, x, hi = args
    hi = np.maximum(hi, lo + 0.5)
    for bound in (lo, hi):
        x = np.where(np.abs(x - bound) < 0.1, bound + 0.2 * np.sign(x - bound + 1e-9), x)
    return lo, x, hi


register("select_n_bool", lax.select_n, _select_n_ref, _select_args(2, np.bool_))
register("select_n_int3", lax.select_n, _select_n_ref, _select_args(3, np.int32))
register("select_n_int5_scalar_which", lax.select_n, _select_n_ref,
         _select_args(5, np.int32, scalar_which=True))
register("select", lax.select, lambda p, t, f: np.where(p, t, f), _select_args(2, np.bool_))
register("clamp", lax.clamp, lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
         operands(FLOAT_DTYPES + INT_DTYPES, (-10, 0), (-10, 10), (0, 10)),
         grad=GradSpec(post=_clamp_post))
register("clamp_scalar_bounds", lax.clamp, lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
         operands(FLOAT_DTYPES + INT_DTYPES, (-10, 0), (-10, 10), (0, 10)).map(
             lambda xs: (xs[0].reshape(-1)[0].reshape(()), xs[1], xs[2].reshape(-1)[0].reshape(()))
         ), grad=GradSpec(post=_clamp_post))

# --- conversions ----------------------------------------------------------------------------------

_ALL = FLOAT_DTYPES + INT_DTYPES + BOOL


def _convert_ref(x, new):
    new = np.dtype(new)
    if new == np.bool_:
        return flush_subnormals(x) != 0  # XLA CPU reads a subnormal input as zero
    if new.kind in "iu" and x.dtype.kind in "fV":
        return _float_to_int(x, new)
    return x.astype(new)


# any source dtype, values beyond the int8/uint8 range so saturation is exercised
_CONVERT_ARGS = st.tuples(st.sampled_from(_ALL), shapes()).flatmap(
    lambda sd: st.tuples(array(sd[1], sd[0], -300, 300))
)


def _bitcast_ref(x, new):
    out = np.ascontiguousarray(x).reshape(-1).view(new)  # NumPy cannot view 0-d across widths
    old_bits, new_bits = _bits(x.dtype), _bits(new)
    if old_bits > new_bits:
        return out.reshape(*x.shape, old_bits // new_bits)
    if old_bits < new_bits:
        return out.reshape(x.shape[:-1])
    return out.reshape(x.shape)


_BITCAST_POOL = [F32, F16, BF16, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32]


def _bitcast_args(new):
    @st.composite
    def strat(draw):
        src = draw(st.sampled_from(_BITCAST_POOL))
        shape = draw(shapes(max_dims=2))
        if _bits(src) < _bits(new):
            shape = (*shape, _bits(new) // _bits(src))
        return (draw(array(shape, src)),)

    # no NaN bit patterns in a float result: the exact eager-vs-jit check compares with
    # assert_array_equal, which does not see bfloat16 NaNs as equal
    return strat().filter(lambda xs: not _has_nan(_bitcast_ref(xs[0], new)))


def _has_nan(x):
    return x.dtype.kind in "fV" and bool(np.isnan(x.astype(np.float32)).any())


def _reduce_to_f16(x):
    """float16 rounding, except that XLA's reduce_precision flushes inputs below float16's
    smallest normal to (signed) zero, even those that would round up to it."""
    flushed = np.abs(x) < np.finfo(F16).tiny
    return np.where(flushed, np.copysign(np.zeros_like(x), x), x.astype(F16).astype(x.dtype))


# linear ops with a float16/bfloat16 result: small values, so the rounding grid (<= 0.03 for
# bfloat16 below 4) stays well under the tolerance of the difference quotient
LOW_PRECISION = GradSpec(domain=(-4, 4), eps=0.5, tol=0.1, order=1)
_CONVERT_GRAD = {
    # float32 round trips are linear up to rounding, so a unit difference step is exact but
    # for that rounding: on values up to 300 (ulp 3e-5) it keeps ~1e-5 accuracy per element
    # (a 1e-2 step let 40 elements of 128 drift by 2e-3 in hypothesis's hands)
    F32: GradSpec(eps=1.0, tol=2e-3),
    F16: LOW_PRECISION,
    BF16: LOW_PRECISION,
}  # integer and boolean results: zero derivative

# one entry per target dtype (the target is static: a parameter, not an operand)
for _new in (F32, F16, BF16, np.int8, np.int32, np.uint8, np.uint32, np.bool_):
    register(f"convert_element_type[{np.dtype(_new).name}]",
             lambda x, new=_new: lax.convert_element_type(x, new),
             lambda x, new=_new: _convert_ref(x, new), _CONVERT_ARGS,
             grad=_CONVERT_GRAD.get(_new, ZERO_DERIVATIVE))
for _new in (F32, BF16, np.int8, np.uint16, np.int32):
    register(f"bitcast_convert_type[{np.dtype(_new).name}]",
             lambda x, new=_new: lax.bitcast_convert_type(x, new),
             lambda x, new=_new: _bitcast_ref(x, new), _bitcast_args(_new), grad=ZERO_DERIVATIVE)

register("reduce_precision_bf16", lambda x: lax.reduce_precision(x, 8, 7),
         lambda x: x.astype(BF16).astype(x.dtype), unary([F32], -1e4, 1e4),
         grad=GradSpec(domain=(-1, 1), eps=0.5, tol=0.1, order=1))
register("reduce_precision_f16", lambda x: lax.reduce_precision(x, 5, 10),
         _reduce_to_f16, unary([F32], -1e4, 1e4),
         grad=GradSpec(domain=(-1, 1), eps=0.5, tol=0.1, order=1))
