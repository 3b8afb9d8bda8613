"""Reductions of ``minijax.numpy``: sum, prod, max, min, all, any, mean, var, std, argmax,
argmin, cumsum, cumprod, with NumPy's ``axis``/``keepdims``/``dtype``/``where``/``initial``.

JAX's dtype rules: ``sum``/``prod`` of bool and of integers narrower than the default int
accumulate in the default int (uint8 → uint32); float16/bfloat16 accumulate in float32 and are
cast back; ``mean``/``var``/``std`` of integers are float. ``where=`` masks out elements by
putting the reduction's identity in their place; ``max``/``min`` have no identity, so they
need ``initial=`` with ``where=`` (and refuse to reduce an empty axis without it).
"""

from __future__ import annotations

import builtins
import math
import operator

import ml_dtypes
import numpy as np

from minijax import dtypes, lax
from minijax.lax.families import const
from minijax.lax.parallel import check_bound
from minijax.core import ShardingTypeError
from minijax.source_info import with_user_line
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import (
    canonicalize_axis,
    check_arraylike,
    convert,
    index_tuple,
    lax_const,
    promote_dtypes_inexact,
    to_inexact_dtype,
)
from minijax.numpy.creation import to_array
from minijax.numpy.logic import isnan
from minijax.numpy.manipulation import broadcast_to
from minijax.numpy.math import multiply, subtract, true_divide
from minijax.numpy.sorting import _where

__all__ = [
    "sum", "prod", "max", "min", "amax", "amin", "all", "any", "mean", "var", "std",
    "argmax", "argmin", "cumsum", "cumprod", "nansum", "count_nonzero", "ptp", "average",
    "cumulative_sum", "cumulative_prod",
]


def _promote_integer_dtype(dtype):
    """bool and narrow integers accumulate in the default (u)int, as JAX's sum and prod."""
    dtype = np.dtype(dtype)
    if dtype == dtypes.bool_:
        return dtypes.default_int_dtype()
    default_int = dtypes.default_int_dtype()
    if dtype.kind == "u" and dtype.itemsize < default_int.itemsize:
        return np.dtype(f"uint{8 * default_int.itemsize}")
    if dtype.kind == "i" and dtype.itemsize < default_int.itemsize:
        return default_int
    return dtype


def _upcast_f16(dtype):
    """float16/bfloat16 accumulate in float32, the result cast back; the narrower floats
    (float8 ...) accumulate in their own dtype, as in JAX."""
    dtype = np.dtype(dtype)
    if dtype in (dtypes.float16, dtypes.bfloat16):
        return dtypes.float32
    return dtype


def _keepdims(x, axes, keepdims):
    return lax.expand_dims(x, axes) if keepdims and axes else x


def _axis_tuple(axis):
    """``axis`` as JAX's reductions read it (``_ensure_optional_axes``): None, an index, or a
    sequence of indices and strings; a string is such a sequence (``'a'`` is ``('a',)``)."""
    if axis is None:
        return None
    try:
        return (operator.index(axis),)
    except TypeError:
        return tuple(a if isinstance(a, str) else operator.index(a) for a in axis)


def _reduction_dims(axis, ndim):
    """(the array's own axes, non-negative; every axis, with the names of vmap/shard_map axes
    that a named reduction sums over by a collective, as JAX's ``_reduction_dims``)."""
    if axis is None:
        axes = tuple(range(ndim))
        return axes, axes
    axes = tuple(a if isinstance(a, str) else canonicalize_axis(a, ndim)
                 for a in _axis_tuple(axis))
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(a for a in axes if not isinstance(a, str)), axes


def _reduction(name, a, lax_reduce, identity, axis, dtype, keepdims, initial, where,
               promote_integers=False, upcast_f16=True, bool_op=None, combine=None,
               parallel=None):
    """The shared machinery. ``identity`` is None for max/min (no identity); ``parallel`` is
    the collective a named axis reduces by (JAX has one for sum, max and min only)."""
    check_arraylike(name, a)
    a = to_array(a)
    if bool_op is not None and a.dtype == dtypes.bool_:
        # JAX's sum and prod first make bools numeric (its preproc _cast_to_numeric), so a
        # dtype= or mean's float count converts through the default int
        a = convert(a, dtypes.default_int_dtype())
    pos_axes, axes = _reduction_dims(axis, a.ndim)
    if dtype is not None:
        result_dtype = dtypes.check_user_dtype(dtype, name)
    elif promote_integers:
        result_dtype = _promote_integer_dtype(a.dtype)
    else:
        result_dtype = a.dtype
    if bool_op is not None and result_dtype == dtypes.bool_:
        lax_reduce = bool_op
    compute_dtype = _upcast_f16(result_dtype) if upcast_f16 else result_dtype
    a = convert(a, compute_dtype)
    if identity is None and initial is None:
        if where is not None:
            raise ValueError(
                f"reduction operation {name} does not have an identity, so to use a where mask "
                "one has to specify 'initial'")
        if builtins.any(a.shape[ax] == 0 for ax in pos_axes):
            raise ValueError(
                f"zero-size array to reduction operation {name} which has no identity")
    if where is not None:  # masked-out elements become the operation's init, through jnp.where
        fill = identity if identity is not None else -np.inf if name == "max" else np.inf
        a = _where(where, a, _init_val(a.dtype, fill))
    if pos_axes != axes:  # a named axis: its collective (JAX's psum/pmax/pmin)
        if parallel is None:  # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(f"Named reductions not implemented for jnp.{name}()")
        # JAX binds the collective itself, so even a constant's unbound name is its psum's
        # (pmax's, pmin's: they say psum) "Found an unbound axis name"
        check_bound(tuple(ax for ax in axes if isinstance(ax, str)), "psum")
        out = parallel(a, axes)  # one collective over the positional axes and the names
    else:
        out = lax_reduce(a, axes)
    if initial is not None:
        init = convert(to_array(initial), compute_dtype)
        if init.ndim:
            raise ValueError(f"initial value of {name} must be a scalar, got shape {init.shape}")
        out = combine(init, out)  # JAX's operand order; a rank-0 operand broadcasts in lax
    out = _keepdims(out, pos_axes, keepdims)
    if dtype is not None:  # JAX's last cast takes the dtype as given: it warns a second time
        dtypes.check_user_dtype(dtype, "convert_element_type")
    return convert(out, result_dtype)  # strongly typed, as JAX's reductions


def _init_val(dtype, value):
    """``value`` as a NumPy scalar of ``dtype``, as JAX's ``_reduction_init_val``: a bool is
    ``value > 0``, an infinity the finite extreme where the float has none, and an integer
    saturates."""
    if dtype == np.bool_:
        return np.array(value > 0, dtype)
    if np.isinf(value) and dtypes.is_float(dtype) and not np.isinf(np.array(value, dtype)):
        info = ml_dtypes.finfo(dtype)
        value = info.min if value < 0 else info.max
    try:
        return np.array(value, dtype)
    except OverflowError:
        info = np.iinfo(dtype)
        return np.array(info.min if value < 0 else info.max, dtype)


def _broadcast_mask(where, shape):
    return broadcast_to(convert(to_array(where), dtypes.bool_), shape)


def _no_out(out, name):
    if out is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


@eager_jit(static_argnames=('axis', 'dtype', 'keepdims', 'promote_integers'),
           list_argnames=('axis',))
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,  # noqa: A001
        promote_integers=True):
    _no_out(out, "sum")
    return _reduction("sum", a, lax.reduce_sum, 0, axis, dtype, keepdims, initial, where,
                      promote_integers=promote_integers, bool_op=lax.reduce_or,
                      combine=lax.add, parallel=lax.psum)


@eager_jit(static_argnames=('axis', 'dtype', 'keepdims', 'promote_integers'),
           list_argnames=('axis',))
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    _no_out(out, "prod")
    return _reduction("prod", a, lax.reduce_prod, 1, axis, dtype, keepdims, initial, where,
                      promote_integers=promote_integers, bool_op=lax.reduce_and,
                      combine=lax.mul)


@eager_jit(static_argnames=('axis', 'keepdims'), list_argnames=('axis',))
def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    _no_out(out, "max")
    return _reduction("max", a, lax.reduce_max, None, axis, None, keepdims, initial, where,
                      upcast_f16=False, combine=lax.max, parallel=lax.pmax)


@eager_jit(static_argnames=('axis', 'keepdims'), list_argnames=('axis',))
def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    _no_out(out, "min")
    return _reduction("min", a, lax.reduce_min, None, axis, None, keepdims, initial, where,
                      upcast_f16=False, combine=lax.min, parallel=lax.pmin)


amax, amin = max, min


@eager_jit(static_argnames=('axis', 'keepdims'), list_argnames=('axis',))
def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    _no_out(out, "all")
    a = convert(to_array(a), dtypes.bool_) if _checked(a, "all") else a
    return _reduction("all", a, lax.reduce_and, True, axis, None, keepdims, None, where,
                      upcast_f16=False)


@eager_jit(static_argnames=('axis', 'keepdims'), list_argnames=('axis',))
def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    _no_out(out, "any")
    a = convert(to_array(a), dtypes.bool_) if _checked(a, "any") else a
    return _reduction("any", a, lax.reduce_or, False, axis, None, keepdims, None, where,
                      upcast_f16=False)


def _checked(a, name):
    check_arraylike(name, a)
    return True


def _count(shape, axis, where, dtype):
    """How many elements each reduced value averages: a static number, or a masked sum.

    Without ``where`` it indexes ``shape`` with ``axis`` (as ``_axis_tuple`` reads it) before
    any check, as JAX does: an out-of-range axis is an IndexError ("tuple index out of range")
    here, not the reduction's ValueError; a named axis counts its size."""
    if where is None:
        n = 1
        for ax in range(len(shape)) if axis is None else _axis_tuple(axis):
            n *= lax.axis_size(ax) if isinstance(ax, str) else shape[ax]
        return n
    mask = _broadcast_mask(where, shape)
    return sum(mask, axis, dtype)


@eager_jit(static_argnames=('axis', 'dtype', 'keepdims'), list_argnames=('axis',))
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean; integers and bools average as the default float."""
    _no_out(out, "mean")
    check_arraylike("mean", a)
    a = to_array(a)
    if dtype is None:
        result_dtype = to_inexact_dtype(a.dtype)
    else:
        result_dtype = dtypes.check_user_dtype(dtype, "mean")
    # an integer dtype= sums (wrapping) and divides in it, as JAX
    compute_dtype = _upcast_f16(result_dtype)
    count = _count(a.shape, axis, where, compute_dtype)
    pos_axes, axes = _reduction_dims(axis, a.ndim)
    total = sum(a, axis=axes, dtype=compute_dtype, keepdims=keepdims, where=where)
    if where is not None and keepdims:
        count = _keepdims(count, pos_axes, True)
    out = lax.div(total, const(total, count) if isinstance(count, int) else count)
    return convert(out, result_dtype)


def _resolve_correction(ddof, correction):
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    """Variance ``mean(|a - mean(a)|**2)`` with ``ddof`` (or ``correction``) degrees of freedom
    subtracted from the count."""
    correction = _resolve_correction(ddof, correction)
    check_arraylike("var", a)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "var")
    return _var(a, axis=axis, dtype=dtype, out=out, correction=correction, keepdims=keepdims,
                where=where)


# JAX's jit: the correction is traced, only axis/dtype/keepdims are static
@eager_jit(static_argnames=('axis', 'dtype', 'keepdims'), list_argnames=('axis',), inline=False)
def _var(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None):
    _no_out(out, "var")
    a = to_array(a)
    computation_dtype, result_dtype = _var_dtypes(a.dtype, dtype)
    a = convert(a, computation_dtype)
    # the mean and the sum in the computation dtype, as JAX: an integer dtype= gives an
    # integer mean and a sum that wraps in it. The mean sees the axis first (its errors are
    # JAX's).
    centered = subtract(a, mean(a, axis, computation_dtype, keepdims=True, where=where))
    pos_axes, axes = _reduction_dims(axis, a.ndim)
    if dtypes.is_complex(computation_dtype):
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        centered = lax.square(centered)
    count = _count(a.shape, axes, where, centered.dtype)
    if isinstance(count, int):
        count = convert(count, centered.dtype)
    normalizer = lax.sub(count, convert(correction, centered.dtype))
    total = sum(centered, axes, centered.dtype, keepdims=keepdims, where=where)
    if where is not None and keepdims:
        normalizer = _keepdims(normalizer, pos_axes, True)
    out = convert(lax.div(total, normalizer), result_dtype)
    # No degrees of freedom left (count <= ddof): NaN, as JAX, not a negative or signed-zero
    # quotient. The quotient stays in the graph even then, so its derivative is JAX's (a NaN
    # cotangent through the division by 0, a signed zero through a negative count).
    has_dof = lax.gt(normalizer, convert(0, normalizer.dtype, True))
    return _where(has_dof, out, np.nan)


def _var_dtypes(a_dtype, dtype):
    if dtype is not None:
        dtype = dtypes.canonicalize_dtype(dtype)
        if dtypes.is_complex(a_dtype) and not dtypes.is_complex(dtype):  # JAX's words
            raise ValueError(
                "jax.numpy.var does not yet support real dtype parameters when computing the "
                "variance of an array of complex values. The semantics of numpy.var seem "
                "unclear in this case. Please comment on https://github.com/jax-ml/jax/issues/"
                "2283 if this behavior is important to you.")
        return _upcast_f16(dtype), dtype
    result = to_inexact_dtype(a_dtype)
    if dtypes.is_complex(result):
        result = np.dtype(np.finfo(result).dtype)  # the variance of complex values is real
    compute = _upcast_f16(to_inexact_dtype(a_dtype))
    return compute, result


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    correction = _resolve_correction(ddof, correction)
    check_arraylike("std", a)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "std")
    return _std(a, axis=axis, dtype=dtype, out=out, correction=correction, keepdims=keepdims,
                where=where)


@eager_jit(static_argnames=('axis', 'dtype', 'keepdims'), list_argnames=('axis',), inline=False)
def _std(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None):
    if dtype is not None and not dtypes.is_inexact(dtypes.canonicalize_dtype(dtype)):
        raise ValueError(f"dtype argument to jnp.std must be inexact; got "
                         f"{dtypes.canonicalize_dtype(dtype)}")
    _no_out(out, "std")
    return lax.sqrt(var(a, axis, dtype, None, keepdims=keepdims, where=where,
                        correction=correction))


@eager_jit(static_argnames=('axis', 'dtype', 'keepdims'), inline=False)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _no_out(out, "nansum")
    a = to_array(a)
    if dtype is not None:  # JAX 0.10.2's nansum warns in nanprod's name
        dtype = dtypes.check_user_dtype(dtype, "nanprod")
    if dtypes.is_inexact(a.dtype):
        # a NumPy 0 (JAX's _reduction_init_val): a literal that _where broadcasts
        a = _where(isnan(a), np.array(0, a.dtype), a)
    return sum(a, axis, dtype, None, keepdims, initial, where)


@eager_jit(static_argnames=('axis', 'keepdims'), inline=False)
def count_nonzero(a, axis=None, keepdims=False):
    check_arraylike("count_nonzero", a)
    a = to_array(a)
    # ``!= 0`` (JAX's): a complex value with only an imaginary part is nonzero
    nonzero = lax.ne(a, lax_const(a, 0))
    return sum(nonzero, axis=axis, dtype=dtypes.default_int_dtype(), keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    check_arraylike("ptp", a)
    return _ptp(a, axis, out, keepdims)


@eager_jit(static_argnames=('axis', 'keepdims'), list_argnames=('axis',), inline=False)
def _ptp(a, axis=None, out=None, keepdims=False):
    _no_out(out, "ptp")
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


@eager_jit(static_argnames=('axis', 'returned', 'keepdims'), list_argnames=('axis',))
def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """JAX's ``_average``: operands promoted to inexact first (so an integer ``returned`` sum
    of weights is a float), weights of one axis per averaged axis reshaped (transposed in the
    order the axes are given) to ``a``'s rank with size-1 axes, the sum of weights broadcast
    to the average's shape when returned."""
    # the axes first, in JAX's words for a repeat
    axes = tuple(canonicalize_axis(ax, np.ndim(a)) for ax in
                 (range(np.ndim(a)) if axis is None else index_tuple(axis)))
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis: {axes}")
    if weights is None:
        check_arraylike("average", a)
        a, = promote_dtypes_inexact(to_array(a))
        avg = mean(a, axis, keepdims=keepdims)
        weights_sum = lax.full((), math.prod(a.shape[ax] for ax in axes), avg.dtype)
    else:
        check_arraylike("average", a, weights)
        a, weights = promote_dtypes_inexact(to_array(a), to_array(weights))
        if weights.shape != a.shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if weights.shape != tuple(a.shape[ax] for ax in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            new_shape = tuple(d if i in axes else 1 for i, d in enumerate(a.shape))
            weights = lax.reshape(weights, new_shape, tuple(np.argsort(axes).tolist()))
        weights_sum = sum(weights, axis, keepdims=keepdims)
        avg = true_divide(sum(multiply(a, weights), axis, keepdims=keepdims), weights_sum)
    if returned:
        if avg.shape != weights_sum.shape:
            weights_sum = broadcast_to(weights_sum, avg.shape)
        return avg, weights_sum
    return avg


# ------------------------------------------------------------------------------------------------
# argmax / argmin


def _arg_reduction(name, lax_fn, a, axis, out, keepdims):
    _no_out(out, name)
    check_arraylike(name, a)
    a = to_array(a)
    ndim = a.ndim
    operand, axis_ = (lax.reshape(a, (a.size,)), 0) if axis is None else (a, axis)
    # JAX reads the shape at the axis as given first: one out of range is Python's IndexError
    if operand.shape[axis_] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    axis_ = canonicalize_axis(axis_, operand.ndim)
    result = lax_fn(operand, axis_, dtypes.default_int_dtype())
    if keepdims:
        result = lax.expand_dims(result, tuple(range(ndim)) if axis is None else (axis_,))
    return result


@eager_jit(static_argnames=('axis', 'keepdims'), index_argnames=('axis',))
def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the first maximum (NaN counts as the maximum); ``axis=None`` flattens."""
    return _arg_reduction("argmax", lax.argmax, a, axis, out, keepdims)


@eager_jit(static_argnames=('axis', 'keepdims'), index_argnames=('axis',))
def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the first minimum (NaN counts as the minimum); ``axis=None`` flattens."""
    return _arg_reduction("argmin", lax.argmin, a, axis, out, keepdims)


# ------------------------------------------------------------------------------------------------
# Cumulative reductions


def _cumulative(name, lax_fn, a, axis, dtype, out):
    _no_out(out, name)
    check_arraylike(name, a)
    a = to_array(a)
    # JAX ravels a weak rank-0 input (its ``_isscalar``) even when given an axis: then axis 0
    # (or -1) of a 0-d weak value is valid, while a strong 0-d array refuses it.
    if axis is None or (a.ndim == 0 and a.weak_type):
        if a.aval.explicit is not None:  # JAX's check, before it ravels
            raise ShardingTypeError(with_user_line(
                f"The input should be fully replicated when axis is not specified to {name}. "
                f"Got input type={a.aval}"))
        a = lax.reshape(a, (a.size,))
    if axis is None:
        axis = 0
    axis = canonicalize_axis(axis, a.ndim)
    result_dtype = dtypes.check_user_dtype(dtype, name) if dtype is not None else a.dtype
    if result_dtype == dtypes.bool_:
        # Accumulate bools as integers (True + True counts 2), then back to bool if asked.
        compute_dtype = _promote_integer_dtype(result_dtype)
    else:
        compute_dtype = result_dtype
    if a.dtype != dtypes.bool_ and dtype is not None and np.dtype(dtype) == dtypes.bool_:
        a = convert(a, dtypes.bool_)
    result = lax_fn(convert(a, compute_dtype), axis=axis)
    if dtype is not None and np.dtype(dtype) == dtypes.bool_:
        result = convert(result, dtypes.bool_)
    return result


@eager_jit(static_argnames=('axis', 'dtype'), inline=False)
def cumsum(a, axis=None, dtype=None, out=None):
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype, out)


@eager_jit(static_argnames=('axis', 'dtype'), inline=False)
def cumprod(a, axis=None, dtype=None, out=None):
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype, out)


@eager_jit(static_argnames=('axis', 'dtype', 'include_initial'), fused_under_transforms=False, inline=False)
def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    return _cumulative_with_initial(cumsum, "cumulative_sum", 0, x, axis, dtype, include_initial)


@eager_jit(static_argnames=('axis', 'dtype', 'include_initial'), fused_under_transforms=False)
def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return _cumulative_with_initial(cumprod, "cumulative_prod", 1, x, axis, dtype, include_initial)


def _cumulative_with_initial(fn, name, init, x, axis, dtype, include_initial):
    check_arraylike(name, x)
    x = to_array(x)
    if x.ndim == 0:  # JAX's checks, in its order and words
        what = "sum" if name == "cumulative_sum" else "product"
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, however a "
                         "scalar value or scalar array was given.")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"The input array has rank {x.ndim}, however axis was not set to an explicit "
                "value. The axis argument is only optional for one-dimensional arrays.")
        axis = 0
    axis = canonicalize_axis(axis, x.ndim)
    if dtype is not None:  # JAX's warning here names no function
        dtype = dtypes.check_user_dtype(dtype, None)
    out = fn(x, axis, dtype)
    if not include_initial:
        return out
    pad = [(0, 0, 0)] * out.ndim
    pad[axis] = (1, 0, 0)
    return lax.pad(out, convert(init, out.dtype), tuple(pad))

