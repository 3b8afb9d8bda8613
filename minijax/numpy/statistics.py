"""Statistics: quantile, percentile, median and their nan-versions; the NaN-skipping reductions
(nanprod, nanmin, nanmax, nanmean, nanvar, nanstd, nancumsum, nancumprod); histogram,
histogram_bin_edges, histogram2d, histogramdd, bincount, digitize; cov, corrcoef.

Quantiles are JAX 0.10.2's ``_quantile``: sort along the axis (a tuple of axes merged last, no
axis: raveled) and pick the two neighbouring order statistics, so they differentiate (through
sort and gather) and vectorize like everything else. quantile makes a slice holding a NaN all
NaN and gathers whole slices; the nan-versions count the non-NaN entries per slice (sorting puts
NaNs last, so the first ``count`` entries are the valid ones) and index them.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import (
    canonicalize_axis,
    check_arraylike,
    convert,
    lax_const,
    promote_dtypes_inexact,
    to_inexact_dtype,
)
from minijax.numpy.creation import to_array
from minijax.numpy.reductions import _cumulative, _var_dtypes

__all__ = [
    "quantile", "percentile", "median", "nanquantile", "nanpercentile", "nanmedian",
    "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd",
    "nancumsum", "nancumprod", "histogram", "histogram_bin_edges", "histogram2d", "histogramdd",
    "bincount", "digitize",
    "cov", "corrcoef",
]

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


# ------------------------------------------------------------------------------------------------
# Quantiles


def _quantile(name, a, q, axis, method, keepdims, skip_nan, weights=None):
    """JAX 0.10.2's ``_quantile`` step by step (its program is what Shardy propagates
    shardings through, and its arithmetic is q's dtype's, so both follow it)."""
    check_arraylike(name, a, q)
    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    a, q = to_array(a), to_array(q)
    # a keeps its weak type inside, as JAX's promote_dtypes_inexact; the result is made
    # strong at the end (JAX's final convert_element_type), so a weak operand's cotangent
    # is typed by the body, not by a leading conversion's transpose
    if weights is not None:
        check_arraylike(name, weights)
        weights = to_array(weights)
        if dtypes.is_complex(weights.dtype):
            raise ValueError("Weights cannot be complex types.")
        if method != "inverted_cdf":  # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                      "'inverted_cdf' supports weights.")
        a, weights = promote_dtypes_inexact(a, weights)
        if weights.shape != a.shape:
            if axis is None:
                raise ValueError("Weights shape must match 'a' shape when axis is None.")
            axes = (axis,) if isinstance(axis, int) else axis
            axes = tuple(canonicalize_axis(ax, a.ndim) for ax in axes)
            red_shape = tuple(a.shape[ax] for ax in axes)
            if weights.shape != red_shape:
                raise ValueError(f"Weights shape {weights.shape} must match reduction axes "
                                 f"{red_shape}")
            weights = lax.broadcast_in_dim(weights, a.shape, axes)
    else:
        a, = promote_dtypes_inexact(a)
    if dtypes.is_complex(a.dtype):
        raise ValueError("quantile does not support complex input, as the operation is poorly "
                         "defined.")
    keepdim = ()  # the result's shape with keepdims, where the reduced axes were merged
    if axis is None:
        keepdim = (1,) * a.ndim if keepdims else ()
        a = lax.reshape(a, (a.size,))
        if weights is not None:
            weights = lax.reshape(weights, (weights.size,))
        axis = 0
    elif isinstance(axis, tuple):
        nd = a.ndim
        axes = tuple(canonicalize_axis(ax, nd) for ax in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        keepdim = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
        # JAX's permutation: the kept axes swapped to the front one by one (so the reduced
        # ones are not always in order: ties of the stable sort resolve as in JAX)
        perm = list(range(nd))
        for i, s in enumerate(i for i in range(nd) if i not in axes):
            perm[i], perm[s] = perm[s], perm[i]
        kept_shape = tuple(d for i, d in enumerate(a.shape) if i not in axes)
        n = int(np.prod([a.shape[i] for i in axes], dtype=np.int64))
        a = lax.reshape(a, kept_shape + (n,), perm)
        if weights is not None:
            weights = lax.reshape(weights, kept_shape + (n,), perm)
        axis = a.ndim - 1
    else:
        axis = canonicalize_axis(axis, a.ndim)
    if q.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {q.shape}")
    qs, qd = q.shape, q.ndim
    a_shape = a.shape
    q_orig = q
    if skip_nan:
        # NaNs made positive so they sort last, whatever their sign bit
        a = jnp.where(lax.ne(a, a), np.nan, a)
        a, weights = _sort_with(a, weights, axis)
        counts = jnp.sum(lax.bitwise_not(lax.ne(a, a)), axis=axis, dtype=q.dtype,
                         keepdims=keepdims)
        reduced_shape = counts.shape
        q = lax.expand_dims(q, tuple(range(qd, len(reduced_shape) + qd)))
        counts = lax.expand_dims(counts, tuple(range(qd)))
        q = lax.mul(q, lax.sub(counts, lax_const(q, 1)))
        low, high = lax.floor(q), lax.ceil(q)
        high_weight = lax.sub(q, low)
        low_weight = lax.sub(lax_const(high_weight, 1), high_weight)
        low = lax.max(lax_const(low, 0), lax.min(low, counts - 1))
        high = lax.max(lax_const(high, 0), lax.min(high, counts - 1))
        int_dtype = dtypes.default_int_dtype()
        low = lax.convert_element_type(low, int_dtype)
        high = lax.convert_element_type(high, int_dtype)
        out_shape = qs + reduced_shape
        index = [lax.broadcasted_iota(int_dtype, out_shape, d + qd)
                 for d in range(len(reduced_shape))]
        if keepdims:
            index[axis] = low
        else:
            index.insert(axis, low)
        low_value = a[tuple(index)]
        index[axis] = high
        high_value = a[tuple(index)]
    else:
        # a slice holding a NaN made all NaN before the sort, as JAX: the where's mask is a
        # residual of grad that Shardy shards like the operand (run 21000 s21031-348)
        a = jnp.where(jnp.any(lax.ne(a, a), axis=axis, keepdims=True), np.nan, a)
        a, weights = _sort_with(a, weights, axis)
        n = to_array(np.asarray(a_shape[axis], q.dtype))  # an Array constant, as JAX's
        q = lax.mul(q, n - 1)
        low, high = lax.floor(q), lax.ceil(q)
        high_weight = lax.sub(q, low)
        low_weight = lax.sub(lax_const(high_weight, 1), high_weight)
        low = lax.clamp(lax_const(low, 0), low, n - 1)
        high = lax.clamp(lax_const(high, 0), high, n - 1)
        low = lax.convert_element_type(low, dtypes.default_int_dtype())
        high = lax.convert_element_type(high, dtypes.default_int_dtype())
        # one gather of whole slices per order statistic (an empty axis fails its shape
        # check, as JAX's)
        slice_sizes = list(a_shape)
        slice_sizes[axis] = 1
        dnums = lax.GatherDimensionNumbers(
            offset_dims=tuple(range(qd, len(a_shape) + qd - (0 if keepdims else 1))),
            collapsed_slice_dims=() if keepdims else (axis,),
            start_index_map=(axis,))
        low_value = lax.gather(a, low[..., None], dnums, slice_sizes)
        high_value = lax.gather(a, high[..., None], dnums, slice_sizes)
        if qd == 1:
            low_weight = lax.broadcast_in_dim(low_weight, low_value.shape, (0,))
            high_weight = lax.broadcast_in_dim(high_weight, high_value.shape, (0,))
    if method == "linear":
        result = lax.add(lax.mul(low_value.astype(q.dtype), low_weight),
                         lax.mul(high_value.astype(q.dtype), high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":  # ties go to the lower one (NumPy rounds half to even)
        result = lax.select(lax.le(high_weight, lax_const(high_weight, 0.5)),
                            low_value, high_value)
    elif method == "midpoint":
        result = lax.mul(lax.add(low_value, high_value), lax_const(low_value, 0.5))
    else:
        result = _inverted_cdf(a, weights, q_orig, a_shape[axis], axis, keepdims, skip_nan)
    if keepdims and keepdim:
        result = lax.reshape(result, qs + keepdim)
    return lax.convert_element_type(result, a.dtype)


def _inverted_cdf(a, weights, q, n, axis, keepdims, skip_nan):
    """JAX 0.10.2's inverted_cdf: the first sorted entry whose cumulative weight reaches
    ``q * total`` (negative or NaN weights, and NaN data where NaNs are not skipped, give NaN)."""
    qd = q.ndim
    int_dtype = dtypes.default_int_dtype()
    if weights is None:
        weights = lax.full_like(a, 1.0)
    zeros = lax.full_like(weights, 0)
    bad_weights = lax.bitwise_or(lax.lt(weights, zeros), lax.ne(weights, weights))
    nan_data = lax.ne(a, a)
    clean = lax.select(lax.bitwise_or(bad_weights, nan_data), zeros, weights)
    cum = jnp.cumsum(clean, axis=axis)
    total = lax.index_in_dim(cum, -1, axis=axis, keepdims=keepdims)
    target = lax.mul(lax.reshape(q, q.shape + (1,) * total.ndim),
                     lax.expand_dims(total, tuple(range(qd))))
    if not keepdims:
        target = lax.expand_dims(target, (axis + qd,))
    is_less = lax.lt(lax.expand_dims(cum, tuple(range(qd))), target)
    idx = jnp.sum(lax.convert_element_type(is_less, int_dtype), axis=axis + qd,
                  keepdims=keepdims)
    if skip_nan:
        valid = jnp.sum(lax.bitwise_not(nan_data), axis=axis, dtype=q.dtype,
                        keepdims=keepdims)
    else:
        valid = lax.full_like(total, n, dtype=q.dtype)
    max_idx = lax.convert_element_type(lax.sub(valid, lax_const(valid, 1)), int_dtype)
    max_idx = lax.convert_element_type(lax.expand_dims(max_idx, tuple(range(qd))), idx.dtype)
    idx = lax.max(lax_const(idx, 0), lax.min(idx, max_idx))
    if keepdims:
        idx = lax.squeeze(idx, (qd + axis,))
    if qd == 0:
        result = jnp.take_along_axis(a, lax.expand_dims(idx, (axis,)), axis=axis)
        result = lax.squeeze(result, (axis,))
    else:
        # q's axis moved next to the reduced one, so take_along_axis picks per quantile
        perm = [*range(qd, qd + axis), *range(qd), *range(qd + axis, idx.ndim)]
        result = jnp.take_along_axis(a, lax.transpose(idx, perm), axis=axis)
        result = lax.transpose(result, [perm.index(i) for i in range(len(perm))])
    if keepdims:
        result = lax.expand_dims(result, (qd + axis,))
    all_nan = lax.eq(valid, lax.full_like(valid, 0))
    any_bad = jnp.any(bad_weights, axis=axis, keepdims=keepdims)
    if skip_nan:
        force_nan = lax.bitwise_or(any_bad, all_nan)
    else:
        force_nan = lax.bitwise_or(any_bad, jnp.any(nan_data, axis=axis, keepdims=keepdims))
    force_nan = lax.expand_dims(force_nan, tuple(range(qd)))
    return jnp.where(force_nan, lax.full_like(result, np.nan), result)


def _sort_with(a, weights, axis):
    """Sorts ``a`` along ``axis`` (lax's sort, as JAX's quantile: no sort jit), carrying the
    weights along."""
    if weights is None:
        return lax.sort(a, dimension=axis), None
    return lax.sort_key_val(a, weights, dimension=axis)


@eager_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"), inline=False)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    return _quantile("quantile", a, q, axis, method, keepdims, False, weights)


@eager_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"), inline=False)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    return _quantile("nanquantile", a, q, axis, method, keepdims, True, weights)


@eager_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"), inline=False)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    q = jnp.true_divide(to_array(q), 100.0)
    return quantile(a, q, axis, method=method, keepdims=keepdims, weights=weights)


@eager_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"), inline=False)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    q = jnp.true_divide(to_array(q), 100.0)
    return nanquantile(a, q, axis, method=method, keepdims=keepdims, weights=weights)


@eager_jit(static_argnames=("axis", "overwrite_input", "keepdims"), inline=False)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return quantile(a, 0.5, axis=axis, keepdims=keepdims, method="midpoint")


@eager_jit(static_argnames=("axis", "overwrite_input", "keepdims"), inline=False)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return nanquantile(a, 0.5, axis=axis, keepdims=keepdims, method="midpoint")


# ------------------------------------------------------------------------------------------------
# NaN-skipping reductions


def _fill_nan(a, value, jax_const=False):
    """NaNs of ``a`` replaced by ``value``; ``jax_const``: the fill is JAX's ``lax._const`` (weak
    for a weak 0-d ``a``), as JAX's cumulative nan-functions fill."""
    a = to_array(a)
    if not dtypes.is_inexact(np.dtype(a.dtype)):
        return a
    fill = lax_const(a, value) if jax_const else convert(value, a.dtype)
    return jnp.where(jnp.isnan(a), fill, a)


@eager_jit(static_argnames=("axis", "dtype", "keepdims"), inline=False)
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "nanprod")
    return jnp.prod(_fill_nan(a, 1), axis=axis, dtype=dtype, keepdims=keepdims,
                    initial=initial, where=where)


def _nan_extreme(fn, a, axis, keepdims, initial, where):
    a = to_array(a)
    if not dtypes.is_inexact(np.dtype(a.dtype)):
        return fn(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    big = jnp.inf if fn is jnp.min else -jnp.inf
    out = fn(_fill_nan(a, big), axis=axis, keepdims=keepdims, initial=initial, where=where)
    if initial is not None:
        return out
    # JAX's test (``where=`` needs ``initial=``, so it masks nothing here); a named axis
    # meets jnp.all's refusal, as JAX's does; the NaN is JAX's ``lax._const(a, nan)``, strong
    return jnp.where(jnp.all(jnp.isnan(a), axis=axis, keepdims=keepdims), lax_const(a, np.nan),
                     out)


@eager_jit(static_argnames=("axis", "keepdims"), inline=False)
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _nan_extreme(jnp.min, a, axis, keepdims, initial, where)


@eager_jit(static_argnames=("axis", "keepdims"), inline=False)
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _nan_extreme(jnp.max, a, axis, keepdims, initial, where)


def _nan_count(a, axis, keepdims, where):
    valid = ~jnp.isnan(a)
    if where is not None:
        valid = valid & where
    return jnp.sum(valid, axis=axis, keepdims=keepdims)


@eager_jit(static_argnames=("axis", "dtype", "keepdims"), inline=False)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    a = to_array(a)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "mean")
    if not dtypes.is_inexact(np.dtype(a.dtype)):
        return jnp.mean(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    dtype = dtype or a.dtype
    # JAX's order: the count of non-NaN elements, summed in ``dtype``, then the sum
    not_nan = lax.bitwise_not(lax.ne(a, a))
    normalizer = jnp.sum(not_nan, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    total = jnp.nansum(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    # lax.div, as JAX: an integer ``dtype`` gives an integer mean
    return lax.div(total, normalizer)


@eager_jit(static_argnames=("axis", "dtype", "keepdims"), inline=False)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    a = to_array(a)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "nanvar")
    # var's dtypes, as JAX: an integer dtype= computes in it (an integer mean), float16 in
    # float32; the quotient is cast to the result dtype (NaN becomes an integer's 0)
    computation_dtype, dtype = _var_dtypes(a.dtype, dtype)
    a = convert(a, computation_dtype)
    mu = nanmean(a, axis=axis, dtype=computation_dtype, keepdims=True, where=where)
    nan = jnp.isnan(a)
    d = jnp.where(nan, 0, a - mu)  # JAX's double where: no NaN reaches the derivative
    sq = jnp.real(d * jnp.conj(d)) if dtypes.is_complex(computation_dtype) else d * d
    total = jnp.sum(sq, axis=axis, keepdims=keepdims, where=where)
    n = _nan_count(a, axis, keepdims, where) - ddof
    empty = n <= 0
    total = jnp.where(empty, jnp.nan, total)
    return convert(lax.div(total, convert(jnp.where(empty, 1, n), total.dtype)), dtype)


@eager_jit(static_argnames=("axis", "dtype", "keepdims"), inline=False)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    # lax.sqrt, as JAX: an integer dtype= is sqrt's TypeError
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "nanstd")
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where))


@eager_jit(static_argnames=("axis", "dtype"), inline=False)
def nancumsum(a, axis=None, dtype=None, out=None):
    # the cumulative sum itself, not the cumsum jit: JAX's nancumsum holds no nested jit
    return _cumulative("nancumsum", lax.cumsum, _fill_nan(a, 0, jax_const=True), axis, dtype, out)


@eager_jit(static_argnames=("axis", "dtype"), inline=False)
def nancumprod(a, axis=None, dtype=None, out=None):
    return _cumulative("nancumprod", lax.cumprod, _fill_nan(a, 1, jax_const=True), axis, dtype,
                       out)


# ------------------------------------------------------------------------------------------------
# Counting and histograms


@eager_jit(static_argnames=("right", "method"), inline=False)
def digitize(x, bins, right=False, *, method="scan"):
    """Index of the bin each ``x`` falls in; ``bins`` increasing or decreasing."""
    check_arraylike("digitize", x, bins)
    bins = to_array(bins)
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if bins.shape[0] == 0:
        return jnp.zeros(jnp.shape(x), dtypes.default_int_dtype())
    side = "left" if right else "right"
    inc = jnp.searchsorted(bins, x, side=side, method=method)
    dec = bins.shape[0] - jnp.searchsorted(lax.rev(bins, (0,)), x, side=side, method=method)
    return jnp.where(bins[-1] >= bins[0], inc, dec)


def _scatter_add_1d(length, idx, values):
    dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,))
    out = lax.full((length,), 0, values.dtype)
    return lax.scatter_add(out, lax.expand_dims(idx, (idx.ndim,)), values, dnums, mode="drop")


def bincount(x, weights=None, minlength=0, *, length=None):
    """Counts of each non-negative int in ``x`` (summed ``weights``). Under jit pass a static
    ``length=``; values at or past it are dropped."""
    check_arraylike("bincount", x)
    x = to_array(x)
    if not dtypes.is_int(np.dtype(x.dtype)) and x.dtype != np.bool_:
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype}")
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        if isinstance(x, Tracer):
            raise x._concretization_error(
                "jnp.bincount (its output length depends on the values). Pass a static "
                "length= argument to use it under jit")
        host = np.asarray(x)
        length = builtins.max(minlength, int(host.max()) + 1 if host.size else 0)
    else:
        length = builtins.max(operator.index(length), minlength)
    if weights is None:
        values = lax.full(x.shape, 1, dtypes.default_int_dtype())
    else:
        values = jnp.broadcast_to(to_array(weights), x.shape)
        if values.dtype == np.bool_:
            values = convert(values, dtypes.default_int_dtype())
    idx = convert(x, dtypes.default_int_dtype())
    idx = jnp.clip(idx, 0)  # as JAX's: a negative value counts in bin 0
    return _scatter_add_1d(length, idx, values)


def _range_of(a, range):  # noqa: A002
    if range is not None:
        lo, hi = range
        return convert(lo, a.dtype), convert(hi, a.dtype)
    if a.size == 0:
        return convert(0, a.dtype), convert(1, a.dtype)
    return jnp.min(a), jnp.max(a)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    check_arraylike("histogram_bin_edges", a)
    a = jnp.ravel(to_array(a))
    dtype = to_inexact_dtype(a.dtype)
    if not isinstance(bins, int) or isinstance(bins, bool):
        if isinstance(bins, str):  # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError("string values for `bins` not implemented.")
        return convert(to_array(bins), dtype)
    a = convert(a, dtype)
    rng = jnp.stack(_range_of(a, range))
    # NumPy widens an empty range to [lo - 0.5, hi + 0.5]; tested with ptp, as JAX's
    lo = jnp.where(jnp.ptp(rng) == 0, rng[0] - 0.5, rng[0])
    hi = jnp.where(jnp.ptp(rng) == 0, rng[1] + 0.5, rng[1])
    return jnp.linspace(lo, hi, bins + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Counts (or ``weights`` sums) per bin; the last bin includes its right edge."""
    if weights is None:
        check_arraylike("histogram", a, bins)  # as JAX: a string bins is a TypeError here
        (a,) = promote_dtypes_inexact(to_array(a))
        weights = jnp.ones_like(a)
    else:
        check_arraylike("histogram", a, bins, weights)
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact(to_array(a), to_array(weights))
    edges = histogram_bin_edges(a, bins, range, weights)
    # JAX's: bin i + 1 holds edges[i] <= a < edges[i + 1], the last edge joins the last bin;
    # values below the first edge land in bin 0 and are cut, those past the last are dropped
    idx = jnp.searchsorted(edges, a, side="right")
    idx = jnp.where(a == edges[-1], len(edges) - 1, idx)
    counts = jnp.zeros(len(edges), weights.dtype).at[idx].add(weights)[1:]
    if density:
        counts = counts / jnp.diff(edges) / counts.sum()
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """A D-dimensional histogram of ``sample`` (N, D): per-axis bin indices, one flat index,
    one scatter-add."""
    if weights is None:
        check_arraylike("histogramdd", sample)
        sample, = promote_dtypes_inexact(to_array(sample))
    else:
        check_arraylike("histogramdd", sample, weights)
        sample, weights = promote_dtypes_inexact(to_array(sample), to_array(weights))
    if sample.ndim == 1:
        sample = sample[:, None]
    n_dims = sample.shape[1]
    bins_per = list(bins) if isinstance(bins, (list, tuple)) else [bins] * n_dims
    ranges = list(range) if range is not None else [None] * n_dims
    if len(bins_per) != n_dims or len(ranges) != n_dims:
        raise ValueError("histogramdd: bins and range need one entry per dimension")
    edges, flat, valid, counts_shape = [], None, None, []
    for d in builtins.range(n_dims):
        col = sample[:, d]
        e = histogram_bin_edges(col, bins_per[d], ranges[d])
        nb = e.shape[0] - 1
        v = convert(col, e.dtype)
        i = jnp.searchsorted(e, v, side="right") - 1
        i = jnp.where(v == e[-1], nb - 1, i)
        ok = (v >= e[0]) & (v <= e[-1]) & ~jnp.isnan(v)
        flat = i if flat is None else flat * nb + i
        valid = ok if valid is None else valid & ok
        edges.append(e)
        counts_shape.append(nb)
    total = int(np.prod(counts_shape))
    flat = jnp.where(valid, flat, total)
    # unweighted counts are default ints, as JAX's bincount gives them
    values = (jnp.ones(flat.shape, dtypes.default_int_dtype()) if weights is None
              else jnp.ravel(weights))
    h = jnp.reshape(_scatter_add_1d(total, flat, values), tuple(counts_shape))
    if density:
        h = convert(h, sample.dtype)
        h = h / jnp.sum(h)
        for d, e in enumerate(edges):
            shape = [1] * n_dims
            shape[d] = counts_shape[d]
            h = h / jnp.reshape(jnp.diff(e), tuple(shape))
    return h, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    check_arraylike("histogram2d", x, y)
    x, y = jnp.ravel(to_array(x)), jnp.ravel(to_array(y))
    if not (isinstance(bins, (list, tuple)) and len(bins) == 2):
        bins = [bins, bins]
    h, (ex, ey) = histogramdd(jnp.stack([x, y], axis=1), bins, range, weights, density)
    return h, ex, ey


# ------------------------------------------------------------------------------------------------
# Covariance


@eager_jit(static_argnames=("rowvar", "bias", "ddof"), inline=False)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    check_arraylike("cov", m)
    m = jnp.atleast_2d(to_array(m))
    dtype = to_inexact_dtype(m.dtype)
    m = convert(m, dtype)
    if not rowvar and m.shape[0] != 1:
        m = m.T
    if y is not None:
        y = convert(jnp.atleast_2d(to_array(y)), dtype)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        m = jnp.concatenate([m, y], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = m.shape[1]
    w = None
    if fweights is not None:
        w = convert(to_array(fweights), dtype)
    if aweights is not None:
        aw = convert(to_array(aweights), dtype)
        w = aw if w is None else w * aw
    if w is None:
        avg = jnp.mean(m, axis=1)
        w_sum = convert(n, dtype)
        fact = w_sum - ddof
    else:
        w_sum = jnp.sum(w)
        avg = jnp.sum(m * w, axis=1) / w_sum
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            aw = convert(to_array(aweights), dtype)
            fact = w_sum - ddof * jnp.sum(w * aw) / w_sum
    x = m - avg[:, None]
    xw = x if w is None else x * w
    c = jnp.matmul(xw, jnp.conj(x).T) / fact
    return jnp.squeeze(c)


@eager_jit(static_argnames=("rowvar",), inline=False)
def corrcoef(x, y=None, rowvar=True):
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = jnp.diag(c)
    stddev = jnp.sqrt(jnp.real(d))
    c = c / stddev[:, None] / stddev[None, :]
    if not dtypes.is_complex(np.dtype(c.dtype)):
        c = jnp.clip(c, -1, 1)
    return c
