"""NumPy's bitwise operations: the bitwise ufuncs and shifts, ``packbits``/``unpackbits``
and ``bitwise_count``.
"""

from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.numpy._eager import eager_jit
from minijax.numpy._ufuncs import _binary, _dtype, _unary
from minijax.numpy._util import check_arraylike, convert, promote_args_numeric
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
    # JAX's steps (its jaxpr): the packed axis swapped last, padded to whole bytes, shifted by
    # each bit's place and summed; a bad axis is swapaxes's IndexError
    arr = convert(a != 0, np.uint8)
    bits = jnp.arange(8, dtype=np.uint8)
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = jnp.ravel(arr), 0
    arr = jnp.swapaxes(arr, axis, -1)
    remainder = arr.shape[-1] % 8
    if remainder:
        arr = lax.pad(arr, np.uint8(0), (arr.ndim - 1) * [(0, 0, 0)] + [(0, 8 - remainder, 0)])
    arr = jnp.reshape(arr, arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    bits = jnp.expand_dims(bits, tuple(range(arr.ndim - 1)))
    packed = convert(jnp.sum(left_shift(arr, bits), axis=-1), np.uint8)
    return jnp.swapaxes(packed, axis, -1)


@eager_jit(static_argnames=("axis", "count", "bitorder"), inline=False)
def unpackbits(a, axis=None, count=None, bitorder="big"):
    check_arraylike("unpackbits", a)
    a = to_array(a)
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    # JAX's steps, as packbits'
    bits = left_shift(1, jnp.arange(8, dtype=np.uint8))
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        a, axis = jnp.ravel(a), 0
    arr = jnp.swapaxes(a, axis, -1)
    unpacked = convert(
        bitwise_and(arr[..., None], jnp.expand_dims(bits, tuple(range(arr.ndim)))) > 0, np.uint8)
    unpacked = jnp.reshape(unpacked, unpacked.shape[:-2] + (-1,))
    if count is not None:
        if count > unpacked.shape[-1]:
            unpacked = jnp.pad(unpacked, [(0, 0)] * (unpacked.ndim - 1)
                               + [(0, count - unpacked.shape[-1])])
        else:
            unpacked = unpacked[..., :count]
    return jnp.swapaxes(unpacked, axis, -1)


@eager_jit(inline=False)
def bitwise_count(x, /):
    x, = promote_args_numeric("bitwise_count", x)
    if _dtype(x).kind == "i":
        x = jnp.abs(x)
    out = lax.population_count(x)
    return convert(out, np.uint8)
