"""Operators and methods of ``minijax.Array`` and of tracers, set on both classes at import of
``minijax.numpy`` (as JAX does), so ``x + 1``, ``x @ w``, ``x[1:, None]`` and ``x.sum(0)`` are
the jnp functions whether ``x`` is concrete or traced inside ``jit``.

A binary operator returns ``NotImplemented`` for an operand type jnp does not accept (a list,
a string), so Python tries the other operand's reflected method or raises its usual TypeError.
``__hash__`` is not touched: arrays stay unhashable even though ``__eq__`` is elementwise.
"""

from __future__ import annotations

import sys

import numpy as np

from minijax import dtypes, lax
from minijax.core import Tracer, WeakScalar
from minijax.lowering.array import Array, BaseArray, device_copy
from minijax.numpy import (
    bitwise,
    creation,
    indexing,
    indexing_routines,
    linear_algebra,
    logic,
    manipulation,
    math,
    reductions,
    sorting,
)
from minijax.sharding import device_put

_ACCEPTED = (bool, int, float, complex, np.generic, np.ndarray, Array, Tracer, WeakScalar)


def _defer(fn, swap=False):
    """A binary dunder calling ``fn``; ``NotImplemented`` for operand types jnp refuses."""

    if swap:
        def op(self, other):
            if not isinstance(other, _ACCEPTED):
                return NotImplemented
            return fn(other, self)
    else:
        def op(self, other):
            if not isinstance(other, _ACCEPTED):
                return NotImplemented
            return fn(self, other)

    op.__name__ = getattr(fn, "__name__", "op")
    return op


def _binary_ops():
    table = {
        "add": math.add, "sub": math.subtract, "mul": math.multiply,
        "truediv": math.true_divide, "floordiv": math.floor_divide, "mod": math.remainder,
        "pow": math.power, "matmul": linear_algebra.matmul, "and": bitwise.bitwise_and,
        "or": bitwise.bitwise_or, "xor": bitwise.bitwise_xor, "lshift": bitwise.left_shift,
        "rshift": bitwise.right_shift, "divmod": math.divmod,
    }
    ops = {}
    for name, fn in table.items():
        ops[f"__{name}__"] = _defer(fn)
        ops[f"__r{name}__"] = _defer(fn, swap=True)
    comparisons = {"eq": logic.equal, "ne": logic.not_equal, "lt": logic.less,
                   "le": logic.less_equal, "gt": logic.greater, "ge": logic.greater_equal}
    for name, fn in comparisons.items():
        ops[f"__{name}__"] = _defer(fn)
    return ops


# ------------------------------------------------------------------------------------------------
# Methods


def _reshape(self, *args, order="C", out_sharding=None):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``; ``order="F"`` fills column-major."""
    shape = args[0] if len(args) == 1 else args  # as spelled: its errors print it
    return manipulation.reshape(self, shape, order=order, out_sharding=out_sharding)


def _is_int(x):
    return isinstance(x, (int, np.integer))


def _transpose(self, *args):
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if not args:
        axes = None
    elif len(args) == 1 and (args[0] is None or not _is_int(args[0])):
        axes = args[0]
    else:
        axes = args
    return manipulation.transpose(self, axes)


def _astype(self, dtype, copy=False, device=None):
    out = creation.astype(self, dtype)
    if copy and out is self:
        out = _copy(self)
    return out if device is None else _to_device(out, device)


def _copy(self):
    """A copy: for a concrete Array a new device buffer, which outlives ``self``'s donation."""
    return device_copy(self) if isinstance(self, Array) else creation.copy(self)


def _deepcopy(self, memo):
    return _copy(self)


def _to_device(self, device, *, stream=None):
    """``self`` placed on ``device`` (a Device or a Sharding), as ``device_put`` does."""
    if stream is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("stream argument of array.to_device()")
    return device_put(self, device)


def _view(self, dtype=None, type=None):  # noqa: A002
    """The array's bits reinterpreted as ``dtype``; a change of width rescales the last axis."""
    if type is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    dtype = dtypes.check_user_dtype(dtype, "view")
    nbits_in, nbits_out = 8 * self.dtype.itemsize, 8 * dtype.itemsize
    if self.ndim == 0:
        if nbits_in != nbits_out:
            raise ValueError("view() of a 0d array is only supported if the itemsize is unchanged.")
        return _view(lax.expand_dims(self, (0,)), dtype).squeeze()
    if (self.shape[-1] * nbits_in) % nbits_out != 0:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of the total "
                         "size in bytes of the last axis of the array.")
    if self.dtype == dtype:
        return self
    # bitcast_convert_type takes neither bool nor complex: go through uint8 / the real parts.
    if self.dtype == dtypes.bool_:
        return _view(self.astype(np.uint8), dtype)
    if dtypes.is_complex(self.dtype):
        parts = manipulation.stack([math.real(self), math.imag(self)], axis=-1)
        return _view(parts.reshape(*self.shape[:-1], 2 * self.shape[-1]), dtype)
    if dtype == dtypes.bool_:
        return _view(self, np.uint8).astype(dtypes.bool_)
    if dtypes.is_complex(dtype):
        parts = _view(self, dtypes.finfo(dtype).dtype)
        return lax.complex(parts[..., 0::2], parts[..., 1::2])
    if nbits_in < nbits_out:
        factor = nbits_out // nbits_in
        out = self.reshape(*self.shape[:-1], self.shape[-1] // factor, factor)
        return lax.bitcast_convert_type(out, dtype)
    out = lax.bitcast_convert_type(self, dtype)
    if nbits_in > nbits_out:
        out = out.reshape(*out.shape[:-2], out.shape[-2] * out.shape[-1])
    return out


def _byteswap(self):
    """The bytes of each element in reverse order (little- <-> big-endian)."""
    if dtypes.is_complex(self.dtype):
        return lax.complex(_byteswap(math.real(self)), _byteswap(math.imag(self)))
    if self.dtype.itemsize == 1:
        return _copy(self)
    swapped = lax.rev(lax.bitcast_convert_type(self, np.uint8), (self.ndim,))
    return lax.bitcast_convert_type(swapped, self.dtype)


def _contains(self, other):
    """``other in x`` for a 1-D ``x`` and a scalar ``other``: ``(x == other).any()``."""
    if other is None or isinstance(other, str):
        raise TypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
    if self.ndim != 1:
        raise ValueError("Array.__contains__: search array must be one-dimensional, "
                         f"got arr.shape={self.shape}.")
    query = creation.asarray(other)
    if query.ndim != 0:
        raise ValueError(f"Array.__contains__: query value must be a scalar, got "
                         f"query.shape={query.shape}")
    return reductions.any(self == query)


def _setitem(self, index, value):
    raise TypeError(
        "JAX arrays are immutable and do not support in-place item assignment. Instead of "
        "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
        "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def _flat(self):
    # JAX 0.10.2 refuses it too, in these words.
    raise NotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                              "arr.flatten() instead.")


_ARRAY_API_VERSION = "2024.12"


def _array_namespace(self, *, api_version=None):
    if api_version is not None and api_version != _ARRAY_API_VERSION:
        raise ValueError(f"api_version={api_version!r} is not available; available versions "
                         f"are: {[_ARRAY_API_VERSION]}")
    return sys.modules["minijax.numpy"]


def _sort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    return sorting.sort(self, axis, kind=kind, order=order, stable=stable, descending=descending)


def _argsort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    return sorting.argsort(self, axis, kind=kind, order=order, stable=stable,
                           descending=descending)


def _compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
    return indexing_routines.compress(condition, self, axis, size=size, fill_value=fill_value,
                                      out=out)


def _flatten(self, order="C"):
    if order == "F":
        return _reshape(self, (self.size,), order="F")
    return manipulation.ravel(self, order)


def _round(self, decimals=0, out=None):
    return math.round(self, decimals, out)


def _python_round(self, ndigits=None):
    return math.round(self, 0 if ndigits is None else ndigits)


def _clip(self, min=None, max=None):  # noqa: A002
    return math.clip(self, min, max)


def _dot(self, b, *, precision=None, preferred_element_type=None):
    return linear_algebra.dot(self, b, precision=precision,
                            preferred_element_type=preferred_element_type)


def _squeeze(self, axis=None):
    return manipulation.squeeze(self, axis)


def _repeat(self, repeats, axis=None, *, total_repeat_length=None):
    return manipulation.repeat(self, repeats, axis, total_repeat_length=total_repeat_length)


def _getitem(self, index):
    return indexing.getitem(self, index)


_METHODS = {
    **_binary_ops(),
    "__neg__": math.negative,
    "__pos__": math.positive,
    "__abs__": math.abs,
    "__invert__": bitwise.bitwise_not,
    "__round__": _python_round,
    "__getitem__": _getitem,
    "__setitem__": _setitem,
    "__contains__": _contains,
    "__copy__": _copy,
    "__deepcopy__": _deepcopy,
    "__array_namespace__": _array_namespace,
    "flat": property(_flat),
    "T": property(lambda self: manipulation.transpose(self)),
    "mT": property(manipulation.matrix_transpose),
    "real": property(math.real),
    "imag": property(math.imag),
    "astype": _astype,
    "reshape": _reshape,
    "transpose": _transpose,
    "ravel": _flatten,
    "flatten": _flatten,
    "squeeze": _squeeze,
    "swapaxes": manipulation.swapaxes,
    "repeat": _repeat,
    "sum": reductions.sum,
    "prod": reductions.prod,
    "mean": reductions.mean,
    "var": reductions.var,
    "std": reductions.std,
    "max": reductions.max,
    "min": reductions.min,
    "ptp": reductions.ptp,
    "argmax": reductions.argmax,
    "argmin": reductions.argmin,
    "all": reductions.all,
    "any": reductions.any,
    "cumsum": reductions.cumsum,
    "cumprod": reductions.cumprod,
    "dot": _dot,
    "clip": _clip,
    "round": _round,
    "conj": math.conjugate,
    "conjugate": math.conjugate,
    "nonzero": sorting.nonzero,
    "copy": _copy,
    "to_device": _to_device,
    "view": _view,
    "byteswap": _byteswap,
    "sort": _sort,
    "argsort": _argsort,
    "argpartition": sorting.argpartition,
    "searchsorted": sorting.searchsorted,
    "take": indexing_routines.take,
    "compress": _compress,
    "choose": indexing_routines.choose,
    "diagonal": indexing_routines.diagonal,
    "trace": linear_algebra.trace,
    "at": property(indexing._IndexUpdateHelper),
}


def _tracer_iter(self):
    """A traced array's rows, as JAX's ``ShapedArray._iter``: ``lax.index_in_dim`` of each
    (a strided slice and a squeeze each), made as the loop asks for them."""
    if not self.aval.shape:
        raise TypeError("iteration over a 0-d array")
    return (lax.index_in_dim(self, i, keepdims=False) for i in range(self.aval.shape[0]))


def install():
    """Sets the operators and methods on Array, its public base class and Tracer (idempotent)."""
    for cls in (Array, BaseArray, Tracer):
        for name, value in _METHODS.items():
            setattr(cls, name, value)
    Tracer.__iter__ = _tracer_iter


install()
