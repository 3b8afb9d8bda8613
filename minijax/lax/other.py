"""lax functions built from other lax functions (JAX's ``jax._src.lax.other``) and
``lax.dtype``: image patches as a convolution, locally connected (unshared) convolution, and
the small shape helpers ``collapse``, ``broadcast_like``, ``index_take``, ``empty`` and
``shape_as_value``.
"""

from __future__ import annotations

import math

import numpy as np

from minijax import dtypes
from minijax.core import get_aval
from minijax.lax.convolution import conv_dimension_numbers, conv_general_dilated
from minijax.lax.dot import Precision, canonicalize_precision, dot_general
from minijax.lax.elementwise import add, lt, rem, select
from minijax.lax.indexing import GatherDimensionNumbers, gather
from minijax.lax.sharding_constraint import lay_out
from minijax.lax.structural import (
    _static_ints,
    broadcast_in_dim,
    concatenate,
    expand_dims,
    full,
    reshape,
    transpose,
)
from minijax.lowering.array import device_put_value

__all__ = ["broadcast_like", "collapse", "conv_general_dilated_local",
           "conv_general_dilated_patches", "dtype", "empty", "index_take", "shape_as_value"]


def dtype(x):
    """The dtype of a value or type, as ``jax.lax.dtype``: Python scalars and types and NumPy
    types canonicalized (x64), arrays' own dtypes as they are."""
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type) and x in (bool, int, float, complex):
        return dtypes.python_scalar_dtype(x(0))
    if type(x) in (bool, int, float, complex):
        return dtypes.python_scalar_dtype(x)
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.dtype
    if isinstance(x, np.ndarray) or (not isinstance(x, (str, type, np.dtype))
                                     and hasattr(x, "dtype")):
        return dtypes.canonicalize_dtype(x.dtype)
    dt = np.dtype(x)
    if dt.kind not in "biufc" and dt not in (dtypes.bfloat16, *dtypes.float8_types):
        raise TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array type. Only "
                        "arrays of numeric types are supported by JAX.")
    return dtypes.canonicalize_dtype(dt)


def _moveaxis(x, src, dst):
    perm = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return transpose(x, tuple(perm))


def _asarray(x):
    return x if hasattr(x, "aval") else device_put_value(np.asarray(x))


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches a convolution of window ``filter_shape`` reads, as channels: output
    feature ``c * prod(filter_shape) + k`` is input channel ``c`` at window position ``k``."""
    lhs = _asarray(lhs)
    filter_shape = tuple(filter_shape)
    dnums = conv_dimension_numbers(lhs.shape, (1, 1) + filter_shape, dimension_numbers)
    lhs_spec, rhs_spec, _ = dnums
    spatial_size = math.prod(filter_shape)
    n_channels = lhs.shape[lhs_spec[1]]
    # An identity kernel per channel moves each window position into its own output channel.
    eye = np.eye(spatial_size, dtype=get_aval(lhs).dtype)
    rhs = broadcast_in_dim(eye, (n_channels, spatial_size, spatial_size), (1, 2))
    rhs = reshape(rhs, (n_channels * spatial_size, 1, *filter_shape))
    rhs = _moveaxis(rhs, (0, 1), (rhs_spec[0], rhs_spec[1]))
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dnums,
        precision=None if precision is None else (precision, Precision.DEFAULT),
        feature_group_count=n_channels, preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """A locally connected convolution: like ``conv_general_dilated`` but with a separate
    kernel at every output position (``rhs`` has the output's spatial axes, and an input
    feature axis of size ``in_channels * prod(filter_shape)``)."""
    lhs = _asarray(lhs)
    c_precision = canonicalize_precision(precision)
    lhs_precision = None if c_precision is None else c_precision[0]
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
        precision=lhs_precision)
    _, rhs_spec, out_spec = conv_dimension_numbers(lhs.shape, (1, 1) + tuple(filter_shape),
                                                   dimension_numbers)
    lhs_c_dims, rhs_c_dims = [out_spec[1]], [rhs_spec[1]]
    lhs_b_dims = out_spec[2:]
    rhs_b_dims = rhs_spec[2:]
    rhs_b_dims = [rhs_b_dims[i] for i in sorted(range(len(rhs_b_dims)),
                                                key=lambda k: lhs_b_dims[k])]
    lhs_b_dims = sorted(lhs_b_dims)
    dn = ((lhs_c_dims, rhs_c_dims), (lhs_b_dims, rhs_b_dims))
    out = dot_general(patches, rhs, dimension_numbers=dn, precision=precision)
    return _moveaxis(out, (out.ndim - 2, out.ndim - 1), (out_spec[0], out_spec[1]))


def collapse(operand, start_dimension, stop_dimension=None):
    """``operand`` with axes ``[start_dimension, stop_dimension)`` raveled into one (the
    lowest-numbered axis varying slowest); ``None`` collapses through the last axis."""
    shape = tuple(get_aval(operand).shape)
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def broadcast_like(arr, like_arr):
    """``arr`` broadcast (NumPy-style, trailing axes aligned) to the shape of ``like_arr``,
    keeping its own dtype and weak type."""
    aval, shape = get_aval(arr), tuple(get_aval(like_arr).shape)
    if aval.ndim > len(shape):
        raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={aval.shape} shape={shape}")
    lead = len(shape) - aval.ndim
    if any(d not in (1, s) for d, s in zip(aval.shape, shape[lead:])):
        raise ValueError(f"Incompatible types for broadcasting: input type={_type_str(aval)} "
                         f"and requested type={_type_str(aval.update(shape=shape))}")
    if tuple(aval.shape) == shape and hasattr(arr, "aval"):
        return arr
    return broadcast_in_dim(arr, shape, tuple(range(lead, len(shape))))


def _type_str(aval):
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def index_take(src, idxs, axes):
    """``src`` indexed along ``axes`` by the index arrays ``idxs`` (one per axis, of one shape
    ``(n,)``); negative indices count from the end, as in JAX (they are taken modulo the
    axis size). The result has the index axis first, then ``src``'s other axes."""
    axes = tuple(axes)
    src_shape = tuple(get_aval(src).shape)
    for i in idxs:
        if not dtypes.issubdtype(get_aval(i).dtype, np.integer):
            raise ValueError("indices must have an integer type")
    indices = concatenate([expand_dims(i, (1,)) for i in idxs], 1)
    idx_dtype = get_aval(indices).dtype
    # floor modulo by each axis size: a negative remainder wraps up by the size
    size = broadcast_in_dim(np.array([src_shape[a] for a in axes], idx_dtype),
                            get_aval(indices).shape, (1,))
    r = rem(indices, size)
    indices = select(lt(r, np.zeros((), idx_dtype)), add(r, size), r)
    slice_sizes = tuple(1 if a in axes else d for a, d in enumerate(src_shape))
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(range(1, len(src_shape) - len(axes) + 1)),
        collapsed_slice_dims=axes, start_index_map=axes)
    return gather(src, indices, dnums, slice_sizes, mode="promise_in_bounds")


def empty(shape, dtype, *, out_sharding=None):
    """An array of ``shape`` and ``dtype`` whose values the program does not define (XLA on
    CPU gives zeros, as JAX's)."""
    shape = (shape,) if np.ndim(shape) == 0 else shape
    dtype = dtypes.canonicalize_dtype(dtype, allow_extended_dtype=True)  # keys: zero keys
    return lay_out(full(shape, 0, dtype), out_sharding)


def shape_as_value(shape):
    """A static ``shape`` as a 1-D int32 value (a NumPy array; an empty shape gives an empty
    device array, as in JAX)."""
    shape = _static_ints(shape, "shape_as_value", "shape")
    if not shape:
        return full((0,), 0, np.int32)
    return np.asarray(shape, dtype=np.int32)
