"""Set routines: unique (and the array-API unique_*), isin, in1d, intersect1d, union1d,
setdiff1d, setxor1d.

The result's length depends on the values, so each takes ``size=`` (a static length: the result
is padded with ``fill_value`` or truncated) to work under ``jit``; without it the input must be
concrete (eager) and the size is read from the data. They are JAX 0.10.2's algorithms and jits
(``_unique_sorted_mask``, ``_in1d``, ``_intersect1d_size``, ``_setxor1d_size``): a sort, a
"first of its run" mask and a ``nonzero(size=)`` of it, so the same code runs eagerly and traced
and a jaxpr holds JAX's jit equations.
"""

from __future__ import annotations

import math
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import concrete_or_error
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import canonicalize_axis, check_arraylike, convert, promote_dtypes
from minijax.numpy.creation import to_array

__all__ = [
    "unique", "unique_values", "unique_counts", "unique_inverse", "unique_all", "isin", "in1d",
    "intersect1d", "union1d", "setdiff1d", "setxor1d",
]


def _int():
    return dtypes.default_int_dtype()


_UNIQUE_SIZE_HINT = (
    "To make jnp.unique() compatible with JIT and other transforms, you can specify a concrete "
    "value for the size argument, which will determine the output size.")


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002
    """The sorted distinct values of ``ar`` (and optionally first indices, inverse, counts),
    JAX's way: the jit ``_unique_sorted_mask`` (a lexsort and a first-of-run mask), then the
    mask's ``nonzero``.

    Under jit pass ``size=``: the result then has exactly ``size`` entries, padded with
    ``fill_value`` (default: the smallest unique value).
    """
    del sorted  # as JAX: the values always come sorted
    check_arraylike("unique", ar)
    ar = to_array(ar)
    if size is None:
        ar = concrete_or_error(None, ar, "The error arose for the first argument of "
                               "jnp.unique(). " + _UNIQUE_SIZE_HINT)
    else:
        size = concrete_or_error(operator.index, size, "The error arose for the size "
                                 "argument of jnp.unique(). " + _UNIQUE_SIZE_HINT)
    shape = ar.shape
    if axis is None:
        axis_int, ar = 0, jnp.ravel(ar)
    else:
        axis_int = canonicalize_axis(axis, ar.ndim)
    result = _unique(ar, axis_int, return_index, return_inverse, return_counts,
                     equal_nan=equal_nan, size=size, fill_value=fill_value)
    if return_inverse and axis is None:
        i = 2 if return_index else 1
        result = (*result[:i], result[i].reshape(shape), *result[i + 1:])
    return result


@eager_jit(static_argnames=("axis", "equal_nan"), inline=False)
def _unique_sorted_mask(ar, axis, equal_nan):
    """``ar`` sorted along ``axis`` (moved first; slices lexicographically), a first-of-run
    mask and the sorting permutation."""
    aux = jnp.moveaxis(ar, axis, 0)
    if dtypes.is_complex(np.dtype(aux.dtype)):
        # a NaN only in the imaginary part sorts as NumPy's only when the whole value is NaN
        aux = jnp.where(jnp.isnan(aux), convert(np.nan, aux.dtype), aux)
    size, *out_shape = aux.shape
    if math.prod(out_shape) == 0:
        size = 1
        perm = jnp.zeros(1, dtype=_int())
    else:
        perm = jnp.lexsort(aux.reshape(size, math.prod(out_shape)).T[::-1])
    aux = aux[perm]
    if aux.size:
        if dtypes.is_inexact(np.dtype(aux.dtype)) and equal_nan:
            def neq(x, y):
                return lax.ne(x, y) & ~(jnp.isnan(x) & jnp.isnan(y))
        else:
            neq = lax.ne
        mask = jnp.ones(size, dtype=bool).at[1:].set(
            jnp.any(neq(aux[1:], aux[:-1]), tuple(range(1, aux.ndim))))
    else:
        mask = jnp.zeros(size, dtype=bool)
    return aux, mask, perm


def _unique(ar, axis, return_index=False, return_inverse=False, return_counts=False,
            equal_nan=True, size=None, fill_value=None, return_true_size=False):
    if ar.shape[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    if size is None:
        ind = concrete_or_error(None, mask, "The error arose in jnp.unique(). "
                                + _UNIQUE_SIZE_HINT)
    else:
        ind = jnp.nonzero(mask, size=size)[0]
    result = aux[ind] if aux.size else aux
    if size is not None and fill_value is not None:
        fill_value = jnp.asarray(fill_value).astype(result.dtype)
        if result.shape[0]:
            valid = lax.expand_dims(jnp.arange(size) < mask.sum(), tuple(range(1, result.ndim)))
            result = jnp.where(valid, result, fill_value)
        else:
            result = lax.full_like(result, fill_value, shape=(size, *result.shape[1:]))
    result = jnp.moveaxis(result, 0, axis)
    ret = (result,)
    if return_index:
        ret += (perm[ind] if aux.size else perm,)
    if return_inverse:
        if aux.size:
            inverse = jnp.zeros(mask.shape, dtype=_int()).at[perm].set(jnp.cumsum(mask) - 1)
        else:
            inverse = jnp.zeros(ar.shape[axis], dtype=_int())
        ret += (inverse,)
    if return_counts:
        if aux.size:
            if size is None:
                idx = jnp.append(jnp.nonzero(mask)[0], mask.size)
            else:
                idx = jnp.nonzero(mask, size=size + 1)[0]
                idx = idx.at[1:].set(jnp.where(idx[1:], idx[1:], mask.size))
            ret += (jnp.diff(idx),)
        elif ar.shape[axis]:
            ret += (jnp.full((1,), ar.shape[axis], dtype=_int()),)
        else:
            ret += (jnp.zeros(0, dtype=_int()),)
    if return_true_size:  # for the set routines built on it
        ret += (mask.sum(),)
    return ret[0] if len(ret) == 1 else ret


# The array API's unique_*: NaNs are all distinct (equal_nan=False), as JAX's.
def unique_values(x, *, size=None, fill_value=None):
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, *, size=None, fill_value=None):
    return unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)


def unique_inverse(x, *, size=None, fill_value=None):
    return unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)


def unique_all(x, *, size=None, fill_value=None):
    return unique(x, return_index=True, return_inverse=True, return_counts=True,
                  equal_nan=False, size=size, fill_value=fill_value)


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element is in ``test_elements``: the jit ``_in1d`` of the flattened
    arrays, reshaped, as JAX."""
    check_arraylike("isin", element, test_elements)
    element = to_array(element)
    result = _in1d(element, test_elements, invert=invert, method=method,
                   assume_unique=assume_unique)
    return result.reshape(element.shape)


def in1d(ar1, ar2, assume_unique=False, invert=False, *, method="auto"):
    check_arraylike("in1d", ar1, ar2)
    return _in1d(ar1, ar2, invert=invert, method=method, assume_unique=assume_unique)


@eager_jit(static_argnames=("assume_unique", "invert", "method"), inline=False)
def _in1d(ar1, ar2, invert, method="auto", assume_unique=False):
    """JAX's methods: ``auto``/``compare_all`` one (n × m) comparison; ``binary_search`` a
    sort and searchsorted; ``sort`` a co-sort of the (uniqued) elements and the tests."""
    arr1, arr2 = (jnp.ravel(to_array(x)) for x in promote_dtypes(ar1, ar2))
    if arr1.size == 0 or arr2.size == 0:
        return (jnp.ones if invert else jnp.zeros)(arr1.shape, dtype=bool)
    if method in ("auto", "compare_all"):
        if invert:
            return jnp.all(arr1[:, None] != arr2[None, :], axis=-1)
        return jnp.any(arr1[:, None] == arr2[None, :], axis=-1)
    if method == "binary_search":
        arr2 = lax.sort(arr2)
        ind = jnp.searchsorted(arr2, arr1)
        return arr1 != arr2[ind] if invert else arr1 == arr2[ind]
    if method == "sort":
        if assume_unique:
            ind_out = slice(None)
        else:
            arr1, ind_out = unique(arr1, size=arr1.shape[0], return_inverse=True,
                                   fill_value=jnp.max(arr2))
        aux, ind = lax.sort_key_val(jnp.concatenate([arr1, arr2]),
                                    jnp.arange(arr1.shape[0] + arr2.shape[0]))
        if invert:
            out = jnp.ones(arr1.shape, bool).at[ind[:-1]].set(aux[1:] != aux[:-1], mode="drop")
        else:
            out = jnp.zeros(arr1.shape, bool).at[ind[:-1]].set(aux[1:] == aux[:-1], mode="drop")
        return out[ind_out]
    raise ValueError(f"{method=} is not implemented; options are 'compare_all', "
                     "'binary_search', 'sort', and 'auto'")


def _promote(a, b):
    a, b = to_array(a), to_array(b)
    dt = dtypes.result_type(a, b)
    return convert(a, dt), convert(b, dt)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    check_arraylike("union1d", ar1, ar2)
    a, b = _promote(ar1, ar2)
    return unique(jnp.concatenate([jnp.ravel(a), jnp.ravel(b)]), size=size,
                  fill_value=fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted values in both ``ar1`` and ``ar2`` (optionally their first indices), JAX's
    way; with ``size=`` the jit ``_intersect1d_size``, padded as ``setxor1d``."""
    check_arraylike("intersect1d", ar1, ar2)
    arr1, arr2 = (jnp.ravel(to_array(x)) for x in promote_dtypes(ar1, ar2))
    if size is not None:
        return _intersect1d_size(arr1, arr2, fill_value, return_indices=return_indices,
                                 size=size, assume_unique=assume_unique)
    ind1 = ind2 = jnp.arange(0)
    if not assume_unique:
        if return_indices:
            arr1, ind1 = unique(arr1, return_index=True)
            arr2, ind2 = unique(arr2, return_index=True)
        else:
            arr1, arr2 = unique(arr1), unique(arr2)
    aux, mask, aux_sort_indices = _intersect1d_sorted_mask(arr1, arr2, return_indices)
    int1d = aux[:-1][mask]
    if not return_indices:
        return int1d
    arr1_indices = aux_sort_indices[:-1][mask]
    arr2_indices = aux_sort_indices[1:][mask] - arr1.size
    if not assume_unique:
        arr1_indices, arr2_indices = ind1[arr1_indices], ind2[arr2_indices]
    return int1d, arr1_indices, arr2_indices


@eager_jit(static_argnames=("return_indices",), inline=False)
def _intersect1d_sorted_mask(arr1, arr2, return_indices):
    arr = jnp.concatenate((arr1, arr2))
    if return_indices:
        idx_dtype = np.int64 if arr.shape[0] > np.iinfo(np.int32).max else np.int32
        aux, indices = lax.sort_key_val(arr, lax.broadcasted_iota(idx_dtype, arr.shape, 0))
    else:
        aux, indices = jnp.sort(arr), None
    return aux, aux[1:] == aux[:-1], indices


@eager_jit(static_argnames=("assume_unique", "size", "return_indices"), inline=False)
def _intersect1d_size(arr1, arr2, fill_value, assume_unique, size, return_indices=False):
    """Both inputs' sorted unique values side by side: an equal neighbour is a common value."""
    if assume_unique:
        ind1, num_unique1 = jnp.arange(arr1.size), jnp.full((), arr1.size)
        ind2 = jnp.arange(arr2.size)
        arr = jnp.concatenate([arr1, arr2])
        aux, aux_sort_indices = lax.sort((arr, jnp.arange(arr.size)), is_stable=True,
                                         num_keys=1)
        mask = jnp.ones(arr.size, dtype=bool)
    else:
        arr1, ind1, num_unique1 = _unique(arr1, 0, size=arr1.size, return_index=True,
                                          return_true_size=True, fill_value=0)
        arr2, ind2, num_unique2 = _unique(arr2, 0, size=arr2.size, return_index=True,
                                          return_true_size=True, fill_value=0)
        arr = jnp.zeros(arr1.size + arr2.size, dtype=dtypes.result_type(arr1, arr2))
        arr = lax.dynamic_update_slice(arr, arr1, (0,))
        arr = lax.dynamic_update_slice(arr, arr2, (num_unique1,))
        mask = jnp.arange(arr.size) < num_unique1 + num_unique2
        _, aux, aux_sort_indices = lax.sort((~mask, arr, jnp.arange(arr.size)), is_stable=True,
                                            num_keys=2)
    aux_mask = (aux[1:] == aux[:-1]) & mask[1:]
    vals, val_indices, num_results = _padded_results(aux, aux_mask, size, fill_value)
    if not return_indices:
        return vals
    valid = jnp.arange(size) < num_results
    arr1_indices = aux_sort_indices.at[val_indices].get(mode="fill", fill_value=arr1.size)
    arr1_indices = jnp.where(valid, arr1_indices, arr1.size)
    arr2_indices = aux_sort_indices.at[val_indices + 1].get(
        mode="fill", fill_value=arr2.size) - num_unique1
    arr2_indices = jnp.where(valid, arr2_indices, arr2.size)
    if not assume_unique:
        arr1_indices = ind1.at[arr1_indices].get(mode="fill", fill_value=ind1.size)
        arr2_indices = ind2.at[arr2_indices].get(mode="fill", fill_value=ind2.size)
    return vals, arr1_indices, arr2_indices


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values of ``ar1`` not in ``ar2``, JAX's way: ``unique`` then an
    inverted ``_in1d``; with ``size=`` padded with ``fill_value`` (default 0)."""
    check_arraylike("setdiff1d", ar1, ar2)
    arr1, arr2 = jnp.ravel(to_array(ar1)), jnp.ravel(to_array(ar2))
    if size is None:
        concrete_or_error(None, arr1, "The error arose in setdiff1d()")
    else:
        size = concrete_or_error(operator.index, size, "The error arose in setdiff1d()")
    fill_value = lax.full_like(arr1, 0 if fill_value is None else fill_value, shape=())
    if arr1.size == 0:
        return lax.full_like(arr1, fill_value, shape=(size or 0,))
    if not assume_unique:
        arr1 = unique(arr1, size=size and arr1.size)
    mask = _in1d(arr1, arr2, invert=True, assume_unique=assume_unique)
    if size is None:
        return arr1[mask]
    if not assume_unique:  # unique's padding repeats its first value: not a result
        n_unique = arr1.size + 1 - (arr1 == arr1[0]).sum()
        mask = jnp.where(jnp.arange(arr1.size) < n_unique, mask, False)
    return jnp.where(jnp.arange(size) < mask.sum(), arr1[jnp.nonzero(mask, size=size)[0]],
                     fill_value)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted values in exactly one of ``ar1`` and ``ar2``, JAX's way; with ``size=`` the
    jit ``_setxor1d_size``, padded with ``fill_value`` (default: the largest value, then the
    smallest where there is none)."""
    check_arraylike("setxor1d", ar1, ar2)
    arr1, arr2 = (to_array(x) for x in promote_dtypes(jnp.ravel(to_array(ar1)),
                                                        jnp.ravel(to_array(ar2))))
    if size is not None:
        return _setxor1d_size(arr1, arr2, fill_value, assume_unique=assume_unique, size=size)
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = jnp.concatenate((arr1, arr2))
    if aux.size == 0:
        return aux
    aux = jnp.sort(aux)
    flag = jnp.concatenate([jnp.ones(1, bool), aux[1:] != aux[:-1], jnp.ones(1, bool)])
    return aux[flag[1:] & flag[:-1]]


def _concat_unique(arr1, arr2):
    """The unique values of ``arr1`` then those of ``arr2`` (zeros after), and their count."""
    arr1, num_unique1 = _unique(arr1, 0, size=arr1.size, return_true_size=True)
    arr2, num_unique2 = _unique(arr2, 0, size=arr2.size, return_true_size=True)
    arr = jnp.zeros(arr1.size + arr2.size, dtype=dtypes.result_type(arr1, arr2))
    arr = lax.dynamic_update_slice(arr, arr1, (0,))
    arr = lax.dynamic_update_slice(arr, arr2, (num_unique1,))
    return arr, num_unique1 + num_unique2


@eager_jit(static_argnames=("assume_unique", "size"), inline=False)
def _setxor1d_size(arr1, arr2, fill_value, *, assume_unique, size):
    if assume_unique:
        aux = jnp.sort(jnp.concatenate([arr1, arr2]))
        flag = jnp.concatenate([jnp.full((1,), bool(aux.size)), aux[1:] != aux[:-1],
                                jnp.ones(1, bool)])
    else:
        arr, num_unique = _concat_unique(arr1, arr2)
        mask = jnp.arange(arr.size + 1) < num_unique + 1
        _, aux = lax.sort((~mask[1:], arr), is_stable=True, num_keys=2)
        flag = mask & jnp.concatenate([jnp.full((1,), bool(aux.size)), aux[1:] != aux[:-1],
                                       jnp.zeros(1, bool)]).at[num_unique].set(True)
    aux_mask = flag[1:] & flag[:-1]
    return _padded_results(aux, aux_mask, size, fill_value)[0]


def _padded_results(aux, aux_mask, size, fill_value):
    """``aux`` where ``aux_mask``, ``size`` long, padded as JAX's set routines pad; also the
    picked indices and the count of real results."""
    num_results = aux_mask.sum()
    if aux.size:
        indices = jnp.nonzero(aux_mask, size=size, fill_value=aux.shape[0])[0]
        vals = aux.at[indices].get(mode="fill", fill_value=0)
    else:
        indices = jnp.arange(0)
        vals = jnp.zeros(size, aux.dtype)
    valid = jnp.arange(vals.shape[0]) < num_results
    if fill_value is None:
        vals = jnp.where(valid, vals, vals.max())
        vals = jnp.where(valid, vals, vals.min())
    else:
        vals = jnp.where(valid, vals, fill_value)
    return vals, indices, num_results
