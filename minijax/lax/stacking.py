"""``stack`` and ``unstack`` (JAX's ``stack_p`` / ``unstack_p``): operands joined along a new
axis, and an array split into its slices along one. Each is linear and the other's transpose,
so ``grad`` of a stack is one unstack of the cotangent and not a slice per operand.
"""

from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import not_mapped
from minijax.lax.families import check_same_dtypes
from minijax.lax.structural import _canonicalize_axis
from minijax.lowering.stablehlo import dense_i64, tensor_type
from minijax.source_info import with_user_line
from minijax.lax import sharding_rules

__all__ = ["stack", "stack_p", "unstack", "unstack_p"]


def _stack_rule(*operands, axis):
    if len({o.ndim for o in operands}) != 1:
        raise ValueError(with_user_line(
            "Cannot stack arrays with different numbers of dimensions: got "
            + ", ".join(str(o.shape) for o in operands) + "."))
    if len({o.shape for o in operands}) != 1:
        raise ValueError(with_user_line(
            "All input arrays must have the same shape. Got "
            + ", ".join(str(o.shape) for o in operands) + "."))
    check_same_dtypes("stack", operands)
    shape = list(operands[0].shape)
    shape.insert(axis, len(operands))
    return ShapedArray(tuple(shape), operands[0].dtype, all(o.weak_type for o in operands))


def _stack_lowering(ctx, *xs, axis):
    # each operand gets a unit axis at ``axis``; one concatenate joins them
    ndim = ctx.avals_in[0].ndim
    kept = dense_i64([i for i in range(ndim + 1) if i != axis])
    expanded = []
    for x, aval in zip(xs, ctx.avals_in):
        shape = list(aval.shape)
        shape.insert(axis, 1)
        expanded.append(hlo.broadcast_in_dim(tensor_type(aval.update(shape=tuple(shape))), x,
                                             kept))
    return hlo.concatenate(expanded, axis)


def _stack_batching(args, dims, *, axis):
    if dims[0] is not not_mapped and all(d == dims[0] for d in dims):
        bdim = dims[0]
        if axis <= bdim:
            return stack_p.bind(*args, axis=axis), bdim + 1
        return stack_p.bind(*args, axis=axis + 1), bdim
    size = batching.axis_size(args, dims)
    operands = [batching.bdim_at_front(x, d, size, np_dims=False) for x, d in zip(args, dims)]
    return stack_p.bind(*operands, axis=axis + 1), 0


def _stack_transpose(ct, *operands, axis):
    if type(ct) is ad.Zero:
        return [ad.Zero(o.aval) if ad.is_undefined_primal(o) else None for o in operands]
    cts = unstack_p.bind(ct, axis=axis)
    return [c if ad.is_undefined_primal(o) else None for c, o in zip(cts, operands)]


stack_p = Primitive("stack")
stack_p.def_abstract_eval(_stack_rule)
stack_p.def_lowering(_stack_lowering)
stack_p.def_batching(_stack_batching)


def _unstack_rule(operand, *, axis):
    shape = operand.shape[:axis] + operand.shape[axis + 1:]
    return [operand.update(shape=shape)] * operand.shape[axis]


def _unstack_lowering(ctx, x, *, axis):
    aval = ctx.avals_in[0]
    starts, limits = [0] * aval.ndim, list(aval.shape)
    strides = dense_i64([1] * aval.ndim)
    outs = []
    for i, aval_out in enumerate(ctx.avals_out):
        starts[axis], limits[axis] = i, i + 1
        piece = hlo.slice(x, dense_i64(starts), dense_i64(limits), strides)
        outs.append(hlo.reshape(tensor_type(aval_out), piece))
    return outs


def _unstack_batching(args, dims, *, axis):
    (x,), (bdim,) = args, dims
    if axis < bdim:
        outs = unstack_p.bind(x, axis=axis)
        return outs, [bdim - 1] * len(outs)
    outs = unstack_p.bind(x, axis=axis + 1)
    return outs, [bdim] * len(outs)


def _unstack_transpose(cts, operand, *, axis):
    if all(type(ct) is ad.Zero for ct in cts):
        return [ad.Zero(operand.aval)]
    return [stack_p.bind(*(ad.instantiate_zeros(ct) for ct in cts), axis=axis)]


unstack_p = Primitive("unstack", multiple_results=True)
unstack_p.def_abstract_eval(_unstack_rule)
unstack_p.def_lowering(_unstack_lowering)
unstack_p.def_batching(_unstack_batching)

ad.deflinear(stack_p, _stack_transpose)
ad.deflinear(unstack_p, _unstack_transpose)


def stack(operands, axis=0):
    """The arrays ``operands`` (one shape and dtype) joined along a new axis ``axis``."""
    arrays = list(operands)
    ndim = get_aval(arrays[0]).ndim  # an empty sequence is JAX's IndexError too
    return stack_p.bind(*arrays, axis=_canonicalize_axis(axis, ndim + 1, "stack"))


def unstack(x, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple of arrays without that axis."""
    axis = _canonicalize_axis(axis, get_aval(x).ndim, "unstack")
    return tuple(unstack_p.bind(x, axis=axis))

stack_p.sharding_rule = sharding_rules.stack  # (operands split over Explicit mesh axes)
unstack_p.sharding_rule = sharding_rules.unstack
