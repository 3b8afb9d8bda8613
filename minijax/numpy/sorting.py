"""NumPy's sorting, searching and counting routines: sort, argsort, lexsort, partition,
argpartition, sort_complex, searchsorted, nanargmin, nanargmax, nonzero, flatnonzero, argwhere,
extract and ``where`` (``argmax``/``argmin``/``count_nonzero`` are reductions, reductions.py).

Sorting is ``lax.sort`` (one ``stablehlo.sort``, several operands riding along), so each
function is one or two XLA ops whatever the rank, and grad and vmap come from the primitives'
own rules. ``nonzero`` and its relatives need concrete values unless given a static ``size=``.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.lax.control_flow.common import vary_like
from minijax.lax.total_order import eq_to_p, le_to_p, lt_to_p
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import (
    broadcast_shapes,
    broadcast_sharding,
    broadcast_to_shape,
    canonicalize_axis,
    check_arraylike,
    convert,
    lax_const,
    promote_dtypes,
)
from minijax.numpy._util import shape as _shape
from minijax.numpy.creation import asarray, to_array
from minijax.numpy.indexing_routines import _flat_or_axis, compress, put_along_axis
from minijax.vmapping import vmap

__all__ = [
    "sort", "argsort", "lexsort", "partition", "argpartition", "sort_complex", "msort",
    "searchsorted", "nanargmin", "nanargmax", "nonzero", "flatnonzero", "argwhere", "extract",
    "where",
]


def _int():
    return dtypes.default_int_dtype()


# ------------------------------------------------------------------------------------------------
# Sorting


@eager_jit(static_argnames=("axis", "kind", "order", "stable", "descending"), inline=False)
def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """Sorted copy of ``a`` along ``axis`` (NaNs last, as NumPy); ``descending`` is the
    ascending sort reversed, as JAX (so ties, and their gradients, come out last-first)."""
    check_arraylike("sort", a)
    if kind is not None:
        raise TypeError("'kind' argument to sort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError("'order' argument to sort is not supported.")
    a, axis = _flat_or_axis(a, axis)
    if a.ndim == 0:
        return a
    out = lax.sort(a, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


@eager_jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"),
           inline=False)
def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
    """Indices (of ``dtype``, the default int if None) that sort ``a`` along ``axis``; stable
    (ties keep their order) by default."""
    check_arraylike("argsort", a)
    if kind is not None:
        raise TypeError("'kind' argument to argsort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError("'order' argument to argsort is not supported.")
    a, axis = _flat_or_axis(a, axis)
    idx_dtype = _int() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if a.ndim == 0:
        return lax.full((), 0, idx_dtype)
    iota = lax.broadcasted_iota(idx_dtype, a.shape, axis)
    if descending and stable:  # reversed first, so ties keep their order once reversed back
        a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
    _, idx = lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)
    return lax.rev(idx, (axis,)) if descending else idx


def msort(a):
    return sort(a, axis=0)


@eager_jit(inline=False)
def sort_complex(a):
    check_arraylike("sort_complex", a)
    a = lax.sort(to_array(a))
    return convert(a, dtypes.canonicalize_dtype(np.result_type(a.dtype, np.complex64)))


@eager_jit(static_argnames=("axis",), inline=False)
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


@eager_jit(static_argnames=("kth", "axis"), inline=False)
def partition(a, kth, axis=-1):
    """``a`` with the k-th element where sorting puts it, smaller ones before (ascending),
    larger after (descending): two ``top_k``, as JAX."""
    check_arraylike("partition", a)
    arr = to_array(a)
    if dtypes.is_complex(np.dtype(arr.dtype)):
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("jnp.partition for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, arr.ndim)
    kth = canonicalize_axis(kth, arr.shape[axis])
    arr = jnp.swapaxes(arr, axis, -1)
    if np.dtype(arr.dtype).kind == "u":  # -(x + 1) keeps a zero from wrapping
        bottom = -lax.top_k(-(arr + 1), kth + 1)[0] - 1
    else:
        bottom = -lax.top_k(-arr, kth + 1)[0]
    top = lax.top_k(arr, arr.shape[-1] - kth - 1)[0]
    return jnp.swapaxes(lax.concatenate([bottom, top], arr.ndim - 1), -1, axis)


@eager_jit(static_argnames=("kth", "axis"), inline=False)
def argpartition(a, kth, axis=-1):
    """The indices ``partition`` would place, as JAX (the top ones through a proxy, so ties
    cannot repeat an index)."""
    check_arraylike("partition", a)
    arr = to_array(a)
    if dtypes.is_complex(np.dtype(arr.dtype)):
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("jnp.argpartition for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, arr.ndim)
    kth = canonicalize_axis(kth, arr.shape[axis])
    arr = jnp.swapaxes(arr, axis, -1)
    if np.dtype(arr.dtype).kind == "u":
        bottom_ind = lax.top_k(-(arr + 1), kth + 1)[1]
    else:
        bottom_ind = lax.top_k(-arr, kth + 1)[1]

    def set_to_zero(x, i):
        return x.at[i].set(0)

    for _ in range(arr.ndim - 1):
        set_to_zero = vmap(set_to_zero)
    proxy = set_to_zero(lax.full(arr.shape, 1.0), bottom_ind)
    top_ind = lax.top_k(proxy, arr.shape[-1] - kth - 1)[1]
    return jnp.swapaxes(lax.concatenate([bottom_ind, top_ind], arr.ndim - 1), -1, axis)


# ------------------------------------------------------------------------------------------------
# Searching


def _lt(x, y):
    """NumPy's sort order: NaN is larger than everything (and equal to NaN)."""
    if dtypes.is_inexact(np.dtype(x.dtype)) and not dtypes.is_complex(np.dtype(x.dtype)):
        return jnp.less(x, y) | (jnp.isnan(y) & ~jnp.isnan(x))
    return jnp.less(x, y)


@eager_jit(static_argnames=("side", "method"), inline=False)
def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Insertion points of ``v`` in the sorted 1-D ``a`` (``side`` picks the end of a tie run),
    as int32 (int64 only for a longer ``a``), as JAX.

    ``method``: ``'scan'`` a binary search in a ``scan`` (JAX's jit ``_searchsorted_scan_impl``,
    vmapped over ``v``), ``'scan_unrolled'`` the same unrolled, ``'compare_all'`` one (n × m)
    comparison and a sum (fast for small ``a``), ``'sort'`` one sort of the concatenation (fast
    for large ``v``).
    """
    check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    a, v = to_array(a), to_array(v)
    if a.ndim != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = (to_array(x) for x in promote_dtypes(a, v))
    if sorter is not None:
        a = a[sorter]
    n = a.shape[0]
    out_dtype = np.dtype(np.int64 if n > np.iinfo(np.int32).max else np.int32)
    if method in ("scan", "scan_unrolled"):
        return _searchsorted_scan_impl(a, v, side, out_dtype, method == "scan_unrolled")
    if method == "compare_all":
        va = lax.expand_dims(v, (v.ndim,))
        hits = _lt(a, va) if side == "left" else ~_lt(va, a)
        return jnp.sum(hits, axis=-1, dtype=out_dtype)
    if method == "sort":
        return _searchsorted_sort(a, v, side, out_dtype)
    raise ValueError(f"Unsupported method: {method}")


@eager_jit(static_argnames=("side", "dtype", "unrolled"), inline=False)
def _searchsorted_scan_impl(sorted_arr, query, side, dtype, unrolled):
    """JAX's binary search of one query (vmapped over the others): ``high`` ends at the
    insertion point after ceil(log2(n + 1)) halvings, in unsigned arithmetic."""
    n = sorted_arr.shape[0]
    if n == 0:
        return lax.full(query.shape, 0, dtype)
    if query.ndim > 0:
        return vmap(functools.partial(_searchsorted_scan_impl, side=side, dtype=dtype,
                                      unrolled=unrolled), in_axes=(None, 0))(sorted_arr, query)
    unsigned = np.uint64 if np.iinfo(dtype).bits == 64 else np.uint32

    def body(state, _):
        low, high = state
        mid = low + (high - low) // 2  # this form cannot overflow
        go_left = _sort_comparator(query, sorted_arr[mid], le=side == "left")
        return (lax.select(go_left, low, mid), lax.select(go_left, mid, high)), None

    levels = int(np.ceil(np.log2(n + 1)))
    # typed as varying as the values the body meets (inside shard_map)
    init = vary_like((lax.full((), 0, unsigned), lax.full((), n, unsigned)), sorted_arr, query)
    carry, _ = lax.scan(body, init, None, length=levels, unroll=levels if unrolled else 1)
    return convert(carry[1], dtype)


def _sort_comparator(x, y, le):
    """JAX's ``lax._sort_lt_comparator`` (``_sort_le_comparator`` where ``le``): the total
    order on canonical keys (a complex number's real part, then its imaginary part)."""
    p = None
    for xk, yk in zip(_sort_keys(x)[::-1], _sort_keys(y)[::-1]):
        if p is None:
            p = (le_to_p if le else lt_to_p).bind(xk, yk)
        else:
            p = lax.bitwise_or(lt_to_p.bind(xk, yk), lax.bitwise_and(eq_to_p.bind(xk, yk), p))
    return p


def _sort_keys(x):
    """JAX's ``_operands_to_keys`` of one operand: floats through
    ``_canonicalize_float_for_sort`` (-0 as 0, one NaN), a complex number as two such keys."""
    dt = np.dtype(x.dtype)
    if dtypes.is_complex(dt):
        return [_canonical_float(lax.real(x)), _canonical_float(lax.imag(x))]
    if dtypes.is_inexact(dt):
        return [_canonical_float(x)]
    return [x]


def _canonical_float(x):
    out = lax.select(lax.eq(x, lax.full((), 0, x.dtype)), lax.full_like(x, 0), x)
    return lax.select(lax.ne(x, x), lax.full_like(out, np.nan), out)


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


def _nan_arg(fn, fill, a, axis, keepdims):
    if not dtypes.is_inexact(np.dtype(a.dtype)):
        return fn(a, axis=axis, keepdims=keepdims)
    nans = jnp.isnan(a)
    out = fn(where(nans, fill, a), axis=axis, keepdims=keepdims)
    return where(jnp.all(nans, axis=axis, keepdims=keepdims), -1, out)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """Like argmin, NaNs skipped; an all-NaN slice gives -1 (as JAX; NumPy raises). The jit
    ``_nanargmin``, as JAX's."""
    if out is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.nanargmin is not supported.")
    check_arraylike("nanargmin", a)
    return _nanargmin(to_array(a), None if axis is None else operator.index(axis),
                      keepdims=bool(keepdims))


def nanargmax(a, axis=None, out=None, keepdims=None):
    if out is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.nanargmax is not supported.")
    check_arraylike("nanargmax", a)
    return _nanargmax(to_array(a), None if axis is None else operator.index(axis),
                      keepdims=bool(keepdims))


@eager_jit(static_argnames=("axis", "keepdims"), inline=False)
def _nanargmin(a, axis=None, keepdims=False):
    return _nan_arg(jnp.argmin, jnp.inf, a, axis, keepdims)


@eager_jit(static_argnames=("axis", "keepdims"), inline=False)
def _nanargmax(a, axis=None, keepdims=False):
    return _nan_arg(jnp.argmax, -jnp.inf, a, axis, keepdims)


# ------------------------------------------------------------------------------------------------
# Searching for non-zero elements: the output length depends on the values unless ``size=``
# is given


def extract(condition, arr, *, size=None, fill_value=0):
    return compress(jnp.ravel(to_array(condition)), jnp.ravel(to_array(arr)), size=size,
                    fill_value=fill_value)


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the non-zero elements, one array per axis. With ``size=`` the result has that
    static length (padded with ``fill_value``, default 0) and works under jit, JAX's way: the
    cumsum of a bincount of the mask's cumsum is each nonzero's flat index. Without it ``a``
    must be concrete."""
    if size is None:
        if fill_value is not None:
            raise ValueError("fill_value is only used together with size=")
        return _nonzero_concrete(a)
    check_arraylike("nonzero", a)
    a = to_array(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d.")
    size = operator.index(size)
    mask = a if a.dtype == np.bool_ else a != 0
    if a.size == 0 or size == 0:
        return tuple(jnp.zeros((size,), _int()) for _ in a.shape)
    flat_indices = jnp.cumsum(jnp.bincount(jnp.cumsum(mask), length=size))
    strides = (np.cumprod(a.shape[::-1])[::-1] // a.shape).astype(flat_indices.dtype)
    out = tuple((flat_indices // stride) % n for stride, n in zip(strides.tolist(), a.shape))
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * a.ndim
        if any(np.shape(f) != () for f in fills):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {a.ndim}; got "
                             f"{fill_value}")
        fill_mask = jnp.arange(size) >= mask.sum()
        out = tuple(where(fill_mask, f, entry) for f, entry in zip(fills, out))
    return out


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(jnp.ravel(to_array(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """JAX's: the stacked ``nonzero`` of ``atleast_1d(a)``; a 0-d ``a`` gives (n, 0)."""
    check_arraylike("argwhere", a)
    a = to_array(a)
    result = jnp.transpose(jnp.vstack(nonzero(jnp.atleast_1d(a), size=size,
                                              fill_value=fill_value)))
    if a.ndim == 0:
        return result[:0].reshape(result.shape[0], 0)
    return result.reshape(result.shape[0], a.ndim)


def _nonzero_concrete(a):
    """NumPy's ``nonzero`` of a concrete ``a``: the output's length depends on the values, so
    under jit this raises (the traceable form with ``size=`` is ``nonzero`` above)."""
    check_arraylike("nonzero", a)
    if isinstance(a, Tracer):
        raise a._concretization_error(
            "jnp.nonzero (the size of its result depends on the values; pass size= for a "
            "static size, which works under jit)")
    host = np.asarray(a)
    if host.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d.")
    int_dtype = dtypes.default_int_dtype()
    return tuple(asarray(i.astype(int_dtype)) for i in np.nonzero(host))


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` else ``y``, broadcast together. The one-argument form is
    ``nonzero``."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jnp.where, got one.")
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value are only allowed in the one-argument form of where")
    return _where(condition, x, y)


@eager_jit(inline=False)
def _where(condition, x, y):
    check_arraylike("where", condition, x, y)
    condition = to_array(condition)
    # as JAX's: a bool condition is used as it is (a weak one stays weak), another is != 0
    if condition.dtype != np.bool_:
        condition = lax.ne(condition, lax_const(condition, 0))
    x, y = promote_dtypes(x, y)
    condition, x, y = _broadcast_all(condition, x, y)
    # As JAX: an empty result is ``x`` itself, so only ``x`` carries a derivative (an empty
    # ``y`` that is a constant keeps the output's tangent a symbolic zero).
    if 0 in _shape(x):
        return x
    return lax.select(condition, x, y)


def _broadcast_all(*args):
    """Broadcast to the common shape; select_n wants its cases (not its predicate) full-size."""
    out_shape = broadcast_shapes(*[_shape(a) for a in args])
    sharding = broadcast_sharding(*args)
    return [broadcast_to_shape(a, out_shape, sharding) if i or _shape(a) else a
            for i, a in enumerate(args)]
