"""The rest of jaxlib's private surface that minijax's tools use: executable serialization,
StableHLO → HLO conversion, the profiler, heap profiles and sharded host transfers.

A sibling of ``backends.py`` under the same rule: no other module calls ``jaxlib._jax``,
``jaxlib._profiler`` or private attributes of jaxlib objects directly. Everything here was
checked on jaxlib 0.10.2 (CPU) and is listed as unchanged in 0.11.2 by JAXLIB_NOTES §8–§10.
The profiler module is imported lazily: plain jit/eager use never loads it.
"""

from __future__ import annotations

import itertools
import os

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as xc

from minijax.config import config
from minijax.lowering import backends

try:
    from jaxlib import version as _jaxlib_version

    JAXLIB_VERSION = _jaxlib_version.__version__
except ImportError:  # pragma: no cover - every jaxlib we support has jaxlib.version
    import jaxlib

    JAXLIB_VERSION = getattr(jaxlib, "__version__", "unknown")

XLA_CLIENT_VERSION = xc._version
IFRT_VERSION = getattr(xc, "_ifrt_version", getattr(_jax, "ifrt_version_number", None))


# ------------------------------------------------------------------------------------------------
# Executables on disk (JAXLIB_NOTES §8)


def serialize_executable(xla) -> bytes:
    return xla.serialize()


def deserialize_executable(data: bytes, devices_, options):
    client = backends.backend_of_device(devices_[0]).client
    return client.deserialize_executable(data, _jax.DeviceList(tuple(devices_)), options)


def options_bytes(options) -> bytes:
    return options.SerializeAsString()


def set_xla_dump_to(options, directory):
    """Asks XLA itself to dump this compilation's HLO passes to ``directory``."""
    options.executable_build_options.debug_options.xla_dump_to = str(directory)


def backend_identity(devices_) -> dict:
    """What must match for a serialized executable to be reusable: platform, its version, the
    device kinds and their count (the compile options hold the device assignment)."""
    client = backends.backend_of_device(devices_[0]).client
    every = client.devices()
    return {
        "platform": client.platform,
        "platform_version": client.platform_version,
        "device_kinds": sorted({d.device_kind for d in every}),
        "device_count": len(every),
    }


def optimized_hlo_text(xla) -> str:
    return "\n\n".join(m.to_string() for m in xla.hlo_modules())


def stablehlo_to_xla_computation(module_text: str):
    """jaxlib's ``XlaComputation`` of a StableHLO module (HLO before XLA's optimizations)."""
    return _jax.mlir.mlir_module_to_xla_computation(
        module_text, use_tuple_args=False, return_tuple=False
    )


def stablehlo_to_hlo_text(module_text: str) -> str:
    """XLA HLO text of a StableHLO module, before XLA's optimizations."""
    return stablehlo_to_xla_computation(module_text).as_hlo_text()


# ------------------------------------------------------------------------------------------------
# Profiler (JAXLIB_NOTES §9)


def profiler_module():
    from jaxlib import _profiler

    return _profiler


def profile_data_from_xspace(data: bytes):
    from jaxlib._profile_data import ProfileData

    return ProfileData.from_serialized_xspace(data)


def heap_profile(platform=None) -> bytes:
    """A pprof protobuf (not compressed) of live device buffers (``client.heap_profile``)."""
    return backends.get_backend(platform).client.heap_profile()


# ------------------------------------------------------------------------------------------------
# Sharded arrays <-> host


def as_jaxlib_sharding(sharding, ndim):
    """The jaxlib sharding behind a minijax one (``NamedSharding`` ...), else ``sharding``."""
    convert = getattr(sharding, "_to_jaxlib", None)
    return sharding if convert is None else convert(ndim)


def hlo_sharding(sharding, ndim=None):
    if hasattr(sharding, "_to_jaxlib"):  # a minijax sharding; rank from its spec if not given
        sharding = sharding._to_jaxlib(len(getattr(sharding, "spec", ())) if ndim is None else ndim)
    if hasattr(sharding, "_hlo_sharding"):
        return sharding._hlo_sharding
    return sharding._to_xla_hlo_sharding  # pragma: no cover - future sharding types


def shard_indices(sharding, shape):
    """``[(device, index)]``: the slice of a global array of ``shape`` each device holds,
    in the sharding's device order (replicas appear once per device)."""
    sharding = as_jaxlib_sharding(sharding, len(shape))
    devs = backends.sharding_devices(sharding)
    hs = hlo_sharding(sharding)
    full = tuple(slice(None) for _ in shape)
    if len(devs) == 1 or hs.is_replicated() or hs.is_maximal():
        return [(d, full) for d in devs]
    if not hs.is_tiled():
        # internal: JAX 0.10.2's device_put takes no such sharding from a user either
        raise NotImplementedError(f"cannot place host data for sharding {hs}")
    dims = list(hs.tile_assignment_dimensions())
    order = list(hs.tile_assignment_devices())  # positions in the sharding's device list
    chunks = [-(-n // max(k, 1)) for n, k in zip(shape, dims)]
    out = [None] * len(devs)
    for flat, coord in enumerate(itertools.product(*[range(k) for k in dims])):
        index = tuple(
            slice(min(c * size, n), min((c + 1) * size, n))
            for c, size, n in zip(coord[: len(shape)], chunks, shape)
        )
        out[order[flat]] = (devs[order[flat]], index)
    return out


def gather_to_host(arr) -> np.ndarray:
    """The global value of an Array, assembled from its per-device pieces when sharded."""
    devs = backends.buffer_devices(arr)
    if len(devs) == 1:
        return backends.to_numpy(arr)
    sharding = backends.buffer_sharding(arr)
    out = np.empty(arr.aval.shape, arr.aval.dtype)
    where = {d: index for d, index in shard_indices(sharding, arr.aval.shape)}
    done = set()
    for piece in backends.shard_pieces(arr):
        (dev,) = backends.buffer_devices(piece)
        index = where[dev]
        key = tuple((s.start, s.stop) for s in index)
        if key not in done:  # replicas hold the same data: copy each slice once
            out[index] = backends.to_numpy(piece)
            done.add(key)
    return out


def put_sharded(value: np.ndarray, aval, sharding):
    """Puts a host array on the devices of ``sharding``, each device getting its slice."""
    sharding = as_jaxlib_sharding(sharding, value.ndim)
    placed = shard_indices(sharding, value.shape)
    if not sharding._internal_device_list.is_fully_addressable:  # multi-process: own devices
        placed = [(d, i) for d, i in placed if d.process_index == d.client.process_index()]
    shards = [np.ascontiguousarray(value[index]) for _, index in placed]
    if len({s.shape for s in shards}) > 1:
        raise ValueError(
            f"cannot place an array of shape {value.shape} with sharding "
            f"{hlo_sharding(sharding)}: each sharded dimension must divide evenly"
        )
    return _jax.batched_device_put(
        aval, sharding, shards, [d for d, _ in placed], True, False,
        enable_x64=config.jax_enable_x64,
    )


def make_sharding(devices_, hlo_sharding_text: str):
    """A GSPMDSharding over ``devices_`` from HLO sharding text like ``{devices=[2,2]<=[4]}``."""
    return _jax.GSPMDSharding(
        _jax.DeviceList(tuple(devices_)), xc.HloSharding.from_string(hlo_sharding_text)
    )


def xla_flags() -> str:
    return os.environ.get("XLA_FLAGS", "")
