"""NumPy's mathematical functions: the arithmetic, exponential, trigonometric, rounding and
complex-number ufuncs, and the other mathematical functions (``diff``, ``gradient``, ``cross``,
``trapezoid``, ``interp``, ``gcd``, ``frexp``, ``copysign``, ``nextafter``, ``fmax``, ``sinc``,
``i0``, ``nan_to_num`` ...). Sums and products are reductions (reductions.py); comparisons and
logical ufuncs are in logic.py, bitwise ones in bitwise.py.

Every ufunc checks its arguments, promotes dtypes (JAX's lattice, weak types included) and
broadcasts shapes (NumPy's rules) before binding lax primitives. Functions that only make sense
on inexact values (``sin``, ``true_divide``) turn integers and bools into the default float.

Integer ``floor_divide`` and ``remainder`` follow Python (and NumPy): the quotient rounds toward
minus infinity and the remainder takes the divisor's sign, built from lax's C-style ``div`` and
``rem`` as JAX does.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.autodiff import jvp
from minijax.core import Tracer
from minijax.custom_derivatives import custom_jvp
from minijax.lax import cumulative as lax_cumulative
from minijax.lax.families import const
from minijax.lax.control_flow.common import vary_like
from minijax.numpy._eager import eager_jit
from minijax.numpy._ufuncs import _binary, _dtype, _unary, _zero_like, _zeros_like_bool
from minijax.numpy._util import (
    canonicalize_axis,
    check_arraylike,
    convert,
    lax_const,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
    promote_shapes,
    to_inexact_dtype,
)
from minijax.numpy.creation import to_array

# fmt: off
__all__ = [
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "fmod", "divmod", "power", "pow", "float_power", "negative", "positive", "abs", "absolute",
    "fabs", "sign", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "logaddexp",
    "logaddexp2", "sqrt", "cbrt", "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "asin", "acos",
    "atan", "atan2", "asinh", "acosh", "atanh", "hypot", "deg2rad", "rad2deg", "degrees",
    "radians", "floor", "ceil", "round", "around", "trunc", "rint", "maximum", "minimum",
    "clip", "signbit", "real", "imag", "conj", "conjugate", "angle", "diff", "ediff1d", "gradient",
    "cross", "trapezoid", "interp", "gcd", "lcm", "frexp", "ldexp", "modf", "heaviside", "sinc",
    "i0", "nan_to_num", "copysign", "nextafter", "fmax", "fmin", "real_if_close", "spacing",
    "unwrap",
]
# fmt: on

# ------------------------------------------------------------------------------------------------
# Arithmetic (the factories of _ufuncs.py make most ufuncs in one line)

add = _binary("add", "add", bool_fn_name="bitwise_or")  # True + True is True, as NumPy
subtract = _binary("subtract", "sub")
multiply = _binary("multiply", "mul", bool_fn_name="bitwise_and")
true_divide = _binary("true_divide", "div", inexact=True)
divide = true_divide
maximum = _binary("maximum", "max")
minimum = _binary("minimum", "min")
arctan2 = _binary("arctan2", "atan2", inexact=True)
atan2 = arctan2


@eager_jit(inline=False)
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
        rounded_down = lax.sub(quotient, const(quotient, 1))
        return jnp.where(lax.bitwise_and(signs_differ, inexact), rounded_down, quotient)
    if dtype.kind == "c":
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


def _float_divmod(x1, x2):
    """NumPy's float divmod: ``mod`` has the divisor's sign; ``div`` is the rounded quotient."""
    mod = lax.rem(x1, x2)
    # Dividing x1 itself by a zero divisor keeps the sign of the infinity (NaN is 0 / 0 only).
    corrected = jnp.where(lax.eq(x2, _zero_like(x2)), x1, lax.sub(x1, mod))
    div = lax.div(corrected, x2)
    mod_nonzero = lax.ne(mod, _zero_like(mod))
    signs_differ = lax.ne(lax.sign(x2), lax.sign(mod))
    ind = lax.bitwise_and(mod_nonzero, signs_differ)
    mod = lax.select(ind, lax.add(mod, x2), mod)
    div = lax.select(ind, lax.sub(div, const(div, 1)), div)
    return lax.round(div), mod


@eager_jit(inline=False)
def remainder(x1, x2, /):
    """Remainder with the sign of the divisor (Python's ``%``)."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    # complex operands: lax.rem's dtype error, as JAX
    if _dtype(x2).kind in "iu":  # JAX: an integer x % 0 is 0 (XLA's rem would give x)
        x2 = jnp.where(lax.eq(x2, _zero_like(x2)), lax.full_like(x2, 1), x2)
    trunc_mod = lax.rem(x1, x2)
    if _dtype(x1).kind == "u":
        return trunc_mod
    zero = _zero_like(trunc_mod)
    nonzero = lax.ne(trunc_mod, zero)
    signs_differ = lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, _zero_like(x2)))
    do_plus = lax.bitwise_and(signs_differ, nonzero)
    return lax.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


mod = remainder


@eager_jit(inline=False)
def fmod(x1, x2, /):
    """Remainder with the sign of the dividend (C's ``fmod``)."""
    check_arraylike("fmod", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)
    if np.issubdtype(dtypes.result_type(x1, x2), np.integer):
        # JAX: an integer fmod(x, 0) is 0 (XLA's rem would give x); the divisor is replaced
        # before promotion, as JAX's
        x2 = jnp.where(x2 == 0, lax.full_like(x2, 1), x2)
    x1, x2 = promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, x2)


@eager_jit(inline=False)
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


@eager_jit(static_argnames=("exponent",), fused_under_transforms=False)
def _static_integer_power(x1, exponent):
    (x1,) = promote_dtypes_numeric(x1)
    return lax.integer_pow(to_array(x1), exponent)


@eager_jit
def _power(x1, x2):
    # an inexact base with an integer exponent keeps the exponent's dtype (JAX's "Case 3"): the
    # result is strong, and pow's JVP in x is exactly 0 where the exponent is 0
    if dtypes.is_inexact(_dtype(x1)) and _dtype(x2).kind in "iu":
        return lax.pow(*promote_shapes(to_array(x1), to_array(x2), name="power"))
    x1, x2 = promote_args_numeric("power", x1, x2)
    if _dtype(x1).kind not in "iu":
        return lax.pow(x1, x2)
    return _integer_power(to_array(x1), to_array(x2))


def _integer_power(x1, x2):
    """Binary exponentiation over the low 6 bits of an integer exponent array, as JAX's
    ``_pow_int_int`` (a larger power overflows for any base > 1; a negative exponent, an
    error in NumPy, gives JAX's wrapped value), started at 0 for ``0 ** (x2 != 0)``."""
    x1, x2 = promote_shapes(x1, x2)
    dtype = _dtype(x1)
    # the result's shape: a rank-0 base with an array exponent takes the exponent's
    shape = np.broadcast_shapes(np.shape(x1), np.shape(x2))
    x1, x2 = (lax.broadcast_in_dim(x, shape, ()) if np.shape(x) != shape else x
              for x in (x1, x2))
    zero_base = lax.bitwise_and(lax.eq(x1, const(x1, 0)), lax.ne(x2, const(x2, 0)))
    # jnp.where, as JAX's _where (its jit equations)
    acc = jnp.where(zero_base, lax.full(shape, 0, dtype), lax.full(shape, 1, dtype))
    for _ in range(6):
        odd = lax.ne(lax.bitwise_and(x2, const(x2, 1)), const(x2, 0))
        acc = jnp.where(odd, lax.mul(acc, x1), acc)
        x2 = lax.shift_right_logical(x2, const(x2, 1))
        x1 = lax.mul(x1, x1)
    return acc


pow = power  # noqa: A001 - NumPy 2's name


@eager_jit
def float_power(x, y, /):
    x, y = promote_args_inexact("float_power", x, y)
    return lax.pow(x, y)


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
        raise TypeError("ufunc 'fabs' does not support complex dtypes")  # JAX's words
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


@eager_jit(inline=False)
def arccosh(x, /):
    """``lax.acosh``; a complex result takes NumPy's branch (nonnegative real part), as JAX."""
    (x,) = promote_args_inexact("arccosh", x)
    result = lax.acosh(x)
    if _dtype(result).kind == "c":
        result = jnp.where(lax.lt(lax.real(result), _zero_like(lax.real(result))),
                           lax.neg(result), result)
    return result


acosh = arccosh
arctanh = atanh = _unary("arctanh", "atanh", inexact=True)


@eager_jit
def log2(x, /):
    """``log(x) / log(2)``; complex: each part divided by the real ln 2, as JAX (a complex
    divisor would turn ``log(-inf)``'s imaginary pi into NaN)."""
    (x,) = promote_args_inexact("log2", x)
    r = lax.log(x)
    if _dtype(x).kind == "c":
        re, im = lax.real(r), lax.imag(r)
        ln2 = lax.log(convert(2.0, _dtype(re)))
        return lax.complex(lax.div(re, ln2), lax.div(im, ln2))
    return lax.div(r, lax.log(convert(2.0, _dtype(x))))


@eager_jit
def log10(x, /):
    """``log(x)`` times 1/ln 10 as a strong constant (JAX's formula: ``log10(10)`` is exactly 1,
    which ``log(x) / log(10)`` misses by an ulp in float32); complex: each part scaled."""
    (x,) = promote_args_inexact("log10", x)
    one_over_log10 = np.array(0.4342944819032518, dtypes.finfo(_dtype(x)).dtype)
    r = lax.log(x)
    if _dtype(x).kind == "c":
        return lax.complex(lax.mul(lax.real(r), one_over_log10),
                           lax.mul(lax.imag(r), one_over_log10))
    return lax.mul(r, one_over_log10)


@eager_jit
def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` without overflow: ``max + log1p(exp(-|x1 - x2|))``.

    Its derivative is a custom JVP (as in JAX), ``t1 * exp(x1 - out) + t2 * exp(x2 - out)``:
    differentiating the stable formula through ``max`` and ``abs`` would give the wrong
    derivative at a tie ``x1 == x2`` (0 and 1 instead of 1/2 each, so ``grad(softplus)(0.)``
    would be 0).
    """
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return _logaddexp(to_array(x1), to_array(x2))


@eager_jit
def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` without overflow: ``max + log1p(2**-|x1 - x2|) / ln 2``, with
    the custom JVP ``t1 * 2**(x1 - out) + t2 * 2**(x2 - out)``."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    return _logaddexp2(to_array(x1), to_array(x2))


def _wrap_between(x, a):
    """``x`` wrapped into ``[-a, a)``: the phase of a complex logarithm."""
    a, two_a = lax_const(x, a), lax_const(x, 2 * a)
    r = lax.rem(lax.add(x, a), two_a)
    r = lax.select(lax.lt(r, lax_const(x, 0)), lax.add(r, two_a), r)
    return lax.sub(r, a)


def _logaddexp_primal(x1, x2, base2=False):
    """JAX's formulas, so values round as JAX's do."""
    amax = lax.max(x1, x2)
    dt = _dtype(x1)
    exp = lax.exp2 if base2 else lax.exp

    def log_of_1p(y):
        out = lax.log1p(y)
        return lax.mul(lax_const(amax, 1 / np.log(2)), out) if base2 else out

    if dtypes.is_complex(dt):
        # ``amax`` (lax.max orders complex numbers lexicographically) plus
        # ``log1p(exp(x1 + x2 - 2 amax))``, the phase wrapped into [-pi, pi).
        delta = lax.sub(lax.add(x1, x2), lax.mul(amax, lax_const(amax, 2)))
        out = lax.add(amax, log_of_1p(exp(delta)))
        bound = np.pi / np.log(2) if base2 else np.pi
        return lax.complex(lax.real(out), _wrap_between(lax.imag(out), bound))
    delta = lax.sub(x1, x2)
    # delta is NaN for NaN inputs and for two infinities of one sign: x1 + x2 is right then.
    return lax.select(
        lax.ne(delta, delta),
        lax.add(x1, x2),
        lax.add(amax, log_of_1p(exp(lax.neg(lax.abs(delta))))),
    )


def _replace_posinf(x):
    """``x`` with ``+inf`` (in the real part) replaced by 0: ``exp(inf - inf)`` would be NaN
    where it should be 1."""
    re = lax.real(x) if dtypes.is_complex(_dtype(x)) else x
    return lax.select(lax.eq(re, const(re, np.inf)), lax.full_like(x, 0), x)


def _make_logaddexp(base2):
    exp = lax.exp2 if base2 else lax.exp
    # JAX's names, which its jaxprs print: custom_jvp_call[name=logaddexp jvp=_logaddexp_jvp]
    name = "logaddexp2" if base2 else "logaddexp"

    def fn(x1, x2):
        return _logaddexp_primal(x1, x2, base2)

    fn.__name__ = fn.__qualname__ = name
    fn = custom_jvp(fn)

    def _jvp(primals, tangents):
        x1, x2 = primals
        t1, t2 = tangents
        out = fn(x1, x2)
        # each term replaces inf in its operand, then in ``out`` again (JAX's equations, in
        # its order)
        return out, lax.add(
            lax.mul(t1, exp(lax.sub(_replace_posinf(x1), _replace_posinf(out)))),
            lax.mul(t2, exp(lax.sub(_replace_posinf(x2), _replace_posinf(out)))),
        )

    _jvp.__name__ = _jvp.__qualname__ = f"_{name}_jvp"
    fn.defjvp(_jvp)
    return fn


_logaddexp = _make_logaddexp(base2=False)
_logaddexp2 = _make_logaddexp(base2=True)
lax_cumulative.LOGADDEXP.append(_logaddexp)  # cumlogsumexp's JVP scans with it, as JAX's


@eager_jit(inline=False)
def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)`` scaled by the larger magnitude, so squares cannot overflow."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if _dtype(x1).kind == "c":
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. "
                         "Please convert to real values first, such as by using abs(x)")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    # An infinite leg wins over a NaN one (C's hypot(inf, nan) is inf).
    inf = convert(np.inf, _dtype(x1), True)
    any_inf = lax.bitwise_or(lax.eq(x1, inf), lax.eq(x2, inf))
    big, small = lax.max(x1, x2), lax.min(x1, x2)
    safe_big = jnp.where(lax.eq(big, _zero_like(big)), lax.full_like(to_array(big), 1), big)
    ratio = lax.div(small, safe_big)
    out = jnp.where(
        lax.eq(big, _zero_like(big)), big,
        lax.mul(big, lax.sqrt(lax.add(const(ratio, 1), lax.square(ratio)))),
    )
    return jnp.where(any_inf, lax_const(out, np.inf), out)


@eager_jit
def deg2rad(x, /):
    (x,) = promote_args_inexact("deg2rad", x)
    return lax.mul(x, lax_const(x, np.pi / 180))


@eager_jit
def rad2deg(x, /):
    (x,) = promote_args_inexact("rad2deg", x)
    return lax.mul(x, lax_const(x, 180 / np.pi))


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


@eager_jit(inline=False)
def trunc(x, /):
    """Round toward zero."""
    (x,) = promote_args("trunc", x)
    if _integer_or_bool(x):
        return to_array(x)
    return jnp.where(lax.lt(x, _zero_like(x)), lax.ceil(x), lax.floor(x))


@eager_jit(static_argnames=("decimals",), inline=False)
def round(a, decimals=0, out=None):  # noqa: A001 - NumPy's name
    """Round half to even (NumPy's rule), to ``decimals`` places (negative: tens, hundreds)."""
    if out is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    check_arraylike("round", a)
    decimals = operator.index(decimals)
    (a,) = promote_args("round", a)
    dtype = _dtype(a)
    if dtype.kind in "iu":
        if decimals < 0:
            # JAX 0.10.2 refuses this case with the same NotImplementedError.
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return to_array(a)
    # bool is neither: finfo raises JAX's ValueError ("data type <class 'numpy.bool'> not
    # inexact").
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
    factor = lax_const(x, 10.0**decimals)
    out = lax.div(lax.round(lax.mul(x, factor), even), factor)
    return convert(out, dtype) if dtype == np.float16 else out


@eager_jit(static_argnames=("decimals",), inline=False)
def around(a, decimals=0, out=None):
    """``round``, as its own jit (JAX's ``around`` is one, calling ``round``)."""
    return round(a, decimals, out)


@eager_jit(inline=False)
def rint(x, /):
    """Integers and bools convert to the default float (strong: an explicit conversion)."""
    check_arraylike("rint", x)
    x = to_array(x)
    if _dtype(x).kind in "biu":
        return convert(x, dtypes.default_float_dtype())
    if _dtype(x).kind == "c":
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


@eager_jit(inline=False)
def clip(arr=None, /, min=None, max=None):  # noqa: A002
    """``arr`` limited to ``[min, max]`` (either may be None). JAX 0.10.2 has dropped the older
    ``a``/``a_min``/``a_max`` spellings."""
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    if any(t is not None and _dtype(t).kind == "c" for t in (arr, min, max)):
        raise ValueError("Clip received a complex value either through the input or the min/max "
                         "keywords. Complex values have no ordering and cannot be clipped. "
                         "Please convert to a real value or array by taking the real or "
                         "imaginary components via jax.numpy.real/imag respectively.")
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return to_array(arr)


# ------------------------------------------------------------------------------------------------
# Floating-point classification


@eager_jit(inline=False)
def signbit(x, /):
    """True where the sign bit is set (``-0.0`` included)."""
    (x,) = promote_args("signbit", x)
    dtype = _dtype(x)
    if dtype.kind in "iu":
        # unsigned too, as JAX: ``x < 0`` (always False) keeps the result x's sharding
        return lax.lt(x, convert(0, dtype))
    if dtype.kind == "b":
        return _zeros_like_bool(x, False)
    if dtype.kind == "c":
        raise ValueError(f"jax.numpy.signbit is not well defined for {dtype}")  # JAX's words
    int_type = np.dtype(f"int{8 * dtype.itemsize}")
    bits = lax.bitcast_convert_type(to_array(x), int_type)
    # JAX's form, so the printed jaxpr is the same: the sign bit shifted down, then to bool
    return lax.convert_element_type(bits >> (8 * dtype.itemsize - 1), np.bool_)


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


@eager_jit(static_argnames=("deg",), inline=False)
def angle(z, deg=False):
    """``atan2(imag, real)``; integer parts, and a rank-0 real float, convert (strong) to the
    default float first, as in JAX."""
    check_arraylike("angle", z)
    z = to_array(z)
    re, im = real(z), imag(z)
    if not dtypes.is_inexact(_dtype(re)) or (dtypes.is_float(_dtype(z)) and z.ndim == 0):
        re = convert(re, dtypes.default_float_dtype())
        im = convert(im, dtypes.default_float_dtype())
    out = lax.atan2(im, re)
    return rad2deg(out) if deg else out


# ------------------------------------------------------------------------------------------------
# Sums, products, differences; interpolation


def _inexact(x):
    x = to_array(x)
    return convert(x, to_inexact_dtype(x.dtype))


@eager_jit(static_argnames=("n", "axis"), inline=False)
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``n``-th discrete difference along ``axis`` (bool: ``!=``, as NumPy)."""
    check_arraylike("diff", a)
    a = to_array(a)
    n, axis = operator.index(n), operator.index(axis)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if n == 0:
        return a
    if a.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonicalize_axis(axis, a.ndim)
    if prepend is not None or append is not None:
        parts = []
        for extra in (prepend, a, append):
            if extra is None:
                continue
            e = to_array(extra)
            if e.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                e = jnp.broadcast_to(e, tuple(shape))
            parts.append(e)
        a = jnp.concatenate(parts, axis=axis)
    for _ in range(n):
        m = a.shape[axis]
        if m == 0:
            break
        # JAX's a[1:] and a[:-1] along axis: slices with strides=None
        start, limit = [0] * a.ndim, list(a.shape)
        start[axis] = 1
        hi = lax.slice(a, start, limit)
        start[axis], limit[axis] = 0, max(m - 1, 0)
        lo = lax.slice(a, start, limit)
        a = jnp.not_equal(hi, lo) if a.dtype == np.bool_ else subtract(hi, lo)
    return a


@eager_jit(inline=False)
def ediff1d(ary, to_end=None, to_begin=None):
    check_arraylike("ediff1d", ary)
    a = jnp.ravel(to_array(ary))
    out = a[1:] - a[:-1]
    parts = []
    if to_begin is not None:
        parts.append(jnp.ravel(convert(to_array(to_begin), out.dtype)))
    parts.append(out)
    if to_end is not None:
        parts.append(jnp.ravel(convert(to_array(to_end), out.dtype)))
    return jnp.concatenate(parts) if len(parts) > 1 else out


@eager_jit(static_argnames=("axis", "edge_order"), inline=False)
def gradient(f, *varargs, axis=None, edge_order=None):
    """Second-order central differences inside, first-order one-sided at the edges: JAX
    0.10.2's formulas (their rounding) and checks."""
    if edge_order is not None:
        # JAX 0.10.2 refuses every edge_order (even 1) with this NotImplementedError.
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    a, *spacing = (to_array(x) for x in promote_dtypes_inexact(f, *varargs))
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = tuple(canonicalize_axis(i, a.ndim)
                     for i in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if not axes:
        return []
    if min(a.shape[i] for i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "2 elements are required.")
    if not spacing:
        spacing = [1.0] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for {axis=}")
    outs = [_gradient_along_axis(a, h, ax) for ax, h in zip(axes, spacing)]
    return outs[0] if len(axes) == 1 else outs


def _gradient_along_axis(a, h, axis):
    def sl(lo, hi, x=a):
        return lax.slice_in_dim(x, lo, hi, axis=axis)

    upper_edge = sl(1, 2) - sl(0, 1)
    lower_edge = sl(-1, None) - sl(-2, -1)
    if np.ndim(h) == 0:
        inner = (sl(2, None) - sl(None, -2)) * 0.5 / h
        lower_edge = lower_edge / h
        upper_edge = upper_edge / h
    elif np.ndim(h) == 1:  # coordinates: NumPy's non-uniform second-order formula
        if len(h) != a.shape[axis]:
            raise ValueError("Spacing arrays must have the same length as the dimension along "
                             "which the gradient is calculated.")
        shape = [1] * a.ndim
        shape[axis] = len(h)
        h = jnp.reshape(h, shape)
        upper_edge = upper_edge / (sl(1, 2, h) - sl(0, 1, h))
        lower_edge = lower_edge / (sl(-1, None, h) - sl(-2, -1, h))
        dx1 = sl(1, -1, h) - sl(0, -2, h)
        dx2 = sl(2, None, h) - sl(1, -1, h)
        c0 = -(dx2) / (dx1 * (dx1 + dx2))
        c1 = (dx2 - dx1) / (dx1 * dx2)
        c2 = dx1 / (dx2 * (dx1 + dx2))
        inner = c0 * sl(0, -2) + c1 * sl(1, -1) + c2 * sl(2, None)
    else:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return jnp.concatenate((upper_edge, inner, lower_edge), axis=axis)


@eager_jit(static_argnames=("axisa", "axisb", "axisc", "axis"), inline=False)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    check_arraylike("cross", a, b)
    a, b = (to_array(x) for x in promote_dtypes(a, b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a = jnp.moveaxis(a, axisa, -1)
    b = jnp.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else jnp.zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else jnp.zeros_like(b0)
    # jnp.array of the components, then moveaxis, as JAX writes it (its jaxprs show the
    # concatenate and transpose, not a stack)
    c = jnp.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    return jnp.moveaxis(c, 0, axisc)


@eager_jit(static_argnames=("axis",), inline=False)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """JAX's formula: a spacing constant along ``axis`` takes the sum-minus-ends fast path."""
    if x is None:
        check_arraylike("trapezoid", y)
        y = _inexact(y)
        d = to_array(dx)
        if d.ndim > 0:
            d = lax.expand_dims(d, tuple(range(y.ndim - d.ndim)))
            d = jnp.moveaxis(d, axis, -1)
    else:
        check_arraylike("trapezoid", y, x)
        y, x = (to_array(a) for a in promote_dtypes_inexact(y, x))
        d = diff(x) if x.ndim == 1 else jnp.moveaxis(diff(x, axis=axis), axis, -1)
    y = jnp.moveaxis(y, axis, -1)
    if d.ndim == 0 or d.shape[-1] == 1:
        d = d if d.ndim == 0 else d[..., 0]
        return d * (y.sum(-1) - 0.5 * (y[..., 0] + y[..., -1]))
    return 0.5 * (d * (y[..., 1:] + y[..., :-1])).sum(-1)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of (``xp``, ``fp``) at ``x`` (``xp`` increasing); ``left``
    / ``right`` may be ``'extrapolate'``. One jit ``_interp`` whose ``left``/``right`` are
    static where None or a string and ``period`` where None, as JAX's."""
    static = tuple(name for name, value in (("left", left), ("right", right))
                   if value is None or isinstance(value, str))
    static += ("period",) if period is None else ()
    jitted = _INTERP_JITS.get(static)
    if jitted is None:
        jitted = _INTERP_JITS[static] = eager_jit(_interp, static_argnames=static, inline=False)
    return jitted(x, xp, fp, left, right, period)


_INTERP_JITS: dict = {}


def _interp(x, xp, fp, left=None, right=None, period=None):
    """JAX's formula."""
    check_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = (to_array(a) for a in promote_dtypes_inexact(x, xp))
    (fp,) = promote_dtypes_inexact(to_array(fp))
    extrapolate = []
    for name, value in (("left", left), ("right", right)):
        if isinstance(value, str) and value != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but "
                             f"got: {value!r}")
        extrapolate.append(isinstance(value, str))
    if dtypes.is_complex(np.dtype(x.dtype)):
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = abs(period)
        x = x % period
        xp = xp % period
        xp, fp = lax.sort_key_val(xp, fp)
        xp = jnp.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = jnp.concatenate([fp[-1:], fp, fp[:1]])
    i = clip(jnp.searchsorted(xp, x, side="right"), 1, xp.shape[0] - 1)
    df = fp[i] - fp[i - 1]
    dx = xp[i] - xp[i - 1]
    delta = x - xp[i - 1]
    epsilon = np.spacing(np.finfo(np.dtype(xp.dtype)).eps)
    dx0 = lax.abs(dx) <= epsilon  # no NaN gradients where dx is (nearly) zero
    f = jnp.where(dx0, fp[i - 1], fp[i - 1] + (delta / jnp.where(dx0, 1, dx)) * df)
    # the fill value first, even with a period (where it goes unused), as JAX's
    if not extrapolate[0]:
        left_value = fp[0] if left is None else left
        if period is None:
            f = jnp.where(x < xp[0], left_value, f)
    if not extrapolate[1]:
        right_value = fp[-1] if right is None else right
        if period is None:
            f = jnp.where(x > xp[-1], right_value, f)
    return f


# ------------------------------------------------------------------------------------------------
# Rational and floating-point routines, special functions


def _gcd_cond(state):
    return jnp.any(state[1] != 0)


def _gcd_body(state):
    """JAX's Euclid step (XLA's integer ``rem`` by 0 is defined, and masked here); its zero is
    ``lax_const``, so the loop over a weak array turns strong, as JAX's."""
    a, b = state
    a, b = jnp.where(b != 0, b, a), jnp.where(b != 0, lax.rem(a, b), lax_const(b, 0))
    return jnp.where(a < b, b, a), jnp.where(a < b, a, b)


@eager_jit(inline=False)
def gcd(x1, x2):
    """Euclid's algorithm in a ``while_loop`` over the whole (broadcast) array."""
    check_arraylike("gcd", x1, x2)
    x1, x2 = promote_dtypes(to_array(x1), to_array(x2))
    if not dtypes.is_int(_dtype(x1)):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = jnp.broadcast_arrays(x1, x2)
    return lax.while_loop(_gcd_cond, _gcd_body, vary_like((abs(x1), abs(x2))))[0]


@eager_jit(inline=False)
def lcm(x1, x2):
    check_arraylike("lcm", x1, x2)
    x1, x2 = promote_dtypes(to_array(x1), to_array(x2))
    x1, x2 = abs(x1), abs(x2)
    if not dtypes.is_int(_dtype(x1)):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    # XLA's integer division by 0 is defined; the where masks it, as JAX's
    return jnp.where(d == 0, lax_const(d, 0), multiply(x1, floor_divide(x2, d)))


@eager_jit(inline=False)
def frexp(x):
    """Mantissa in [0.5, 1) and integer exponent, from the bits: JAX 0.10.2's ``_frexp``
    (subnormals scaled into the normal range first; XLA on CPU flushes subnormal arithmetic,
    so their results follow the backend as JAX's do), with its derivative."""
    check_arraylike("frexp", x)
    (x,) = promote_dtypes_inexact(to_array(x))
    if dtypes.is_complex(np.dtype(x.dtype)):
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@custom_jvp
def _frexp(x):
    dtype = np.dtype(x.dtype)
    info = dtypes.finfo(dtype)
    int_t = {16: np.int16, 32: np.int32, 64: np.int64}[info.bits]
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    small = lax.abs(x) < info.tiny
    x1 = jnp.where(small, x * lax_const(x, 1 << info.nmant), x)
    x2 = jnp.where(small, int_t(-info.nmant), int_t(0))
    x1 = lax.bitcast_convert_type(x1, int_t)
    x2 = x2 + (((x1 >> info.nmant) & mask) - bias + 1)
    x1 = (x1 & ~(mask << info.nmant)) | ((bias - 1) << info.nmant)
    x1 = lax.bitcast_convert_type(x1, dtype)
    special = jnp.isinf(x) | jnp.isnan(x) | (x == 0)
    x2 = jnp.where(special, lax.full_like(x2, 0), x2)
    return jnp.where(special, x, x1), lax.convert_element_type(x2, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    m, e = frexp(x)
    # d(mantissa) = t / 2**e; the integer exponent's tangent is float0
    return (m, e), (t * jnp.exp2(-e.astype(t.dtype)), np.zeros(np.shape(e), dtypes.float0))


@eager_jit(inline=False)
def ldexp(x1, x2):
    """``x1 * 2**x2``, JAX's way: the exponent split off with ``frexp`` first, so a small ``x1``
    with a large ``x2`` does not overflow on the way."""
    check_arraylike("ldexp", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)
    if dtypes.is_complex(_dtype(x1)) or dtypes.is_inexact(_dtype(x2)):  # JAX's check and words
        raise ValueError(f"ldexp not supported for input types {(x1.dtype, x2.dtype)}")
    (x1,) = promote_args_inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, _dtype(x1))
    m, e = frexp(x1)
    e = (e.astype(x2.dtype) + x2).astype(_dtype(x1))
    # the exponent may overflow by one and the result still be finite
    m = jnp.where(e > 0, m * 2, m)
    e = jnp.where(e > 0, e - 1, e)
    x = m * (2 ** e.astype(m.dtype))
    return jnp.where(jnp.isinf(x1) | (x1 == 0), x1, x)


@eager_jit(inline=False)
def modf(x, /, out=None):
    check_arraylike("modf", x)
    (x,) = promote_dtypes_inexact(to_array(x))
    if out is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    whole = jnp.where(lax.ge(x, _zero_like(x)), lax.floor(x), lax.ceil(x))
    return x - whole, whole


@eager_jit(inline=False)
def heaviside(x1, x2):
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    x1 = to_array(x1)  # a Python scalar arrives as a WeakScalar, which has no comparisons
    zero, one = lax_const(x1, 0), lax_const(x1, 1)
    # lax's comparisons, as JAX's: they refuse complex operands
    return jnp.where(lax.lt(x1, zero), zero,
                     jnp.where(lax.gt(x1, zero), one, jnp.where(x1 != x1, x1, x2)))


@eager_jit(inline=False)
def sinc(x):
    """sin(pi x) / (pi x) with a safe denominator; at 0 the Maclaurin series, whose custom JVP
    gives every derivative there. JAX's formula, op for op: its rounding is JAX's, also in
    second derivatives, where the quotient's terms cancel near 0."""
    check_arraylike("sinc", x)
    (x,) = promote_dtypes_inexact(to_array(x))
    eq0 = lax.eq(x, lax_const(x, 0))
    pi_x = lax.mul(lax_const(x, np.pi), x)
    safe_pi_x = jnp.where(eq0, lax_const(x, 1), pi_x)
    return jnp.where(eq0, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe_pi_x), safe_pi_x))


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _sinc_maclaurin(k, x):
    """The ``k``-th derivative of sin(x)/x at 0, shaped like ``x``."""
    zero = lax.mul(x, const(x, 0))
    return zero if k % 2 else lax.add(zero, const(x, (-1) ** (k // 2) / (k + 1)))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), lax.mul(_sinc_maclaurin(k + 1, x), t)


@eager_jit(inline=False)
def i0(x):
    """Modified Bessel function of order 0: ``exp(|x|) * i0e(|x|)``, as JAX (its rounding), with
    JAX's derivative: zero at 0, where ``|x|``'s derivative would be the sign of zero."""
    (x,) = promote_args_inexact("i0", x)
    if dtypes.is_complex(_dtype(x)):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {x.dtype}")  # JAX's words
    return _i0(x)


@custom_jvp
def _i0(x):
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), lax.bessel_i0e(abs_x))


@_i0.defjvp
def _i0_jvp(primals, tangents):
    primal_out, tangent_out = jvp(_i0.fun, primals, tangents)
    return primal_out, jnp.where(primals[0] == 0, 0.0, tangent_out)


@eager_jit(inline=False)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    check_arraylike("nan_to_num", x)
    x = to_array(x)
    dt = np.dtype(x.dtype)
    if not dtypes.is_inexact(dt):
        return x
    if dtypes.is_complex(dt):
        re = nan_to_num(real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(re, im)
    info = dtypes.finfo(dt)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = jnp.where(jnp.isnan(x), convert(nan, dt), x)
    out = jnp.where(jnp.isposinf(out), convert(posinf, dt), out)
    return jnp.where(jnp.isneginf(out), convert(neginf, dt), out)


@eager_jit(inline=False)
def copysign(x1, x2):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if dtypes.is_complex(np.dtype(to_array(x1).dtype)):
        raise TypeError("copysign does not support complex-valued inputs")
    return jnp.where(signbit(x2), -abs(x1), abs(x1))


def nextafter(x, y, /):
    x, y = promote_args_inexact("nextafter", x, y)
    return lax.nextafter(x, y)


@eager_jit(inline=False)
def fmax(x1, x2):
    """Maximum that ignores a NaN (NaN only when both are)."""
    x1, x2 = promote_args("fmax", x1, x2)
    return jnp.where((x1 > x2) | jnp.isnan(x2), x1, x2)


@eager_jit(inline=False)
def fmin(x1, x2):
    x1, x2 = promote_args("fmin", x1, x2)
    return jnp.where((x1 < x2) | jnp.isnan(x2), x1, x2)


def real_if_close(a, tol=100):
    """Real part when every imaginary part is within ``tol`` machine epsilons of 0 (a concrete
    decision: the output dtype depends on it)."""
    a = to_array(a)
    if not dtypes.is_complex(np.dtype(a.dtype)):
        return a
    if isinstance(a, Tracer):
        raise a._concretization_error("jnp.real_if_close (its output dtype depends on values)")
    eps = dtypes.finfo(np.asarray(a).real.dtype).eps
    tol = tol * eps if tol > 1 else tol
    return real(a) if bool(np.all(np.abs(np.asarray(a).imag) < tol)) else a


def spacing(x, /):
    """JAX's formula: a zero step (a subnormal flushed to zero) is the smallest subnormal."""
    (x,) = promote_args_inexact("spacing", x)
    if _dtype(x).kind == "c":
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = lax_const(x, np.inf)
    if _dtype(x) == np.float16:
        return lax.nextafter(x, inf) - x
    result = lax.nextafter(x, copysign(inf, x)) - x
    return jnp.where(result == 0, copysign(dtypes.finfo(_dtype(x)).smallest_subnormal, x), result)


@eager_jit(static_argnames=("axis",), inline=False)
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """JAX's: ``p`` promoted with ``period`` (integers with an integer period stay integers,
    their interval ``period // 2``), complex refused."""
    check_arraylike("unwrap", p)
    p, period = promote_dtypes(p, period)
    if _dtype(p).kind == "c":
        raise ValueError("jnp.unwrap does not support complex inputs.")
    axis = canonicalize_axis(axis, p.ndim)
    if p.shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if _dtype(p).kind in "iu" else period / 2
    dd = diff(p, axis=axis)
    ddmod = mod(dd + interval, period) - interval
    ddmod = jnp.where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correct = jnp.where(abs(dd) < discont, 0, ddmod - dd)
    first = lax.slice_in_dim(p, 0, 1, axis=axis)
    return jnp.concatenate([first, lax.slice_in_dim(p, 1, p.shape[axis], axis=axis)
                            + jnp.cumsum(correct, axis=axis)], axis=axis)
