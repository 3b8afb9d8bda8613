"""Basic indexing (``x[...]``): integers, slices (any step), ``None``, ``Ellipsis`` and traced
integer scalars.

Static parts become one ``lax.slice`` (positive strides), a ``lax.rev`` for negative steps and a
``lax.squeeze`` for integer indices; ``None`` adds axes with ``expand_dims``. A traced (or
device) integer scalar becomes a ``dynamic_slice`` of size 1 whose start is wrapped when
negative, as NumPy counts from the end (XLA then clamps it into bounds, as JAX does).

Advanced indexing (integer arrays, lists, concrete boolean masks, mixed with the above) and
any indexing in mode 'fill'/'drop' is ONE ``lax.gather``, built as JAX's ``_index_to_gather``:
slices are windows (a step gives an index axis), integers and the advanced indices (broadcast
and stacked on a last axis) are collapsed axes; the broadcast dims go where NumPy puts them:
in place of adjacent advanced indices, else first. As in NumPy, integer scalars count as
advanced indices when an array index is present. The indices are assembled with JAX's
operations in JAX's order (negative entries wrapped by a select; they show in a jaxpr), folded
in NumPy when nothing is traced or staged. A boolean scalar (``x[True]``, ``x[False]``) is
NumPy's 0-d mask: a new axis of size 1 indexed by a length-1 or length-0 index array.
Out-of-bounds reads clamp by default, static integers too (``mode='fill'`` gives
``fill_value``).

``x.at[idx]`` (``_IndexUpdateRef``) writes with ONE scatter into ``x``, built as JAX's
``_index_to_gather``: slices and integers are update windows on ``x``'s own axes, advanced
indices are collapsed axes placed where the gather puts them; out-of-bounds updates are dropped
by default.
"""

from __future__ import annotations

import collections.abc
import operator
import warnings

import numpy as np

from minijax import core, dtypes, lax
from minijax.lax.families import const
from minijax.core import Tracer
from minijax.errors import NonConcreteBooleanIndexError
from minijax.lowering.array import Array
from minijax.numpy import creation, math
from minijax.numpy._util import convert, promote_dtypes
from minijax.numpy.creation import to_array
from minijax.sharding import auto_axes

__all__ = ["getitem", "_IndexUpdateRef", "_IndexUpdateHelper"]


def _is_dynamic_int(i):
    """A traced or on-device integer scalar (a bool is a mask, not an index)."""
    if not isinstance(i, (Tracer, Array)):
        return False
    aval = i.aval
    return aval.ndim == 0 and dtypes.is_int(aval.dtype)


def _advanced_error(idx):
    """For an index that reached basic indexing although it is not basic: getitem turns every
    array, list and boolean scalar into an advanced index first, so only values that are no
    index at all (floats arrays, objects) get here."""
    what = type(idx).__name__
    if isinstance(idx, (Tracer, Array, np.ndarray)):
        what = f"an array of shape {tuple(idx.shape)} and dtype {idx.dtype}"
    return IndexError(
        "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
        f"boolean arrays are valid indices, got {what}")


def _is_bool_scalar(i):
    if isinstance(i, (bool, np.bool_)):
        return True
    aval = getattr(i, "aval", None)
    if aval is not None:
        return aval.ndim == 0 and aval.dtype == np.bool_
    return isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype == np.bool_


def _dims_consumed(i):
    """How many axes of the indexed array the index element ``i`` uses up."""
    if i is None or i is Ellipsis or _is_bool_scalar(i):
        return 0
    if isinstance(i, list):
        try:
            i = np.asarray(i)
        except (ValueError, TypeError):
            return 1
    dtype = getattr(i, "dtype", None)
    if dtype is not None and np.dtype(dtype) == np.bool_:
        return np.ndim(i) if not hasattr(i, "aval") else i.aval.ndim
    return 1


def _bool_scalar_axes(ndim, index):
    """NumPy's boolean scalar indices: ``x[True]`` adds an axis of size 1, ``x[False]`` one of
    size 0. As in NumPy, a boolean scalar is a 0-d mask: a new axis of size 1 in ``x`` indexed
    by an advanced index of length 1 (True) or 0 (False), so it broadcasts with other array
    indices the way NumPy's does. Returns the new axes of ``x`` and the index for it."""
    if not isinstance(index, tuple):
        index = (index,)
    if not any(_is_bool_scalar(i) for i in index):
        return (), index
    used = sum(_dims_consumed(i) for i in index)
    out, axes, dim = [], [], 0
    for i in index:
        if _is_bool_scalar(i):
            if isinstance(i, Tracer):
                raise NonConcreteBooleanIndexError(
                    f"Array boolean indices must be concrete; got {i.aval.str_short(True)}: the "
                    "result shape would depend on its value. Use jnp.where or lax.cond instead.")
            axes.append(dim)
            out.append(np.arange(int(bool(np.asarray(i)))))  # JAX's, of NumPy's int
            dim += 1
        elif i is Ellipsis:
            dim += max(ndim - used, 0)
            out.append(i)
        else:
            dim += _dims_consumed(i)
            out.append(i)
    return tuple(axes), tuple(out)


def _with_new_axes(shape, axes):
    """``shape`` with size-1 axes at ``axes`` (those of boolean scalars, ``_bool_scalar_axes``):
    JAX works out the gather on it before it expands the operand."""
    shape = list(shape)
    for a in axes:
        shape.insert(a, 1)
    return tuple(shape)


def _normalize(index, ndim, allow_advanced=False):
    """The index as a tuple with the Ellipsis expanded into full slices."""
    if not isinstance(index, tuple):
        index = (index,)
    for i in index:
        if allow_advanced and _is_advanced(i):
            continue
        if i is None or i is Ellipsis or isinstance(i, slice):
            continue
        if isinstance(i, (bool, np.bool_)):
            raise _advanced_error(i)
        if _is_dynamic_int(i):
            continue
        if isinstance(i, (Tracer, Array, np.ndarray, list)):
            if isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype.kind in "iu":
                continue
            raise _advanced_error(i)
        try:
            operator.index(i)
        except TypeError:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                f"integer or boolean arrays are valid indices, got {i!r}") from None
    n_ellipsis = sum(i is Ellipsis for i in index)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(i is not None and i is not Ellipsis for i in index)
    if used > ndim:
        raise IndexError(
            f"Too many indices: array is {ndim}-dimensional, but {used} were indexed")
    if n_ellipsis:
        at = next(k for k, i in enumerate(index) if i is Ellipsis)
        index = index[:at] + (slice(None),) * (ndim - used) + index[at + 1:]
    else:
        index = index + (slice(None),) * (ndim - used)
    return index


def _basic_getitem(x, index):
    """``x[index]`` for basic indices; see the module docstring."""
    index = _normalize(index, x.ndim)
    shape = x.shape
    starts, limits, strides = [], [], []
    reverse, squeeze, dynamic = [], [], {}
    new_axes = []  # positions of None in the result
    out_pos, dim = 0, 0
    for i in index:
        if i is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        n = shape[dim]
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            # JAX's static slice bounds (the limit is the stop, not one past the last element
            # taken): the same elements, and the same params in the jaxpr
            if step > 0:
                starts.append(start), limits.append(max(start, stop)), strides.append(step)
            else:  # take the same elements in increasing order, then reverse the axis
                first = min(n, stop + 1 + abs(start - stop - 1) % -step)
                starts.append(first), limits.append(max(first, start + 1))
                strides.append(-step)
                reverse.append(dim)
            out_pos += 1
        elif _is_dynamic_int(i):
            if n == 0:
                raise IndexError(f"index is out of bounds for axis {dim} with size 0")
            starts.append(0), limits.append(n), strides.append(1)
            dynamic[dim] = i
            squeeze.append(dim)
        else:
            k = operator.index(i)
            if n == 0:  # XLA cannot index an empty axis
                raise IndexError(f"index is out of bounds for axis {dim} with size 0")
            # Out of bounds clamps, as JAX does for static integers too.
            k = min(max(k + n if k < 0 else k, 0), n - 1)
            starts.append(k), limits.append(k + 1), strides.append(1)
            squeeze.append(dim)
        dim += 1
    if starts != [0] * len(shape) or tuple(limits) != shape or any(s != 1 for s in strides):
        strides_arg = None if all(s == 1 for s in strides) else tuple(strides)
        x = lax.slice(x, tuple(starts), tuple(limits), strides_arg)
    if dynamic:
        x = _dynamic_index(x, dynamic)
    if reverse:
        x = lax.rev(x, tuple(reverse))
    if squeeze:
        x = lax.squeeze(x, tuple(squeeze))
    if new_axes:
        x = lax.expand_dims(x, tuple(new_axes))
    return x


def _dynamic_index(x, dynamic):
    """A size-1 ``dynamic_slice`` on each axis indexed by a traced integer. ``dynamic_slice``
    itself wraps negative starts once (``i + n``) and XLA clamps, as in JAX. Its starts must
    share a dtype, so with more than one axis each is converted, as JAX's indexing converts
    them, to the signed integer dtype the shape needs (int32 for any shape below 2**31)."""
    starts = [dynamic.get(ax, 0) for ax in range(x.ndim)]
    sizes = tuple(1 if ax in dynamic else n for ax, n in enumerate(x.shape))
    if len(starts) > 1:
        dtype = np.int32 if max(x.shape) <= np.iinfo(np.int32).max else np.int64
        starts = [lax.convert_element_type(i, dtype) for i in starts]
    return lax.dynamic_slice(x, starts, sizes)


# ------------------------------------------------------------------------------------------------
# Advanced indexing


def _is_advanced(i):
    """An index array already wrapped by ``_expand_arrays``."""
    return isinstance(i, _AdvIndex)


class _AdvIndex:
    """An advanced index (NumPy int array or traced/device int array), in the original
    tuple's position."""

    def __init__(self, value, mask_shape=None):
        self.value = value
        self.mask_shape = mask_shape  # on the first array of a boolean mask


def _as_index_array(i):
    """``i`` as a NumPy or traced integer array, or the list of them a boolean mask becomes;
    None when ``i`` is not an array-like index."""
    if isinstance(i, list):
        try:
            i = np.asarray(i)
        except (ValueError, TypeError):
            raise IndexError(f"Cannot use the list {i!r} as an index") from None
        if i.size == 0:
            i = i.astype(np.int32)
    if isinstance(i, Tracer) or (isinstance(i, Array) and not isinstance(i, np.ndarray)):
        dt = i.aval.dtype
        if dt == np.bool_:
            if isinstance(i, Tracer):
                raise NonConcreteBooleanIndexError(
                    f"Array boolean indices must be concrete; got {i.aval.str_short(True)}. Its "
                    "result shape would depend on its values: use jnp.where(mask, x, other) or "
                    "jnp.nonzero(mask, size=...) / jnp.where(mask, size=...) instead.")
            i = np.asarray(i)  # a concrete mask: NumPy's nonzero below
        elif not dtypes.is_int(dt):
            raise IndexError(f"Indexing arrays must have an integer or boolean dtype, got {dt}")
        elif i.aval.ndim == 0:
            return None  # a dynamic scalar: handled as basic unless arrays are present
        else:
            return i
    if isinstance(i, np.ndarray):
        if i.dtype == np.bool_:
            return [_AdvIndex(a, i.shape if k == 0 else None)
                    for k, a in enumerate(np.nonzero(i))]
        if i.dtype.kind not in "iu":
            raise IndexError(f"Indexing arrays must have an integer or boolean dtype, got "
                             f"{i.dtype}")
        if i.ndim == 0:
            return None
        return i
    return None


def _expand_arrays(index):
    """The tuple with array indices wrapped in ``_AdvIndex`` (a mask becomes one per axis)."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for i in index:
        a = _as_index_array(i)
        if a is None:
            out.append(i)
        elif isinstance(a, list):
            out.extend(a)
        else:
            out.append(_AdvIndex(a))
    return tuple(out)


def _is_static(index):
    """Whether no entry of the (expanded) index is traced or on a device."""
    for i in index:
        v = i.value if isinstance(i, _AdvIndex) else i
        if isinstance(v, Tracer) or (isinstance(v, Array) and not isinstance(v, np.ndarray)):
            return False
    return True


def _takes_part_of_sharded(x, index):
    """Whether ``index`` takes part of an axis (an integer, or a slice short of the whole axis)
    of an Array on several devices: JAX's ``rewriting_take`` gathers those rather than
    slicing (its slices would misread the sharding), so their errors are gather's."""
    if type(x) is not Array or len(x._sharding._internal_device_list) == 1:
        return False
    dim = 0
    for i in _normalize(index, x.ndim):
        if i is None:
            continue
        if not isinstance(i, slice):
            return True
        start, stop, step = i.indices(x.shape[dim])
        if abs(step) != 1 or abs(stop - start) != x.shape[dim]:
            return True
        dim += 1
    return False


def _index_tuple(index):
    """``index`` as a tuple of indices. As JAX's (``eliminate_deprecated_list_indexing``), a
    list or other non-tuple sequence is refused in JAX's words, for all of NumPy's readings
    of it (``x[[0, 1]]``: use an array; ``x[[0, slice(None)]]``: use a tuple)."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, collections.abc.Sequence) and not isinstance(index, str):
        basic = any(isinstance(i, (np.ndarray, Array)) and np.ndim(i) != 0
                    or isinstance(i, (collections.abc.Sequence, slice))
                    or i is Ellipsis or i is None for i in index)
        raise TypeError(
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            f"`arr[{'tuple' if basic else 'array'}(seq)]` instead of `arr[seq]`. See "
            "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return (index,)


def getitem(x, index, mode=None, fill_value=None):
    """``x[index]``: basic indices as slices, advanced ones with one gather (module docstring).
    ``mode``: None/'clip'/'promise_in_bounds' clamp out-of-bounds reads (only 'clip' also
    gives their gradient to the clamped position), 'fill'/'drop'
    give ``fill_value`` (NaN, or the dtype's extreme, by default)."""
    x = to_array(x)
    index = _index_tuple(index)
    if x.size == 0:
        _check_ints_on_empty_axes(x.shape, index)
    bool_axes, index = _bool_scalar_axes(x.ndim, index)
    index = _expand_arrays(index)
    # As JAX's rewriting_take: slices and integer scalars are basic indexing (a static slice,
    # or a clamping dynamic_slice for a traced scalar) unless out-of-bounds positions must
    # fill or drop: only the gather honours that.
    fills = mode is not None and (lax.GatherScatterMode.from_any(mode)
                                  == lax.GatherScatterMode.FILL_OR_DROP)
    if (not fills and not any(isinstance(i, _AdvIndex) for i in index)
            and not _takes_part_of_sharded(x, index)):
        return _basic_getitem(x, index)
    g = _index_to_gather(_with_new_axes(x.shape, bool_axes), index,
                         fold=core.is_eval_trace_current() and _is_static(index))
    y = lax.expand_dims(x, bool_axes) if bool_axes else x
    if 0 in g.slice_shape:  # as JAX: no gather for an empty result, so its tangent is a symbolic zero
        return lax.full_like(y, 0, shape=g.slice_shape)
    if g.indices.size:
        dn = lax.GatherDimensionNumbers(offset_dims=g.offset_dims,
                                        collapsed_slice_dims=g.collapsed,
                                        start_index_map=g.start_map)
        # JAX's default: XLA's gather clamps, and the transpose's scatter drops what is out of
        # bounds (so an out-of-bounds read gets no gradient).
        y = lax.gather(y, g.indices, dn, g.window, mode="promise_in_bounds" if mode is None
                       else mode, fill_value=fill_value, unique_indices=not g.has_adv,
                       indices_are_sorted=not g.has_adv)
    if g.reversed_dims:
        y = lax.rev(y, g.reversed_dims)
    if g.newaxis_dims:
        y = lax.expand_dims(y, g.newaxis_dims)
    return y


# ------------------------------------------------------------------------------------------------
# x.at[idx]: scatter


def _is_int_scalar(i):
    """A static, concrete or traced integer scalar (a bool is a mask, not an index)."""
    if isinstance(i, (bool, np.bool_)):
        return False
    return isinstance(i, (int, np.integer)) or _is_dynamic_int(i) or (
        isinstance(i, np.ndarray) and i.ndim == 0 and dtypes.is_int(i.dtype))


def _check_ints_on_empty_axes(shape, index):
    """An integer scalar (static, concrete or traced) indexing a size-0 axis names no element:
    JAX refuses it in gets of every mode and in updates (everything else into an empty array
    drops)."""
    entries = index if isinstance(index, tuple) else (index,)
    if any(isinstance(e, list) or np.ndim(e) > 0 for e in entries if e is not None):
        return  # the integers join an advanced index: a gather, which drops or fills
    consumed = [_dims_consumed(e) for e in entries]
    if any(e is Ellipsis for e in entries):
        # the entries after the Ellipsis index the last axes
        cut = next(k for k, e in enumerate(entries) if e is Ellipsis)
        first = [0]
        for c in consumed[:cut]:
            first.append(first[-1] + c)
        last = [len(shape)]
        for c in reversed(consumed[cut + 1:]):
            last.append(last[-1] - c)
        dims = first[:-1] + [None] + list(reversed(last[1:]))
    else:
        dims = [0]
        for c in consumed[:-1]:
            dims.append(dims[-1] + c)
    for dim, e in zip(dims, entries):
        if dim is not None and 0 <= dim < len(shape) and shape[dim] == 0 and _is_int_scalar(e):
            raise IndexError(f"index is out of bounds for axis {dim} with size 0")


def _index_dtype(shape):
    """JAX's ``int_dtype_for_shape``: int32 unless an axis is too long for it."""
    wide = any(n > np.iinfo(np.int32).max for n in shape)
    return dtypes.canonicalize_dtype(np.int64) if wide else np.int32


class _IndexOps:
    """The operations that assemble gather/scatter indices, in JAX's order. JAX stages them, so
    they show in a jaxpr; with ``fold`` (nothing traced, and no trace to stage into, or clip
    mode's clamp to come) NumPy computes the same values without an eager dispatch per op."""

    def __init__(self, fold):
        self.fold = fold

    def normalize(self, v, n):
        """JAX's ``normalize_indices`` of an array index: negative entries counted from the
        end, unsigned ones as they are. A NumPy index's ``v < 0`` is NumPy's (a constant)."""
        if np.dtype(v.dtype).kind == "u":
            return v
        if isinstance(v, np.ndarray):
            neg, size = v < 0, np.dtype(v.dtype).type(n)
            if self.fold:
                return np.where(neg, v + size, v)
            return lax.select(neg, lax.add(v, size), v)
        # scalars of v's dtype, as JAX's (``lt b 0:i32[]``): they take the memory of ``v``,
        # which may be host (and a Python int would be int64 under x64)
        return lax.select(lax.lt(v, const(v, 0)), lax.add(v, const(v, n)), v)

    def convert(self, v, dtype):
        if self.fold:
            return np.asarray(v, dtype)
        return lax.convert_element_type(v, dtype)

    def broadcast(self, v, shape, dims):
        if self.fold:
            vshape = [1] * len(shape)
            for d, k in zip(dims, np.shape(v)):
                vshape[d] = k
            return np.broadcast_to(np.reshape(v, vshape), shape)
        return lax.broadcast_in_dim(v, shape, dims)

    def broadcast_to(self, v, shape):
        """JAX's ``_broadcast_arrays`` of one index: unchanged when it has the shape."""
        if np.shape(v) == shape:
            return v
        return self.broadcast(v, shape, tuple(range(len(shape) - np.ndim(v), len(shape))))

    def strided(self, start, step, size, dtype):
        """The starts ``start + step * iota`` of a slice with a step, increasing."""
        if self.fold:
            ks = np.arange(size, dtype=dtype) * step + start
        else:
            ks = lax.add(np.asarray(start, dtype),
                         lax.mul(np.asarray(step, dtype), lax.iota(dtype, size)))
        if step < 0:
            ks = ks[::-1] if self.fold else lax.rev(ks, (0,))
        return ks

    def stack(self, pieces, shape, dtype):
        """The index vectors on a last axis (JAX's assembly of ``gather_indices``)."""
        if not pieces:
            return np.zeros((0,), dtype)
        if len(pieces) == 1:
            g, _ = pieces[0]
            return (np.expand_dims(g, np.ndim(g)) if self.fold
                    else lax.expand_dims(g, (np.ndim(g),)))
        full = (*shape, 1)
        cols = [self.broadcast(g, full, tuple(range(k, k + np.ndim(g)))) for g, k in pieces]
        return np.concatenate(cols, -1) if self.fold else lax.concatenate(cols, len(shape))


_Gather = collections.namedtuple(
    "_Gather", "indices offset_dims collapsed start_map window slice_shape newaxis_dims "
    "reversed_dims has_adv")


def _index_to_gather(shape, index, fold):
    """JAX's ``_index_to_gather``, for a get and an update: the gather/scatter indices (staged
    in JAX's order, see ``_IndexOps``) and dimension numbers, the window sizes, the shape the
    result (or update) has, its ``None`` axes and its axes to reverse, and whether an array
    index is present. Slices and integers are windows on ``x``'s own axes (so the operand's
    sharding carries through); when an array index is present, integer scalars join the
    advanced indices, which are broadcast and collapsed where NumPy puts their axes. ``index``
    is already expanded (arrays wrapped, no bool scalars)."""
    ops = _IndexOps(fold)
    dtype = _index_dtype(shape)
    if not isinstance(index, tuple):
        index = (index,)
    has_adv = any(_is_advanced(i) for i in index)
    # NumPy's rule on the index as written: the advanced indices stay in place only when they
    # are adjacent (a None or an Ellipsis between them separates them)
    adv_written = [k for k, i in enumerate(index) if _is_advanced(i) or _is_int_scalar(i)]
    contiguous = adv_written == list(range(adv_written[0], adv_written[0] + len(adv_written))) \
        if has_adv else True
    index = _normalize(index, len(shape), allow_advanced=True)
    # JAX's normalize_indices: static integers now, array indices (traced scalars included)
    # with staged selects, in index order
    normed, dim = [], 0
    for i in index:
        if i is not None and not isinstance(i, slice):
            n = shape[dim]
            if _is_advanced(i):
                ms = i.mask_shape
                axes = tuple(shape[dim:dim + len(ms)]) if ms is not None else None
                # as JAX's expand_bool_indices: a zero-length mask axis matches any axis (the
                # mask selects nothing)
                if ms is not None and (len(axes) != len(ms) or
                                       not all(m in (0, a) for m, a in zip(ms, axes))):
                    raise IndexError(f"boolean index of shape {tuple(ms)} does not match the "
                                     f"indexed array's axes {tuple(shape[dim:])}")
                i = _AdvIndex(ops.normalize(i.value, n))
            elif _is_dynamic_int(i) or isinstance(i, np.ndarray):
                i = ops.normalize(i, n)
            elif not isinstance(i, np.unsignedinteger) and i < 0:
                i = i + n
        normed.append(i)
        dim += i is not None
    index = normed
    adv_pos = [k for k, i in enumerate(index) if has_adv and i is not None
               and not isinstance(i, slice)]
    offset_dims, collapsed, start_map, window = [], [], [], []
    pieces, indices_shape = [], []  # (index array, its first axis in the indices)
    slice_shape, newaxis_dims, reversed_dims = [], [], []
    x_axis = y_axis = collapsed_y = 0
    for pos, i in enumerate(index):
        if adv_pos and pos == (adv_pos[0] if contiguous else 0):
            vals = [index[k].value if _is_advanced(index[k]) else index[k] for k in adv_pos]
            if not fold:  # JAX's asarray: a Python int is a weak int32
                vals = [to_array(v) if isinstance(v, int) else v for v in vals]
            batch = np.broadcast_shapes(*(np.shape(v) for v in vals))
            start = len(indices_shape)
            pieces.extend((ops.convert(ops.broadcast_to(v, batch), dtype), start) for v in vals)
            indices_shape.extend(batch)
            x_adv = [sum(index[j] is not None for j in range(k)) for k in adv_pos]
            start_map.extend(x_adv), collapsed.extend(x_adv)
            slice_shape.extend(batch)
            y_axis += len(batch)
            collapsed_y += len(batch)
        if pos in adv_pos:
            x_axis += 1
            window.append(1)
            continue
        if i is None:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        elif isinstance(i, slice):
            n = shape[x_axis]
            start, stop, step = i.indices(n)
            size = len(range(start, stop, step))
            slice_shape.append(size)
            if step == 1:
                if size != n:  # a full slice needs no index
                    pieces.append((np.asarray(start, dtype), len(indices_shape)))
                    start_map.append(x_axis)
                window.append(size)
                offset_dims.append(collapsed_y)
            else:
                if step < 0:
                    reversed_dims.append(collapsed_y)
                pieces.append((ops.strided(start, step, size, dtype), len(indices_shape)))
                window.append(1)
                start_map.append(x_axis)
                indices_shape.append(size)
                collapsed.append(x_axis)
            collapsed_y += 1
            y_axis += 1
            x_axis += 1
        else:  # an integer scalar: one index; out of bounds clamps, fills or drops
            if shape[x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            pieces.append((ops.convert(i, dtype), len(indices_shape)))
            collapsed.append(x_axis)
            window.append(1)
            start_map.append(x_axis)
            x_axis += 1
    return _Gather(ops.stack(pieces, indices_shape, dtype), tuple(offset_dims),
                   tuple(sorted(collapsed)), tuple(start_map), tuple(window), tuple(slice_shape),
                   tuple(newaxis_dims), tuple(reversed_dims), has_adv)


def _clamp_starts(indices, dn, shape, update_shape):
    """The scatter's start indices clamped as XLA's clip mode clamps them (each window inside
    the operand). Clamping before the scatter keeps the derivative rules of scatter_mul/min/max,
    which compare positions, on the positions actually written: so a clipped ``.at[].max``
    gives no gradient to the operand where the update wins (FINDINGS 118)."""
    windows = iter(update_shape[d] for d in dn.update_window_dims)
    sizes = [1 if d in dn.inserted_window_dims else next(windows) for d in range(len(shape))]
    upper = np.array([shape[d] - sizes[d] for d in dn.scatter_dims_to_operand_dims],
                     np.dtype(indices.dtype))
    if isinstance(indices, np.ndarray):
        return np.clip(indices, 0, upper)
    zero = to_array(np.zeros(indices.shape, upper.dtype))
    return lax.clamp(zero, indices, to_array(np.broadcast_to(upper, indices.shape)))


def _scatter_update(x, index, values, kind, mode, indices_are_sorted, unique_indices):
    """JAX's ``_scatter_impl``: one scatter into ``x`` with the dimension numbers
    ``_index_to_gather`` derives from ``index``."""
    x = to_array(x)
    index = _index_tuple(index)
    dtype, weak = x.aval.dtype, x.aval.weak_type
    if x.size == 0:
        _check_ints_on_empty_axes(x.shape, index)
    bool_axes, index = _bool_scalar_axes(x.ndim, index)
    index = _expand_arrays(index)
    clip = lax.GatherScatterMode.from_any(mode) == lax.GatherScatterMode.CLIP
    # clip mode clamps the indices below: static ones fold into one constant with the clamp
    shape = _with_new_axes(x.shape, bool_axes)
    g = _index_to_gather(shape, index, fold=_is_static(index) and (
        clip or core.is_eval_trace_current()))
    indices, slice_shape, has_adv = g.indices, g.slice_shape, g.has_adv
    dn = lax.ScatterDimensionNumbers(update_window_dims=g.offset_dims,
                                     inserted_window_dims=g.collapsed,
                                     scatter_dims_to_operand_dims=g.start_map)
    if type(values) is int and dtype.kind in "iu" and (
            np.iinfo(dtype).min <= values <= np.iinfo(dtype).max):
        values = to_array(np.asarray(values, dtype))
    values = to_array(values)
    # JAX combines in the promoted dtype and casts the result back, warning first.
    if values.aval.dtype != dtype and dtypes.result_type(values, dtype) != dtype:
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={values.aval.dtype} to dtype={dtype} with "
            "jax_numpy_dtype_promotion=standard. In future JAX releases this will result "
            "in an error.", FutureWarning, stacklevel=4)
    if 0 in slice_shape:
        # as JAX's _scatter_impl: an empty slice returns x untouched (no broadcast check, no
        # scatter: so no scatter_mul update derivative to refuse either)
        return x
    if values.aval.dtype != dtype or values.aval.weak_type != weak:
        # as JAX's promote_dtypes(x, y): a weak value beside a strong x is converted (so
        # its derivative, the convert's transpose, gets its weak type back)
        x, values = promote_dtypes(x, values)
    if tuple(values.shape) != slice_shape:
        try:
            ok = np.broadcast_shapes(tuple(values.shape), slice_shape) == slice_shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"Incompatible shapes for the update: values of shape "
                             f"{tuple(values.shape)} cannot be broadcast to the indexed shape "
                             f"{slice_shape}")
        values = lax.broadcast_in_dim(
            values, slice_shape, tuple(range(len(slice_shape) - values.ndim, len(slice_shape))))
    if g.newaxis_dims:
        values = lax.squeeze(values, g.newaxis_dims)
    if g.reversed_dims:
        values = lax.rev(values, g.reversed_dims)
    xe = lax.expand_dims(x, bool_axes) if bool_axes else x
    # Integers, slices and traced scalars reach each position once (JAX's rule: only an
    # array index can repeat one), which makes the update differentiable for scatter_mul.
    op = {"set": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul,
          "min": lax.scatter_min, "max": lax.scatter_max}[kind]
    if clip and kind in ("mul", "min", "max"):  # set/add: the lowering clamps, as JAX's
        indices = _clamp_starts(indices, dn, shape, values.shape)
    out = op(xe, to_array(indices), values, dn,
             indices_are_sorted=indices_are_sorted or not has_adv,
             unique_indices=unique_indices or not has_adv, mode=mode)
    if bool_axes:
        out = lax.squeeze(out, bool_axes)
    return convert(out, dtype, weak)


class _IndexUpdateHelper:
    """``x.at``: indexing it gives an ``_IndexUpdateRef``."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


def _with_out_sharding(fun, out_sharding, *args):
    """``fun(*args)``; with an ``out_sharding=``, run in Auto mode and resharded to it (JAX's
    ``auto_axes``: an index the sharding rules find ambiguous then has a result)."""
    if out_sharding is None:
        return fun(*args)
    return auto_axes(fun, out_sharding=out_sharding)(*args)


class _IndexUpdateRef:
    """``x.at[idx]``: functional reads and updates of ``x`` at ``idx`` (JAX's methods)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, out_sharding=None):
        return _with_out_sharding(
            lambda x: getitem(x, self.index, mode=mode, fill_value=fill_value),
            out_sharding, self.array)

    def _do(self, kind, values, indices_are_sorted, unique_indices, mode, out_sharding=None):
        return _with_out_sharding(
            lambda x, v: _scatter_update(x, self.index, v, kind, mode, indices_are_sorted,
                                         unique_indices),
            out_sharding, self.array, values)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None):
        return self._do("set", values, indices_are_sorted, unique_indices, mode, out_sharding)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None):
        return self._do("add", values, indices_are_sorted, unique_indices, mode, out_sharding)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None):
        return self._do("mul", values, indices_are_sorted, unique_indices, mode, out_sharding)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._elementwise_with_product(math.divide, values, indices_are_sorted,
                                              unique_indices, mode)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._elementwise_with_product(math.power, values, indices_are_sorted,
                                              unique_indices, mode)

    def _elementwise_with_product(self, binary, values, indices_are_sorted, unique_indices,
                                  mode):
        """``binary(x, f)`` where ``f`` is 1 but at the indexed positions, which hold the
        product of the values landing there (x / u, x ** u without a scatter per op)."""
        x = to_array(self.array)
        factor = _scatter_update(creation.ones_like(x), self.index, values, "mul", mode,
                                 indices_are_sorted, unique_indices)
        return binary(x, factor)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._do("min", values, indices_are_sorted, unique_indices, mode)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._do("max", values, indices_are_sorted, unique_indices, mode)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
        vals = func(getitem(self.array, self.index, mode="clip"))
        return self._do("set", vals, indices_are_sorted, unique_indices, mode)
