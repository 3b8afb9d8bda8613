"""Array construction and rearrangement beyond the basics: diag, diagonal, trace, diagflat,
*_indices, indices, ix_, meshgrid, logspace, geomspace, unravel_index, ravel_multi_index,
rot90, block, row_stack, dsplit, unstack, rollaxis, vander, select, piecewise, choose, compress,
extract, place, put, trim_zeros, resize, insert, delete, append, fill_diagonal,
apply_along_axis, apply_over_axes, vectorize, fromfunction, vecmat.

Value-dependent output shapes (compress, extract, trim_zeros, insert/delete with traced
indices) need concrete values, as in JAX; everything else traces.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.numpy._util import (
    canonicalize_axis,
    check_arraylike,
    convert,
    to_array,
)

__all__ = [
    "diag", "diagonal", "trace", "diagflat", "diag_indices", "diag_indices_from", "tril_indices",
    "triu_indices", "tril_indices_from", "triu_indices_from", "mask_indices", "indices", "ix_",
    "meshgrid", "logspace", "geomspace", "unravel_index", "ravel_multi_index", "rot90", "block",
    "row_stack", "dsplit", "unstack", "rollaxis", "vander", "select", "piecewise", "choose",
    "compress", "extract", "place", "put", "trim_zeros", "resize", "insert", "delete", "append",
    "fill_diagonal", "apply_along_axis", "apply_over_axes", "vectorize", "fromfunction",
    "vecmat", "asarray_chkfinite", "ascontiguousarray", "asanyarray", "iterable", "nonzero",
    "flatnonzero", "argwhere",
]


def _int():
    return dtypes.default_int_dtype()


# ------------------------------------------------------------------------------------------------
# Diagonals


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the (axis1, axis2) planes, as the last axis: a mask and a sum
    over one axis of the plane after aligning the diagonal with a slice."""
    check_arraylike("diagonal", a)
    a = to_array(a)
    axis1 = canonicalize_axis(axis1, a.ndim)
    axis2 = canonicalize_axis(axis2, a.ndim)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 must not be equal")
    a = jnp.moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = a.shape[-2:]
    offset = operator.index(offset)
    if offset >= 0:
        a = a[..., :, offset:]
    else:
        a = a[..., -offset:, :]
    n, m = a.shape[-2:]
    k = max(min(n, m), 0)
    a = a[..., :k, :k]
    if k == 0:
        return jnp.zeros(a.shape[:-2] + (0,), a.dtype)
    # one gather with batching over the leading axes would also do; a mask-and-sum is exact
    eye = lax.eq(lax.broadcasted_iota(np.int32, (k, k), 0), lax.broadcasted_iota(np.int32,
                                                                                 (k, k), 1))
    mask = lax.broadcast_in_dim(eye, a.shape, (a.ndim - 2, a.ndim - 1))
    picked = lax.select(mask, a, lax.full_like(a, 0))
    if a.dtype == np.bool_:
        return lax.reduce_or(picked, (a.ndim - 1,))
    return lax.reduce_sum(picked, (a.ndim - 1,))


def diag(v, k=0):
    check_arraylike("diag", v)
    v = to_array(v)
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        if v.shape[0] == 0:  # nothing to place (and nothing a gather could read)
            return jnp.zeros((n, n), v.dtype)
        rows = lax.broadcasted_iota(_int(), (n, n), 0)
        cols = lax.broadcasted_iota(_int(), (n, n), 1)
        src = jnp.take(v, rows if k >= 0 else cols, mode="clip")
        return jnp.where(cols - rows == k, src, jnp.zeros((), v.dtype))
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError("diag input must be 1d or 2d")


def diagflat(v, k=0):
    return diag(jnp.ravel(to_array(v)), k)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return jnp.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


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
    return jnp.asarray(r.astype(_int())), jnp.asarray(c.astype(_int()))


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
    return jnp.asarray(r.astype(_int())), jnp.asarray(c.astype(_int()))


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    if inplace:
        raise ValueError("JAX arrays are immutable, so jnp.fill_diagonal cannot work in place; "
                         "pass inplace=False to get an updated array.")
    a = to_array(a)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    if a.ndim == 2 and wrap:
        rows = a.shape[0]
    else:
        rows = n if a.ndim == 2 else a.shape[0]
    idx = [lax.broadcasted_iota(_int(), a.shape, d) for d in range(a.ndim)]
    if a.ndim == 2:
        flat = idx[0] * a.shape[1] + idx[1]
        on = (flat % (a.shape[1] + 1) == 0) & (idx[0] < rows)
    else:
        on = functools.reduce(jnp.logical_and, [i == idx[0] for i in idx[1:]])
    val = jnp.ravel(convert(to_array(val), a.dtype))
    if val.shape[0] == 0:
        return a
    k = jnp.cumsum(on.ravel().astype(_int())).reshape(a.shape) - 1
    vals = jnp.take(val, k % val.shape[0], mode="clip")
    return jnp.where(on, vals, a)


# ------------------------------------------------------------------------------------------------
# Index grids


def indices(dimensions, dtype=None, sparse=False):
    dtype = dtypes.canonicalize_dtype(dtype or _int())
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
            a = jnp.asarray(np.nonzero(np.asarray(a))[0].astype(_int()))
        out.append(jnp.reshape(a, (1,) * i + (a.shape[0],) + (1,) * (n - i - 1)))
    return tuple(out)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    xi = [jnp.ravel(to_array(x)) for x in xi]
    n = len(xi)
    shapes = [x.shape[0] for x in xi]
    if indexing == "xy" and n >= 2:
        shapes[0], shapes[1] = shapes[1], shapes[0]
    out = []
    for i, x in enumerate(xi):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        shape = [1] * n
        shape[pos] = x.shape[0]
        r = jnp.reshape(x, tuple(shape))
        out.append(r if sparse else jnp.broadcast_to(r, tuple(shapes)))
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    y = jnp.linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = jnp.power(convert(base, y.dtype), y)
    return out if dtype is None else out.astype(dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    start, stop = to_array(start), to_array(stop)
    dt = np.result_type(start.dtype, stop.dtype, np.float32)
    start, stop = convert(start, dt), convert(stop, dt)
    sign = jnp.sign(start)
    out = sign * logspace(jnp.log10(jnp.abs(start)), jnp.log10(jnp.abs(stop)), num,
                          endpoint=endpoint, base=10.0, axis=axis)
    # exact end points, as NumPy
    n = out.shape[axis]
    if n:
        first = jnp.expand_dims(start, axis) if start.ndim else start
        out = jnp.concatenate([jnp.broadcast_to(first, lax.slice_in_dim(out, 0, 1, axis=axis)
                                                .shape),
                               lax.slice_in_dim(out, 1, n, axis=axis)], axis=axis)
        if endpoint and n > 1:
            last = jnp.expand_dims(stop, axis) if stop.ndim else stop
            out = jnp.concatenate([lax.slice_in_dim(out, 0, n - 1, axis=axis),
                                   jnp.broadcast_to(last, lax.slice_in_dim(out, 0, 1, axis=axis)
                                                    .shape)], axis=axis)
    return out if dtype is None else out.astype(dtype)


def unravel_index(indices, shape):
    """Coordinates of flat ``indices`` in ``shape`` (out-of-range clipped, as JAX)."""
    check_arraylike("unravel_index", indices)
    idx = to_array(indices)
    shape = tuple(operator.index(d) for d in np.atleast_1d(shape))
    size = int(np.prod(shape, dtype=np.int64))
    idx = jnp.clip(jnp.where(idx < 0, idx + size, idx), 0, max(size - 1, 0))
    out = []
    for d in reversed(shape):
        out.append(idx % d if d else idx)
        idx = idx // d if d else idx
    return tuple(reversed(out))


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
    out = jnp.zeros((), _int())
    for i, d in zip(idx, dims):
        out = out * d + convert(i, _int())
    return out


# ------------------------------------------------------------------------------------------------
# Rearranging


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
        return jnp.flip(jnp.flip(m, ax1), ax2)
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return jnp.transpose(jnp.flip(m, ax2), perm)
    return jnp.flip(jnp.transpose(m, perm), ax2)


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
            return jnp.reshape(x, (1,) * (ndim - x.ndim) + x.shape)
        parts = [rec(y, level + 1) for y in x]
        return jnp.concatenate(parts, axis=ndim - d + level)

    return rec(arrays, 0)


def row_stack(tup, dtype=None):
    return jnp.vstack(tup, dtype=dtype)


def dsplit(ary, indices_or_sections):
    if to_array(ary).ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return jnp.split(ary, indices_or_sections, axis=2)


def unstack(x, /, *, axis=0):
    x = to_array(x)
    axis = canonicalize_axis(axis, x.ndim)
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(x.shape[axis]))


def rollaxis(a, axis, start=0):
    a = to_array(a)
    n = a.ndim
    axis = canonicalize_axis(axis, n)
    if not -n <= start <= n:
        raise ValueError(f"start={start} must satisfy {-n} <= start <= {n}")
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    return jnp.moveaxis(a, axis, start)


def vander(x, N=None, increasing=False):
    x = to_array(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    cols = [jnp.ones_like(x) if p == 0 else x ** int(p) for p in powers]
    return jnp.stack(cols, axis=1) if cols else jnp.zeros((x.shape[0], 0), x.dtype)


def vecmat(x1, x2, /):
    x1, x2 = to_array(x1), to_array(x2)
    return jnp.matmul(jnp.conj(x1)[..., None, :], x2)[..., 0, :]


# ------------------------------------------------------------------------------------------------
# Selecting


def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, elementwise: one ``select_n`` after an argmax-free
    chain of ``where`` from the last choice to the first."""
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    out = to_array(default)
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        cond = to_array(cond)
        if cond.dtype != np.bool_:
            raise TypeError("condlist must be boolean arrays")
        out = jnp.where(cond, choice, out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """Each function applied everywhere, then picked with ``select`` (XLA evaluates both sides
    of a select anyway; this keeps shapes static, as JAX)."""
    x = to_array(x)
    if isinstance(condlist, (Tracer, jnp.ndarray, np.ndarray)) and np.ndim(condlist) == x.ndim:
        condlist = [condlist]
    condlist = [to_array(c) for c in condlist]
    n = len(condlist)
    if len(funclist) == n + 1:
        otherwise = funclist[-1]
        funclist = funclist[:-1]
    elif len(funclist) == n:
        otherwise = 0
    else:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")

    def value(f):
        return jnp.broadcast_to(convert(f(x, *args, **kw) if callable(f) else f, x.dtype),
                                x.shape)

    out = value(otherwise)
    for cond, f in zip(reversed(condlist), reversed(funclist)):
        out = jnp.where(cond, value(f), out)
    return out


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


def _concrete(x, what):
    if isinstance(x, Tracer):
        raise x._concretization_error(what)
    return np.asarray(x)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    condition = jnp.ravel(to_array(condition))
    a = to_array(a)
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = canonicalize_axis(axis, a.ndim)
    if size is None:
        mask = _concrete(condition, "jnp.compress (pass size= under jit)").astype(bool)
        keep = np.nonzero(mask[:a.shape[axis]])[0]
        return jnp.take(a, jnp.asarray(keep.astype(_int())), axis=axis)
    cond = condition[:a.shape[axis]] != 0
    cond = jnp.pad(cond, (0, a.shape[axis] - cond.shape[0]))
    idx = jnp.nonzero(cond, size=size, fill_value=a.shape[axis])[0]
    return jnp.take(a, idx, axis=axis, mode="fill", fill_value=fill_value)


def extract(condition, arr, *, size=None, fill_value=0):
    return compress(jnp.ravel(to_array(condition)), jnp.ravel(to_array(arr)), size=size,
                    fill_value=fill_value)


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
    k = jnp.cumsum(m.astype(_int())) - 1
    picked = jnp.take(vals, k % vals.shape[0], mode="clip")
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
    v = jnp.take(v, jnp.arange(ind.shape[0]) % v.shape[0])
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
    out = lax.scatter(flat, lax.expand_dims(convert(ind, _int()), (1,)), v, dnums, mode="drop")
    return jnp.reshape(out, a.shape)


def trim_zeros(filt, trim="fb"):
    f = _concrete(to_array(filt), "jnp.trim_zeros (its output length depends on the values)")
    nz = np.nonzero(f)[0]
    if nz.size == 0:
        return to_array(filt)[:0]
    lo = nz[0] if "f" in trim.lower() else 0
    hi = nz[-1] + 1 if "b" in trim.lower() else f.shape[0]
    return to_array(filt)[int(lo):int(hi)]


def resize(a, new_shape):
    a = jnp.ravel(to_array(a))
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(
        operator.index(d) for d in new_shape)
    total = int(np.prod(new_shape, dtype=np.int64))
    n = a.shape[0]
    if n == 0 or total == 0:
        return jnp.zeros(new_shape, a.dtype)
    reps = -(-total // n)
    return jnp.reshape(jnp.tile(a, reps)[:total], new_shape)


def _static_indices(obj, n, what):
    if isinstance(obj, slice):
        return np.arange(n)[obj]
    return _concrete(to_array(obj) if not isinstance(obj, (int, np.integer)) else
                     np.asarray(obj), what)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    arr = to_array(arr)
    if axis is None:
        arr, axis = jnp.ravel(arr), 0
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
    return jnp.take(arr, jnp.asarray(np.nonzero(keep)[0].astype(_int())), axis=axis)


def insert(arr, obj, values, axis=None):
    """NumPy's insert with static indices: the result is a gather from ``arr`` and the values."""
    arr = to_array(arr)
    if axis is None:
        arr, axis = jnp.ravel(arr), 0
    axis = canonicalize_axis(axis, arr.ndim)
    n = arr.shape[axis]
    idx = _static_indices(obj, n + 1, "jnp.insert (indices must be static)")
    idx = np.atleast_1d(np.asarray(idx)).astype(np.int64).ravel()
    idx = np.where(idx < 0, idx + n, idx)
    if idx.size and (idx.min() < 0 or idx.max() > n):
        raise IndexError(f"index out of bounds for axis {axis} with size {n}")
    values = convert(to_array(values), arr.dtype)
    values = jnp.reshape(values, (1,) * (arr.ndim - values.ndim) + values.shape)
    if idx.size == 1:  # NumPy: the values' first axis becomes the inserted axis
        values = jnp.moveaxis(values, 0, axis)
        k = values.shape[axis]
        idx = np.full(k, idx[0])
    else:
        k = idx.size
    vshape = list(arr.shape)
    vshape[axis] = k
    v = jnp.broadcast_to(values, tuple(vshape))
    # the output order: old element j goes to j + #(idx <= j); new element i to idx_sorted[i] + i
    order = np.argsort(idx, kind="stable")
    new_pos = idx[order] + np.arange(k)
    old_pos = np.arange(n) + np.searchsorted(np.sort(idx), np.arange(n), side="right")
    src = np.empty(n + k, np.int64)
    src[old_pos] = np.arange(n)
    src[new_pos] = n + order
    both = jnp.concatenate([arr, v], axis=axis)
    return jnp.take(both, jnp.asarray(src.astype(_int())), axis=axis)


def append(arr, values, axis=None):
    if axis is None:
        return jnp.concatenate([jnp.ravel(to_array(arr)), jnp.ravel(to_array(values))])
    return jnp.concatenate([arr, values], axis=axis)


# ------------------------------------------------------------------------------------------------
# Functional helpers


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` on every 1-D slice along ``axis``: nested ``vmap`` over the other axes."""
    from minijax import vmap

    arr = to_array(arr)
    axis = canonicalize_axis(axis, arr.ndim)

    def f(x):
        return func1d(x, *args, **kwargs)

    for _ in range(arr.ndim - 1 - axis):
        f = vmap(f, in_axes=-1, out_axes=-1)
    for _ in range(axis):
        f = vmap(f)
    return f(arr)


def apply_over_axes(func, a, axes):
    a = to_array(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim:
            a = b
        elif b.ndim == a.ndim - 1:
            a = jnp.expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


_SIG_DIMS = r"\(\s*(?:\w+(?:\s*,\s*\w+)*)?\s*\)"
_SIG_LIST = rf"{_SIG_DIMS}(?:\s*,\s*{_SIG_DIMS})*"


def _parse_gufunc_signature(signature):
    """``'(m,n),(n)->(m)'`` → ``([('m', 'n'), ('n',)], [('m',)])`` (NumPy's grammar)."""
    import re

    if not re.fullmatch(rf"\s*{_SIG_LIST}\s*->\s*{_SIG_LIST}\s*", signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = signature.split("->")
    parse = lambda part: [tuple(d.strip() for d in dims.split(",") if d.strip())  # noqa: E731
                          for dims in re.findall(r"\(([^)]*)\)", part)]
    return parse(ins), parse(outs)


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """NumPy's ``vectorize`` through ``vmap``: ``pyfunc`` sees one element (or, with a gufunc
    ``signature`` such as ``'(m,n),(n)->(m)'``, one set of core dimensions) of the broadcast
    loop dimensions; one ``vmap`` per loop dimension, and none over a dimension every argument
    has as size 1 (the result gets it back with ``expand_dims``), as JAX does. ``excluded``
    positions/keywords are passed through unchanged."""
    from minijax import vmap

    excluded = frozenset(excluded)
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError(f"excluded must contain only ints and strs, got {set(excluded)}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError("excluded may not contain negative integers")
    in_core, out_core = (_parse_gufunc_signature(signature) if signature is not None
                         else (None, None))

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        # excluded and None arguments are closed over; the rest become vmapped positionals
        fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}
        dyn_kw = [k for k in kwargs if k not in excluded]
        all_args = list(args) + [kwargs[k] for k in dyn_kw]
        dyn = [i for i, a in enumerate(all_args)
               if not (i < len(args) and i in excluded) and a is not None]
        if in_core is not None and len(in_core) != len(dyn):
            raise TypeError(f"wrong number of positional arguments: expected {len(in_core)}, "
                            f"got {len(dyn)} (signature {signature!r})")
        core = in_core if in_core is not None else [()] * len(dyn)
        arrs = [to_array(all_args[i]) for i in dyn]

        dim_sizes = {}
        loop_shapes = []
        for x, dims in zip(arrs, core):
            if x.ndim < len(dims):
                raise ValueError(f"input with shape {x.shape} does not have enough dimensions "
                                 f"for its core dimensions {dims} (signature {signature!r})")
            for d, n in zip(dims, x.shape[x.ndim - len(dims):]):
                if dim_sizes.setdefault(d, n) != n:
                    raise ValueError(f"inconsistent size for core dimension {d!r}: "
                                     f"{dim_sizes[d]} vs {n} (signature {signature!r})")
            loop_shapes.append(tuple(x.shape[:x.ndim - len(dims)]))
        loop_shape = jnp.broadcast_shapes(*loop_shapes) if loop_shapes else ()

        def call(*xs):
            full = list(all_args)
            for i, x in zip(dyn, xs):
                full[i] = x
            pos, kw = full[:len(args)], dict(zip(dyn_kw, full[len(args):]))
            out = pyfunc(*pos, **kw, **fixed_kw)
            if out_core is not None:
                _check_core_outputs(out, out_core, dim_sizes, signature)
            return out

        # size-1 loop axes are squeezed away; each remaining loop axis gets one vmap
        squeezed, filled = [], []
        for x, shape in zip(arrs, loop_shapes):
            ones = tuple(i for i, n in enumerate(shape) if n == 1)
            squeezed.append(lax.squeeze(x, ones) if ones else x)
            filled.append((1,) * (len(loop_shape) - len(shape)) + shape)
        f, expand = call, []
        for axis in reversed(range(len(loop_shape))):
            in_axes = tuple(None if shape[axis] == 1 else 0 for shape in filled)
            if all(a is None for a in in_axes):
                expand.append(axis)
            else:
                f = vmap(f, in_axes=in_axes)
        out = f(*squeezed)
        if not expand:
            return out
        expand = tuple(sorted(expand))
        if isinstance(out, tuple):
            return tuple(jnp.expand_dims(o, expand) for o in out)
        return jnp.expand_dims(out, expand)

    return wrapped


def _check_core_outputs(out, out_core, dim_sizes, signature):
    outs = out if len(out_core) != 1 else (out,)
    if len(out_core) != 1 and (not isinstance(out, tuple) or len(out) != len(out_core)):
        raise TypeError(f"output must be a tuple of length {len(out_core)} to match the "
                        f"signature {signature!r}, got {type(out).__name__}")
    for o, dims in zip(outs, out_core):
        shape = tuple(np.shape(o))
        if len(shape) != len(dims):
            raise ValueError(f"output shape {shape} does not match its core dimensions {dims} "
                             f"(signature {signature!r})")
        for d, n in zip(dims, shape):
            if dim_sizes.setdefault(d, n) != n:
                raise ValueError(f"output core dimension {d!r} has size {n}, expected "
                                 f"{dim_sizes[d]} (signature {signature!r})")


def fromfunction(function, shape, *, dtype=float, **kwargs):
    shape = tuple(operator.index(d) for d in shape)
    dt = dtypes.canonicalize_dtype(dtype)
    coords = [lax.broadcasted_iota(dt, shape, i) for i in range(len(shape))]
    return function(*coords, **kwargs)


def asarray_chkfinite(a, dtype=None, order=None):
    a = jnp.asarray(a, dtype=dtype)
    h = _concrete(a, "jnp.asarray_chkfinite")
    if h.dtype.kind in "fc" and not np.isfinite(h).all():
        raise ValueError("array must not contain infs or NaNs")
    return a


def ascontiguousarray(a, dtype=None):
    return jnp.asarray(a, dtype=dtype)


def asanyarray(a, dtype=None, order=None):
    return jnp.asarray(a, dtype=dtype)


def iterable(y):
    try:
        iter(y)
    except TypeError:
        return False
    return True


# ------------------------------------------------------------------------------------------------
# nonzero with a static size: traceable (the plain form needs concrete values)


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the non-zero elements, one array per axis. With ``size=`` the result has that
    static length (padded with ``fill_value``, default 0) and works under jit: a cumsum of the
    mask and one scatter. Without it ``a`` must be concrete."""
    from minijax.numpy import manipulation

    if size is None:
        if fill_value is not None:
            raise ValueError("fill_value is only used together with size=")
        return manipulation._nonzero_concrete(a)
    check_arraylike("nonzero", a)
    a = to_array(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d.")
    from minijax.numpy.setops import _compact

    size = operator.index(size)
    mask = jnp.ravel(a != 0) if a.dtype != np.bool_ else jnp.ravel(a)
    flat = _compact(lax.iota(_int(), mask.shape[0]), mask, size, 0)
    coords = unravel_index(flat, a.shape) if a.size else tuple(
        jnp.zeros((size,), _int()) for _ in a.shape)
    count = jnp.sum(mask, dtype=_int())
    valid = lax.iota(_int(), size) < count
    fills = fill_value if isinstance(fill_value, (tuple, list)) else (
        [0 if fill_value is None else fill_value] * a.ndim)
    return tuple(jnp.where(valid, c, convert(f, _int())) for c, f in zip(coords, fills))


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(jnp.ravel(to_array(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    a = to_array(a)
    idx = nonzero(jnp.atleast_1d(a) if a.ndim == 0 else a, size=size, fill_value=fill_value)
    return jnp.stack(idx, axis=1)
