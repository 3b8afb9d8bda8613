"""Sorting: ``sort`` (one or several operands, lexicographic over ``num_keys``), ``sort_key_val``
and ``top_k``.

``sort`` is one ``stablehlo.sort`` whose comparator region orders the first ``num_keys``
operands lexicographically; the other operands ride along in the same permutation. Floats are
ordered as NumPy does: every NaN (whatever its sign bit) sorts after +inf and NaNs compare equal
to each other, and -0.0 equals +0.0, so a stable sort keeps their input order. Complex keys order
by real part, then imaginary part.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import ad, batching
from minijax.lax.families import (
    ANY,
    REAL,
    check_dtype_allowed,
    fill_region,
    hlo_compare,
    is_nan,
    scalar_type,
)
from minijax.lax.indexing import GatherDimensionNumbers, GatherScatterMode, gather
from minijax.lax.structural import broadcasted_iota, expand_dims, reshape
from minijax.lowering.stablehlo import dense_i64, tensor_type
from minijax.lax import sharding_rules

__all__ = ["sort", "sort_key_val", "sort_p", "top_k", "top_k_p"]


def canonicalize_axis(axis, ndim, name):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an operand of rank {ndim}")
    return axis % ndim if ndim else axis


# ------------------------------------------------------------------------------------------------
# sort


def _sort_rule(*operands, dimension, is_stable, num_keys):
    shapes = [a.shape for a in operands]
    if any(s != shapes[0] for s in shapes[1:]):
        got = ", ".join(a.str_short(True) for a in operands)
        raise TypeError(f"sort requires all operands to have the same shape, got {got}")
    for a in operands:
        check_dtype_allowed("sort", a.dtype, ANY)
    if not 0 <= dimension < len(shapes[0]):
        raise ValueError(
            f"sort: dimension {dimension} is out of bounds for operands "
            f"{operands[0].str_short(True)}"
        )
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys={num_keys} must be between 1 and {len(operands)}")
    return list(operands)


def _key_parts(x, dtype):
    """Scalar keys to compare for one operand: complex splits into (real, imag)."""
    if dtypes.is_complex(dtype):
        real_dtype = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        return [(hlo.real(x), real_dtype), (hlo.imag(x), real_dtype)]
    return [(x, dtype)]


def _lt_eq(x, y, dtype):
    """(x < y, x == y) in NumPy's sort order: NaNs last and equal to each other."""
    lt, eq = hlo_compare(x, y, "LT", dtype), hlo_compare(x, y, "EQ", dtype)
    if dtypes.is_float(dtype):
        x_nan, y_nan = is_nan(x, dtype), is_nan(y, dtype)
        lt = hlo.or_(lt, hlo.and_(hlo.not_(x_nan), y_nan))
        eq = hlo.or_(eq, hlo.and_(x_nan, y_nan))
    return lt, eq


def _lexicographic_lt(args, operand_dtypes, num_keys):
    """The comparator body. ``args`` are (lhs0, rhs0, lhs1, rhs1, ...) scalars."""
    parts = []
    for i in range(num_keys):
        lhs, rhs, dtype = args[2 * i], args[2 * i + 1], operand_dtypes[i]
        for (x, dt), (y, _) in zip(_key_parts(lhs, dtype), _key_parts(rhs, dtype)):
            parts.append(_lt_eq(x, y, dt))
    result = parts[-1][0]
    for lt, eq in reversed(parts[:-1]):
        result = hlo.or_(lt, hlo.and_(eq, result))
    return result


def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
    operand_dtypes = [a.dtype for a in ctx.avals_in]
    op = hlo.SortOp([tensor_type(a) for a in ctx.avals_out], list(operands),
                    dimension=dimension, is_stable=is_stable)
    arg_types = [scalar_type(d) for d in operand_dtypes for _ in range(2)]
    fill_region(op.comparator, arg_types,
                lambda *args: _lexicographic_lt(args, operand_dtypes, num_keys))
    return list(op.results)


sort_p = Primitive("sort", multiple_results=True)
sort_p.def_abstract_eval(_sort_rule)
sort_p.def_lowering(_sort_lowering)
# Inside shard_map each result has its own operand's varying axes (JAX 0.10.2's sort does not
# pvary its operands): argsort's permutation, sorted along an unvarying iota, is unvarying.
sort_p.own_vma = True
sort_p.own_memory_space = True  # each result in its operand's memory (as JAX's)


def _sort_batching(args, dims, *, dimension, is_stable, num_keys):
    """All operands to the first mapped operand's batch axis (unmapped ones broadcast: they
    are permuted differently per example), then one sort along the shifted dimension."""
    size = batching.axis_size(args, dims)
    bdim = next(d for d in dims if d is not batching.not_mapped)
    operands = [batching.bdim_to(x, d, bdim, size, np_dims=False) for x, d in zip(args, dims)]
    outs = sort_p.bind(*operands, dimension=batching.to_val_axis(dimension, bdim),
                       is_stable=is_stable, num_keys=num_keys)
    return outs, [bdim] * len(outs)


sort_p.def_batching(_sort_batching)


# Differentiation, as JAX's: the primals are sorted together with an iota along ``dimension``,
# which gives each output's source position, and every tangent is gathered at it. The gather's
# transpose is a scatter-add, so sort itself never needs transposing.


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = get_aval(primals[0]).shape
    index_dtype = np.uint64 if any(d > np.iinfo(np.uint32).max for d in shape) else np.uint32
    *outs, perm = sort_p.bind(*primals, broadcasted_iota(index_dtype, shape, dimension),
                              dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    # JAX's gather: the permutation given a trailing axis by expand_dims (top_k's JVP
    # reshapes), the batch dims NumPy integers (np.delete's)
    batch = tuple(np.delete(np.arange(len(shape), dtype=np.int64), dimension))
    dnums = GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(dimension,), start_index_map=(dimension,),
        operand_batching_dims=batch, start_indices_batching_dims=batch)
    idx = expand_dims(perm, (len(shape),))
    t_out = [t if type(t) is ad.Zero else
             gather(t, idx, dnums, (1,) * len(shape), mode=GatherScatterMode.PROMISE_IN_BOUNDS)
             for t in tangents]
    return outs, t_out


ad.primitive_jvps[sort_p] = _sort_jvp


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sorts along ``dimension``. A sequence of operands sorts lexicographically by the first
    ``num_keys`` of them and returns a tuple; a single array returns an array."""
    if isinstance(operand, Sequence):
        if len(operand) == 0:
            raise TypeError("sort requires at least one operand")
        if not 1 <= num_keys <= len(operand):
            raise ValueError(f"sort: num_keys={num_keys} must be between 1 and {len(operand)}")
        dimension = canonicalize_axis(dimension, get_aval(operand[0]).ndim, "sort")
        return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=bool(is_stable),
                                 num_keys=int(num_keys)))
    if num_keys != 1:
        raise ValueError(f"sort: num_keys={num_keys} must equal 1 for a single operand")
    dimension = canonicalize_axis(dimension, get_aval(operand).ndim, "sort")
    return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """Sorts ``keys`` along ``dimension`` and applies the same permutation to ``values``."""
    dimension = canonicalize_axis(dimension, get_aval(keys).ndim, "sort_key_val")
    k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=bool(is_stable), num_keys=1)
    return k, v


# ------------------------------------------------------------------------------------------------
# top_k


def _top_k_rule(operand, *, k, axis):
    check_dtype_allowed("top_k", operand.dtype, REAL)
    if operand.ndim == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {operand.str_short(True)}")
    if not 0 <= axis < operand.ndim:
        raise ValueError(
            f"top_k: axis {axis} is out of bounds for operand {operand.str_short(True)}")
    if k < 0 or k > operand.shape[axis]:
        raise ValueError(
            f"top_k: k must be nonnegative and no larger than the size along axis {axis}, got "
            f"k={k} for operand {operand.str_short(True)}"
        )
    shape = list(operand.shape)
    shape[axis] = k
    return [ShapedArray(shape, operand.dtype, operand.weak_type), ShapedArray(shape, dtypes.int32)]


def _transpose(x, aval, perm):
    out = aval.update(shape=[aval.shape[p] for p in perm])
    return hlo.transpose(x, dense_i64(perm)), out


def _top_k_lowering(ctx, x, *, k, axis):
    """``chlo.top_k`` works on the last axis: move ``axis`` there and back.

    chlo.top_k is a stable descending sort in XLA's total order (as in JAX): ties keep the lower
    index first, NaNs with a clear sign bit count as the largest values (with the sign bit set,
    the smallest), and +0.0 ranks above -0.0 — unlike ``sort``, which follows NumPy's order.
    """
    aval = ctx.avals_in[0]
    last = aval.ndim - 1
    perm = list(range(aval.ndim))
    perm[axis], perm[last] = last, axis  # a swap: its own inverse
    if axis != last:
        x, aval = _transpose(x, aval, perm)
    out_shape = [*aval.shape[:-1], k]
    values_t = tensor_type(aval.update(shape=out_shape))
    indices_t = tensor_type(ShapedArray(out_shape, dtypes.int32))
    values, indices = chlo.TopKOp(x, k, results=[values_t, indices_t]).results
    if axis != last:
        values = _transpose(values, ctx.avals_out[0].update(shape=out_shape), perm)[0]
        indices = _transpose(indices, ShapedArray(out_shape, dtypes.int32), perm)[0]
    return [values, indices]


top_k_p = Primitive("top_k", multiple_results=True)
top_k_p.def_abstract_eval(_top_k_rule)
top_k_p.def_lowering(_top_k_lowering)
top_k_p.def_batching(batching.axis_param_rule(top_k_p))


def _top_k_jvp(primals, tangents, *, k, axis):
    (x,), (g,) = primals, tangents
    values, indices = top_k_p.bind(x, k=k, axis=axis)
    return [values, indices], [_take_along_axis(g, indices, axis),
                               ad.Zero.from_primal_value(indices)]


def _take_along_axis(x, indices, axis):
    """``x``'s elements at ``indices`` along ``axis``: JAX's batched gather, so a NaN or inf
    elsewhere in ``x`` (or in a cotangent, through the scatter-add transpose) stays where it is
    (a one-hot contraction would spread it as 0 * inf)."""
    rank = get_aval(indices).ndim
    batch = tuple(i for i in range(rank) if i != axis)
    dnums = GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=batch, start_indices_batching_dims=batch)
    return gather(x, reshape(indices, (*get_aval(indices).shape, 1)), dnums, (1,) * rank)


ad.primitive_jvps[top_k_p] = _top_k_jvp


def top_k(operand, k, *, axis=-1):
    """The ``k`` largest entries along ``axis`` (descending) and their int32 indices."""
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if dtypes.is_complex(get_aval(operand).dtype):
        raise ValueError("top_k is not compatible with complex inputs.")  # JAX's words
    ndim = get_aval(operand).ndim
    axis = canonicalize_axis(axis, ndim, "top_k") if ndim else operator.index(axis)
    return tuple(top_k_p.bind(operand, k=k, axis=axis))

sort_p.sharding_rule = sharding_rules.sort  # (operands split over Explicit mesh axes)
top_k_p.sharding_rule = sharding_rules.top_k
