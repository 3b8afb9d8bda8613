"""Elementwise functions of ``minijax.numpy`` (NumPy's ufuncs), on top of lax.

Every function checks its arguments, promotes dtypes (JAX's lattice, weak types included) and
broadcasts shapes (NumPy's rules) before binding lax primitives. Functions that only make sense
on inexact values (``sin``, ``true_divide``) turn integers and bools into the default float.

Integer ``floor_divide`` and ``remainder`` follow Python (and NumPy): the quotient rounds toward
minus infinity and the remainder takes the divisor's sign, built from lax's C-style ``div`` and
``rem`` as JAX does.
"""

from __future__ import annotations

import operator

import numpy as np

from minijax import dtypes, lax
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import (
    check_arraylike,
    convert,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
    promote_ranks,
    promote_shapes,
    to_array,
)

# fmt: off
__all__ = [
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "fmod", "divmod", "power", "pow", "float_power", "negative", "positive", "abs", "absolute",
    "fabs", "sign", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "logaddexp",
    "logaddexp2", "sqrt", "cbrt", "square", "reciprocal", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh", "hypot", "deg2rad", "rad2deg",
    "degrees", "radians", "floor", "ceil", "round", "around", "trunc", "fix", "rint", "maximum",
    "minimum", "clip", "where", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert", "invert", "left_shift",
    "right_shift", "bitwise_left_shift", "bitwise_right_shift", "isfinite", "isnan", "isinf",
    "signbit", "real", "imag", "conj", "conjugate", "angle", "iscomplexobj", "isrealobj",
    "astype",
]
# fmt: on

_builtin_abs = abs
_builtin_round = round


def _dtype(x):
    return dtypes.dtype_of(x)[0]


def _zeros_like_bool(x, value):
    """A boolean array of ``x``'s shape filled with ``value`` (classifiers on integers)."""
    x = to_array(x)
    return lax.full_like(x, value, dtypes.bool_)


# ------------------------------------------------------------------------------------------------
# Factories: each ufunc is one line below


def _unary(name, lax_fn_name, inexact=False):
    promote = promote_args_inexact if inexact else promote_args

    def fn(x, /):
        (x,) = promote(name, x)
        return getattr(lax, lax_fn_name)(x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jnp.{name}``: elementwise ``lax.{lax_fn_name}``" + (
        " (integers become the default float)." if inexact else "."
    )
    return eager_jit(fn)


def _binary(name, lax_fn_name, inexact=False, bool_fn_name=None):
    promote = promote_dtypes_inexact if inexact else promote_dtypes

    def fn(x1, x2, /):
        check_arraylike(name, x1, x2)
        x1, x2 = promote_ranks(*promote(x1, x2), name=name)  # lax broadcasts size-1 axes
        if bool_fn_name is not None and _dtype(x1) == dtypes.bool_:
            return getattr(lax, bool_fn_name)(x1, x2)
        return getattr(lax, lax_fn_name)(x1, x2)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jnp.{name}``: ``lax.{lax_fn_name}`` after NumPy broadcasting and promotion."
    return eager_jit(fn)


# ------------------------------------------------------------------------------------------------
# Arithmetic

add = _binary("add", "add", bool_fn_name="bitwise_or")  # True + True is True, as NumPy
subtract = _binary("subtract", "sub")
multiply = _binary("multiply", "mul", bool_fn_name="bitwise_and")
true_divide = _binary("true_divide", "div", inexact=True)
divide = true_divide
maximum = _binary("maximum", "max")
minimum = _binary("minimum", "min")
arctan2 = _binary("arctan2", "atan2", inexact=True)
atan2 = arctan2


@eager_jit
def floor_divide(x1, x2, /):
    """Division rounded toward minus infinity (``-7 // 2 == -4``), NumPy's ``//``."""
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    dtype = _dtype(x1)
    if dtype.kind == "u":
        return lax.div(x1, x2)
    if dtype.kind == "i":
        quotient = lax.div(x1, x2)
        # C division truncates; step down where the signs differ and something was cut off.
        signs_differ = lax.ne(lax.sign(x1), lax.sign(x2))
        inexact = lax.ne(lax.rem(x1, x2), _zero_like(x1))
        return lax.select(lax.bitwise_and(signs_differ, inexact), lax.sub(quotient, 1), quotient)
    if dtype.kind == "c":
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


def _zero_like(x):
    """A weakly typed scalar 0 of ``x``'s dtype: lax broadcasts rank-0 operands itself."""
    return convert(0, _dtype(x), True)


def _float_divmod(x1, x2):
    """NumPy's float divmod: ``mod`` has the divisor's sign; ``div`` is the rounded quotient."""
    mod = lax.rem(x1, x2)
    div = lax.div(lax.sub(x1, mod), x2)
    mod_nonzero = lax.ne(mod, _zero_like(mod))
    signs_differ = lax.ne(lax.sign(x2), lax.sign(mod))
    ind = lax.bitwise_and(mod_nonzero, signs_differ)
    mod = lax.select(ind, lax.add(mod, x2), mod)
    div = lax.select(ind, lax.sub(div, 1.0), div)
    return lax.round(div), mod


@eager_jit
def remainder(x1, x2, /):
    """Remainder with the sign of the divisor (Python's ``%``)."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    if _dtype(x1).kind == "c":
        raise TypeError("remainder does not support complex-valued inputs")
    trunc_mod = lax.rem(x1, x2)
    if _dtype(x1).kind == "u":
        return trunc_mod
    zero = _zero_like(trunc_mod)
    nonzero = lax.ne(trunc_mod, zero)
    signs_differ = lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, _zero_like(x2)))
    do_plus = lax.bitwise_and(signs_differ, nonzero)
    return lax.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


mod = remainder


@eager_jit
def fmod(x1, x2, /):
    """Remainder with the sign of the dividend (C's ``fmod``)."""
    x1, x2 = promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, x2)


@eager_jit
def divmod(x1, x2, /):  # noqa: A001 - NumPy's name
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if _dtype(x1).kind in "iu":
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


def power(x1, x2, /):
    """``x1 ** x2``. A static integer exponent multiplies (``lax.integer_pow``), as in JAX;
    integer arrays use binary exponentiation; everything else is ``lax.pow``."""
    check_arraylike("power", x1, x2)
    try:
        exponent = operator.index(x2)
    except TypeError:
        return _power(x1, x2)
    return _static_integer_power(x1, exponent)


@eager_jit(static_argnames=("exponent",))
def _static_integer_power(x1, exponent):
    (x1,) = promote_dtypes_numeric(x1)
    return lax.integer_pow(to_array(x1), exponent)


@eager_jit
def _power(x1, x2):
    x1, x2 = promote_args_numeric("power", x1, x2)
    if _dtype(x1).kind not in "iu":
        return lax.pow(x1, x2)
    return _integer_power(to_array(x1), to_array(x2))


def _integer_power(x1, x2):
    """Binary exponentiation over the bits of an integer exponent array (no loop primitive:
    one step per bit, like JAX). A negative exponent is an error in NumPy; here its bits are
    used as unsigned, as JAX does."""
    x1, x2 = promote_shapes(x1, x2)
    dtype = _dtype(x1)
    acc = lax.full_like(x1, 1)
    for _ in range(8 * dtype.itemsize):
        odd = lax.ne(lax.bitwise_and(x2, 1), 0)
        acc = lax.select(odd, lax.mul(acc, x1), acc)
        x2 = lax.shift_right_logical(x2, 1)
        x1 = lax.mul(x1, x1)
    return acc


pow = power  # noqa: A001 - NumPy 2's name


@eager_jit
def float_power(x1, x2, /):
    x1, x2 = promote_args_inexact("float_power", x1, x2)
    return lax.pow(x1, x2)


@eager_jit
def negative(x, /):
    (x,) = promote_args("negative", x)
    return lax.neg(x)


def positive(x, /):
    check_arraylike("positive", x)
    return to_array(x)


@eager_jit
def abs(x, /):  # noqa: A001 - NumPy's name
    """Absolute value; unsigned and bool values are returned as they are (complex → real)."""
    (x,) = promote_args("abs", x)
    if _dtype(x).kind in "ub":
        return to_array(x)
    return lax.abs(x)


absolute = abs


@eager_jit
def fabs(x, /):
    (x,) = promote_args_inexact("fabs", x)
    if _dtype(x).kind == "c":
        raise TypeError("fabs does not support complex-valued inputs")
    return lax.abs(x)


@eager_jit
def sign(x, /):
    (x,) = promote_args("sign", x)
    return lax.sign(x)


@eager_jit
def square(x, /):
    (x,) = promote_args_numeric("square", x)
    return lax.square(x)


@eager_jit
def reciprocal(x, /):
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


# ------------------------------------------------------------------------------------------------
# Transcendental functions

exp = _unary("exp", "exp", inexact=True)
exp2 = _unary("exp2", "exp2", inexact=True)
log = _unary("log", "log", inexact=True)
log1p = _unary("log1p", "log1p", inexact=True)
expm1 = _unary("expm1", "expm1", inexact=True)
sqrt = _unary("sqrt", "sqrt", inexact=True)
cbrt = _unary("cbrt", "cbrt", inexact=True)
sin = _unary("sin", "sin", inexact=True)
cos = _unary("cos", "cos", inexact=True)
tan = _unary("tan", "tan", inexact=True)
arcsin = asin = _unary("arcsin", "asin", inexact=True)
arccos = acos = _unary("arccos", "acos", inexact=True)
arctan = atan = _unary("arctan", "atan", inexact=True)
sinh = _unary("sinh", "sinh", inexact=True)
cosh = _unary("cosh", "cosh", inexact=True)
tanh = _unary("tanh", "tanh", inexact=True)
arcsinh = asinh = _unary("arcsinh", "asinh", inexact=True)
arccosh = acosh = _unary("arccosh", "acosh", inexact=True)
arctanh = atanh = _unary("arctanh", "atanh", inexact=True)


def _log_base(name, base):
    def fn(x, /):
        (x,) = promote_args_inexact(name, x)
        return lax.div(lax.log(x), lax.log(convert(base, _dtype(x), True)))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jnp.{name}``: ``log(x) / log({base})``."
    return eager_jit(fn)


log2 = _log_base("log2", 2.0)
log10 = _log_base("log10", 10.0)


@eager_jit
def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` without overflow: ``max + log1p(exp(-|x1 - x2|))``.

    Its derivative is a custom JVP (as in JAX), ``t1 * exp(x1 - out) + t2 * exp(x2 - out)``:
    differentiating the stable formula through ``max`` and ``abs`` would give the wrong
    derivative at a tie ``x1 == x2`` (0 and 1 instead of 1/2 each, so ``grad(softplus)(0.)``
    would be 0).
    """
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)
    if dtypes.is_complex(x1.aval.dtype):
        return _logaddexp_complex(x1, x2)
    return _logaddexp(x1, x2)


def _logaddexp_complex(x1, x2):
    """``big + log1p(exp(small - big))`` with ``big`` the operand of larger real part (the
    magnitude of ``exp``): complex inputs as in JAX (NumPy's ufunc has no complex loop)."""
    first = lax.ge(lax.real(x1), lax.real(x2))
    big, small = lax.select(first, x1, x2), lax.select(first, x2, x1)
    return lax.add(big, lax.log1p(lax.exp(lax.sub(small, big))))


def _logaddexp_primal(x1, x2):
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    # delta is NaN for NaN inputs and for two infinities of one sign: x1 + x2 is right then.
    return lax.select(
        lax.ne(delta, delta),
        lax.add(x1, x2),
        lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))),
    )


def _replace_posinf(x):
    """``x`` with ``+inf`` replaced by 0: ``exp(inf - inf)`` would be NaN where it should be 1."""
    return lax.select(lax.eq(x, np.inf), lax.full_like(x, 0), x)


def _logaddexp_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = _logaddexp(x1, x2)
    out_safe = _replace_posinf(out)
    return out, lax.add(
        lax.mul(t1, lax.exp(lax.sub(_replace_posinf(x1), out_safe))),
        lax.mul(t2, lax.exp(lax.sub(_replace_posinf(x2), out_safe))),
    )


def _make_logaddexp():
    from minijax.custom_derivatives import custom_jvp

    fn = custom_jvp(_logaddexp_primal)
    fn.defjvp(_logaddexp_jvp)
    return fn


_logaddexp = _make_logaddexp()


@eager_jit
def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` without overflow."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    ln2 = convert(np.log(2.0), _dtype(x1), True)
    return lax.div(logaddexp(lax.mul(x1, ln2), lax.mul(x2, ln2)), ln2)


@eager_jit
def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)`` scaled by the larger magnitude, so squares cannot overflow."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    x1, x2 = lax.abs(x1), lax.abs(x2)
    big, small = lax.max(x1, x2), lax.min(x1, x2)
    safe_big = lax.select(lax.eq(big, _zero_like(big)), lax.full_like(to_array(big), 1), big)
    ratio = lax.div(small, safe_big)
    return lax.select(
        lax.eq(big, _zero_like(big)), big, lax.mul(big, lax.sqrt(lax.add(1.0, lax.square(ratio))))
    )


@eager_jit
def deg2rad(x, /):
    (x,) = promote_args_inexact("deg2rad", x)
    return lax.mul(x, np.pi / 180)


@eager_jit
def rad2deg(x, /):
    (x,) = promote_args_inexact("rad2deg", x)
    return lax.mul(x, 180 / np.pi)


radians, degrees = deg2rad, rad2deg

# ------------------------------------------------------------------------------------------------
# Rounding


def _integer_or_bool(x):
    return _dtype(x).kind in "iub"


@eager_jit
def floor(x, /):
    (x,) = promote_args("floor", x)
    return to_array(x) if _integer_or_bool(x) else lax.floor(x)


@eager_jit
def ceil(x, /):
    (x,) = promote_args("ceil", x)
    return to_array(x) if _integer_or_bool(x) else lax.ceil(x)


@eager_jit
def trunc(x, /):
    """Round toward zero."""
    (x,) = promote_args("trunc", x)
    if _integer_or_bool(x):
        return to_array(x)
    return lax.select(lax.lt(x, _zero_like(x)), lax.ceil(x), lax.floor(x))


fix = trunc


@eager_jit(static_argnames=("decimals",))
def round(a, decimals=0, out=None):  # noqa: A001 - NumPy's name
    """Round half to even (NumPy's rule), to ``decimals`` places (negative: tens, hundreds)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    check_arraylike("round", a)
    decimals = operator.index(decimals)
    (a,) = promote_args("round", a)
    dtype = _dtype(a)
    if dtype.kind in "iub":
        if decimals >= 0:
            return to_array(a)
        # Integers with negative decimals: round in float, as JAX does, then back.
        return convert(_round_float(convert(a, dtypes.default_float_dtype()), decimals), dtype)
    if decimals > np.log10(dtypes.finfo(dtype).max):
        return to_array(a)  # beyond the dtype's precision: a no-op (10**decimals overflows)
    if dtype.kind == "c":
        return lax.complex(_round_float(lax.real(a), decimals), _round_float(lax.imag(a), decimals))
    return _round_float(a, decimals)


def _round_float(x, decimals):
    even = lax.RoundingMethod.TO_NEAREST_EVEN
    if decimals == 0:
        return lax.round(x, even)
    # float16 is scaled in float32, as JAX does: 65504 * 10 would overflow to inf.
    dtype = _dtype(x)
    if dtype == np.float16:
        x = convert(x, np.float32)
    factor = convert(10.0**decimals, _dtype(x), True)
    out = lax.div(lax.round(lax.mul(x, factor), even), factor)
    return convert(out, dtype) if dtype == np.float16 else out


around = round


@eager_jit
def rint(x, /):
    (x,) = promote_args_inexact("rint", x)
    return round(x)


@eager_jit
def clip(arr=None, /, min=None, max=None, *, a=None, a_min=None, a_max=None):  # noqa: A002
    """``arr`` limited to ``[min, max]`` (either may be None). ``a``/``a_min``/``a_max`` are the
    older spellings JAX still accepts."""
    if arr is None:
        if a is None:
            raise TypeError("clip() missing required argument 'arr'")
        arr = a
    elif a is not None:
        raise TypeError("clip() got both 'arr' and its deprecated spelling 'a'")
    if a_min is not None:
        if min is not None:
            raise TypeError("clip() got both 'min' and 'a_min'")
        min = a_min  # noqa: A001
    if a_max is not None:
        if max is not None:
            raise TypeError("clip() got both 'max' and 'a_max'")
        max = a_max  # noqa: A001
    check_arraylike("clip", arr)
    if _dtype(arr).kind == "c":
        raise ValueError("Clip received a complex value either through the input or the min/max "
                         "keywords. Complex values have no ordering and cannot be clipped.")
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return to_array(arr)


# ------------------------------------------------------------------------------------------------
# Selection and comparison


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` else ``y``, broadcast together. The one-argument form is
    ``nonzero``."""
    if x is None and y is None:
        from minijax.numpy.arrayops import nonzero

        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jnp.where, got one.")
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value are only allowed in the one-argument form of where")
    return _where(condition, x, y)


@eager_jit
def _where(condition, x, y):
    check_arraylike("where", condition, x, y)
    condition = convert(condition, dtypes.bool_)
    x, y = _promote_dtypes2(x, y)
    condition, x, y = _broadcast_all(condition, x, y)
    return lax.select(condition, x, y)


def _promote_dtypes2(x, y):
    from minijax.numpy._util import promote_dtypes

    return promote_dtypes(x, y)


def _broadcast_all(*args):
    """Broadcast to the common shape; select_n wants its cases (not its predicate) full-size."""
    from minijax.numpy._util import broadcast_shapes, broadcast_to_shape, shape

    out_shape = broadcast_shapes(*[shape(a) for a in args])
    return [broadcast_to_shape(a, out_shape) if i or shape(a) else a for i, a in enumerate(args)]


equal = _binary("equal", "eq")
not_equal = _binary("not_equal", "ne")
def _ordering(name, lax_fn_name):
    """``jnp.less`` & co.: complex numbers order lexicographically (real part, then imaginary)
    here, as in JAX (``lax``'s comparisons refuse complex, as JAX's do)."""
    compare = getattr(lax, lax_fn_name)

    def fn(x1, x2, /):
        check_arraylike(name, x1, x2)
        x1, x2 = promote_ranks(*promote_dtypes(x1, x2), name=name)
        if dtypes.is_complex(_dtype(x1)):
            return lax.select(lax.eq(lax.real(x1), lax.real(x2)),
                              compare(lax.imag(x1), lax.imag(x2)),
                              compare(lax.real(x1), lax.real(x2)))
        return compare(x1, x2)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _ordering.__doc__.replace("``jnp.less`` & co.", f"``jnp.{name}``")
    return eager_jit(fn)


less = _ordering("less", "lt")
less_equal = _ordering("less_equal", "le")
greater = _ordering("greater", "gt")
greater_equal = _ordering("greater_equal", "ge")

# ------------------------------------------------------------------------------------------------
# Logical and bitwise


def _to_bool(name, *args):
    check_arraylike(name, *args)
    return promote_shapes(*[convert(a, dtypes.bool_) for a in args], name=name)


@eager_jit
def logical_and(x1, x2, /):
    return lax.bitwise_and(*_to_bool("logical_and", x1, x2))


@eager_jit
def logical_or(x1, x2, /):
    return lax.bitwise_or(*_to_bool("logical_or", x1, x2))


@eager_jit
def logical_xor(x1, x2, /):
    return lax.bitwise_xor(*_to_bool("logical_xor", x1, x2))


@eager_jit
def logical_not(x, /):
    return lax.bitwise_not(*_to_bool("logical_not", x))


bitwise_and = _binary("bitwise_and", "bitwise_and")
bitwise_or = _binary("bitwise_or", "bitwise_or")
bitwise_xor = _binary("bitwise_xor", "bitwise_xor")
bitwise_not = _unary("bitwise_not", "bitwise_not")
invert = bitwise_invert = bitwise_not
left_shift = _binary("left_shift", "shift_left")
bitwise_left_shift = left_shift


@eager_jit
def right_shift(x1, x2, /):
    """Arithmetic shift for signed integers (sign fill), logical for unsigned ones."""
    x1, x2 = promote_args("right_shift", x1, x2)
    if _dtype(x1).kind == "u":
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


bitwise_right_shift = right_shift

# ------------------------------------------------------------------------------------------------
# Classification


@eager_jit
def isfinite(x, /):
    (x,) = promote_args("isfinite", x)
    dtype = _dtype(x)
    if dtype.kind == "c":
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    if dtypes.is_float(dtype):
        return lax.is_finite(x)
    return _zeros_like_bool(x, True)


@eager_jit
def isinf(x, /):
    (x,) = promote_args("isinf", x)
    dtype = _dtype(x)
    if dtype.kind == "c":
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    if dtypes.is_float(dtype):
        return lax.eq(lax.abs(x), convert(np.inf, dtype, True))
    return _zeros_like_bool(x, False)


@eager_jit
def isnan(x, /):
    (x,) = promote_args("isnan", x)
    if dtypes.is_inexact(_dtype(x)):
        return lax.ne(x, x)
    return _zeros_like_bool(x, False)


@eager_jit
def signbit(x, /):
    """True where the sign bit is set (``-0.0`` included)."""
    (x,) = promote_args("signbit", x)
    dtype = _dtype(x)
    if dtype.kind == "i":
        return lax.lt(x, _zero_like(x))
    if dtype.kind in "ub":
        return _zeros_like_bool(x, False)
    if dtype.kind == "c":
        raise ValueError("signbit is not defined for complex-valued inputs")
    int_type = np.dtype(f"int{8 * dtype.itemsize}")
    bits = lax.bitcast_convert_type(to_array(x), int_type)
    return lax.lt(bits, 0)


# ------------------------------------------------------------------------------------------------
# Complex parts


@eager_jit
def real(val, /):
    (val,) = promote_args("real", val)
    return lax.real(val) if _dtype(val).kind == "c" else to_array(val)


@eager_jit
def imag(val, /):
    (val,) = promote_args("imag", val)
    if _dtype(val).kind == "c":
        return lax.imag(val)
    return lax.full_like(to_array(val), 0)


@eager_jit
def conjugate(x, /):
    (x,) = promote_args("conjugate", x)
    return lax.conj(x) if _dtype(x).kind == "c" else to_array(x)


conj = conjugate


def angle(z, deg=False):
    (z,) = promote_args_inexact("angle", z)
    if _dtype(z).kind == "c":
        out = lax.atan2(lax.imag(z), lax.real(z))
    else:
        out = lax.atan2(_zero_like(z), z)
    return rad2deg(out) if deg else out


def iscomplexobj(x):
    return _dtype(x).kind == "c"


def isrealobj(x):
    return not iscomplexobj(x)


def astype(x, dtype, /, *, copy=False, device=None):
    """``x`` converted to ``dtype`` (canonicalized: float64 is float32 unless x64 is on)."""
    check_arraylike("astype", x)
    return to_array(convert(to_array(x), dtype))
