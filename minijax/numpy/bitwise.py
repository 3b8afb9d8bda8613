"""NumPy's bitwise operations: the bitwise ufuncs and shifts, ``packbits``/``unpackbits``
and ``bitwise_count``.
"""

from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.numpy._eager import eager_jit
from minijax.numpy._ufuncs import _binary, _dtype, _unary
from minijax.numpy._util import canonicalize_axis, check_arraylike, convert, promote_args_numeric
from minijax.numpy.creation import to_array

__all__ = [
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert", "bitwise_invert",
    "left_shift", "bitwise_left_shift", "right_shift", "bitwise_right_shift", "packbits",
    "unpackbits", "bitwise_count",
]


bitwise_and = _binary("bitwise_and", "bitwise_and")


bitwise_or = _binary("bitwise_or", "bitwise_or")


bitwise_xor = _binary("bitwise_xor", "bitwise_xor")


bitwise_not = _unary("bitwise_not", "bitwise_not")


invert = bitwise_invert = bitwise_not


left_shift = _binary("left_shift", "shift_left", numeric=True)


bitwise_left_shift = left_shift


@eager_jit
def right_shift(x1, x2, /):
    """Arithmetic shift for signed integers (sign fill), logical for unsigned ones."""
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    if _dtype(x1).kind == "u":
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


bitwise_right_shift = right_shift


@eager_jit(static_argnames=("axis", "bitorder"), inline=False)
def packbits(a, axis=None, bitorder="big"):
    check_arraylike("packbits", a)
    a = to_array(a)
    if not (dtypes.is_int(np.dtype(a.dtype)) or a.dtype == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = convert(a != 0, np.uint8)
    if axis is None:
        bits, axis = jnp.ravel(bits), 0
    axis = canonicalize_axis(axis, bits.ndim)
    n = bits.shape[axis]
    pad = (-n) % 8
    if pad:
        widths = [(0, 0, 0)] * bits.ndim
        widths[axis] = (0, pad, 0)
        bits = lax.pad(bits, convert(0, np.uint8), tuple(widths))
    bits = jnp.moveaxis(bits, axis, -1)
    bits = jnp.reshape(bits, bits.shape[:-1] + ((n + pad) // 8, 8))
    shifts = np.arange(7, -1, -1) if bitorder == "big" else np.arange(8)
    weights = convert(np.left_shift(1, shifts).astype(np.uint8), np.uint8)
    packed = jnp.sum(bits * weights, axis=-1, dtype=np.uint8)
    return jnp.moveaxis(packed, -1, axis)


@eager_jit(static_argnames=("axis", "count", "bitorder"), inline=False)
def unpackbits(a, axis=None, count=None, bitorder="big"):
    check_arraylike("unpackbits", a)
    a = to_array(a)
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    shifts = np.arange(7, -1, -1) if bitorder == "big" else np.arange(8)
    shifts = convert(shifts.astype(np.uint8), np.uint8)
    bits = bitwise_and(right_shift(a[..., None], shifts), convert(1, np.uint8))
    if axis is None:
        bits, axis = jnp.ravel(bits), 0
    else:
        axis = canonicalize_axis(axis, a.ndim)
        bits = jnp.moveaxis(bits, -1, axis + 1)
        bits = jnp.reshape(bits, a.shape[:axis] + (a.shape[axis] * 8,) + a.shape[axis + 1:])
    if count is not None:
        n = bits.shape[axis]
        if count <= n:
            bits = lax.slice_in_dim(bits, 0, count, axis=axis)
        else:
            widths = [(0, 0, 0)] * bits.ndim
            widths[axis] = (0, count - n, 0)
            bits = lax.pad(bits, convert(0, np.uint8), tuple(widths))
    return bits


@eager_jit(inline=False)
def bitwise_count(x, /):
    x, = promote_args_numeric("bitwise_count", x)
    if _dtype(x).kind == "i":
        x = jnp.abs(x)
    out = lax.population_count(x)
    return convert(out, np.uint8)
