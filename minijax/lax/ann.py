"""``approx_max_k`` / ``approx_min_k``: XLA's approximate top-k (JAX's ``approx_top_k_p``).

The lowering is JAX's: an ``ApproxTopK`` custom call of the operand and an iota, with a
comparator function; off TPU it is marked ``is_fallback``, and XLA computes it with an exact
sort (so on CPU the results are the exact top k). ``aggregate_to_topk=False`` returns XLA's
reduced size instead of k, from jaxlib's ``approx_top_k_reduction_output_size``.
"""

from __future__ import annotations

import numpy as np
from jaxlib import _jax
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import ad
from minijax.lax.families import scalar_type
from minijax.lax.sorting import _take_along_axis
from minijax.lowering.stablehlo import element_type, ir_constant, tensor_type

__all__ = ["approx_max_k", "approx_min_k", "approx_top_k_p"]


def _rule(operand, *, k, reduction_dimension, recall_target, is_max_k,
          reduction_input_size_override, aggregate_to_topk):
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if operand.ndim == 0:
        raise TypeError(f"approx_top_k operand must have >= 1 dimension, got {operand.shape}")
    dims = list(operand.shape)
    if dims[reduction_dimension] < k:
        raise ValueError("k must be smaller than the size of reduction_dim "
                         f"{dims[reduction_dimension]}, got {k}")
    if not dtypes.issubdtype(operand.dtype, np.floating):
        raise ValueError("operand must be a floating type")
    if aggregate_to_topk:
        dims[reduction_dimension] = k
    else:
        dims[reduction_dimension] = _jax.approx_top_k_reduction_output_size(
            dims[reduction_dimension], len(dims), k, recall_target, aggregate_to_topk,
            reduction_input_size_override)[0]
    return [ShapedArray(tuple(dims), operand.dtype, operand.weak_type),
            ShapedArray(tuple(dims), np.dtype(np.int32))]


def _comparator(ctx, dtype, is_max_k):
    """The module-level comparator the custom call names (one per dtype and direction)."""
    op = "gt" if is_max_k else "lt"
    name = f"top_k_{op}_{element_type(dtype)}_comparator"
    module = ctx.module_ctx.module
    if name not in ir.SymbolTable(module.operation):
        scalar, index = scalar_type(dtype), scalar_type(np.dtype(np.int32))
        ftype = ir.FunctionType.get([scalar, scalar, index, index],
                                    [scalar_type(np.dtype(np.bool_))])
        with ir.InsertionPoint.at_block_begin(module.body):
            fn = func.FuncOp(name, ftype)
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            p0, p1, _, _ = entry.arguments
            hlo.return_([hlo.compare(p0, p1, hlo.ComparisonDirectionAttr.get(op.upper()))])
    return name


def _lowering(ctx, operand, *, k, reduction_dimension, recall_target, is_max_k,
              reduction_input_size_override, aggregate_to_topk):
    aval = ctx.avals_in[0]
    dim = reduction_dimension % aval.ndim
    iota = hlo.iota(tensor_type(ShapedArray(aval.shape, np.dtype(np.int32))), dim)
    init = ir_constant(np.array(-np.inf if is_max_k else np.inf, aval.dtype))
    i64 = ir.IntegerType.get_signless(64)
    config = {
        "reduction_dim": ir.IntegerAttr.get(i64, dim),
        "recall_target": ir.FloatAttr.get(ir.F32Type.get(), recall_target),
        "aggregate_to_topk": ir.BoolAttr.get(aggregate_to_topk),
        "reduction_input_size_override": ir.IntegerAttr.get(i64, reduction_input_size_override),
        "is_fallback": ir.BoolAttr.get(True),
        "top_k": ir.IntegerAttr.get(i64, k),
    }
    op = hlo.CustomCallOp(
        [tensor_type(a) for a in ctx.avals_out],
        [operand, iota, init, ir_constant(np.int32(-1))], "ApproxTopK",
        backend_config=ir.StringAttr.get(""),
        called_computations=ir.ArrayAttr.get(
            [ir.FlatSymbolRefAttr.get(_comparator(ctx, aval.dtype, is_max_k))]))
    op.attributes["mhlo.backend_config"] = ir.DictAttr.get(config)
    return list(op.results)


def _batching(args, dims, *, reduction_dimension, **params):
    (x,), (bdim,) = args, dims
    kept = [d for d in range(x.ndim) if d != bdim]
    outs = approx_top_k_p.bind(x, reduction_dimension=kept[reduction_dimension], **params)
    return outs, [bdim, bdim]


def _jvp(primals, tangents, *, reduction_dimension, **params):
    (x,), (t,) = primals, tangents
    values, indices = approx_top_k_p.bind(x, reduction_dimension=reduction_dimension, **params)
    if type(t) is ad.Zero:
        t_out = ad.Zero.from_primal_value(values)
    else:
        t_out = _take_along_axis(t, indices, reduction_dimension % x.ndim)
    return [values, indices], [t_out, ad.Zero.from_primal_value(indices)]


approx_top_k_p = Primitive("approx_top_k", multiple_results=True)
approx_top_k_p.def_abstract_eval(_rule)
approx_top_k_p.def_lowering(_lowering)
approx_top_k_p.def_batching(_batching)
ad.primitive_jvps[approx_top_k_p] = _jvp


def _approx_top_k(operand, k, reduction_dimension, recall_target,
                  reduction_input_size_override, aggregate_to_topk, is_max_k):
    return approx_top_k_p.bind(
        operand, k=k, reduction_dimension=reduction_dimension, recall_target=recall_target,
        is_max_k=is_max_k, reduction_input_size_override=reduction_input_size_override,
        aggregate_to_topk=aggregate_to_topk)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The (approximately) largest ``k`` values of ``operand`` along ``reduction_dimension``
    and their indices, as a list ``[values, indices]``."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target,
                         reduction_input_size_override, aggregate_to_topk, True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The (approximately) smallest ``k`` values of ``operand`` along ``reduction_dimension``
    and their indices, as a list ``[values, indices]``."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target,
                         reduction_input_size_override, aggregate_to_topk, False)
