"""Sorting, searching and gathering along an axis: sort, argsort, lexsort, partition,
argpartition, searchsorted, digitize, take, take_along_axis, put_along_axis.

Everything is ``lax.sort`` (one ``stablehlo.sort``, several operands riding along) and
``lax.gather``/``lax.scatter`` with batching dimensions (one gather for ``take_along_axis``, not
a one-hot product), so each function is one or two XLA ops whatever the rank, and grad and vmap
come from those primitives' own rules.
"""

from __future__ import annotations

import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.numpy._util import (
    canonicalize_axis,
    check_arraylike,
    convert,
    promote_dtypes,
    to_array,
)

__all__ = [
    "sort", "argsort", "lexsort", "partition", "argpartition", "sort_complex", "msort",
    "searchsorted", "digitize", "take", "take_along_axis", "put_along_axis",
]


def _int():
    return dtypes.default_int_dtype()


def _flat_or_axis(a, axis):
    a = to_array(a)
    if axis is None:
        return jnp.ravel(a), 0
    return a, canonicalize_axis(axis, a.ndim)


# ------------------------------------------------------------------------------------------------
# Sorting


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """Sorted copy of ``a`` along ``axis`` (NaNs last, as NumPy)."""
    check_arraylike("sort", a)
    if order is not None:
        raise TypeError("'order' argument to sort is not supported.")
    a, axis = _flat_or_axis(a, axis)
    if a.ndim == 0:
        return a
    if descending:
        return lax.rev(lax.sort(lax.rev(a, (axis,)), dimension=axis, is_stable=stable), (axis,))
    return lax.sort(a, dimension=axis, is_stable=stable)


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """Indices that sort ``a`` along ``axis``; stable (ties keep their order) by default."""
    check_arraylike("argsort", a)
    if order is not None:
        raise TypeError("'order' argument to argsort is not supported.")
    a, axis = _flat_or_axis(a, axis)
    if a.ndim == 0:
        return lax.full((), 0, _int())
    iota = lax.broadcasted_iota(_int(), a.shape, axis)
    if descending:  # stable descending: sort the reversed axis ascending, then reverse back
        a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
        _, idx = lax.sort((a, iota), dimension=axis, is_stable=True, num_keys=1)
        return lax.rev(idx, (axis,))
    _, idx = lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)
    return idx


def msort(a):
    return sort(a, axis=0)


def sort_complex(a):
    a = to_array(a)
    out = sort(a, axis=-1)
    return convert(out, dtypes.canonicalize_dtype(np.result_type(a.dtype, np.complex64)))


def lexsort(keys, axis=-1):
    """Indices sorting by the last key, then the one before, ...: one multi-key ``lax.sort``."""
    keys = tuple(keys) if not isinstance(keys, (Tracer, jnp.ndarray, np.ndarray)) else keys
    if isinstance(keys, (Tracer, jnp.ndarray, np.ndarray)):
        keys = [keys[i] for i in range(len(keys))]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    keys = [to_array(k) for k in keys]
    shape = keys[0].shape
    if any(k.shape != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    if not shape:
        return lax.full((), 0, _int())
    axis = canonicalize_axis(axis, len(shape))
    iota = lax.broadcasted_iota(_int(), shape, axis)
    out = lax.sort((*keys[::-1], iota), dimension=axis, is_stable=True, num_keys=len(keys))
    return out[-1]


def partition(a, kth, axis=-1):
    """``a`` with the k-th element where sorting puts it, smaller ones before, larger after.
    (A full sort on XLA: ``top_k`` would only help for small k on the last axis.)"""
    check_arraylike("partition", a)
    a = to_array(a)
    axis = canonicalize_axis(axis, a.ndim)
    operator.index(kth)
    return lax.sort(a, dimension=axis)


def argpartition(a, kth, axis=-1):
    check_arraylike("argpartition", a)
    operator.index(kth)
    return argsort(a, axis=axis)


# ------------------------------------------------------------------------------------------------
# Searching


def _lt(x, y):
    """NumPy's sort order: NaN is larger than everything (and equal to NaN)."""
    if dtypes.is_inexact(np.dtype(x.dtype)) and not dtypes.is_complex(np.dtype(x.dtype)):
        return jnp.less(x, y) | (jnp.isnan(y) & ~jnp.isnan(x))
    return jnp.less(x, y)


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Insertion points of ``v`` in the sorted 1-D ``a`` (``side`` picks the end of a tie run).

    ``method``: ``'scan'`` a binary search in a ``fori_loop`` (log2(n) gathers),
    ``'scan_unrolled'`` the same unrolled, ``'compare_all'`` one (n × m) comparison and a sum
    (fast for small ``a``), ``'sort'`` one sort of the concatenation (fast for large ``v``).
    """
    check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    a, v = promote_dtypes(to_array(a), to_array(v))
    a, v = to_array(a), to_array(v)
    if a.ndim != 1:
        raise ValueError("searchsorted: a must be one-dimensional")
    if sorter is not None:
        a = take(a, sorter)
    n = a.shape[0]
    out_dtype = _int()
    if method == "compare_all":
        va = lax.expand_dims(v, (v.ndim,))
        hits = _lt(a, va) if side == "left" else ~_lt(va, a)
        return jnp.sum(hits, axis=-1, dtype=out_dtype)
    if method == "sort":
        return _searchsorted_sort(a, v, side, out_dtype)
    if method not in ("scan", "scan_unrolled"):
        raise ValueError(f"searchsorted: unknown method {method!r}")
    if n == 0:
        return lax.full(v.shape, 0, out_dtype)
    lo = lax.full(v.shape, 0, out_dtype)
    hi = lax.full(v.shape, n, out_dtype)

    def step(_, state):
        lo, hi = state
        mid = lax.div(lax.add(lo, hi), convert(2, out_dtype))
        am = take(a, mid, mode="clip")
        right = _lt(am, v) if side == "left" else ~_lt(v, am)
        active = lax.lt(lo, hi)
        lo = lax.select(lax.bitwise_and(active, right), lax.add(mid, convert(1, out_dtype)), lo)
        hi = lax.select(lax.bitwise_and(active, lax.bitwise_not(right)), mid, hi)
        return lo, hi

    steps = int(n).bit_length()
    if method == "scan_unrolled":
        state = (lo, hi)
        for i in range(steps):
            state = step(i, state)
        return state[0]
    return lax.fori_loop(0, steps, step, (lo, hi))[0]


def _searchsorted_sort(a, v, side, out_dtype):
    """Sort ``a`` and ``v`` together; a ``v`` element's position minus its rank among ``v`` is
    the count of ``a`` elements before it."""
    flat = jnp.ravel(v)
    m, n = flat.shape[0], a.shape[0]
    # left: v before an equal a (v's tag 0 < a's tag 1); right: a before an equal v.
    tag_a, tag_v = (1, 0) if side == "left" else (0, 1)
    keys = lax.concatenate([a, flat], 0)
    tags = lax.concatenate([lax.full((n,), tag_a, np.int8), lax.full((m,), tag_v, np.int8)], 0)
    iota = lax.iota(out_dtype, n + m)
    _, _, perm = lax.sort((keys, tags, iota), dimension=0, is_stable=True, num_keys=2)
    is_v = lax.ge(perm, convert(n, out_dtype))
    before = lax.sub(lax.cumsum(convert(lax.bitwise_not(is_v), out_dtype), 0),
                     convert(lax.bitwise_not(is_v), out_dtype))
    # scatter the counts back to v's original order
    target = lax.sub(perm, convert(n, out_dtype))
    out = jnp.zeros((m,), out_dtype)
    out = put_along_axis(out, lax.select(is_v, target, lax.full_like(target, m)), before, 0,
                         inplace=False, mode="drop")
    return lax.reshape(out, v.shape)


def digitize(x, bins, right=False, *, method="scan"):
    """Index of the bin each ``x`` falls in; ``bins`` increasing or decreasing."""
    check_arraylike("digitize", x, bins)
    bins = to_array(bins)
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if bins.shape[0] == 0:
        return jnp.zeros(jnp.shape(x), _int())
    side = "left" if right else "right"
    inc = searchsorted(bins, x, side=side, method=method)
    dec = bins.shape[0] - searchsorted(lax.rev(bins, (0,)), x, side=side, method=method)
    return jnp.where(bins[-1] >= bins[0], inc, dec)


# ------------------------------------------------------------------------------------------------
# Gathering


def _normalize_index(idx, n):
    idx = to_array(idx)
    if not dtypes.is_int(np.dtype(idx.dtype)):
        raise TypeError(f"indices must be integers, got {idx.dtype}")
    if np.dtype(idx.dtype).kind == "u":
        return idx
    return lax.select(lax.lt(idx, convert(0, idx.dtype)), lax.add(idx, convert(n, idx.dtype)),
                      idx)


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """``a``'s elements at ``indices`` along ``axis`` (flattened when None): one gather.
    ``mode``: ``'fill'`` (default: out-of-bounds give NaN / the int minimum / ``fill_value``),
    ``'clip'``, or ``'wrap'``."""
    check_arraylike("take", a, indices)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, axis = _flat_or_axis(a, axis)
    n = a.shape[axis]
    idx = to_array(indices)
    if mode == "wrap":
        idx = jnp.mod(idx, n)
        mode = "clip"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if mode != "clip":  # NumPy's clip mode clamps negative indices to 0 instead of wrapping
        idx = _normalize_index(idx, n)
    mode = "fill" if mode is None else mode
    if n == 0:  # XLA cannot gather from an empty axis
        if idx.size:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    nidx = idx.ndim
    offset_dims = tuple(range(axis)) + tuple(range(axis + nidx, a.ndim - 1 + nidx))
    dnums = lax.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                       start_index_map=(axis,))
    sizes = a.shape[:axis] + (1,) + a.shape[axis + 1:]
    return lax.gather(a, lax.expand_dims(idx, (nidx,)), dnums, sizes, mode=mode,
                      fill_value=fill_value, unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted)


def _along_axis_operands(name, arr, indices, axis):
    check_arraylike(name, arr, indices)
    arr, indices = to_array(arr), to_array(indices)
    if axis is None:
        arr, indices, axis = jnp.ravel(arr), jnp.ravel(indices), 0
    axis = canonicalize_axis(axis, arr.ndim)
    if indices.ndim != arr.ndim:
        raise ValueError(f"{name}: indices and arr must have the same number of dimensions; "
                         f"{indices.ndim} vs. {arr.ndim}")
    # broadcast every axis but ``axis`` between the two
    shape = []
    for i, (da, di) in enumerate(zip(arr.shape, indices.shape)):
        shape.append(None if i == axis else max(da, di) if 1 in (da, di) else da)
        if i != axis and da != di and 1 not in (da, di):
            raise ValueError(f"{name}: shapes {arr.shape} and {indices.shape} do not broadcast")
    arr = jnp.broadcast_to(arr, tuple(s if s is not None else arr.shape[axis] for s in shape))
    indices = jnp.broadcast_to(indices, tuple(s if s is not None else indices.shape[axis]
                                              for s in shape))
    idx = _normalize_index(indices, arr.shape[axis])
    batch = tuple(i for i in range(arr.ndim) if i != axis)
    return arr, idx, axis, batch


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    """``arr`` picked at ``indices`` along ``axis`` (NumPy's rule), as ONE gather whose other
    axes are gather batching dimensions."""
    arr, idx, axis, batch = _along_axis_operands("take_along_axis", arr, indices, axis)
    if arr.shape[axis] == 0:  # nothing to gather from: zeros, as JAX
        return lax.full(idx.shape, 0, arr.dtype)
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=batch, start_indices_batching_dims=batch)
    return lax.gather(arr, lax.expand_dims(idx, (idx.ndim,)), dnums, (1,) * arr.ndim,
                      mode="fill" if mode is None else mode, fill_value=fill_value)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """``arr`` with ``values`` written at ``indices`` along ``axis`` (a functional update, so
    ``inplace=False`` is required, as in JAX)."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arrays are immutable. Pass inplace=False to instead return an updated "
                         "array.")
    arr, idx, axis, batch = _along_axis_operands("put_along_axis", arr, indices, axis)
    values = jnp.broadcast_to(convert(values, arr.dtype), idx.shape)
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(axis,),
        scatter_dims_to_operand_dims=(axis,), operand_batching_dims=batch,
        scatter_indices_batching_dims=batch)
    return lax.scatter(arr, lax.expand_dims(idx, (idx.ndim,)), values, dnums,
                       mode="drop" if mode in (None, "fill") else mode)

