"""The jnp functions that are ``jnp.ufunc`` objects in JAX 0.10.2 (``jnp.add``, ``jnp.maximum``,
``jnp.logical_and`` ...), wrapping the functions of math.py, logic.py and bitwise.py: a call is
the function's own call; ``reduce``/``accumulate``/``at`` use jnp's reductions, cumulative ops
and ``.at[]`` updates where JAX's do, the generic loops of ``ufunc`` otherwise."""

from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.numpy import bitwise, logic
from minijax.numpy import math as _math
from minijax.numpy import reductions
from minijax.numpy.creation import asarray
from minijax.numpy.ufunc_api import ufunc

__all__ = [
    "add", "bitwise_and", "bitwise_or", "bitwise_xor", "logaddexp", "logaddexp2", "logical_and",
    "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative", "subtract",
]


def _with_dtype(fn):
    """``ufunc.reduce`` by a jnp reduction that has ``dtype`` and ``initial`` (sum, prod)."""
    def reduce(a, *, axis, dtype, keepdims, initial, where):
        return fn(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)
    return reduce


def _extremum(fn):
    """max/min: ``dtype`` converts the operand first."""
    def reduce(a, *, axis, dtype, keepdims, initial, where):
        a = asarray(a) if dtype is None else asarray(a).astype(dtype)
        return fn(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return reduce


def _logical(fn, combine):
    """all/any: ``initial`` joins the result with the ufunc itself; ``dtype`` casts it."""
    def reduce(a, *, axis, dtype, keepdims, initial, where):
        out = fn(a, axis=axis, keepdims=keepdims, where=where)
        if initial is not None:
            out = combine(out, initial)
        return out if dtype is None else out.astype(dtype)
    return reduce


def _accumulation(fn):
    def accumulate(a, *, axis, dtype):
        return fn(a, axis=axis, dtype=dtype)
    return accumulate


def _scatter_at(method):
    """``add.at``/``multiply.at`` as JAX's: one scatter (booleans via int32)."""
    def at(a, indices, b):
        a = asarray(a)
        if a.dtype == np.bool_:
            b = lax.convert_element_type(b, np.bool_).astype(np.int32)
            return getattr(a.astype(np.int32).at[indices], method)(b).astype(np.bool_)
        return getattr(a.at[indices], method)(b)
    return at


def _subtract_at(a, indices, b):
    """JAX's ``a.at[indices].subtract(b)``: a scatter-add of ``-b`` (modular for integers)."""
    return asarray(a).at[indices].add(_math.negative(b))


def _binary(fn, identity, **methods):
    return ufunc(fn, nin=2, nout=1, name=fn.__name__, call=fn, identity=identity, **methods)


add = _binary(_math.add, 0, reduce=_with_dtype(reductions.sum),
              accumulate=_accumulation(reductions.cumsum), at=_scatter_at("add"))
multiply = _binary(_math.multiply, 1, reduce=_with_dtype(reductions.prod),
                   accumulate=_accumulation(reductions.cumprod), at=_scatter_at("multiply"))
subtract = _binary(_math.subtract, None, at=_subtract_at)
maximum = _binary(_math.maximum, None, reduce=_extremum(reductions.max))
minimum = _binary(_math.minimum, None, reduce=_extremum(reductions.min))
logaddexp = _binary(_math.logaddexp, -np.inf)
logaddexp2 = _binary(_math.logaddexp2, -np.inf)
bitwise_and = _binary(bitwise.bitwise_and, -1)
bitwise_or = _binary(bitwise.bitwise_or, 0)
bitwise_xor = _binary(bitwise.bitwise_xor, 0)
logical_and = _binary(logic.logical_and, True,
                      reduce=_logical(reductions.all, logic.logical_and))
logical_or = _binary(logic.logical_or, False, reduce=_logical(reductions.any, logic.logical_or))
logical_xor = _binary(logic.logical_xor, False)
negative = ufunc(_math.negative, nin=1, nout=1, name="negative", call=_math.negative)
