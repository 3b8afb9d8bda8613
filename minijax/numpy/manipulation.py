"""NumPy's array manipulation routines: reshape, transpose, squeeze, broadcast, join, split,
flip, roll, rot90, pad, tile, repeat, resize, insert, delete, append ... All shapes, axes, shifts,
repeats and inserted/deleted indices are static (Python ints), as XLA needs them at compile
time; the values themselves may be traced. (NumPy's one-function padding section, ``pad``, is
here too: it and ``repeat`` call each other.)
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import Tracer, concrete_or_error
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import (
    broadcast_shapes,
    broadcast_to_shape,
    canonicalize_axis,
    check_arraylike,
    concrete_value,
    convert,
    index_tuple,
    promote_dtypes,
)
from minijax.numpy._util import shape as _shape
from minijax.numpy.creation import to_array
from minijax.sharding import auto_axes
from minijax.source_info import with_user_line
from minijax.tree_util import tree_map

__all__ = [
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "moveaxis", "swapaxes",
    "squeeze", "expand_dims", "broadcast_to", "broadcast_arrays", "broadcast_shapes",
    "concatenate", "concat", "stack", "vstack", "hstack", "dstack", "column_stack", "split",
    "array_split", "hsplit", "vsplit", "flip", "fliplr", "flipud", "roll", "pad", "tile", "repeat",
    "atleast_1d", "atleast_2d", "atleast_3d", "shape", "ndim", "size", "rot90", "block",
    "row_stack", "dsplit", "unstack", "rollaxis", "resize", "trim_zeros", "delete", "insert",
    "append",
]


def shape(a):
    # As JAX: anything with a ``shape`` (ShapeDtypeStruct, typed key arrays) answers it.
    if hasattr(a, "shape"):
        return a.shape
    check_arraylike("shape", a)
    return _shape(a)


def ndim(a):
    return a.ndim if hasattr(a, "ndim") else len(shape(a))


def size(a, axis=None):
    if axis is None and hasattr(a, "size"):
        return a.size
    s = shape(a)
    if axis is None:
        return math.prod(s)
    return s[canonicalize_axis(axis, len(s))]


# ------------------------------------------------------------------------------------------------
# Reshaping


def _static_shape(newshape):
    try:  # a sequence (a NumPy array included), else one size
        iter(newshape)
    except TypeError:
        newshape = (newshape,)
    return tuple(
        concrete_or_error(operator.index, d, "jnp.reshape (shapes must be static)")
        for d in newshape
    )


def _resolve_shape(old_shape, shape):
    """``shape`` (as the caller spelled it: JAX's errors print it so) as a tuple, its one
    ``-1`` filled in; other negative sizes are lax.reshape's to refuse, as in JAX."""
    newshape = _static_shape(shape)
    size_ = math.prod(old_shape)
    unknown = [i for i, d in enumerate(newshape) if d == -1]
    if len(unknown) > 1:
        raise TypeError(f"can only specify one unknown axis size with a `-1` value, got {shape}")
    if unknown:
        (i,) = unknown
        known = math.prod(newshape[:i] + newshape[i + 1:])
        if size_ % known:  # a zero size among the others: JAX's ZeroDivisionError too
            raise TypeError(
                f"cannot reshape array of shape {old_shape} (size {size_}) into shape {shape} "
                f"because the product of specified axis sizes ({known}) does not evenly divide "
                f"{size_}")
        return newshape[:i] + (size_ // known,) + newshape[i + 1:]
    if math.prod(newshape) != size_:
        raise TypeError(f"cannot reshape array of shape {old_shape} (size {size_}) into shape "
                        f"{shape} (size {math.prod(newshape)})")
    return newshape


def reshape(a, shape=None, order="C", *, newshape=None, copy=None, out_sharding=None):
    """``a`` with a new shape of the same size (one ``-1`` is inferred), read and written in
    C order, or in Fortran order (``order='F'``: reversed axes on both sides)."""
    if newshape is not None:
        if shape is not None:
            raise TypeError("jnp.reshape received both `shape` and `newshape` arguments.")
        shape = newshape
    if shape is None:
        raise TypeError("jnp.reshape requires a `shape` argument")
    if order == "A":  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("np.reshape order=A is not implemented.")
    if order not in ("C", "F"):
        raise ValueError(f"Unexpected value for 'order' argument: {order}.")
    check_arraylike("reshape", a)
    a = to_array(a)
    new = _resolve_shape(a.shape, shape)
    if order == "F":
        return lax.transpose(lax.reshape(lax.transpose(a, tuple(range(a.ndim))[::-1]),
                                         new[::-1]), tuple(range(len(new)))[::-1])
    if out_sharding is not None:
        return lax.reshape(a, new, out_sharding=out_sharding)
    return a if new == a.shape else lax.reshape(a, new)


def ravel(a, order="C", *, out_sharding=None):
    check_arraylike("ravel", a)
    a = to_array(a)
    if order == "K":  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Ravel not implemented for order='K'.")
    if order != "C":
        return reshape(a, (a.size,), order, out_sharding=out_sharding)
    if out_sharding is not None:
        return lax.reshape(a, (a.size,), out_sharding=out_sharding)
    return a if a.ndim == 1 else lax.reshape(a, (a.size,))


def transpose(a, axes=None):
    """Axes permuted (reversed when ``axes`` is None)."""
    check_arraylike("transpose", a)
    a = to_array(a)
    if axes is None:
        perm = tuple(range(a.ndim))[::-1]
    else:
        perm = tuple(canonicalize_axis(ax, a.ndim) for ax in axes)  # lax.transpose checks it
    return a if perm == tuple(range(a.ndim)) else lax.transpose(a, perm)


def permute_dims(a, /, axes):
    # straight to lax.transpose, as JAX: no negative axes, lax's error for a bad permutation
    check_arraylike("permute_dims", a)
    return lax.transpose(to_array(a), axes)


def matrix_transpose(x, /):
    """The last two axes swapped (``x.mT``)."""
    x = to_array(x)
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got {x.ndim=}")
    perm = (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2)
    return lax.transpose(x, perm)


def moveaxis(a, source, destination):
    a = to_array(a)
    # no check for repeats (JAX has none): they make a bad permutation, lax.transpose's error
    src = tuple(canonicalize_axis(ax, a.ndim) for ax in index_tuple(source))
    dst = tuple(canonicalize_axis(ax, a.ndim) for ax in index_tuple(destination))
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(src)} vs {len(dst)}")
    perm = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


@eager_jit(static_argnames=("axis1", "axis2"))
def swapaxes(a, axis1, axis2):
    a = to_array(a)
    # JAX swaps entries of a NumPy array: a bad axis is NumPy's IndexError ("index 2 is out of
    # bounds for axis 0 with size 2", axis2's first), a tuple "too many indices"
    perm = np.arange(a.ndim)
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return transpose(a, perm.tolist())


def squeeze(a, axis=None):
    """Size-1 axes removed (all of them, or those in ``axis``, which must have size 1)."""
    check_arraylike("squeeze", a)
    a = to_array(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(a.shape) if d == 1)
    else:
        axes = tuple(canonicalize_axis(ax, a.ndim) for ax in index_tuple(axis))
        if len(set(axes)) != len(axes):  # lax.squeeze's check, in JAX's words
            raise ValueError(f"dimensions are not unique: {axes}")
        for ax in axes:
            if a.shape[ax] != 1:
                raise ValueError(
                    "cannot select an axis to squeeze out which has size not equal to one, got "
                    f"shape={a.shape} and dimensions={axes}")
    return lax.squeeze(a, axes) if axes else a


def expand_dims(a, axis):
    """New size-1 axes at the positions ``axis`` of the result."""
    check_arraylike("expand_dims", a)
    a = to_array(a)
    axes = index_tuple(axis)
    # lax.expand_dims's checks in JAX's order and words: repeats as given, the range, repeats
    # once canonical (a list there)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in lax.expand_dims: {axes}")
    dims = [canonicalize_axis(ax, a.ndim + len(axes)) for ax in axes]
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    return lax.expand_dims(a, dims)


# ------------------------------------------------------------------------------------------------
# Broadcasting


def broadcast_to(array, shape, *, out_sharding=None):
    """``array`` broadcast to ``shape`` by NumPy's rules (a view in NumPy, a copy here),
    split over Explicit mesh axes as ``out_sharding`` says."""
    check_arraylike("broadcast_to", array)
    target = _static_shape(shape)
    a = to_array(array)
    if a.ndim > len(target) or broadcast_shapes(a.shape, target) != target:
        raise ValueError(f"Incompatible shapes for broadcasting: {a.shape} and requested shape "
                         f"{target}")
    return broadcast_to_shape(a, target, out_sharding)


def broadcast_arrays(*args):
    check_arraylike("broadcast_arrays", *args)
    arrays = [to_array(a) for a in args]
    out_shape = broadcast_shapes(*[a.shape for a in arrays])
    return [broadcast_to_shape(a, out_shape) for a in arrays]


# ------------------------------------------------------------------------------------------------
# Joining


def _as_arrays(name, arrays):
    if isinstance(arrays, (np.ndarray, Tracer)) or hasattr(arrays, "aval"):
        arrays = [arrays[i] for i in range(len(arrays))]
    arrays = list(arrays)
    check_arraylike(name, *arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    return [to_array(a) for a in promote_dtypes(*arrays)]


def concatenate(arrays, axis=0, dtype=None):
    """Arrays joined along ``axis`` (``axis=None`` joins them flattened)."""
    arrays = _as_arrays("concatenate", arrays)
    if dtype is not None:
        arrays = [convert(a, dtype) for a in arrays]
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    if arrays[0].ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, arrays[0].ndim)
    return arrays[0] if len(arrays) == 1 else lax.concatenate(arrays, axis)


def concat(arrays, /, *, axis=0):
    return concatenate(arrays, axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """Arrays of one shape joined along a new ``axis``. A sequence is JAX's ``stack`` primitive
    (its transpose is one ``unstack``, whose sharding Shardy propagates as JAX's); one array is
    a concatenate of its rows, each with a unit axis at ``axis``, as JAX does."""
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    if out is not None:
        # JAX 0.10.2 refuses `out` with this NotImplementedError
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if isinstance(arrays, (np.ndarray, Tracer)) or hasattr(arrays, "aval"):
        axis = canonicalize_axis(axis, arrays.ndim)
        return concatenate(expand_dims(arrays, axis + 1), axis, dtype)
    arrays = list(arrays)
    check_arraylike("stack", *arrays)
    arrays = ([convert(a, dtype) for a in arrays] if dtype is not None
              else promote_dtypes(*arrays))
    arrays = [to_array(a) for a in arrays]
    return lax.stack(arrays, canonicalize_axis(axis, arrays[0].ndim + 1))


@eager_jit(inline=False)
def atleast_1d(*arys):
    out = [a if a.ndim >= 1 else lax.reshape(a, (1,)) for a in map(to_array, arys)]
    return out[0] if len(out) == 1 else out


@eager_jit(inline=False)
def atleast_2d(*arys):
    out = []
    for a in map(to_array, arys):
        if a.ndim < 2:
            a = lax.reshape(a, (1,) * (2 - a.ndim) + a.shape)
        out.append(a)
    return out[0] if len(out) == 1 else out


@eager_jit(inline=False)
def atleast_3d(*arys):
    out = []
    for a in map(to_array, arys):
        if a.ndim == 0:
            a = lax.reshape(a, (1, 1, 1))
        elif a.ndim == 1:
            a = lax.reshape(a, (1, a.shape[0], 1))
        elif a.ndim == 2:
            a = lax.expand_dims(a, (2,))
        out.append(a)
    return out[0] if len(out) == 1 else out


def _list_of(name, tup):
    if isinstance(tup, (np.ndarray, Tracer)) or hasattr(tup, "aval"):
        return [tup[i] for i in range(len(tup))]
    return list(tup)


def vstack(tup, dtype=None):
    return concatenate([atleast_2d(a) for a in _list_of("vstack", tup)], 0, dtype)


def hstack(tup, dtype=None):
    arrays = [atleast_1d(a) for a in _list_of("hstack", tup)]
    return concatenate(arrays, 0 if arrays and arrays[0].ndim == 1 else 1, dtype)


def dstack(tup, dtype=None):
    return concatenate([atleast_3d(a) for a in _list_of("dstack", tup)], 2, dtype)


def column_stack(tup):
    arrays = []
    for a in map(to_array, _list_of("column_stack", tup)):
        arrays.append(lax.reshape(a, (a.shape[0], 1)) if a.ndim < 2 else a)
    return concatenate(arrays, 1)


# ------------------------------------------------------------------------------------------------
# Splitting


def _split(name, ary, indices_or_sections, axis, strict):
    check_arraylike(name, ary)
    a = to_array(ary)
    n = a.shape[operator.index(axis)]  # JAX's first look at axis: IndexError if out of range
    axis = canonicalize_axis(axis, a.ndim)
    if isinstance(indices_or_sections, (tuple, list)) or (
            isinstance(indices_or_sections, np.ndarray) and indices_or_sections.ndim == 1):
        cuts = [operator.index(i) for i in indices_or_sections]
        bounds = [0, *(builtins.min(builtins.max(c + n if c < 0 else c, 0), n) for c in cuts), n]
    else:
        sections = concrete_or_error(operator.index, indices_or_sections,
                                     f"jnp.{name} (the number of sections must be static)")
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if strict and n % sections:
            raise ValueError("array split does not result in an equal division")
        base, extra = divmod(n, sections)
        sizes = [base + 1] * extra + [base] * (sections - extra)
        bounds = [0, *np.cumsum(sizes).tolist()]
    if all(lo <= hi for lo, hi in zip(bounds[:-1], bounds[1:])):  # pieces tile the axis
        # NumPy integers, as JAX's sizes (its jaxprs print them np.int64)
        return lax.split(a, [np.int64(hi - lo) for lo, hi in zip(bounds[:-1], bounds[1:])],
                         axis=axis)
    out = []  # decreasing cuts (NumPy allows them): overlapping or empty pieces
    for start, stop in zip(bounds[:-1], bounds[1:]):
        stop = builtins.max(start, stop)
        out.append(lax.slice_in_dim(a, start, stop, axis=axis))
    return out


def split(ary, indices_or_sections, axis=0):
    """Equal ``sections``, or pieces cut at ``indices`` along ``axis``."""
    return _split("split", ary, indices_or_sections, axis, strict=True)


def array_split(ary, indices_or_sections, axis=0):
    return _split("array_split", ary, indices_or_sections, axis, strict=False)


def hsplit(ary, indices_or_sections):
    a = to_array(ary)
    return split(a, indices_or_sections, axis=0 if a.ndim == 1 else 1)


def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=0)


# ------------------------------------------------------------------------------------------------
# Reordering, padding, repetition


def flip(m, axis=None):
    check_arraylike("flip", m)
    return _flip(to_array(m), axis)


@eager_jit(static_argnames=("axis",), list_argnames=("axis",), inline=False)
def _flip(m, axis=None):
    axes = tuple(range(m.ndim)) if axis is None else tuple(
        canonicalize_axis(ax, m.ndim) for ax in index_tuple(axis))
    if len(set(axes)) != len(axes):  # lax.rev's check, in JAX's words (a TypeError there)
        raise TypeError(f"rev dimensions must be unique, got {axes}.")
    return lax.rev(m, axes) if axes else m


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    """Elements shifted by ``shift`` positions along ``axis`` (wrapping around); ``axis=None``
    rolls the flattened array and restores the shape. As JAX: a static shift is the jit
    ``_roll_static``, a traced one ``_roll_dynamic`` (a dynamic slice of the doubled array)."""
    check_arraylike("roll", a)
    a = to_array(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    axis = tuple(canonicalize_axis(ax, a.ndim) for ax in _index_tuple(axis))
    try:
        shift = _index_tuple(shift)
    except TypeError:
        return _roll_dynamic(a, jnp.asarray(shift), axis)
    return _roll_static(a, shift, axis)


def _index_tuple(x):
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


@eager_jit(static_argnames=("axis",), inline=False)
def _roll_dynamic(a, shift, axis):
    b_shape = broadcast_shapes(shift.shape, np.shape(axis))
    if len(b_shape) != 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    for x, i in zip(broadcast_to(shift, b_shape), np.broadcast_to(axis, b_shape).tolist()):
        n = jnp.array(a.shape[i], dtype=np.int32)
        x = jnp.remainder(lax.convert_element_type(x, np.int32), lax.max(n, np.int32(1)))
        doubled = lax.concatenate((a, a), i)
        a = lax.dynamic_slice_in_dim(doubled, n - x, a.shape[i], axis=i)
    return a


@eager_jit(static_argnames=("shift", "axis"), inline=False)
def _roll_static(a, shift, axis):
    for ax, s in zip(*(v.tolist() for v in np.broadcast_arrays(axis, shift))):
        n = a.shape[ax]
        if n == 0:
            continue
        i = (-s) % n
        a = lax.concatenate([lax.slice_in_dim(a, i, n, axis=ax), lax.slice_in_dim(a, 0, i, axis=ax)],
                            ax)
    return a


def _pad_pairs(values, ndim, name):
    """NumPy's spellings of per-axis pairs (``v``, ``(v,)``, ``(before, after)``, ``((b, a),)``
    or one pair per axis) as ``ndim`` static pairs, as JAX's ``_broadcast_to_pairs``."""
    values = np.asarray(tree_map(
        lambda v: concrete_or_error(None, v, f"{name} argument of jnp.pad"), values))
    if values.shape == (ndim, 2):
        return tuple((v[0], v[1]) for v in values)
    if values.shape in ((1, 2), (2,)):
        pair = tuple(values.reshape(2))
        return (pair,) * ndim
    if values.shape in ((1,), ()):
        v = values.reshape(())[()]
        return ((v, v),) * ndim
    raise ValueError(f"jnp.pad: {name} with nd={ndim} has unsupported shape {values.shape}. "
                     f"Valid shapes are ({ndim}, 2), (1, 2), (2,), (1,), or ().")


def _check_no_padding(widths, mode):
    if widths[0] > 0 or widths[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_constant(a, widths, values):
    values = to_array(values)
    values = convert(values, a.dtype, a.aval.weak_type)
    if values.ndim == 0 or values.shape == (1,):
        # the widths stay NumPy ints (JAX's, printed as np.int64(2)); a scalar goes as it is
        values = values if values.ndim == 0 else lax.squeeze(values, (0,))
        return lax.pad(a, values, tuple((lo, hi, 0) for lo, hi in widths))
    if values.ndim == 1 and values.shape[-1] != 2:
        raise ValueError(f"jnp.pad: constant_values has unsupported shape {values.shape}. If "
                         "the shape is 1D or 2D, the last dimension must be of size 1 or 2.")
    values = broadcast_to(values, (a.ndim, 2))
    for ax, (lo, hi) in enumerate(widths):
        for side, n in ((0, lo), (1, hi)):
            if n:
                config = [(0, 0, 0)] * a.ndim
                config[ax] = (n, 0, 0) if side == 0 else (0, n, 0)
                a = lax.pad(a, values[ax, side], tuple(config))
    return a


def _pad_wrap(a, widths):
    for ax, (lo, hi) in enumerate(widths):
        n = a.shape[ax]
        if n == 0:
            _check_no_padding((lo, hi), "wrap")
            continue
        (lo_repeats, lo_rest), (hi_repeats, hi_rest) = divmod(lo, n), divmod(hi, n)
        parts = [lax.slice_in_dim(a, n - lo_rest, n, axis=ax)] if lo_rest else []
        parts += [a] * (lo_repeats + hi_repeats + 1)
        parts += [lax.slice_in_dim(a, 0, hi_rest, axis=ax)] if hi_rest else []
        a = lax.concatenate(parts, ax) if len(parts) > 1 else a
    return a


def _pad_mirror(a, widths, mode, reflect_type):
    """``reflect`` (the edge not repeated) or ``symmetric`` (repeated); pads longer than the
    axis mirror the already padded array again, as NumPy. ``odd`` reflects about the edge
    value (``2 * edge - x``)."""
    for ax, (lo, hi) in enumerate(widths):
        n = a.shape[ax]
        if n == 0:
            _check_no_padding((lo, hi), mode)
            continue
        offset = 1 if mode == "reflect" and n > 1 else 0
        for before, padding in ((True, lo), (False, hi)):
            edge = lax.slice_in_dim(a, 0, 1, axis=ax) if before else \
                lax.slice_in_dim(a, a.shape[ax] - 1, a.shape[ax], axis=ax)
            while padding > 0:
                step = builtins.min(padding, n - offset)
                padding -= step
                size = a.shape[ax]
                if before:
                    start, stop = offset, offset + step
                else:
                    start = size - step - offset
                    stop = size if mode == "symmetric" or n == 1 else size - 1
                x = flip(lax.slice_in_dim(a, start, stop, axis=ax), ax)
                if reflect_type == "odd":
                    x = lax.sub(lax.mul(convert(2, a.dtype, True), edge), x)
                    if n > 1:
                        edge = lax.slice_in_dim(x, 0, 1, axis=ax) if before else \
                            lax.slice_in_dim(x, step - 1, step, axis=ax)
                a = lax.concatenate([x, a] if before else [a, x], ax)
    return a


def _pad_edge(a, widths):
    for ax, (lo, hi) in enumerate(widths):
        n = a.shape[ax]
        if n == 0:
            _check_no_padding((lo, hi), "edge")
            continue
        before = repeat(lax.slice_in_dim(a, 0, 1, axis=ax), lo, axis=ax)
        after = repeat(lax.slice_in_dim(a, n - 1, n, axis=ax), hi, axis=ax)
        a = lax.concatenate([before, a, after], ax)
    return a


def _pad_linear_ramp(a, widths, end_values):
    weak = a.aval.weak_type
    for ax, ((lo, hi), (end_lo, end_hi)) in enumerate(zip(widths, end_values)):
        n = a.shape[ax]
        ramps = []
        for num, end, edge in ((lo, end_lo, lax.slice_in_dim(a, 0, 1, axis=ax)),
                               (hi, end_hi, lax.slice_in_dim(a, n - 1, n, axis=ax))):
            ramp = jnp.linspace(end, lax.squeeze(edge, (ax,)), num, endpoint=False,
                                dtype=a.dtype, axis=ax)
            ramps.append(convert(ramp, a.dtype, weak))
        a = lax.concatenate([ramps[0], a, flip(ramps[1], ax)], ax)
    return a


def _pad_stats(a, widths, stat_length, stat):
    weak = a.aval.weak_type
    for ax, (lo, hi) in enumerate(widths):
        if stat_length is None:
            before = after = stat(a, axis=ax, keepdims=True)
        else:
            n = a.shape[ax]
            len_lo, len_hi = stat_length[ax]
            if len_lo == 0 or len_hi == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            len_lo, len_hi = builtins.min(len_lo, n), builtins.min(len_hi, n)
            before = stat(lax.slice_in_dim(a, 0, len_lo, axis=ax), axis=ax, keepdims=True)
            after = stat(lax.slice_in_dim(a, n - len_hi, n, axis=ax), axis=ax, keepdims=True)
        if dtypes.is_int(a.dtype):  # a mean or median of integers rounds half to even
            before, after = jnp.round(before), jnp.round(after)
        before, after = convert(before, a.dtype, weak), convert(after, a.dtype, weak)
        a = lax.concatenate([repeat(before, lo, axis=ax), a, repeat(after, hi, axis=ax)], ax)
    return a


def _pad_empty(a, widths):
    # JAX's empty is zeros.
    return lax.pad(a, convert(0, a.dtype), tuple((lo, hi, 0) for lo, hi in widths))


_PAD_KWARGS = {
    "empty": (), "edge": (), "wrap": (), "constant": ("constant_values",),
    "linear_ramp": ("end_values",), "maximum": ("stat_length",), "mean": ("stat_length",),
    "median": ("stat_length",), "minimum": ("stat_length",), "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}


def pad(array, pad_width, mode="constant", **kwargs):
    """NumPy's ``pad``, every mode JAX has: ``constant`` (``constant_values``), ``edge``,
    ``wrap``, ``reflect`` / ``symmetric`` (``reflect_type``), ``linear_ramp``
    (``end_values``), ``maximum`` / ``minimum`` / ``mean`` / ``median`` (``stat_length``),
    ``empty`` (zeros) or a callable ``mode(vector, iaxis_pad_width, iaxis, kwargs)``."""
    check_arraylike("pad", array)
    a = to_array(array)
    widths = _pad_pairs(pad_width, a.ndim, "pad_width")
    if widths and not all(isinstance(w, (int, np.integer)) for pair in widths for w in pair):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        padded = _pad_constant(a, widths, 0)
        for ax in range(padded.ndim):
            padded = jnp.apply_along_axis(mode, ax, padded, widths[ax], ax, kwargs)
        return padded
    if mode not in _PAD_KWARGS:
        # JAX 0.10.2 refuses other modes with this NotImplementedError too.
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    return _pad(a, widths, mode, kwargs.get("constant_values", 0), kwargs.get("stat_length"),
                kwargs.get("end_values", 0), kwargs.get("reflect_type", "even"))


@eager_jit(static_argnames=("pad_width", "mode", "stat_length", "end_values", "reflect_type"),
           inline=False)
def _pad(a, pad_width, mode, constant_values, stat_length, end_values, reflect_type):
    """JAX's jit: everything static but the array and ``constant_values``."""
    widths = pad_width
    if a.ndim == 0:
        return a  # as JAX: a scalar has no axis to pad
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(a, widths, constant_values)
    if mode == "wrap":
        return _pad_wrap(a, widths)
    if mode in ("reflect", "symmetric"):
        if reflect_type not in ("even", "odd"):
            raise ValueError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
        return _pad_mirror(a, widths, mode, reflect_type)
    if mode == "edge":
        return _pad_edge(a, widths)
    if mode == "linear_ramp":
        return _pad_linear_ramp(a, widths, _pad_pairs(end_values, a.ndim, "end_values"))
    if mode == "empty":
        return _pad_empty(a, widths)
    if stat_length is not None:
        stat_length = _pad_pairs(stat_length, a.ndim, "stat_length")
    stat = {"maximum": jnp.max, "minimum": jnp.min, "mean": jnp.mean, "median": jnp.median}
    return _pad_stats(a, widths, stat_length, stat[mode])


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis: JAX's ``lax.tile`` (after new leading axes
    where ``reps`` is longer than ``A``'s rank)."""
    check_arraylike("tile", A)
    a = to_array(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    reps = tuple(operator.index(r) for r in reps)
    reps = (1,) * (a.ndim - len(reps)) + reps
    if len(reps) > a.ndim:
        a = lax.expand_dims(a, tuple(range(len(reps) - a.ndim)))
    return lax.tile(a, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
    """Each element repeated ``repeats`` times (an int, or one static count per element). On
    a mesh of Explicit axes the result is typed ``out_sharding``, which a value split along
    ``axis`` needs (JAX's rule); else the input's split."""
    check_arraylike("repeat", a)
    a = to_array(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    if out_sharding is None and a.aval.explicit is not None:
        if a.aval.explicit[1][canonicalize_axis(axis, a.ndim)] is not None:
            raise ValueError(with_user_line(
                "Please pass sharding to `jnp.repeat` via `out_sharding` parameter."))
        out_sharding = a.aval.sharding
    if out_sharding is not None:
        return auto_axes(lambda x: repeat(x, repeats, axis,
                                          total_repeat_length=total_repeat_length),
                         out_sharding=out_sharding)(a)
    axis = canonicalize_axis(axis, a.ndim)
    if isinstance(repeats, Tracer):
        raise concrete_or_error(None, repeats, "jnp.repeat (repeats must be static)")
    counts = np.asarray(repeats)
    if counts.ndim == 0:
        r = operator.index(counts.item())
        if r < 0:
            raise ValueError("repeats may not contain negative values.")
        n = a.shape[axis]
        shape_b = a.shape[:axis + 1] + (r,) + a.shape[axis + 1:]
        dims = tuple(i if i <= axis else i + 1 for i in range(a.ndim))
        out = lax.reshape(lax.broadcast_in_dim(a, shape_b, dims),
                          a.shape[:axis] + (n * r,) + a.shape[axis + 1:])
    else:
        counts = [operator.index(c) for c in counts.reshape(-1).tolist()]
        if len(counts) == 1:
            return repeat(a, counts[0], axis, total_repeat_length=total_repeat_length)
        if len(counts) != a.shape[axis]:
            raise ValueError(f"repeats has length {len(counts)} but the axis has size "
                             f"{a.shape[axis]}")
        if any(c < 0 for c in counts):
            raise ValueError("repeats may not contain negative values.")
        pieces = [repeat(lax.slice_in_dim(a, i, i + 1, axis=axis), c, axis)
                  for i, c in enumerate(counts) if c]
        if not pieces:
            out = lax.slice_in_dim(a, 0, 0, axis=axis)
        else:
            out = pieces[0] if len(pieces) == 1 else lax.concatenate(pieces, axis)
    if total_repeat_length is not None:
        length = out.shape[axis]
        if total_repeat_length <= length:
            out = lax.slice_in_dim(out, 0, total_repeat_length, axis=axis)
        else:  # JAX pads with the last value
            out = pad(out, [(0, total_repeat_length - length) if i == axis else (0, 0)
                            for i in range(out.ndim)], mode="edge")
    return out


# ------------------------------------------------------------------------------------------------
# Rotating, block assembly, resizing, inserting and deleting (static indices: an output shape
# cannot depend on traced values)


@eager_jit(static_argnames=("k", "axes"), inline=False)
def rot90(m, k=1, axes=(0, 1)):
    check_arraylike("rot90", m)
    m = to_array(m)
    ax1, ax2 = (canonicalize_axis(a, m.ndim) for a in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return transpose(flip(m, ax2), perm)
    return flip(transpose(m, perm), ax2)


@eager_jit(inline=False)
def block(arrays):
    """NumPy's ``block``: nested lists, the innermost concatenated along the last axis."""
    def depth(x):
        return 1 + depth(x[0]) if isinstance(x, list) and x else (1 if isinstance(x, list) else 0)

    if isinstance(arrays, tuple):
        raise TypeError("jnp.block does not allow tuples; use lists")
    d = depth(arrays)

    def leaves(x):
        return [leaf for y in x for leaf in leaves(y)] if isinstance(x, list) else [to_array(x)]

    ndim = max([d] + [leaf.ndim for leaf in leaves(arrays)])

    def rec(x, level):
        if not isinstance(x, list):
            x = to_array(x)
            return reshape(x, (1,) * (ndim - x.ndim) + x.shape)
        parts = [rec(y, level + 1) for y in x]
        return concatenate(parts, axis=ndim - d + level)

    return rec(arrays, 0)


def row_stack(tup, dtype=None):
    return vstack(tup, dtype=dtype)


def dsplit(ary, indices_or_sections):
    if to_array(ary).ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, axis=2)


@eager_jit(static_argnames=("axis",))
def unstack(x, /, *, axis=0):
    check_arraylike("unstack", x)
    return lax.unstack(to_array(x), axis=axis)  # as JAX's (its sharding rule, its errors)


@eager_jit(static_argnames=("axis", "start"), inline=False)
def rollaxis(a, axis, start=0):
    a = to_array(a)
    n = a.ndim
    axis = canonicalize_axis(axis, n)
    if not -n <= start <= n:
        raise ValueError(f"start={start} must satisfy {-n}<=start<={n}")
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


def trim_zeros(filt, trim="fb"):
    f = concrete_value(to_array(filt), "jnp.trim_zeros (its output length depends on the values)")
    nz = np.nonzero(f)[0]
    if nz.size == 0:
        return to_array(filt)[:0]
    lo = nz[0] if "f" in trim.lower() else 0
    hi = nz[-1] + 1 if "b" in trim.lower() else f.shape[0]
    return to_array(filt)[int(lo):int(hi)]


@eager_jit(static_argnames=("new_shape",), inline=False)
def resize(a, new_shape):
    a = ravel(to_array(a))
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(
        operator.index(d) for d in new_shape)
    total = int(np.prod(new_shape, dtype=np.int64))
    n = a.shape[0]
    if n == 0 or total == 0:
        return jnp.zeros(new_shape, a.dtype)
    reps = -(-total // n)
    return reshape(tile(a, reps)[:total], new_shape)


def _static_indices(obj, n, what):
    if isinstance(obj, slice):
        return np.arange(n)[obj]
    return concrete_value(to_array(obj) if not isinstance(obj, (int, np.integer)) else
                     np.asarray(obj), what)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    arr = to_array(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = canonicalize_axis(axis, arr.ndim)
    n = arr.shape[axis]
    idx = _static_indices(obj, n, "jnp.delete (indices must be static)")
    if idx.dtype == np.bool_:
        keep = ~idx
    else:
        idx = np.asarray(idx).astype(np.int64).ravel()
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError(f"index out of bounds for axis {axis} with size {n}")
        keep = np.ones(n, bool)
        keep[idx % n if n else idx] = False
    keep = np.nonzero(keep)[0].astype(dtypes.default_int_dtype())
    return jnp.take(arr, jnp.asarray(keep), axis=axis)


def insert(arr, obj, values, axis=None):
    """NumPy's insert with static indices: the result is a gather from ``arr`` and the values."""
    arr = to_array(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = canonicalize_axis(axis, arr.ndim)
    n = arr.shape[axis]
    idx = _static_indices(obj, n + 1, "jnp.insert (indices must be static)")
    idx = np.atleast_1d(np.asarray(idx)).astype(np.int64).ravel()
    idx = np.where(idx < 0, idx + n, idx)
    if idx.size and (idx.min() < 0 or idx.max() > n):
        raise IndexError(f"index out of bounds for axis {axis} with size {n}")
    values = convert(to_array(values), arr.dtype)
    values = reshape(values, (1,) * (arr.ndim - values.ndim) + values.shape)
    if idx.size == 1:  # NumPy: the values' first axis becomes the inserted axis
        values = moveaxis(values, 0, axis)
        k = values.shape[axis]
        idx = np.full(k, idx[0])
    else:
        k = idx.size
    vshape = list(arr.shape)
    vshape[axis] = k
    v = broadcast_to(values, tuple(vshape))
    # the output order: old element j goes to j + #(idx <= j); new element i to idx_sorted[i] + i
    order = np.argsort(idx, kind="stable")
    new_pos = idx[order] + np.arange(k)
    old_pos = np.arange(n) + np.searchsorted(np.sort(idx), np.arange(n), side="right")
    src = np.empty(n + k, np.int64)
    src[old_pos] = np.arange(n)
    src[new_pos] = n + order
    both = concatenate([arr, v], axis=axis)
    return jnp.take(both, jnp.asarray(src.astype(dtypes.default_int_dtype())), axis=axis)


@eager_jit(static_argnames=("axis",), inline=False)
def append(arr, values, axis=None):
    if axis is None:
        return concatenate([ravel(to_array(arr)), ravel(to_array(values))])
    return concatenate([arr, values], axis=axis)
