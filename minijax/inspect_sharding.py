"""``inspect_sharding``: the primitive of ``debug.inspect_array_sharding``, with all its rules.

Its callback gets the value's sharding as early as it is known, as in JAX: eagerly at once
(the Array's own); under ``jit`` when the program compiles. A program Shardy partitions carries
XLA's ``InspectSharding`` custom call, whose partitioner calls back with the HloSharding it
chose; a program on one device, without the partitioner, is whole on its device. A compiled
program is cached, so a second call of the same jit does not call back.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive
from minijax.interpreters import ad
from minijax.lowering import backends
from minijax.lowering.array import interned_sharding
from minijax.sharding_types import GSPMDSharding, NamedSharding, PartitionSpec, from_jaxlib

inspect_sharding_p = Primitive("inspect_sharding", multiple_results=True)
inspect_sharding_p.effectful = True  # its callback is its only use: never dead code
inspect_sharding_p.def_abstract_eval(lambda aval, *, callback: [])


@inspect_sharding_p.def_impl
def _inspect_impl(value, *, callback):
    callback(value.sharding)
    return []


def _inspect_lowering(ctx, value, *, callback):
    mctx, ndim = ctx.module_ctx, len(ctx.avals_in[0].shape)
    where = {}

    def record(devices, mesh):
        where["devices"], where["mesh"] = devices, mesh
        if not mctx.partitioned:  # no partitioner runs: the whole value is on its device
            callback(_whole(devices, mesh))

    mctx.compile_hooks.append(record)
    if not mctx.partitioned:
        return []

    def on_hlo_sharding(hlo_sharding):  # called by XLA's SPMD partitioner while compiling
        devices, mesh = where["devices"], where["mesh"]
        if len(devices) == 1:
            return callback(_whole(devices, mesh))
        if hlo_sharding.is_manual():  # inside shard_map: each device's block is its own
            return callback(NamedSharding(mesh, PartitionSpec()))
        return callback(from_jaxlib(interned_sharding(devices, hlo_sharding, mesh), ndim, mesh))

    # XLA holds only the encoded pointer: the lowered module keeps the function alive until
    # the compile is over (the partitioner only calls while compiling).
    mctx.add_keepalive(on_hlo_sharding)
    hlo.CustomCallOp(
        [value.type], [value], call_target_name=ir.StringAttr.get("InspectSharding"),
        has_side_effect=ir.BoolAttr.get(True),
        backend_config=ir.StringAttr.get(backends.xc.encode_inspect_sharding_callback(
            on_hlo_sharding)),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        called_computations=ir.ArrayAttr.get([]))
    return []


def _whole(devices, mesh):
    """The sharding JAX reports for a value of a program on one device: replicated on the
    mesh when the program has one, else over the device list."""
    if mesh is not None:
        return NamedSharding(mesh, PartitionSpec())
    return GSPMDSharding(backends._jax.GSPMDSharding(
        backends.DeviceList(tuple(devices)), backends.xc.HloSharding.replicate()))


inspect_sharding_p.def_lowering(_inspect_lowering)


def _inspect_jvp(primals, tangents, *, callback):
    inspect_sharding_p.bind(*primals, callback=callback)
    return [], []


ad.primitive_jvps[inspect_sharding_p] = _inspect_jvp


def _inspect_batching(vals, dims, *, callback):
    inspect_sharding_p.bind(*vals, callback=callback)  # the batched value, as JAX's rule
    return [], []


inspect_sharding_p.def_batching(_inspect_batching)
ad.primitive_transposes[inspect_sharding_p] = lambda cts, *args, **params: [None] * len(args)
