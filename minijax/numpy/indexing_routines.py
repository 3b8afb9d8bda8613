"""NumPy's indexing routines: index arrays (``indices``, ``ix_``, ``unravel_index``,
``ravel_multi_index``, ``diag_indices``, ``tril_indices`` & co.), indexing-like operations
(``take``, ``take_along_axis``, ``choose``, ``compress``, ``diagonal``, ``select``) and data
insertion (``place``, ``put``, ``put_along_axis``, ``fill_diagonal``). ``x[i]`` and
``x.at[i]`` themselves are in indexing.py.

Gathers and scatters carry batching dimensions (one gather for ``take_along_axis``, not a
one-hot product). Value-dependent output shapes (``compress`` without ``size=``) need concrete
values, as in JAX; everything else traces.
"""

from __future__ import annotations

import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import (
    canonicalize_axis,
    check_arraylike,
    concrete_value,
    convert,
    promote_dtypes,
)
from minijax.numpy.creation import to_array

__all__ = [
    "diagonal", "diag_indices", "diag_indices_from", "tril_indices", "triu_indices",
    "tril_indices_from", "triu_indices_from", "mask_indices", "fill_diagonal", "indices", "ix_",
    "unravel_index", "ravel_multi_index", "select", "choose", "compress", "place", "put", "take",
    "take_along_axis", "put_along_axis",
]


@eager_jit(static_argnames=("offset", "axis1", "axis2"), inline=False)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the (axis1, axis2) planes, as the last axis: JAX's
    ``a[..., i, j]`` on CPU, a gather whose transpose scatters into strong zeros."""
    check_arraylike("diagonal", a)
    a = to_array(a)
    axis1 = canonicalize_axis(axis1, a.ndim)
    axis2 = canonicalize_axis(axis2, a.ndim)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 must not be equal")
    offset = operator.index(offset)

    def default(a):  # JAX's _default_diag: its index arrays are traced inside the branch
        a = jnp.moveaxis(a, (axis1, axis2), (-2, -1))
        n, m = a.shape[-2:]
        k = max(0, min(n + min(offset, 0), m - max(offset, 0)))
        i = jnp.arange(k)
        j = jnp.arange(abs(offset), abs(offset) + k)
        return a[..., i, j] if offset >= 0 else a[..., j, i]

    if a.ndim != 2 or a.shape[0] != a.shape[1] or offset != 0 or a.dtype == np.bool_:
        return default(a)
    # JAX's own switch: the mosaic branch multiplies by a strong identity, so the joined
    # output is strong, and so is the cotangent (the transposed switch joins the branches'
    # cotangents); the default branch, the gather, is the one that runs
    eye = jnp.eye(a.shape[0], dtype=a.dtype)
    return lax.platform_dependent(
        a, default=default, mosaic=lambda a: lax.reduce_sum(lax.mul(eye, a), (0,)))


def diag_indices(n, ndim=2):
    i = jnp.arange(operator.index(n))
    return (i,) * operator.index(ndim)


def diag_indices_from(arr):
    arr = to_array(arr)
    if arr.ndim < 2 or len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def _tri_indices(np_fn, n, k, m):
    r, c = np_fn(operator.index(n), operator.index(k), None if m is None else operator.index(m))
    int_dtype = dtypes.default_int_dtype()
    return jnp.asarray(r.astype(int_dtype)), jnp.asarray(c.astype(int_dtype))


def tril_indices(n, k=0, m=None):
    return _tri_indices(np.tril_indices, n, k, m)


def triu_indices(n, k=0, m=None):
    return _tri_indices(np.triu_indices, n, k, m)


def tril_indices_from(arr, k=0):
    arr = to_array(arr)
    return tril_indices(arr.shape[-2], k, arr.shape[-1])


def triu_indices_from(arr, k=0):
    arr = to_array(arr)
    return triu_indices(arr.shape[-2], k, arr.shape[-1])


def mask_indices(n, mask_func, k=0):
    m = np.asarray(mask_func(np.ones((n, n), int), k))
    r, c = np.nonzero(m != 0)
    int_dtype = dtypes.default_int_dtype()
    return jnp.asarray(r.astype(int_dtype)), jnp.asarray(c.astype(int_dtype))


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """``a`` with ``val`` (cycled) on its main diagonal: one ``.at[].set``, as JAX (which
    implements neither ``inplace`` nor ``wrap``)."""
    if inplace:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    check_arraylike("fill_diagonal", a, val)
    a, val = to_array(a), to_array(val)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and not all(n == a.shape[0] for n in a.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    idx = diag_indices(n, a.ndim)
    return a.at[idx].set(val if val.ndim == 0 else _tile_to_size(jnp.ravel(val), n))


def _tile_to_size(arr, size):
    if arr.size < size:
        arr = jnp.tile(arr, int(np.ceil(size / arr.size)))
    return arr[:size] if arr.size > size else arr


def indices(dimensions, dtype=None, sparse=False):
    dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_int_dtype())
    dimensions = tuple(operator.index(d) for d in dimensions)
    n = len(dimensions)
    out = []
    for i, d in enumerate(dimensions):
        if sparse:
            shape = (1,) * i + (d,) + (1,) * (n - i - 1)
            out.append(lax.broadcasted_iota(dtype, shape, i))
        else:
            out.append(lax.broadcasted_iota(dtype, dimensions, i))
    return tuple(out) if sparse else (jnp.stack(out) if out else jnp.zeros((0,), dtype))


def ix_(*args):
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = to_array(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == np.bool_:
            if isinstance(a, Tracer):
                raise a._concretization_error("jnp.ix_ with a boolean mask")
            a = jnp.asarray(np.nonzero(np.asarray(a))[0].astype(dtypes.default_int_dtype()))
        out.append(jnp.reshape(a, (1,) * i + (a.shape[0],) + (1,) * (n - i - 1)))
    return tuple(out)


def unravel_index(indices, shape):
    """Coordinates of flat ``indices`` in ``shape``, JAX's way: a ``divmod`` per axis, then
    out-of-range coordinates clipped (negative indices down to ``-size`` count from the end)."""
    check_arraylike("unravel_index", indices)
    idx = to_array(indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(d) != 0 for d in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out = [0] * len(shape)
    for i, d in reversed(list(enumerate(shape))):
        idx, out[i] = jnp.divmod(idx, d)
    oob_pos = idx > 0
    oob_neg = jnp.asarray(False) if np.dtype(idx.dtype).kind == "u" else idx < -1
    return tuple(jnp.where(oob_pos, d - 1, jnp.where(oob_neg, 0, i)) for d, i in zip(shape, out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    dims = tuple(operator.index(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError("parameter multi_index must be a sequence of length len(dims)")
    idx = [to_array(i) for i in multi_index]
    if mode == "raise":
        for i in idx:
            if isinstance(i, Tracer):
                raise i._concretization_error(
                    "jnp.ravel_multi_index with mode='raise'; use mode='wrap' or 'clip'")
        for i, d in zip(idx, dims):
            h = np.asarray(i)
            if h.size and (h.min() < 0 or h.max() >= d):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "wrap":
        idx = [i % d for i, d in zip(idx, dims)]
    elif mode == "clip":
        idx = [jnp.clip(i, 0, d - 1) for i, d in zip(idx, dims)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
    if order == "F":
        idx, dims = idx[::-1], dims[::-1]
    out = jnp.zeros((), dtypes.default_int_dtype())
    for i, d in zip(idx, dims):
        out = out * d + convert(i, dtypes.default_int_dtype())
    return out


def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, elementwise (``default`` where none does): the
    argmax of the stacked conditions picks with one ``select_n``, as JAX."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    # the default goes first with a False condition: argmax of all-False is 0
    choices = [to_array(c) for c in promote_dtypes(default, *choicelist)]
    conditions = jnp.stack(jnp.broadcast_arrays(False, *condlist))
    idx = jnp.argmax(conditions.astype(bool), axis=0)
    return lax.select_n(*jnp.broadcast_arrays(idx, *choices))


def choose(a, choices, out=None, mode="raise"):
    a = to_array(a)
    choices = [to_array(c) for c in choices]
    n = len(choices)
    if mode == "raise":
        if isinstance(a, Tracer):
            raise a._concretization_error("jnp.choose with mode='raise'; use 'wrap' or 'clip'")
        h = np.asarray(a)
        if h.size and (h.min() < 0 or h.max() >= n):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = jnp.clip(a, 0, n - 1)
    else:
        raise ValueError(f"invalid mode={mode!r}")
    arrays = jnp.broadcast_arrays(a, *choices)
    a, choices = arrays[0], arrays[1:]
    dt = dtypes.result_type(*choices)
    return lax.select_n(convert(a, np.int32), *[convert(c, dt) for c in choices])


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """``a``'s slices along ``axis`` where the 1-D ``condition`` holds, JAX's way: without
    ``size`` a concrete boolean index; with it, the kept slices first by a stable descending
    argsort of the condition (the others ``fill_value``), cut to ``size``."""
    check_arraylike("compress", condition, a, fill_value)
    if size is None:  # a concrete condition stays on the host (also under jit)
        condition = np.asarray(concrete_value(to_array(condition),
                                              "jnp.compress (pass size= under jit)"), bool)
    else:
        condition = to_array(condition).astype(bool)
    arr = to_array(a)
    if out is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    if condition.ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        axis = 0
        arr = jnp.ravel(arr)
    else:
        arr = jnp.moveaxis(arr, axis, 0)
    condition, extra = condition[:arr.shape[0]], condition[arr.shape[0]:]
    arr = arr[:condition.shape[0]]
    if size is None:
        if extra.any():
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[np.nonzero(condition)[0]]
    elif not 0 <= size <= arr.shape[0]:
        raise ValueError("size must be positive and not greater than the size of the array "
                         f"axis; got {size=} for a.shape[axis]={arr.shape[0]}")
    else:
        mask = lax.expand_dims(condition, tuple(range(1, arr.ndim)))
        arr = jnp.where(mask, arr, jnp.array(fill_value, dtype=arr.dtype))
        result = arr[jnp.argsort(condition, stable=True, descending=True)][:size]
    return jnp.moveaxis(result, 0, axis)


def place(arr, mask, vals, *, inplace=True):
    """``arr`` with its ``mask`` positions filled from ``vals`` in order (cycled)."""
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    arr = to_array(arr)
    m = jnp.ravel(jnp.broadcast_to(to_array(mask), arr.shape)).astype(bool)
    vals = jnp.ravel(convert(to_array(vals), arr.dtype))
    if vals.shape[0] == 0:
        return arr
    k = jnp.cumsum(m.astype(dtypes.default_int_dtype())) - 1
    picked = take(vals, k % vals.shape[0], mode="clip")
    return jnp.reshape(jnp.where(m, picked, jnp.ravel(arr)), arr.shape)


def put(a, ind, v, mode=None, *, inplace=True):
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    a = to_array(a)
    flat = jnp.ravel(a)
    ind = jnp.ravel(to_array(ind))
    n = flat.shape[0]
    v = jnp.ravel(convert(to_array(v), a.dtype))
    if ind.shape[0] == 0 or v.shape[0] == 0:
        return a
    v = take(v, jnp.arange(ind.shape[0]) % v.shape[0])
    if mode in (None, "fill", "drop"):
        ind = jnp.where(ind < 0, ind + n, ind)
        ind = jnp.where((ind < 0) | (ind >= n), n, ind)
    elif mode == "wrap":
        ind = ind % n
    elif mode == "clip":
        ind = jnp.clip(ind, 0, n - 1)
    else:
        raise ValueError(f"invalid mode={mode!r}")
    dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,))
    ind = lax.expand_dims(convert(ind, dtypes.default_int_dtype()), (1,))
    out = lax.scatter(flat, ind, v, dnums, mode="drop")
    return jnp.reshape(out, a.shape)


def _flat_or_axis(a, axis):
    a = to_array(a)
    if axis is None:
        return jnp.ravel(a), 0
    return a, canonicalize_axis(axis, a.ndim)


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
    ``'clip'``, or ``'wrap'``. The jit ``_take``, as JAX's."""
    check_arraylike("take", a, indices)
    return _take(a, indices, None if axis is None else operator.index(axis), out, mode,
                 unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                 fill_value=fill_value)


@eager_jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted", "fill_value"),
           inline=False)
def _take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
          indices_are_sorted=False, fill_value=None):
    if out is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, axis = _flat_or_axis(a, axis)
    n = a.shape[axis]
    idx = to_array(indices)
    if mode == "wrap":
        idx = jnp.mod(idx, n)
        mode = "clip"
    elif mode == "raise":  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if not dtypes.is_int(np.dtype(idx.dtype)):
        raise TypeError(f"indices must be integers, got {idx.dtype}")
    if mode != "clip":  # NumPy's clip mode clamps negative indices to 0 instead of wrapping
        idx = jnp.where(idx < 0, idx + n, idx)
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
    # broadcast every axis but ``axis`` between the two (lax.broadcast_shapes: a 1 takes the
    # other's size, a 0 included)
    shape = []
    for i, (da, di) in enumerate(zip(arr.shape, indices.shape)):
        shape.append(None if i == axis else di if da == 1 else da)
        if i != axis and da != di and 1 not in (da, di):
            raise ValueError(f"{name}: shapes {arr.shape} and {indices.shape} do not broadcast")
    arr = jnp.broadcast_to(arr, tuple(s if s is not None else arr.shape[axis] for s in shape))
    indices = jnp.broadcast_to(indices, tuple(s if s is not None else indices.shape[axis]
                                              for s in shape))
    idx = _normalize_index(indices, arr.shape[axis])
    batch = tuple(i for i in range(arr.ndim) if i != axis)
    return arr, idx, axis, batch


@eager_jit(static_argnames=("axis", "mode", "fill_value"), inline=False)
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


@eager_jit(static_argnames=("axis", "inplace", "mode"), inline=False)
def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """``arr`` with ``values`` written at ``indices`` along ``axis`` (a functional update, so
    ``inplace=False`` is required, as in JAX)."""
    if inplace:
        # JAX's words, its missing space ("arraysare") included
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arraysare immutable. Pass inplace=False to instead return an updated "
                         "array.")
    check_arraylike("put_along_axis", arr, indices, values)
    arr, indices, values = to_array(arr), to_array(indices), to_array(values)
    # JAX's checks and words, before the axis's: indices as given (not raveled for axis=None)
    ndim = 1 if axis is None else arr.ndim
    if indices.ndim != ndim:
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
                         f"arr.ndim={ndim} and indices.ndim={indices.ndim}.")
    try:
        values = jnp.broadcast_to(values, indices.shape)
    except ValueError:
        raise ValueError("put_along_axis argument 'values' must be broadcastable to 'indices'. "
                         f"Got values.shape={values.shape} and indices.shape={indices.shape}.")
    if axis is not None and not -ndim <= axis < ndim:
        # JAX 0.10.2 does not range-check it: its index builder's assert fails
        raise AssertionError((axis + ndim if axis < 0 else axis, ndim))
    shape, raveled = arr.shape, axis is None
    if indices.size == 0:  # nothing written, arr's shape kept (a 1 in arr is not broadcast to 0)
        return arr
    arr, idx, axis, batch = _along_axis_operands("put_along_axis", arr, indices, axis)
    values = jnp.broadcast_to(convert(values, arr.dtype), idx.shape)
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(axis,),
        scatter_dims_to_operand_dims=(axis,), operand_batching_dims=batch,
        scatter_indices_batching_dims=batch)
    out = lax.scatter(arr, lax.expand_dims(idx, (idx.ndim,)), values, dnums,
                      mode="drop" if mode in (None, "fill") else mode)
    return jnp.reshape(out, shape) if raveled else out  # arr's shape back, as JAX
