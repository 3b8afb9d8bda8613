"""Multi-process minijax: ``initialize`` joins this process to a job over XLA's distributed
runtime (jaxlib's coordination service and client), so every process's backend sees the
*global* devices (``minijax.devices()``) while owning only its own (``local_devices()``).

One process (``process_id == 0``) hosts the coordination service at ``coordinator_address``;
each process connects a client to it. On CPU the backend is a CPU client made with that
distributed client and gloo collectives over TCP (XLA's own transport: no minijax code moves
data between processes). On GPU the CUDA plugin gets the distributed client and its node id;
NCCL then does the collectives.

Every process must run the same program on the same global arrays: ``jit`` compiles for the
global device list (device ids like 0, 1, 2048, 2049) and each process feeds and reads only the
shards of its own devices. ``make_array_from_process_local_data`` and
``make_array_from_single_device_arrays`` build such global arrays.
"""

from __future__ import annotations

import atexit
import math

import numpy as np

from minijax import core
from minijax.config import config
from minijax.lowering import backends
from minijax.lowering.array import Array, device_put_value

__all__ = [
    "initialize", "is_initialized", "make_array_from_callback",
    "make_array_from_process_local_data", "make_array_from_single_device_arrays",
    "process_count", "process_index", "process_indices", "shutdown",
]


class _State:
    service = None
    client = None
    process_id = 0
    num_processes = 1
    coordinator_address = None
    last_error = None


_state = _State()


def is_initialized():
    return _state.client is not None


def initialize(coordinator_address, num_processes, process_id, local_device_ids=None,
               initialization_timeout=300, platform=None):
    """Joins the job: process ``process_id`` of ``num_processes``, coordinated at
    ``coordinator_address`` ("host:port"; process 0 listens there). Must run before the first
    computation (the backend is made once, with the distributed client). Raises
    ``TimeoutError`` if the coordinator is not reachable within ``initialization_timeout``
    seconds."""
    from jaxlib import _jax

    if is_initialized():
        raise RuntimeError("minijax.distributed.initialize should only be called once")
    num_processes, process_id = int(num_processes), int(process_id)
    if not 0 <= process_id < num_processes:
        raise ValueError(f"process_id {process_id} is out of range for {num_processes} "
                         "processes")
    platform = (platform or _requested_platform(backends)).lower()
    platform = "gpu" if platform == "cuda" else platform
    if platform in backends._backends:
        raise RuntimeError(
            "minijax.distributed.initialize must be called before any minijax computation: "
            f"the {platform} backend already exists as a single-process backend")
    timeout = max(1, int(math.ceil(initialization_timeout)))
    if process_id == 0:
        port = coordinator_address.rsplit(":", 1)[1]
        # Listen on every interface (as JAX does): the address others dial may be a hostname.
        _state.service = _jax.get_distributed_runtime_service(f"[::]:{port}", num_processes)
    # The default error callback aborts the whole process (on a failed connect too); ours
    # records the error, so a failed connect becomes a Python exception below and a lost peer
    # later surfaces as a failing collective or barrier instead of a silent exit.
    client = _jax.get_distributed_runtime_client(
        coordinator_address, process_id, init_timeout=timeout,
        missed_heartbeat_callback=_on_fatal_error, shutdown_on_destruction=False)
    try:
        client.connect()
    except Exception as e:  # the C++ raises a generic runtime error with the gRPC status
        detail = (str(e).strip().splitlines() or ["no detail"])[0]
        if "bad_cast" in detail:  # the error callback's status did not convert: no detail
            detail = "the coordination service did not answer"
        if _state.service is not None:
            _state.service.shutdown()
            _state.service = None
        raise TimeoutError(
            f"minijax.distributed.initialize: process {process_id} of {num_processes} could "
            f"not connect to the coordinator at {coordinator_address} within {timeout} s "
            f"(initialization_timeout). Is process 0 running and listening there, and are "
            f"all {num_processes} processes started? ({detail})"
        ) from None
    _state.client = client
    # Leave the job at exit, as JAX does: the client's shutdown waits for every process, so
    # process 0 does not take the coordination service down under a peer still finishing
    # (which aborts that peer).
    atexit.register(shutdown)
    _state.process_id, _state.num_processes = process_id, num_processes
    _state.coordinator_address = coordinator_address
    backends._backends[platform] = _make_backend(platform, client, process_id, num_processes,
                                                local_device_ids)


def _on_fatal_error(status, *_):
    import logging

    _state.last_error = str(status)
    logging.getLogger("minijax").error("minijax.distributed: %s", status)


def _requested_platform(backends):
    requested = backends._requested_platforms()
    if requested:
        return requested[0]
    return "gpu" if backends._find_cuda_plugin()[0] is not None else "cpu"


def _make_backend(platform, client, process_id, num_processes, local_device_ids):
    from jaxlib import _jax
    from jaxlib import xla_client as xc

    if platform == "cpu":
        backends._register_lapack_custom_calls()
        # gloo over TCP for cross-process collectives; each process has num_cpu_devices.
        collectives = _jax.make_gloo_tcp_collectives(client, hostname=_hostname())
        cpu = xc.make_cpu_client(
            asynchronous=True, distributed_client=client, node_id=process_id,
            num_nodes=num_processes, collectives=collectives,
            num_devices=max(1, int(config.jax_num_cpu_devices)))  # -1 (the default): 1
        return backends.Backend("cpu", cpu)
    if platform == "gpu":  # NCCL does the collectives
        ids = [local_device_ids] if isinstance(local_device_ids, int) else local_device_ids
        return backends._make_cuda(distributed_client=client, node_id=process_id,
                                   num_nodes=num_processes, visible_devices=ids)
    raise ValueError(f"minijax.distributed: unknown platform {platform!r}")


def _hostname():
    host = (_state.coordinator_address or "").rsplit(":", 1)[0]
    return "127.0.0.1" if host in ("127.0.0.1", "localhost", "[::1]") else None


def shutdown():
    """Leaves the job (the client, then on process 0 the service)."""
    if _state.client is not None:
        _state.client.shutdown()
        _state.client = None
    if _state.service is not None:
        _state.service.shutdown()
        _state.service = None
    _state.process_id, _state.num_processes = 0, 1


def process_index():
    """This process's index in the job (0 without ``initialize``)."""
    return _state.process_id


def process_count():
    return _state.num_processes


def process_indices():
    """The indices of all processes in the job."""
    return list(range(_state.num_processes))


def global_barrier(name, timeout_s=60):
    """Waits until every process reaches the barrier ``name`` (a no-op in one process)."""
    if _state.client is not None:
        _state.client.wait_at_barrier(name, int(timeout_s * 1000))


# ------------------------------------------------------------------------------------------------
# Global arrays from per-process data


def _is_local(device):
    return device.process_index == _state.process_id


def make_array_from_single_device_arrays(shape, sharding, arrays):
    """A global Array of ``shape`` laid out by ``sharding`` from this process's per-device
    pieces (``arrays[i]`` on a local device, holding that device's slice)."""
    shape = tuple(int(s) for s in shape)
    arrays = list(arrays)
    if not arrays:
        raise ValueError("make_array_from_single_device_arrays needs at least one array")
    target = sharding._to_jaxlib(len(shape))
    want = sharding.devices_indices_map(shape)
    for a in arrays:
        (dev,) = backends.buffer_devices(a)
        if dev not in want:
            raise ValueError(f"make_array_from_single_device_arrays: an array is on {dev}, "
                             f"which is not a device of {sharding!r}")
        expect = tuple(len(range(*s.indices(n))) for s, n in zip(want[dev], shape))
        if tuple(a.shape) != expect:
            raise ValueError(f"make_array_from_single_device_arrays: the array on {dev} has "
                             f"shape {tuple(a.shape)}, but its shard of {shape} is {expect}")
    dtypes = {np.dtype(a.dtype) for a in arrays}
    if len(dtypes) > 1:
        raise ValueError("make_array_from_single_device_arrays: the arrays have different "
                         f"dtypes {sorted(d.name for d in dtypes)}")
    # over Explicit mesh axes the split is part of the type, as put() types a placed Array
    aval = core.ShapedArray(shape, arrays[0].dtype).update(
        explicit=core.explicit_of(sharding, tuple(shape)))
    return Array(aval, target, arrays, True, _skip_checks=True)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """A global Array from this process's part of it. ``local_data`` is the block of the
    global array that this process's devices hold (the bounding box of their shards); the
    global shape is inferred from the sharding when not given."""
    local_data = np.asarray(local_data)
    ndim = local_data.ndim
    devices = list(sharding._to_jaxlib(ndim)._internal_device_list)
    local_devs = [d for d in devices if _is_local(d)]
    if global_shape is None:
        probe = tuple(local_data.shape)  # any shape divisible enough to read the tiling
        tiles = _tiles(sharding, ndim, local_devs, devices)
        global_shape = tuple(n * t_all // t_loc for n, (t_all, t_loc) in zip(probe, tiles))
    global_shape = tuple(int(s) for s in global_shape)
    idx = sharding.devices_indices_map(global_shape)
    starts = [min(idx[d][k].indices(global_shape[k])[0] for d in local_devs)
              for k in range(ndim)]
    stops = [max(idx[d][k].indices(global_shape[k])[1] for d in local_devs)
             for k in range(ndim)]
    box = tuple(b - a for a, b in zip(starts, stops))
    if box != tuple(local_data.shape):
        raise ValueError(
            f"make_array_from_process_local_data: process {process_index()} holds the block "
            f"{box} of the global shape {global_shape} under {sharding!r}, but local_data has "
            f"shape {local_data.shape}")
    pieces = []
    for d in local_devs:
        sl = tuple(slice(s.indices(n)[0] - a, s.indices(n)[1] - a)
                   for s, n, a in zip(idx[d], global_shape, starts))
        # device_put_value canonicalizes 64-bit data (x64 off) so the aval matches the buffer.
        pieces.append(device_put_value(np.ascontiguousarray(local_data[sl]), d))
    return make_array_from_single_device_arrays(global_shape, sharding, pieces)


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """A global Array of ``shape`` laid out by ``sharding``, each of this process's devices
    filled with ``data_callback(index)``: its slice of the global array, ``index`` a tuple of
    slices (e.g. read from a checkpoint), so the whole array never exists on one host."""
    shape = tuple(int(s) for s in shape)
    pieces = []
    for d, index in sharding.devices_indices_map(shape).items():
        if not _is_local(d):
            continue
        data = np.asarray(data_callback(index), dtype=dtype)
        pieces.append(device_put_value(data, d))
    return make_array_from_single_device_arrays(shape, sharding, pieces)


def _tiles(sharding, ndim, local_devs, devices):
    """Per dimension: (distinct slices over all devices, distinct slices over local ones),
    measured on a probe shape where every dimension divides evenly."""
    probe = tuple(math.prod(s for s in np.shape(sharding.mesh.devices)) for _ in range(ndim)) \
        if hasattr(sharding, "mesh") else (len(devices),) * ndim
    idx = sharding.devices_indices_map(probe)
    out = []
    for k in range(ndim):
        all_ = {idx[d][k].indices(probe[k])[:2] for d in devices}
        loc = {idx[d][k].indices(probe[k])[:2] for d in local_devs}
        out.append((len(all_), len(loc)))
    return out
