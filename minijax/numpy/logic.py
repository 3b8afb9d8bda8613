"""NumPy's logic functions: comparisons (``equal``, ``less`` ... ``isclose``, ``allclose``,
``array_equal``, ``array_equiv``), logical operations, and the value and type tests
(``isfinite``, ``isinf``, ``isnan``, ``isposinf``, ``isneginf``, ``isreal``, ``iscomplex``,
``isrealobj``, ``iscomplexobj``, ``isscalar``, ``iterable``). ``all`` and ``any`` are
reductions (reductions.py).
"""

from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.lowering.array import BaseArray
from minijax.numpy._eager import eager_jit
from minijax.numpy._ufuncs import _binary, _dtype, _zeros_like_bool
from minijax.numpy._util import (
    check_arraylike,
    convert,
    lax_const,
    promote_args,
    promote_args_inexact,
    promote_dtypes,
    promote_ranks,
)
from minijax.numpy.creation import to_array

__all__ = [
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_xor", "logical_not", "isfinite", "isinf", "isnan", "iscomplexobj",
    "isrealobj", "isclose", "allclose", "array_equal", "array_equiv", "isposinf", "isneginf",
    "isreal", "iscomplex", "isscalar", "iterable",
]


equal = _binary("equal", "eq")


not_equal = _binary("not_equal", "ne")


def _ordering(name, lax_fn_name):
    """``jnp.less`` & co.: complex numbers order lexicographically (real part, then imaginary)
    here, as in JAX (``lax``'s comparisons refuse complex, as JAX's do)."""
    compare = getattr(lax, lax_fn_name)

    def fn(x, y, /):
        check_arraylike(name, x, y)
        x, y = promote_ranks(*promote_dtypes(x, y), name=name)
        if dtypes.is_complex(_dtype(x)):
            return lax.select(lax.eq(lax.real(x), lax.real(y)),
                              compare(lax.imag(x), lax.imag(y)),
                              compare(lax.real(x), lax.real(y)))
        return compare(x, y)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _ordering.__doc__.replace("``jnp.less`` & co.", f"``jnp.{name}``")
    return eager_jit(fn)


less = _ordering("less", "lt")


less_equal = _ordering("less_equal", "le")


greater = _ordering("greater", "gt")


greater_equal = _ordering("greater_equal", "ge")


def _to_bool(name, *args):
    """Promote, then test each operand ``!= 0`` against a JAX-style constant (``lax_const``):
    a weak scalar operand gives a weak boolean, as in JAX."""
    return [a if _dtype(a) == dtypes.bool_ else lax.ne(a, lax_const(a, 0))
            for a in promote_args(name, *args)]


@eager_jit
def logical_and(x, y, /):
    return lax.bitwise_and(*_to_bool("logical_and", x, y))


@eager_jit
def logical_or(x, y, /):
    return lax.bitwise_or(*_to_bool("logical_or", x, y))


@eager_jit
def logical_xor(x, y, /):
    return lax.bitwise_xor(*_to_bool("logical_xor", x, y))


@eager_jit
def logical_not(x, /):
    return lax.bitwise_not(*_to_bool("logical_not", x))


@eager_jit
def isfinite(x, /):
    (x,) = promote_args("isfinite", x)
    dtype = _dtype(x)
    if dtype.kind == "c":
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    if dtypes.is_float(dtype):
        return lax.is_finite(x)
    return _zeros_like_bool(x, True)


@eager_jit(inline=False)
def isinf(x, /):
    (x,) = promote_args("isinf", x)
    dtype = _dtype(x)
    if dtype.kind == "c":
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    if dtypes.is_float(dtype):
        return lax.eq(lax.abs(x), convert(np.inf, dtype))
    return _zeros_like_bool(x, False)


@eager_jit
def isnan(x, /):
    (x,) = promote_args("isnan", x)
    return lax.ne(x, x)


def iscomplexobj(x):
    return getattr(_dtype(x), "kind", None) == "c"  # an extended dtype (keys') has no kind


def isrealobj(x):
    return not iscomplexobj(x)


@eager_jit(static_argnames=("equal_nan",), inline=False)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """JAX's test: ``a == b`` or, for a finite ``b``, ``|a - b| <= atol + rtol * |b|``, in the
    inexact dtype (integers too); ``rtol``/``atol`` are traced, as in JAX's jit."""
    a, b = promote_args("isclose", a, b)
    if isinstance(_dtype(a), dtypes.ExtendedDType):
        return lax.eq(a, b)
    a, b = promote_args_inexact("isclose", a, b)
    dtype = _dtype(a)
    if dtype.kind == "c":
        dtype = np.zeros((), dtype).real.dtype
    rtol = lax.convert_element_type(rtol, dtype)
    atol = lax.convert_element_type(atol, dtype)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(isfinite(b), in_range))
    return logical_or(out, logical_and(isnan(a), isnan(b))) if equal_nan else out


@eager_jit(static_argnames=("equal_nan",), inline=False)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return jnp.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Same shape and elements (a Python-level shape check, as JAX)."""
    if any(isinstance(getattr(a, "dtype", None), dtypes.ExtendedDType) for a in (a1, a2)):
        # typed PRNG keys compare with their own elementwise ==
        # (np.shape: the other may be a Python scalar or list)
        return (jnp.asarray(False) if np.shape(a1) != np.shape(a2) else
                jnp.all(jnp.equal(a1, a2)))
    a1, a2 = to_array(a1), to_array(a2)
    if a1.shape != a2.shape:
        return jnp.asarray(False)
    eq = equal(a1, a2)
    if equal_nan and dtypes.is_inexact(np.dtype(dtypes.result_type(a1, a2))):
        eq = eq | (isnan(a1) & isnan(a2))
    return jnp.all(eq)


def array_equiv(a1, a2):
    a1, a2 = to_array(a1), to_array(a2)
    try:
        eq = equal(a1, a2)
    except ValueError:  # JAX's: only jnp's ValueError (unbroadcastable ranks) is False; lax's
        return jnp.asarray(False)  # TypeError for sizes that differ propagates
    return jnp.all(eq)


def _isposneginf(name, infinity, x, out):
    if out is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")
    check_arraylike(name, x)
    x = to_array(x)
    dtype = _dtype(x)
    if dtypes.is_float(dtype):
        return lax.eq(x, convert(infinity, dtype))
    if dtype.kind == "c":
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    return _zeros_like_bool(x, False)


def isposinf(x, /, out=None):
    return _isposneginf("isposinf", np.inf, x, out)


def isneginf(x, /, out=None):
    return _isposneginf("isneginf", -np.inf, x, out)


@eager_jit(inline=False)
def isreal(x):
    i = jnp.imag(x)
    return lax.eq(i, lax_const(i, 0))


@eager_jit(inline=False)
def iscomplex(x):
    i = jnp.imag(x)
    return lax.ne(i, lax_const(i, 0))


def isscalar(element):
    """True for Python/NumPy scalars and for rank-0 arrays (JAX's rule)."""
    if isinstance(element, (BaseArray, Tracer)):  # typed keys too
        return element.ndim == 0
    if isinstance(element, (np.ndarray, np.generic)):
        return np.ndim(element) == 0
    return isinstance(element, (bool, int, float, complex))


def iterable(y):
    try:
        iter(y)
    except TypeError:
        return False
    return True
