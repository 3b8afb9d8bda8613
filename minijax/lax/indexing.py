"""Indexed reads and writes: ``gather`` / ``scatter`` (XLA's general forms, with JAX's
signatures and dimension numbers) and ``dynamic_slice`` / ``dynamic_update_slice``.

- ``dynamic_slice`` / ``dynamic_update_slice`` take their start indices as scalar *operands*
  of one integer dtype (the wrappers promote mixed index dtypes). As in current JAX, the
  wrappers wrap negative indices (``i + dim`` when ``i < 0``: on the host for Python ints,
  with ``select_n`` for traced ones) and XLA clamps each start to ``[0, dim - size]`` so the
  slice stays in bounds. Under vmap, per-example start indices become one gather or scatter
  with the batch as a gather/scatter *batching dimension*, instead of a loop.

- As in JAX, the last axis of ``indices`` is the index vector (StableHLO's
  ``index_vector_dim``); ``operand_batching_dims`` / ``start_indices_batching_dims`` (and the
  scatter equivalents) pair an operand axis with an indices axis, element by element.
- ``mode`` says what an out-of-bounds window does (``GatherScatterMode``): ``CLIP`` clamps the
  start into bounds (XLA's gather does this natively); ``FILL_OR_DROP`` makes a gather return
  ``fill_value`` for that window and a scatter skip it (XLA's scatter does this natively);
  ``PROMISE_IN_BOUNDS`` is the caller's promise, so no extra work is emitted.
- ``scatter`` replaces (where windows overlap, one write wins, in an order XLA picks);
  ``scatter_add`` adds (it is gather's transpose); the other combining scatters
  (``scatter_mul/min/max``) are built from the same pieces in ``lax.scatter_combine``.
- Derivatives: gather is linear in the operand, the scatters jointly in operand and updates;
  each transposes into the other family (``scatter`` only with ``unique_indices``, as in JAX).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray, Tracer, get_aval
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import not_mapped
from minijax.lax.convert import _convert_element_type
from minijax.lax.elementwise import add, eq, lt, select, select_n
from minijax.lax.extended import extended_array_types, lax_mix_error, on_planes
from minijax.lax.families import (
    ANY,
    NUMBER,
    check_dtype_allowed,
    check_same_dtypes,
    const,
    fill_region,
    hlo_compare,
    scalar_type,
)
from minijax.lax.general_reduce import _reduction_jaxpr
from minijax.lax.structural import (
    _static_int,
    _static_ints,
    broadcast_in_dim,
    concatenate,
    expand_dims,
    full,
    full_like,
    iota,
    reshape,
    squeeze,
)
from minijax.lowering.stablehlo import dense_i64, ir_constant, lower_closed_jaxpr, tensor_type
from minijax.source_info import with_user_line
from minijax.tree_util import _registry
from minijax.lax import sharding_rules

__all__ = [
    "GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers", "gather",
    "gather_p", "scatter", "scatter_add", "scatter_add_p", "scatter_apply", "scatter_p",
    "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim",
    "dynamic_update_slice_in_dim", "dynamic_update_index_in_dim", "dynamic_slice_p",
    "dynamic_update_slice_p",
]


class GatherDimensionNumbers(NamedTuple):
    """Which output axes are window (offset) axes, which operand axes are collapsed (size-1
    slices dropped from the output), which operand axis each index component starts, and
    paired batching axes of the operand and the indices."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    CLIP = 0
    FILL_OR_DROP = 1
    PROMISE_IN_BOUNDS = 2

    @staticmethod
    def from_any(mode):
        """None means FILL_OR_DROP, as in JAX; strings are the lower-case names."""
        if isinstance(mode, GatherScatterMode):
            return mode
        if mode is None:
            return GatherScatterMode.FILL_OR_DROP
        names = {"clip": GatherScatterMode.CLIP, "fill": GatherScatterMode.FILL_OR_DROP,
                 "drop": GatherScatterMode.FILL_OR_DROP,
                 "promise_in_bounds": GatherScatterMode.PROMISE_IN_BOUNDS}
        if mode in names:
            return names[mode]
        raise ValueError(f"Unknown gather/scatter mode {mode!r}; expected one of {sorted(names)}")

    def __repr__(self):
        return f"GatherScatterMode.{self.name}"

    __str__ = __repr__


def _ints(t):
    return tuple(int(a) for a in t)


def _check_axes(name, what, axes, rank, operand_desc):
    if len(set(axes)) != len(axes) or not all(0 <= a < rank for a in axes):
        raise TypeError(
            f"{name} {what} must be unique and in [0, {rank}), got {axes} for {operand_desc}."
        )


def _check_indices(name, indices):
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"{name} indices must have an integer type, got {indices.str_short(True)}.")
    if indices.ndim < 1:
        raise TypeError(
            f"{name} indices must have rank >= 1 (the last axis is the index vector), got "
            f"{indices.str_short(True)}."
        )


def _check_batching_dims(name, operand, indices, op_dims, idx_dims):
    _check_axes(name, "operand batching dims", op_dims, operand.ndim, operand.str_short(True))
    _check_axes(name, "indices batching dims", idx_dims, indices.ndim - 1, indices.str_short(True))
    if len(op_dims) != len(idx_dims) or any(
        operand.shape[a] != indices.shape[b] for a, b in zip(op_dims, idx_dims)
    ):
        raise TypeError(
            f"{name} operand and indices batching dims must pair axes of equal sizes, got "
            f"{op_dims} of {operand.str_short(True)} and {idx_dims} of {indices.str_short(True)}."
        )


# ------------------------------------------------------------------------------------------------
# gather[dimension_numbers slice_sizes indices_are_sorted unique_indices mode fill_value]


def _gather_rule(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted,
                 unique_indices, mode, fill_value):
    name, dn = "gather", dimension_numbers
    _check_indices(name, indices)
    desc = f"operand {operand.str_short(True)}"
    if len(slice_sizes) != operand.ndim:
        raise TypeError(f"{name} slice_sizes must have one entry per axis of the {desc}, got "
                        f"{slice_sizes}.")
    # With no index vectors nothing is read, so JAX accepts any slice size (x[[]] of an empty x
    # gathers a size-1 slice of a size-0 axis); the lowering then emits no gather.
    for i, (s, d) in enumerate(zip(slice_sizes, operand.shape)):
        if indices.size and not 0 <= s <= d:  # JAX's words
            raise TypeError(f"Slice size at index {i} in gather op is out of range, must be "
                            f"within [0, {d} + 1), got {s}.")
    if len(dn.start_index_map) != indices.shape[-1]:
        raise TypeError(
            f"{name} start_index_map {dn.start_index_map} must have one entry per index "
            f"component (the last axis of indices {indices.str_short(True)})."
        )
    _check_axes(name, "start_index_map", dn.start_index_map, operand.ndim, desc)
    _check_axes(name, "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim, desc)
    _check_batching_dims(name, operand, indices, dn.operand_batching_dims,
                         dn.start_indices_batching_dims)
    if any(slice_sizes[a] > 1 for a in (*dn.collapsed_slice_dims, *dn.operand_batching_dims)):
        raise TypeError(f"{name} collapsed and batching axes must have slice size <= 1, got "
                        f"slice_sizes {slice_sizes} and dimension numbers {dn}.")
    if set(dn.collapsed_slice_dims) & set(dn.operand_batching_dims):
        raise TypeError(f"{name} an axis cannot be both collapsed and a batching axis: {dn}.")
    window = [a for a in range(operand.ndim)
              if a not in dn.collapsed_slice_dims and a not in dn.operand_batching_dims]
    batch_shape = indices.shape[:-1]
    rank = len(window) + len(batch_shape)
    if len(dn.offset_dims) != len(window) or list(dn.offset_dims) != sorted(dn.offset_dims):
        raise TypeError(
            f"{name} offset_dims must be sorted, with one entry per uncollapsed non-batching "
            f"operand axis ({len(window)}), got {dn.offset_dims}."
        )
    _check_axes(name, "offset_dims", dn.offset_dims, rank, desc)
    windows, batches = iter(slice_sizes[a] for a in window), iter(batch_shape)
    shape = [next(windows) if i in dn.offset_dims else next(batches) for i in range(rank)]
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _default_fill(dtype):
    if dtypes.is_inexact(dtype):
        return np.nan
    if dtype == np.bool_:
        return True
    info = np.iinfo(dtype)
    return info.min if dtype.kind == "i" else info.max


def _upper_bounds(upper, dtype):
    """The largest valid start per index component, as ``dtype`` (a bound beyond the dtype's
    range is no bound: every value of the dtype satisfies it)."""
    return np.asarray(np.minimum(upper, np.iinfo(dtype).max), dtype)


def _in_bounds_mask(indices, idx_aval, upper):
    """Per index vector: every component in [0, upper[k]] (a bool tensor of the batch shape)."""
    rank, dtype = idx_aval.ndim, idx_aval.dtype
    idx_type = tensor_type(idx_aval)
    hi = hlo.broadcast_in_dim(idx_type, ir_constant(_upper_bounds(upper, dtype)),
                              dense_i64([rank - 1]))
    lo = hlo.broadcast_in_dim(idx_type, ir_constant(np.zeros((), dtype)), dense_i64([]))
    ok = hlo.and_(hlo_compare(indices, lo, "GE", dtype), hlo_compare(indices, hi, "LE", dtype))
    out_t = tensor_type(ShapedArray(idx_aval.shape[:-1], np.bool_))
    op = hlo.ReduceOp([out_t], [ok], [ir_constant(np.array(True))], dense_i64([rank - 1]))
    fill_region(op.body, [scalar_type(np.bool_)] * 2, hlo.and_)
    return op.results[0]


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes,
                     indices_are_sorted, unique_indices, mode, fill_value):
    dn = dimension_numbers
    op_aval, idx_aval = ctx.avals_in
    out_aval = ctx.avals_out[0]
    if out_aval.size == 0:  # XLA rejects a gather whose slice exceeds an empty operand
        return hlo.broadcast_in_dim(tensor_type(out_aval),
                                    ir_constant(np.zeros((), out_aval.dtype)), dense_i64([]))
    attr = hlo.GatherDimensionNumbers.get(
        offset_dims=list(dn.offset_dims), collapsed_slice_dims=list(dn.collapsed_slice_dims),
        operand_batching_dims=list(dn.operand_batching_dims),
        start_indices_batching_dims=list(dn.start_indices_batching_dims),
        start_index_map=list(dn.start_index_map), index_vector_dim=idx_aval.ndim - 1,
    )
    if mode != GatherScatterMode.FILL_OR_DROP:
        # XLA clamps every start into bounds: CLIP, and fine for PROMISE_IN_BOUNDS. Indices
        # narrower than 32 bits are widened (the same values): XLA's SPMD partitioner aborts
        # the process on a gather of a sharded operand with 8- or 16-bit indices (so does JAX's
        # program, which keeps them).
        if idx_aval.dtype.itemsize < 4:
            indices = hlo.convert(tensor_type(idx_aval.update(dtype=np.int32)), indices)
        return hlo.gather(operand, indices, attr, dense_i64(slice_sizes),
                          indices_are_sorted=bool(indices_are_sorted))
    # As JAX's _gather_fill: the indices become int32 (int64 past int32's range) first; XLA's
    # SPMD partitioner aborts the process on a gather with narrower indices.
    index_dtype = np.dtype(np.int64 if max(op_aval.shape, default=0) > np.iinfo(np.int32).max
                           else np.int32)
    idx_aval = idx_aval.update(dtype=index_dtype)
    indices = hlo.convert(tensor_type(idx_aval), indices)
    out = hlo.gather(operand, indices, attr, dense_i64(slice_sizes),
                     indices_are_sorted=bool(indices_are_sorted))
    upper = [op_aval.shape[a] - slice_sizes[a] for a in dn.start_index_map]
    ok = _in_bounds_mask(indices, idx_aval, upper)
    batch_axes = [i for i in range(out_aval.ndim) if i not in dn.offset_dims]
    mask = hlo.broadcast_in_dim(tensor_type(out_aval.update(dtype=np.bool_)), ok,
                                dense_i64(batch_axes))
    fill = _default_fill(out_aval.dtype) if fill_value is None else fill_value
    fill = hlo.broadcast_in_dim(tensor_type(out_aval), ir_constant(np.asarray(fill,
                                out_aval.dtype)), dense_i64([]))
    return hlo.select(mask, out, fill)


def _pp_params(params):
    """Dimension numbers with their field names, as JAX prints them."""
    return {**params, "dimension_numbers": repr(params["dimension_numbers"])}


gather_p = Primitive("gather")
gather_p.def_abstract_eval(_gather_rule)
gather_p.def_lowering(_gather_lowering)
gather_p.pp_params = _pp_params


def _plus1(axes):
    return tuple(a + 1 for a in axes)


def _np_plus1(axes):
    """``_plus1`` as JAX's batching rules write it, ``np.add(1, axes)``: the shifted axes are
    NumPy ints, so the jaxpr prints ``(np.int64(1),)`` as JAX's does."""
    return tuple(np.add(1, axes))


def _gather_batching(args, dims, *, dimension_numbers, slice_sizes, unique_indices,
                     indices_are_sorted, **params):
    """One gather, as JAX's rule. Mapped operand only: its batch axis (moved to the front) is
    one more window axis, taken whole. Mapped indices only: one more batch axis of the indices
    (the operand is not copied; the indices may no longer be sorted or unique). Both mapped:
    the batch axes (moved to the front) become a batching-dims pair.
    """
    (operand, indices), (od, idd) = args, dims
    dn = dimension_numbers
    if idd is batching.not_mapped:
        operand = batching.moveaxis(operand, od, 0)
        dn = GatherDimensionNumbers(
            (0, *_np_plus1(dn.offset_dims)), _np_plus1(dn.collapsed_slice_dims),
            _np_plus1(dn.start_index_map), _np_plus1(dn.operand_batching_dims),
            dn.start_indices_batching_dims,
        )
        slice_sizes = (get_aval(operand).shape[0], *slice_sizes)
    elif od is batching.not_mapped:
        indices = batching.moveaxis(indices, idd, 0)
        dn = dn._replace(offset_dims=_plus1(dn.offset_dims),
                         start_indices_batching_dims=_np_plus1(dn.start_indices_batching_dims))
        unique_indices = indices_are_sorted = False
    else:
        operand = batching.moveaxis(operand, od, 0)
        indices = batching.moveaxis(indices, idd, 0)
        dn = GatherDimensionNumbers(
            _np_plus1(dn.offset_dims), _np_plus1(dn.collapsed_slice_dims),
            _np_plus1(dn.start_index_map), (0, *_np_plus1(dn.operand_batching_dims)),
            (0, *_np_plus1(dn.start_indices_batching_dims)),
        )
        slice_sizes = (0 if get_aval(operand).shape[0] == 0 else 1, *slice_sizes)
    out = gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                        unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                        **params)
    return out, 0


gather_p.def_batching(_gather_batching)


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """The windows of ``slice_sizes`` of ``operand`` starting at each index vector (the last
    axis of ``start_indices``), laid out by ``dimension_numbers`` (JAX's ``lax.gather``).
    As in JAX, ``mode=None`` is ``PROMISE_IN_BOUNDS`` here (XLA clamps), while the scatters'
    ``None`` is ``FILL_OR_DROP``."""
    if type(operand) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(gather, (0,), (operand, start_indices, dimension_numbers, slice_sizes),
                         {"unique_indices": unique_indices,
                          "indices_are_sorted": indices_are_sorted, "mode": mode,
                          "fill_value": fill_value})
    mode = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None
                                      else mode)
    # as JAX's: the param holds the fill value itself (NaN, ... by default), and only a
    # filling gather has one
    if mode != GatherScatterMode.FILL_OR_DROP:
        fill_value = None
    elif fill_value is None:
        fill_value = _default_fill(get_aval(operand).dtype)
    dn = GatherDimensionNumbers(*(_ints(f) for f in dimension_numbers))
    return gather_p.bind(
        operand, start_indices, dimension_numbers=dn, slice_sizes=_ints(slice_sizes),
        indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
        mode=mode, fill_value=fill_value,
    )


# ------------------------------------------------------------------------------------------------
# scatter / scatter-add [dimension_numbers indices_are_sorted unique_indices mode update_jaxpr
# update_consts]


def _scatter_rule(name, allowed):
    def rule(operand, indices, updates, *, dimension_numbers, indices_are_sorted,
             unique_indices, mode, update_jaxpr, update_consts):
        dn = dimension_numbers
        if operand.dtype != updates.dtype:
            raise TypeError(f"{name} requires operand and updates of one dtype, got "
                            f"{operand.str_short(True)} and {updates.str_short(True)}.")
        check_dtype_allowed(name, operand.dtype, allowed)
        _check_indices(name, indices)
        desc = f"operand {operand.str_short(True)}"
        if len(dn.scatter_dims_to_operand_dims) != indices.shape[-1]:
            raise TypeError(
                f"{name} scatter_dims_to_operand_dims {dn.scatter_dims_to_operand_dims} must "
                f"have one entry per index component (the last axis of indices "
                f"{indices.str_short(True)})."
            )
        _check_axes(name, "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims,
                    operand.ndim, desc)
        _check_axes(name, "inserted_window_dims", dn.inserted_window_dims, operand.ndim, desc)
        _check_axes(name, "update_window_dims", dn.update_window_dims, updates.ndim,
                    updates.str_short(True))
        _check_batching_dims(name, operand, indices, dn.operand_batching_dims,
                             dn.scatter_indices_batching_dims)
        window = _scatter_window(dn, operand.ndim)
        scatter_axes = [i for i in range(updates.ndim) if i not in dn.update_window_dims]
        if (len(window) != len(dn.update_window_dims)
                or any(updates.shape[u] > operand.shape[a]
                       for u, a in zip(dn.update_window_dims, window))
                or [updates.shape[i] for i in scatter_axes] != list(indices.shape[:-1])):
            raise TypeError(
                f"{name} updates {updates.str_short(True)} do not fit {desc} and indices "
                f"{indices.str_short(True)} with dimension numbers {dn}: updates need the indices' "
                "batch shape plus one window axis per operand axis that is neither inserted nor "
                "batching."
            )
        # the operand's weak type, as JAX's (_argnum_weak_type(0)): a weak cotangent stays
        # weak through scatter_mul's transpose
        return operand.update(weak_type=operand.weak_type)

    return rule


def _scatter_window(dn, ndim):
    """The operand axes the update windows span (neither inserted nor batching), in order."""
    return [a for a in range(ndim)
            if a not in dn.inserted_window_dims and a not in dn.operand_batching_dims]


def _scatter_lowering(combine, update):
    """``combine(old, new, dtype)`` builds the scalar update: the new value, their sum ...
    A combining scatter's ``update_jaxpr`` is its ``update`` (lowered as ``combine``); only
    ``scatter``'s (``update`` None) may be a user's function, scatter_apply's."""

    def lower(ctx, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
              unique_indices, mode, update_jaxpr, update_consts):
        dn = dimension_numbers
        op_aval, idx_aval, upd_aval = ctx.avals_in
        if mode == GatherScatterMode.CLIP:  # XLA drops out-of-bounds windows: clamp them first
            sizes = dict(zip(_scatter_window(dn, op_aval.ndim),
                             (upd_aval.shape[u] for u in dn.update_window_dims)))
            upper = _upper_bounds([op_aval.shape[a] - sizes.get(a, 1)
                                   for a in dn.scatter_dims_to_operand_dims], idx_aval.dtype)
            idx_type = tensor_type(idx_aval)
            hi = hlo.broadcast_in_dim(idx_type, ir_constant(upper),
                                      dense_i64([idx_aval.ndim - 1]))
            lo = hlo.broadcast_in_dim(idx_type, ir_constant(np.zeros((), idx_aval.dtype)),
                                      dense_i64([]))
            indices = hlo.clamp(lo, indices, hi)
        attr = hlo.ScatterDimensionNumbers.get(
            update_window_dims=list(dn.update_window_dims),
            inserted_window_dims=list(dn.inserted_window_dims),
            input_batching_dims=list(dn.operand_batching_dims),
            scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
            scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
            index_vector_dim=idx_aval.ndim - 1,
        )
        op = hlo.ScatterOp([tensor_type(ctx.avals_out[0])], [operand], indices, [updates], attr,
                           indices_are_sorted=ir.BoolAttr.get(bool(indices_are_sorted)),
                           unique_indices=ir.BoolAttr.get(bool(unique_indices)))
        if update is not None or update_jaxpr is None:
            fill_region(op.update_computation, [scalar_type(op_aval.dtype)] * 2,
                        lambda old, new: combine(old, new, op_aval.dtype))
        else:  # scatter_apply: the user's function of the old value
            block = op.update_computation.blocks.append(*[scalar_type(op_aval.dtype)] * 2)
            with ir.InsertionPoint(block):
                hlo.return_(lower_closed_jaxpr(ctx.module_ctx, update_jaxpr, block.arguments))
        return op.results[0]

    return lower


def _scatter_batching(prim):
    def rule(args, dims, *, dimension_numbers, **params):
        """Everything mapped at axis 0 (an unmapped operand or updates is broadcast: the result
        differs per example anyway), the batch a scatter batching-dims pair. Unmapped indices
        stay as they are, as JAX's rule: the batch axis is one more window axis of the updates
        (s30040-72: the jaxpr, and so what XLA's partitioner makes of it, is JAX's). Operand,
        updates, then indices, in JAX's order of equations."""
        (operand, indices, updates), (od, idd, ud) = args, dims
        size = batching.axis_size(args, dims)
        dn = dimension_numbers
        operand = batching.bdim_at_front(operand, od, size)
        updates = batching.bdim_at_front(updates, ud, size)
        if idd is batching.not_mapped:
            dn = ScatterDimensionNumbers(
                (0, *_np_plus1(dn.update_window_dims)), _np_plus1(dn.inserted_window_dims),
                _np_plus1(dn.scatter_dims_to_operand_dims), _np_plus1(dn.operand_batching_dims),
                dn.scatter_indices_batching_dims,
            )
            return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), 0
        indices = batching.bdim_at_front(indices, idd, size)
        dn = ScatterDimensionNumbers(
            _np_plus1(dn.update_window_dims), _np_plus1(dn.inserted_window_dims),
            _np_plus1(dn.scatter_dims_to_operand_dims), (0, *_np_plus1(dn.operand_batching_dims)),
            (0, *_np_plus1(dn.scatter_indices_batching_dims)),
        )
        return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), 0

    return rule


class _ScatterPrimitive(Primitive):
    """A scatter whose params carry, as JAX's, its update computation as a jaxpr on two scalars
    of the operand's dtype (``update_jaxpr``; ``None`` for ``scatter``, which replaces, unless
    it is scatter_apply's function) and that jaxpr's constants (``update_consts``). ``bind``
    sets them, so every scatter equation, a derivative's included, shows them."""

    def __init__(self, name, update):
        super().__init__(name)
        self.update = update  # the lax function combining old and new values, or None

    def bind(self, operand, indices, updates, **params):
        if self.update is not None:
            scalar = ShapedArray((), get_aval(operand).dtype)
            params["update_jaxpr"], _ = _reduction_jaxpr(self.update, (scalar,), _LEAF)
        else:
            params.setdefault("update_jaxpr", None)
        params.setdefault("update_consts", ())
        return super().bind(operand, indices, updates, **params)


def _scatter_prim(name, combine, allowed, update=None):
    p = _ScatterPrimitive(name, update)
    p.def_abstract_eval(_scatter_rule(name, allowed))
    p.own_memory_space = True  # in the operand's memory, whatever the updates' (as JAX's)
    p.def_lowering(_scatter_lowering(combine, update))
    p.def_batching(_scatter_batching(p))
    p.pp_params = _pp_params
    p.sharding_rule = sharding_rules.scatter  # (operands split over Explicit mesh axes)
    return p


scatter_p = _scatter_prim("scatter", lambda old, new, dtype: new, ANY)
_scatter_p_batching = scatter_p.batching  # dynamic_update_slice's rule reuses it
scatter_add_p = _scatter_prim("scatter-add", lambda old, new, dtype: hlo.add(old, new), NUMBER,
                              add)


def _scatter_args(dimension_numbers, indices_are_sorted, unique_indices, mode):
    return dict(dimension_numbers=ScatterDimensionNumbers(*(_ints(f) for f in dimension_numbers)),
                indices_are_sorted=bool(indices_are_sorted),
                unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode))


def scatter(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
            unique_indices=False, mode=None):
    """``operand`` with the windows of ``updates`` written at each index vector (the last axis
    of ``scatter_indices``), laid out by ``dimension_numbers`` (JAX's ``lax.scatter``)."""
    return scatter_p.bind(operand, scatter_indices, updates, **_scatter_args(
        dimension_numbers, indices_are_sorted, unique_indices, mode))


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """``operand`` with ``func`` applied to each element the windows of shape ``update_shape``
    cover (repeatedly where windows overlap), as JAX's: a ``scatter`` whose update computation
    is ``func`` of the old value, its updates an unused array of zeros."""
    unused = full(update_shape, 0, operand.dtype)
    scalar = get_aval(operand).update(shape=())
    update_jaxpr, _ = _reduction_jaxpr(_ApplyOld(func), (scalar,), _LEAF)
    if update_jaxpr.consts:
        # JAX 0.10.2 passes a closed-over array as a param (update_consts), and params must hash
        raise TypeError(with_user_line(
            "As of JAX v0.7, parameters to jaxpr equations must have __hash__ and __eq__ "
            "methods. In a call to primitive scatter, the value of parameter update_consts was "
            f"not hashable: {tuple(update_jaxpr.consts)!r}"))
    return scatter_p.bind(operand, scatter_indices, unused, update_jaxpr=update_jaxpr,
                          **_scatter_args(dimension_numbers, indices_are_sorted,
                                          unique_indices, mode))


_LEAF = _registry.flatten(0)[1]  # the tree of one scalar, for _reduction_jaxpr


class _ApplyOld:
    """``func`` of a scatter's old value (the update is ignored): equal for equal ``func``s, so
    ``_reduction_jaxpr``'s cache traces each function once, as JAX's ``_scatter_apply_cache``."""

    def __init__(self, func):
        self.func = func

    def __call__(self, old, _):
        return self.func(old)

    def __eq__(self, other):
        return type(other) is _ApplyOld and other.func == self.func

    def __hash__(self):
        return hash(self.func)


def scatter_add(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """Like ``scatter``, but each window is added to ``operand`` (repeated indices add up)."""
    return scatter_add_p.bind(operand, scatter_indices, updates, **_scatter_args(
        dimension_numbers, indices_are_sorted, unique_indices, mode))


# ------------------------------------------------------------------------------------------------
# Derivatives. gather is linear in the operand and scatter/scatter_add jointly in operand and
# updates (indices are integers: fixed). Each transposes into the other family: a gather's
# cotangent is scattered back *adding* (windows may overlap); a scatter's updates read their
# cotangent back with a gather (dropped windows get 0).


def _gather_of_scatter(dn, operand_shape, updates_shape):
    """The gather that reads back, per index vector, the windows a scatter writes."""
    gdn = GatherDimensionNumbers(dn.update_window_dims, dn.inserted_window_dims,
                                 dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                                 dn.scatter_indices_batching_dims)
    sizes = dict(zip(_scatter_window(dn, len(operand_shape)),
                     (updates_shape[u] for u in dn.update_window_dims)))
    return gdn, tuple(sizes.get(a, 1) for a in range(len(operand_shape)))


def _aval(x):
    return x.aval if ad.is_undefined_primal(x) else get_aval(x)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      indices_are_sorted, unique_indices, mode, fill_value):
    dn = dimension_numbers
    sdn = ScatterDimensionNumbers(dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map,
                                  dn.operand_batching_dims, dn.start_indices_batching_dims)
    # strong zeros, as JAX's lax.full(shape, 0, dtype): scatter_add keeps its operand's weak
    # type, so the operand cotangent is strong even for a weak operand
    zeros = ad.zeros_like_aval(operand.aval.update(weak_type=False))
    ct_operand = scatter_add_p.bind(zeros, indices, ct, dimension_numbers=sdn,
                                    indices_are_sorted=indices_are_sorted,
                                    unique_indices=unique_indices, mode=mode)
    return [ct_operand, None]


def _read_back(ct, indices, dn, operand_shape, updates_shape, mode, indices_are_sorted,
               unique_indices):
    gdn, sizes = _gather_of_scatter(dn, operand_shape, updates_shape)
    return gather_p.bind(ct, indices, dimension_numbers=gdn, slice_sizes=sizes,
                         indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                         mode=mode, fill_value=0)


def _scatter_add_transpose(ct, operand, indices, updates, *, dimension_numbers,
                           indices_are_sorted, unique_indices, mode, update_jaxpr,
                           update_consts):
    ct_updates = None
    if ad.is_undefined_primal(updates):
        ct_updates = _read_back(ct, indices, dimension_numbers, _aval(operand).shape,
                                updates.aval.shape, mode, indices_are_sorted, unique_indices)
    return [ct if ad.is_undefined_primal(operand) else None, None, ct_updates]


def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers,
                       indices_are_sorted, unique_indices, mode, update_jaxpr, update_consts):
    """The written windows take the cotangent from the operand to the updates. With repeated
    indices one update wins each position, which one is XLA's choice: as in JAX, that is only
    transposable when the indices are declared unique."""
    if not unique_indices:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(with_user_line(
            "scatter transpose is only implemented where unique_indices=True"))
    params = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    upd_aval = _aval(updates)
    ct_operand = ct_updates = None
    if ad.is_undefined_primal(operand):
        ct_operand = scatter_p.bind(ct, indices, ad.zeros_like_aval(upd_aval), **params)
    if ad.is_undefined_primal(updates):
        ct_updates = _read_back(ct, indices, dimension_numbers, _aval(operand).shape,
                                upd_aval.shape, mode, indices_are_sorted, unique_indices)
    return [ct_operand, None, ct_updates]


def _scatter_jvp(primals, tangents, *, dimension_numbers, indices_are_sorted, unique_indices,
                 mode, update_jaxpr, update_consts):
    """With unique indices ``scatter`` is linear in (operand, updates). With repeated indices
    one write wins per position, in XLA's order; as in JAX, the winner is made explicit so the
    result is a *scatter_add* (transposable) of masked operands: every update window gets an id,
    the ids are scattered (the same winner as the values), read back with a gather, and only
    the updates whose id survived contribute; the operand survives where no id landed."""
    if update_jaxpr is not None:
        # JAX 0.10.2 has no derivative of scatter_apply either, in these words
        raise NotImplementedError(with_user_line("scatter_apply JVP not implemented"))
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    params = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    if unique_indices:
        return _linear_jvp(scatter_p, primals, tangents, params)
    dn = dimension_numbers
    op_aval, upd_aval = get_aval(operand), get_aval(updates)
    if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
        out = scatter_p.bind(operand, indices, updates, **params)
        return out, ad.Zero.from_primal_value(out)
    scatter_axes = [a for a in range(upd_aval.ndim) if a not in dn.update_window_dims]
    ids_shape = [upd_aval.shape[a] if a in scatter_axes else 1 for a in range(upd_aval.ndim)]
    num_ids = int(np.prod([upd_aval.shape[a] for a in scatter_axes], dtype=np.int64))
    id_dtype = np.uint32 if num_ids + 1 < 2**32 else np.uint64
    update_ids = add(reshape(iota(id_dtype, num_ids), ids_shape),
                         np.asarray(1, id_dtype))
    update_ids = broadcast_in_dim(update_ids, upd_aval.shape, tuple(range(upd_aval.ndim)))
    scattered_ids = scatter_p.bind(full(op_aval.shape, 0, id_dtype), indices, update_ids,
                                   **params)
    gathered_ids = _read_back(scattered_ids, indices, dn, op_aval.shape, upd_aval.shape, mode,
                              indices_are_sorted, unique_indices)
    operand_kept = eq(scattered_ids, full(op_aval.shape, 0, id_dtype))
    update_won = eq(update_ids, gathered_ids)

    def masked_sum(op, upd):
        op = select(operand_kept, op, full_like(op, 0))
        upd = select(update_won, upd, full_like(upd, 0))
        return scatter_add_p.bind(op, indices, upd, **params)

    out = masked_sum(operand, updates)
    t_out = masked_sum(ad.instantiate_zeros(t_operand), ad.instantiate_zeros(t_updates))
    return out, t_out


def _linear_jvp(prim, primals, tangents, params):
    ans = prim.bind(*primals, **params)
    if all(type(t) is ad.Zero for t in tangents):
        return ans, ad.Zero.from_primal_value(ans)
    t_operand, _, t_updates = tangents
    return ans, prim.bind(ad.instantiate_zeros(t_operand), primals[1],
                          ad.instantiate_zeros(t_updates), **params)


def _gather_jvp(primals, tangents, **params):
    # as JAX: an out-of-bounds read's tangent is 0, not the fill value (NaN by default)
    operand, indices = primals
    ans = gather_p.bind(operand, indices, **params)
    if type(tangents[0]) is ad.Zero:
        return ans, ad.Zero.from_primal_value(ans)
    return ans, gather_p.bind(tangents[0], indices, **{**params, "fill_value": 0})


ad.deflinear(gather_p, _gather_transpose)
ad.primitive_jvps[gather_p] = _gather_jvp
ad.deflinear(scatter_p, _scatter_transpose)
ad.primitive_jvps[scatter_p] = _scatter_jvp
ad.deflinear(scatter_add_p, _scatter_add_transpose)


# ------------------------------------------------------------------------------------------------
# dynamic_slice[slice_sizes] and dynamic_update_slice: start indices are scalar operands


def _check_start_indices(name, operand, indices):
    """JAX's checks of the scalar start operands, in its words: the shape rule's, then the
    dtype rule's ("got: " for dynamic_slice, "got " for dynamic_update_slice)."""
    if any(i.ndim != 0 for i in indices):
        sep = ",  got" if name == "dynamic_slice" else ", got"
        raise TypeError(f"start_indices arguments to {name} must be scalars{sep} indices "
                        f"{tuple(indices)}")


def _check_index_dtypes(name, indices):
    if any(i.dtype != indices[0].dtype or not dtypes.is_int(i.dtype) for i in indices):
        got = "got: " if name == "dynamic_slice" else "got "
        raise TypeError(f"index arguments to {name} must be integers of the same type, {got}"
                        + ", ".join(i.dtype.name for i in indices))


def _dynamic_slice_rule(operand, *start_indices, slice_sizes):
    if len(slice_sizes) != operand.ndim:  # JAX's safe_map over the shape and the sizes
        longer = "longer" if len(slice_sizes) > operand.ndim else "shorter"
        raise ValueError(f"safe_map() argument 2 is {longer} than argument 1")
    if any(s > d for s, d in zip(slice_sizes, operand.shape)):
        raise TypeError(
            "slice slice_sizes must be less than or equal to operand shape, got slice_sizes "
            f"{slice_sizes} for operand shape {operand.shape}."
        )
    if any(s < 0 for s in slice_sizes):
        raise TypeError(
            f"slice slice_sizes must be greater than or equal to zero, got slice_sizes of "
            f"{slice_sizes}."
        )
    _check_start_indices("dynamic_slice", operand, start_indices)
    if len(start_indices) != operand.ndim:  # a direct bind (the function checks first)
        raise TypeError(
            "dynamic_slice start_indices must have length equal to the rank of operand, got "
            f"indices {start_indices} for operand shape {operand.shape}."
        )
    _check_index_dtypes("dynamic_slice", start_indices)
    return operand.update(shape=slice_sizes)


dynamic_slice_p = Primitive("dynamic_slice")
dynamic_slice_p.def_abstract_eval(_dynamic_slice_rule)
dynamic_slice_p.def_lowering(
    lambda ctx, x, *starts, slice_sizes: hlo.dynamic_slice(x, list(starts), dense_i64(slice_sizes))
)


def _dynamic_slice_batching(args, dims, *, slice_sizes):
    """A gather of the start vectors (JAX's rule, which delegates to gather's): mode CLIP
    clamps the starts into bounds, as dynamic_slice does. Starts shared by every example are
    one unmapped vector, so the batch axis is one more window axis, taken whole."""
    (x, *starts), (xd, *sds) = args, dims
    dims_ = tuple(range(len(starts)))
    index, idd = _batch_dynamic_slice_indices(starts, sds)
    return _gather_batching(
        (x, index), (xd, idd), dimension_numbers=GatherDimensionNumbers(dims_, (), dims_),
        slice_sizes=slice_sizes, unique_indices=True, indices_are_sorted=True,
        mode=GatherScatterMode.CLIP, fill_value=None,
    )


def _batch_dynamic_slice_indices(starts, dims):
    """Scalar start indices as one array of index vectors and its batch axis (JAX's
    ``_batch_dynamic_slice_indices``): (n,) and unmapped when no start is per-example, else
    (size, n) mapped at 0; an empty int32 vector for a rank-0 operand."""
    if not starts:
        return np.array([], np.int32), not_mapped
    if all(d is not_mapped for d in dims):
        return concatenate([broadcast_in_dim(i, (1,), ()) for i in starts], 0), not_mapped
    size = batching.axis_size(starts, dims)
    return concatenate(
        [broadcast_in_dim(i, (size, 1), () if d is not_mapped else (0,))
         for i, d in zip(starts, dims)], 1
    ), 0


dynamic_slice_p.def_batching(_dynamic_slice_batching)


def _dynamic_slice_transpose(ct, operand, *starts, slice_sizes):
    zeros = full(operand.aval.shape, 0, operand.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


ad.deflinear(dynamic_slice_p, _dynamic_slice_transpose)  # linear in the operand


def _dynamic_update_slice_rule(operand, update, *start_indices):
    # JAX 0.10.2's shape rule, then its dtype rule, in its words
    name = "dynamic_update_slice"
    if update.ndim != operand.ndim:
        raise TypeError(
            f"{name} update must have the same rank as operand, got update shape "
            f"{update.shape} for operand shape {operand.shape}."
        )
    if len(start_indices) != operand.ndim:
        raise TypeError(
            f"{name} start_indices must have length equal to the rank of operand, got indices "
            f"{start_indices} for operand shape {operand.shape}."
        )
    if any(u > d for u, d in zip(update.shape, operand.shape)):
        raise TypeError(
            f"{name} update shape must be smaller than operand shape, got update shape "
            f"{update.shape} for operand shape {operand.shape}."
        )
    _check_start_indices(name, operand, start_indices)
    check_same_dtypes(name, [operand, update])
    _check_index_dtypes(name, start_indices)
    return operand.update(weak_type=operand.weak_type and update.weak_type)


dynamic_update_slice_p = Primitive("dynamic_update_slice")
dynamic_update_slice_p.def_abstract_eval(_dynamic_update_slice_rule)
dynamic_update_slice_p.def_lowering(
    lambda ctx, x, update, *starts: hlo.dynamic_update_slice(x, update, list(starts))
)


def _dynamic_update_slice_batching(args, dims):
    """A scatter of the start vectors (JAX's rule, which delegates to scatter's): mode CLIP
    clamps the starts, as dynamic_update_slice does; the starts' vectors are built first, then
    scatter's rule puts operand and update's batch axes at the front."""
    (x, update, *starts), (xd, ud, *sds) = args, dims
    dims_ = tuple(range(len(starts)))
    index, idd = _batch_dynamic_slice_indices(starts, sds)
    return _scatter_p_batching(
        (x, index, update), (xd, idd, ud), dimension_numbers=ScatterDimensionNumbers(
            dims_, (), dims_), indices_are_sorted=True, unique_indices=True,
        mode=GatherScatterMode.CLIP, update_jaxpr=None, update_consts=(),
    )


dynamic_update_slice_p.def_batching(_dynamic_update_slice_batching)


def _dynamic_update_slice_transpose(ct, operand, update, *starts):
    u_aval = update.aval if ad.is_undefined_primal(update) else get_aval(update)
    ct_operand = ct_update = None
    if ad.is_undefined_primal(operand):
        zeros = full(u_aval.shape, 0, u_aval.dtype)
        ct_operand = dynamic_update_slice_p.bind(ct, zeros, *starts)
    if ad.is_undefined_primal(update):
        ct_update = dynamic_slice_p.bind(ct, *starts, slice_sizes=u_aval.shape)
    return [ct_operand, ct_update] + [None] * len(starts)


# linear in (operand, update) jointly; the start indices are fixed
ad.deflinear(dynamic_update_slice_p, _dynamic_update_slice_transpose, data=2)


def _is_static_index(i):
    return type(i) is int or isinstance(i, np.integer) or (
        isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype.kind in "iu"
    )


def _dynamic_slice_indices(name, operand, start_indices, allow_negative_indices):
    """Start indices as scalars, each of its own integer dtype (a Python int the default
    one; the primitive refuses a mix, as JAX's), negative ones wrapped (``i + dim``) where
    ``allow_negative_indices`` (a bool, or one per dimension) says so.

    Python/NumPy ints are wrapped on the host and become literals; traced or device indices
    are wrapped with ``select_n(i < 0, i, i + dim)``, as JAX stages it. XLA then clamps.
    """
    shape = get_aval(operand).shape
    # JAX's order and words: the length first, then an array of indices split into scalars
    if len(start_indices) != len(shape):
        raise ValueError(with_user_line(
            "Length of slice indices must match number of operand dimensions "
            f"({len(start_indices)} vs {shape})"
        ))
    if isinstance(start_indices, (np.ndarray, Tracer)) or hasattr(start_indices, "aval"):
        if np.ndim(start_indices) != 1:
            raise ValueError(with_user_line(
                f"Slice indices must be a 1D sequence, got {np.shape(start_indices)}"))
    indices = list(start_indices)
    if not indices:
        return []
    index_avals = [get_aval(i) for i in indices]
    if any(not dtypes.is_int(a.dtype) for a in index_avals):
        got = "got: " if name == "dynamic_slice" else "got "
        raise TypeError(with_user_line(
            f"index arguments to {name} must be integers of the same type, {got}"
            + ", ".join(a.dtype.name for a in index_avals)
        ))
    allow = ([allow_negative_indices] * len(shape) if isinstance(allow_negative_indices, bool)
             else list(allow_negative_indices))
    index_dtypes = [_index_dtype(a, shape) for a in index_avals]
    return [_wrap_negative(i, d, t, a) for i, d, t, a in zip(indices, shape, index_dtypes, allow)]


def _index_dtype(aval, shape):
    """An index's own dtype, or int32 if a dimension does not fit it (an int8 index on 300
    rows: JAX wraps the dimension to int8, so ``-1`` reads row 43; sharp_bits). All the
    indices are widened alike, so indices of one dtype stay of one."""
    if shape and max(shape) > np.iinfo(aval.dtype).max:
        dtype, _ = dtypes.promote_dtypes_weak([(aval.dtype, False),
                                               (dtypes.default_int_dtype(), False)])
        return dtype
    return aval.dtype


def _wrap_negative(i, dim, dtype, allow_negative):
    if _is_static_index(i):
        i = int(i)
        if i < 0 and not allow_negative:
            raise ValueError(with_user_line(
                f"Index {i} is out of bounds for dimension {dim} if "
                "allow_negative_indices=False"))
        i = i + dim if i < 0 else i
        info = np.iinfo(dtype)
        if not info.min <= i <= info.max:  # e.g. -100 for a uint8 index: clamp now, not wrap
            i = min(max(i, 0), dim)
        return np.asarray(i, dtype)
    if get_aval(i).dtype != dtype:
        i = _convert_element_type(i, dtype)
    if dtype.kind == "u" or not allow_negative:  # unsigned indices cannot be negative
        return i
    # JAX's order: the test and the unchanged case take a weakly typed index as it is, only
    # the sum converts it (promotion with the strongly typed dimension)
    negative = lt(i, const(i, 0))
    strong = _convert_element_type(i, dtype)
    return select_n(negative, i, add(strong, const(strong, dim)))


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The ``slice_sizes`` block of ``operand`` starting at the (traceable) ``start_indices``.

    Negative starts count from the end where ``allow_negative_indices`` (a bool, or one per
    dimension); starts are then clamped so the block is in bounds.
    """
    if type(operand) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(dynamic_slice, (0,), (operand, start_indices, slice_sizes),
                         {"allow_negative_indices": allow_negative_indices})
    sizes = _static_ints(slice_sizes, "dynamic_slice", "slice_sizes")
    starts = _dynamic_slice_indices("dynamic_slice", operand, start_indices,
                                    allow_negative_indices)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with the block at ``start_indices`` (wrapped as ``dynamic_slice``'s, then
    clamped) set to ``update``."""
    if type(operand) in extended_array_types or type(update) in extended_array_types:
        # typed keys: each key word's plane (lax.extended)
        return on_planes(dynamic_update_slice, (0, 1), (operand, update, start_indices),
                         {"allow_negative_indices": allow_negative_indices},
                         mix_error=lax_mix_error("dynamic_update_slice"))
    starts = _dynamic_slice_indices("dynamic_update_slice", operand, start_indices,
                                    allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *starts)


def _zero_index_like(i):
    """A zero start index of ``i``'s dtype (Python 0 for a Python int), for the other axes."""
    return 0 if type(i) is int else np.zeros((), get_aval(i).dtype)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    """``dynamic_slice`` along one ``axis``, keeping the other axes whole."""
    shape = get_aval(operand).shape
    starts = [_zero_index_like(start_index)] * len(shape)
    sizes = list(shape)
    # JAX's int(axis) and list assignment: a float axis is truncated, a negative one counts
    # back, one out of range is Python's IndexError
    axis = int(axis)
    starts[axis] = start_index
    sizes[axis] = _static_int(slice_size, "the slice_size argument of dynamic_slice_in_dim")
    return dynamic_slice(operand, starts, sizes,
                         allow_negative_indices=_only_on(axis, len(shape),
                                                         allow_negative_indices))


def _only_on(axis, ndim, allow_negative_indices):
    """One axis's ``allow_negative_indices``, the other axes' (a zero start) False."""
    allow = [False] * ndim
    allow[axis] = allow_negative_indices
    return allow


def _as_traced(index, allow_negative_indices):
    """JAX jits ``dynamic_index_in_dim`` and ``dynamic_update_index_in_dim``, so even a Python
    int index is traced there: a negative one that may not count from the end is clamped to 0,
    as XLA clamps a traced start, instead of refused."""
    if not allow_negative_indices and _is_static_index(index) and int(index) < 0:
        return _zero_index_like(index)
    return index


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *, allow_negative_indices=True):
    """Element ``index`` (traceable) along ``axis``, keeping the axis or not."""
    result = dynamic_slice_in_dim(operand, _as_traced(index, allow_negative_indices), 1, axis,
                                  allow_negative_indices=allow_negative_indices)
    return result if keepdims else squeeze(result, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    """``dynamic_update_slice`` at ``start_index`` along ``axis`` (0 along the others)."""
    axis = int(axis)  # as dynamic_slice_in_dim
    ndim = get_aval(operand).ndim
    starts = [_zero_index_like(start_index)] * ndim
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=_only_on(axis, ndim,
                                                                allow_negative_indices))


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """Sets element ``index`` along ``axis``; ``update`` may lack that axis."""
    axis = int(axis)
    if get_aval(update).ndim + 1 == get_aval(operand).ndim:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, _as_traced(index, allow_negative_indices),
                                       axis, allow_negative_indices=allow_negative_indices)

# Sharding rules (operands split over Explicit mesh axes)
dynamic_slice_p.sharding_rule = sharding_rules.varying_shape("dynamic_slice", _dynamic_slice_rule)
dynamic_update_slice_p.sharding_rule = sharding_rules.dynamic_update_slice
gather_p.sharding_rule = sharding_rules.gather
