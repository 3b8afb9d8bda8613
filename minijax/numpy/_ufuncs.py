"""How ``minijax.numpy`` makes a ufunc from a lax primitive: the ``_unary``/``_binary``
factories (one line per ufunc in math.py, logic.py and bitwise.py) and the dtype helpers the
ufuncs share. Every factory-made ufunc checks its arguments, promotes dtypes (JAX's lattice, weak
types included) and broadcasts ranks before binding its primitive, and runs eagerly as one
cached jitted program (``eager_jit``).
"""

from __future__ import annotations

from minijax import dtypes, lax
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import (
    check_arraylike,
    check_no_float0s,
    convert,
    promote_args,
    promote_args_inexact,
    promote_dtypes,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
    promote_ranks,
)
from minijax.numpy.creation import to_array


def _dtype(x):
    return dtypes.dtype_of(x)[0]


def _zeros_like_bool(x, value):
    """A boolean array of ``x``'s shape filled with ``value`` (classifiers on integers)."""
    x = to_array(x)
    return lax.full_like(x, value, dtypes.bool_)


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


def _binary(name, lax_fn_name, inexact=False, bool_fn_name=None, numeric=False):
    """``numeric``: bools are promoted to ints first (JAX's ``promote_args_numeric``)."""
    promote = (promote_dtypes_inexact if inexact else
               promote_dtypes_numeric if numeric else promote_dtypes)

    def fn(x, y, /):  # JAX's names: a missing operand's TypeError says 'y'
        check_arraylike(name, x, y)
        check_no_float0s(name, x, y)
        x, y = promote_ranks(*promote(x, y), name=name)  # lax broadcasts size-1 axes
        if bool_fn_name is not None and _dtype(x) == dtypes.bool_:
            return getattr(lax, bool_fn_name)(x, y)
        return getattr(lax, lax_fn_name)(x, y)

    if inexact:  # JAX's true_divide and arctan2 (the inexact ones) name theirs x1, x2
        body = fn

        def fn(x1, x2, /):
            return body(x1, x2)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jnp.{name}``: ``lax.{lax_fn_name}`` after NumPy broadcasting and promotion."
    return eager_jit(fn)


def _zero_like(x):
    """A weakly typed scalar 0 of ``x``'s dtype: lax broadcasts rank-0 operands itself."""
    return convert(0, _dtype(x), True)
