"""Operators and methods of ``minijax.Array`` and of tracers, set on both classes at import of
``minijax.numpy`` (as JAX does), so ``x + 1``, ``x @ w``, ``x[1:, None]`` and ``x.sum(0)`` are
the jnp functions whether ``x`` is concrete or traced inside ``jit``.

A binary operator returns ``NotImplemented`` for an operand type jnp does not accept (a list,
a string), so Python tries the other operand's reflected method or raises its usual TypeError.
``__hash__`` is not touched: arrays stay unhashable even though ``__eq__`` is elementwise.
"""

from __future__ import annotations

import numpy as np

from minijax.core import Tracer, WeakScalar
from minijax.lowering.array import Array
from minijax.numpy import arrayops, indexing, linalg_basic, manipulation, math, reductions

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
        "pow": math.power, "matmul": linalg_basic.matmul, "and": math.bitwise_and,
        "or": math.bitwise_or, "xor": math.bitwise_xor, "lshift": math.left_shift,
        "rshift": math.right_shift, "divmod": math.divmod,
    }
    ops = {}
    for name, fn in table.items():
        ops[f"__{name}__"] = _defer(fn)
        ops[f"__r{name}__"] = _defer(fn, swap=True)
    for name, fn in {"eq": math.equal, "ne": math.not_equal, "lt": math.less,
                     "le": math.less_equal, "gt": math.greater, "ge": math.greater_equal}.items():
        ops[f"__{name}__"] = _defer(fn)
    return ops


# ------------------------------------------------------------------------------------------------
# Methods


def _reshape(self, *args, order="C"):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    shape = args[0] if len(args) == 1 and not _is_int(args[0]) else args
    return manipulation.reshape(self, shape, order=order)


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
    return math.astype(self, dtype)


def _flatten(self, order="C"):
    return manipulation.ravel(self, order)


def _round(self, decimals=0, out=None):
    return math.round(self, decimals, out)


def _python_round(self, ndigits=None):
    return math.round(self, 0 if ndigits is None else ndigits)


def _clip(self, min=None, max=None):  # noqa: A002
    return math.clip(self, min, max)


def _dot(self, b, *, precision=None, preferred_element_type=None):
    return linalg_basic.dot(self, b, precision=precision,
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
    "__invert__": math.bitwise_not,
    "__round__": _python_round,
    "__getitem__": _getitem,
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
    "nonzero": arrayops.nonzero,
    "at": property(indexing._IndexUpdateHelper),
}


def install():
    """Sets the operators and methods on Array and Tracer (idempotent)."""
    for cls in (Array, Tracer):
        for name, value in _METHODS.items():
            setattr(cls, name, value)


install()
