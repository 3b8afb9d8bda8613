"""StableHLO for the collectives inside a manual SPMD region (``shard_map``).

``shard_map``'s lowering emits its body inside ``sdy.manual_computation`` and records the mesh
on the module context (``module_ctx.manual_mesh``) while it does; a collective's lowering rule
(``minijax/lax/parallel.py``) sends it here when its axes are axes of that mesh.

Device numbering: inside the program partition ``i`` is logical device ``i``, the row-major
position in the mesh (the executable's device assignment is ``mesh.devices.flat``). So the
``replica_groups`` and ``source_target_pairs`` below are built from ``arange(mesh.size)``
reshaped to the mesh, never from ``Device.id`` (those differ across processes: 0, 1, 2048 ...).

Every cross-partition op gets its own channel handle (type 1, device to device) and
``use_global_device_ids`` where the op has it: without a channel id XLA reads the groups as
*replica* ids, and this program has one replica and N partitions.
"""

from __future__ import annotations

import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.lowering.stablehlo import ir_constant, tensor_type

__all__ = ["lower_all_gather", "lower_all_reduce", "lower_all_to_all", "lower_axis_index",
           "lower_ppermute", "lower_psum_scatter", "manual_mesh_for"]


def manual_mesh_for(ctx, names):
    """The mesh of the enclosing shard_map if it binds every name in ``names``, else None."""
    mesh = getattr(ctx.module_ctx, "manual_mesh", None)
    if mesh is None or not all(n in mesh.shape for n in names):
        return None
    return mesh


def device_groups(mesh, names, axis_index_groups=None):
    """Logical device ids, one row per group of devices that differ only along ``names``;
    within a row, devices are in row-major order over ``names`` as given (the order in which
    all_gather stacks and axis_index counts)."""
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes)
    pos = [mesh.axis_names.index(n) for n in names]
    others = [i for i in range(len(mesh.axis_names)) if i not in pos]
    size = math.prod(mesh.axis_sizes[i] for i in pos)
    rows = ids.transpose(others + pos).reshape(-1, size)
    if axis_index_groups is not None:
        rows = np.array([row[list(g)] for row in rows for g in axis_index_groups])
    return rows


def _groups_attr(rows):
    return ir.DenseIntElementsAttr.get(np.ascontiguousarray(rows, np.int64))


def _channel(ctx):
    """A fresh channel handle for one cross-partition op of this module."""
    mctx = ctx.module_ctx
    mctx.channel_counter = getattr(mctx, "channel_counter", 0) + 1
    return hlo.ChannelHandle.get(mctx.channel_counter, 1)


def _scalar_region(op, aval, combine):
    scalar = tensor_type(aval.update(shape=()))
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([combine(*block.arguments)])


_COMBINERS = {"psum": hlo.add, "pmax": hlo.maximum, "pmin": hlo.minimum}


def lower_all_reduce(ctx, x, mesh, kind, axes, axis_index_groups):
    aval = ctx.avals_out[0]
    rows = device_groups(mesh, axes, axis_index_groups)
    if kind == "psum" and np.issubdtype(aval.dtype, np.complexfloating):
        # XLA's CPU simplifier aborts the process on a complex all-reduce of a broadcast
        # constant (a zero gradient): the real and imaginary parts are summed apart
        part = aval.update(dtype=np.finfo(aval.dtype).dtype)
        re, im = (_all_reduce(ctx, f(x), part, rows, kind) for f in (hlo.real, hlo.imag))
        return hlo.complex(re, im)
    return _all_reduce(ctx, x, aval, rows, kind)


def _all_reduce(ctx, x, aval, rows, kind):
    op = hlo.AllReduceOp([tensor_type(aval)], [x], _groups_attr(rows),
                         channel_handle=_channel(ctx), use_global_device_ids=True)
    if aval.dtype == np.bool_:  # pmax/pmin of bools: or/and
        combine = {"pmax": hlo.or_, "pmin": hlo.and_}.get(kind, hlo.or_)
    else:
        combine = _COMBINERS[kind]
    _scalar_region(op, aval, combine)
    return op.results[0]


def lower_all_gather(ctx, x, mesh, *, all_gather_dimension, axis_name, axis_index_groups,
                     axis_size, tiled):
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    dim = all_gather_dimension
    if not tiled:  # stacked: gather along a new unit axis
        shape = list(aval_in.shape)
        shape.insert(dim, 1)
        x = hlo.reshape(tensor_type(aval_in.update(shape=tuple(shape))), x)
    rows = device_groups(mesh, axis_name, axis_index_groups)
    op = hlo.AllGatherOp([tensor_type(aval_out)], [x], dim, _groups_attr(rows),
                         channel_handle=_channel(ctx), use_global_device_ids=True)
    return op.results[0]


def lower_psum_scatter(ctx, x, mesh, *, scatter_dimension, axis_name, axis_index_groups,
                       axis_size, tiled):
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    dim = scatter_dimension
    shape = list(aval_in.shape)
    shape[dim] //= axis_size  # untiled: 1, reshaped away below
    scattered = aval_in.update(shape=tuple(shape))
    rows = device_groups(mesh, axis_name, axis_index_groups)
    op = hlo.ReduceScatterOp(tensor_type(scattered), x, dim, _groups_attr(rows),
                             channel_handle=_channel(ctx), use_global_device_ids=True)
    _scalar_region(op, aval_in, hlo.add)
    out = op.results[0]
    if not tiled:
        out = hlo.reshape(tensor_type(aval_out), out)
    return out


def lower_ppermute(ctx, x, mesh, *, axis_name, perm):
    rows = device_groups(mesh, axis_name)
    pairs = np.array([(row[s], row[d]) for row in rows for s, d in perm], np.int64)
    pairs = pairs.reshape(-1, 2)
    op = hlo.CollectivePermuteOp(x, ir.DenseIntElementsAttr.get(pairs),
                                 channel_handle=_channel(ctx))
    return op.result


def lower_all_to_all(ctx, x, mesh, *, axis_name, split_axis, concat_axis, axis_index_groups,
                     axis_size, tiled):
    rows = device_groups(mesh, axis_name, axis_index_groups)
    op = hlo.AllToAllOp([x], split_axis, concat_axis, axis_size, _groups_attr(rows),
                        channel_handle=_channel(ctx),
                        results=[tensor_type(ctx.avals_out[0])])
    return op.results[0]


def lower_axis_index(ctx, mesh, *, axis_name):
    """``(partition_id // stride) % size``: the coordinate along ``axis_name`` of this
    partition's row-major mesh position. In a region manual over some mesh axes only, XLA's
    partitioner refuses a partition id (is it replicated over the automatic axes?): as JAX, it
    is computed in a region nested over those axes, whose one result is replicated."""
    mctx = ctx.module_ctx
    manual = getattr(mctx, "manual_axes", None)
    auto = [a for a in mesh.axis_names if manual is not None and a not in manual]
    if not auto:
        return _axis_index(ctx, mesh, axis_name)
    replicated = sdy.TensorShardingAttr.get(mctx.mesh_symbol(mesh), [])
    op = sdy.ManualComputationOp(
        [tensor_type(ctx.avals_out[0])], [], sdy.TensorShardingPerValueAttr.get([]),
        sdy.TensorShardingPerValueAttr.get([replicated]),
        sdy.ManualAxesAttr.get([ir.StringAttr.get(a) for a in auto]))
    with ir.InsertionPoint(op.body.blocks.append()):
        sdy.ReturnOp([_axis_index(ctx, mesh, axis_name)])
    return op.results[0]


def _axis_index(ctx, mesh, axis_name):
    pos = mesh.axis_names.index(axis_name)
    stride = math.prod(mesh.axis_sizes[pos + 1:])
    size = mesh.axis_sizes[pos]
    pid = hlo.PartitionIdOp().result  # ui32[]
    i32 = tensor_type(ctx.avals_out[0])
    idx = hlo.convert(i32, pid)
    idx = hlo.divide(idx, ir_constant(np.int32(stride)))
    return hlo.remainder(idx, ir_constant(np.int32(size)))
