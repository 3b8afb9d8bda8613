"""PJRT clients (CPU with N virtual devices; CUDA through the installed plugin) and the one
place where minijax touches jaxlib's *private* surface.

jaxlib's private API changed between 0.10.2 and 0.11.2 (``array_result_handler`` lost
``_skip_checks``), so every call into ``_jax``/``xla_client`` internals goes through the small
functions at the bottom of this module, gated on ``xc._version``.
"""

from __future__ import annotations

import functools
import glob
import importlib
import importlib.util
import logging
import os
import sys
import threading
import typing

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # silence the clients' INFO lines

from jaxlib import _jax  # noqa: E402
from jaxlib import xla_client as xc  # noqa: E402

from minijax import caches, core, dtypes  # noqa: E402
from minijax.config import config  # noqa: E402

logger = logging.getLogger("minijax")


class _RefuseJaxImportFromMinijax:
    """A meta-path finder refusing ``import jax`` when minijax's own call triggered it.

    Some jaxlib C++ entry points (copying a buffer to NumPy, for one) import ``jax`` lazily. With
    the jax package installed, that import would re-register JAX's methods on jaxlib's
    ``ArrayImpl``, the very type minijax's ``Array`` is, and break every operator. The C++ takes
    an ImportError as "no jax here" and goes on (seen on jaxlib 0.10.2 and 0.11.2). An
    ``import jax`` written by the user (not under a minijax frame) is left alone.
    """

    _minijax_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def find_spec(self, name, path=None, target=None):
        if name != "jax" and not name.startswith("jax."):
            return None
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        if frame is not None and frame.f_code.co_filename.startswith(self._minijax_dir):
            raise ImportError(f"minijax does not let jaxlib import {name} on its behalf")
        return None


if not any(isinstance(f, _RefuseJaxImportFromMinijax) for f in sys.meta_path):
    sys.meta_path.insert(0, _RefuseJaxImportFromMinijax())

XLA_CLIENT_VERSION = xc._version  # 467 for jaxlib 0.10.2, 495 for 0.11.2
_HANDLER_NEEDS_SKIP_CHECKS = XLA_CLIENT_VERSION < 480

_backends: dict[str, object] = {}
_creating = threading.RLock()
_cuda_failure: str | None = None


class Backend:
    """A PJRT client and its platform name as users see it ('cpu' or 'gpu')."""

    def __init__(self, platform, client):
        self.platform = platform
        self.client = client

    def devices(self):
        return self.client.devices()

    def local_devices(self):
        return self.client.local_devices()

    def __repr__(self):
        return f"Backend({self.platform}, {len(self.devices())} devices)"


_lapack_registered = False


def _register_lapack_custom_calls():
    """jaxlib's LAPACK FFI handlers (lapack_spotrf_ffi ...), used by minijax.lax.linalg on CPU.
    jaxlib does not register them by default; registering before the client exists is fine."""
    global _lapack_registered
    if _lapack_registered:  # clients are re-made when the CPU device count changes
        return
    _lapack_registered = True
    try:
        from jaxlib import lapack
    except ImportError:  # linalg on CPU then fails at compile time, naming the target
        return
    for name, value, api in lapack.registrations()["cpu"]:
        xc.register_custom_call_target(name, value, "cpu", api)
    lapack._lapack.initialize()


def _make_cpu():
    _register_lapack_custom_calls()
    n = int(config.jax_num_cpu_devices)  # None: XLA reads XLA_FLAGS (as JAX's default)
    client = xc.make_cpu_client(asynchronous=True, num_devices=n if n > 0 else None)
    return Backend("cpu", client)


def _find_cuda_plugin():
    """Path of ``xla_cuda_plugin.so`` inside ``jax_plugins/xla_cuda*`` without importing it
    (its ``__init__`` imports jax)."""
    spec = importlib.util.find_spec("jax_plugins")
    if spec is None or not spec.submodule_search_locations:
        return None, None
    for root in spec.submodule_search_locations:
        for path in sorted(
            glob.glob(os.path.join(root, "xla_cuda*", "xla_cuda_plugin.so")), reverse=True
        ):
            suffix = os.path.basename(os.path.dirname(path))[len("xla_cuda") :]  # "13" / "12"
            return path, suffix
    return None, None


def _register_gpu_custom_calls(c_api, cuda_version):
    ext = importlib.import_module(f"jax_cuda{cuda_version}_plugin.cuda_plugin_extension")
    xc.register_custom_type_handler("CUDA", functools.partial(ext.register_custom_type, c_api))
    xc.register_custom_call_handler(
        "CUDA", functools.partial(ext.register_custom_call_target, c_api)
    )
    for name, value in ext.ffi_types().items():
        xc.register_custom_type(name, value, platform="CUDA")
    for name, value in ext.ffi_handlers().items():
        xc.register_custom_call_target(name, value, platform="CUDA", api_version=1)
    for modname in ("gpu_solver", "gpu_linalg", "gpu_prng", "gpu_sparse"):
        try:
            mod = importlib.import_module(f"jaxlib.{modname}")
        except ImportError:
            continue
        for name, value, api in mod.registrations().get("CUDA", []):
            xc.register_custom_call_target(name, value, platform="CUDA", api_version=api)


def _make_cuda(distributed_client=None, node_id=0, num_nodes=1, visible_devices=None):
    """The CUDA plugin's client; for a multi-process job (minijax.distributed) with the
    distributed runtime client, this process's node id and the GPUs it owns, as JAX passes
    them."""
    path, version = _find_cuda_plugin()
    if path is None:
        raise RuntimeError("no CUDA PJRT plugin (jax_plugins.xla_cuda*) is installed")
    c_api = xc.load_pjrt_plugin_dynamically("cuda", path)
    # Without this the profiler's traces hold no GPU kernels (the plugin brings its own
    # CUPTI-based tracer; JAX registers it the same way in xla_bridge).
    try:
        from jaxlib import _profiler

        _profiler.register_plugin_profiler(c_api)
    except Exception as e:
        logger.warning("minijax: the CUDA plugin's profiler could not be registered: %s", e)
    xc.initialize_pjrt_plugin("cuda")
    options = xc.generate_pjrt_gpu_plugin_options()
    if distributed_client is not None:
        options.update(node_id=int(node_id), num_nodes=int(num_nodes))
    if visible_devices is not None:
        options["visible_devices"] = [int(i) for i in visible_devices]
    client = xc.make_c_api_client("cuda", options, distributed_client=distributed_client)
    try:
        _register_gpu_custom_calls(c_api, version)
    except Exception as e:  # custom calls are optional for the basics; say so once
        logger.warning("minijax: CUDA custom-call registration failed: %s", e)
    return Backend("gpu", client)


_FACTORIES = {"cpu": _make_cpu, "gpu": _make_cuda, "cuda": _make_cuda}


def _requested_platforms():
    text = config.jax_platforms.strip()
    if not text:
        return None
    return [p.strip().lower() for p in text.split(",") if p.strip()]


def get_backend(platform: str | None = None) -> Backend:
    """The backend for ``platform``; by default the first available of CUDA then CPU (as JAX)."""
    if platform is not None:
        platform = "gpu" if platform in ("cuda", "gpu") else platform
        backend = _backends.get(platform)
        if backend is not None:
            return backend
        with _creating:  # two threads' first calls must not make two clients of one platform
            return _create_backend(platform)
    return _default_backend()


def _create_backend(platform):
    if platform not in _backends:
        available = ["cpu"] + (["gpu"] if _find_cuda_plugin()[0] is not None else [])
        # JAX's wording, which libraries (chex) match on.
        if platform == "gpu" and "gpu" not in available:
            raise RuntimeError(
                "Unknown backend: 'gpu' requested, but no platforms that are instances of "
                f"gpu are present. Platforms present are: {','.join(available)} (no CUDA "
                "PJRT plugin, jax_plugins.xla_cuda*, is installed)")
        if platform == "tpu":
            raise RuntimeError("Backend 'tpu' failed to initialize: minijax does not run "
                               f"on TPUs. Available backends are {available}")
        if platform not in _FACTORIES:
            raise RuntimeError(f"Unknown backend {platform}. Available backends are "
                               f"{available}")
        _backends[platform] = _FACTORIES[platform]()
    return _backends[platform]


def _default_backend():
    global _cuda_failure
    requested = _requested_platforms()
    order = requested or ["gpu", "cpu"]
    errors = []
    for name in order:
        name = "gpu" if name == "cuda" else name
        if name in _backends:
            return _backends[name]
        if name == "gpu" and requested is None:
            if _cuda_failure is not None or _find_cuda_plugin()[0] is None:
                continue
        try:
            return get_backend(name)
        except Exception as e:  # noqa: BLE001 - reported below if nothing works
            errors.append(f"{name}: {e}")
            if name == "gpu":
                _cuda_failure = str(e)
                if requested is None:
                    logger.warning("minijax: CUDA plugin found but unusable (%s); using CPU", e)
    raise RuntimeError("No usable minijax backend: " + "; ".join(errors))


# Called when a client is dropped for a new one: what was compiled for the old one is stale
# (compile.py, above, registers its cache clearing here).
client_replaced_listeners = []


def _on_config_change(name, value):
    # The CPU client reads its device count once; a changed count needs a new client.
    if name == "jax_num_cpu_devices" and "cpu" in _backends:
        if len(_backends["cpu"].devices()) != value:
            del _backends["cpu"]
            for listener in client_replaced_listeners:
                listener()


config.on_change(_on_config_change)


def default_backend() -> str:
    return get_backend().platform


def devices(backend: str | None = None):
    return list(get_backend(backend).devices())


def local_devices(backend: str | None = None):
    return list(get_backend(backend).local_devices())


def backend_of_device(device) -> Backend:
    for b in _backends.values():
        if device.client is b.client:
            return b
    return get_backend(device.platform)


# ------------------------------------------------------------------------------------------------
# jaxlib private surface: keep every use here.

DeviceList = _jax.DeviceList
ArrayImpl = _jax.ArrayImpl


@functools.cache
def single_device_sharding(device, memory_kind=None):
    """A replicated GSPMDSharding on one device, interned (jaxlib compares these by identity);
    ``memory_kind`` None is the device's default memory, else another of its memories
    ("pinned_host", ...): buffers put with it live there."""
    return _jax.GSPMDSharding(DeviceList((device,)), xc.HloSharding.replicate(),
                              memory_kind=memory_kind)


def result_handler(aval, sharding, committed=True):
    if aval is core.abstract_token:  # XLA returns a token as an empty boolean buffer
        return result_handler(core.token_buffer_aval, sharding, committed).wrap(core.Token)
    if aval.dtype == dtypes.float0:
        # XLA has no float0: the buffer holds booleans, and what comes back is host zeros
        # carrying the type (a TypedNdArray), not an Array, as JAX's
        return result_handler(aval.update(dtype=np.dtype(np.bool_)), sharding,
                              committed).wrap(lambda _: dtypes.float0_zeros(aval.shape, aval))
    if _HANDLER_NEEDS_SKIP_CHECKS:
        return _jax.array_result_handler(aval, sharding, committed, _skip_checks=True)
    return _jax.array_result_handler(aval, sharding, committed)


def device_put_numpy(value: np.ndarray, aval, device, committed=True, sharding=None):
    """Copies a NumPy array (already of ``aval.dtype``) onto ``device``, into the memory of
    ``sharding`` (a single-device jaxlib sharding; default: the device's default memory)."""
    if sharding is None:
        sharding = single_device_sharding(device)
    return _jax.batched_device_put(
        aval, sharding, [value], [device], committed, False, enable_x64=config.jax_enable_x64
    )


def to_numpy(buf) -> np.ndarray:
    """A host copy of a single-device buffer (works for ml_dtypes, unlike ``np.asarray``)."""
    return buf._single_device_array_to_np_array_did_copy()[0]


def shard_pieces(buf):
    """The per-device single-device arrays of a (possibly sharded) global array."""
    return buf._arrays


def buffer_sharding(buf):
    return buf._sharding


def buffer_devices(buf):
    """The devices holding a buffer, in the sharding's order."""
    return list(buf._sharding._internal_device_list)


def sharding_devices(sharding):
    return list(sharding._internal_device_list)


JaxRuntimeError = getattr(_jax, "JaxRuntimeError", RuntimeError)


# XLA options every GPU compile gets, a deliberate difference from JAX (docs/sharp_bits.md):
# GEMMs through cuBLAS rather than Triton made the fused GPT training step of
# benchmarks/gpu_xla_options.py 2.3% faster on an H100 and halved its compile time. A flag the
# user gives in XLA_FLAGS wins over these.
GPU_XLA_OPTIONS = {"xla_gpu_enable_triton_gemm": False}


def _gpu_option_overrides():
    given = {flag.split("=", 1)[0].lstrip("-") for flag in os.environ.get("XLA_FLAGS", "").split()}
    return [(name, value) for name, value in GPU_XLA_OPTIONS.items() if name not in given]


def compile_options(devices_):
    opts = xc.CompileOptions()
    opts.num_replicas = 1
    opts.num_partitions = len(devices_)
    opts.device_assignment = xc.DeviceAssignment.create(np.array([[d.id for d in devices_]]))
    if devices_[0].platform == "gpu":
        opts.env_option_overrides = _gpu_option_overrides()
    if len(devices_) > 1:
        build = opts.executable_build_options
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = True
    return opts


def compile_module(module, devices_, options=None, host_callbacks=None):
    # Executable serialization, the profiler and heap profiles: see jaxlib_ext.py (same rule).
    client = backend_of_device(devices_[0]).client
    options = compile_options(devices_) if options is None else options
    return backend_compile_and_load(client, module, devices_, options, host_callbacks)


def backend_compile_and_load(client, module, devices_, options, host_callbacks=None):
    """The one call that hands a program to XLA. It has JAX's name and first argument (a
    client with ``.platform``) because chex's ``restrict_backends`` wraps
    ``jax._src.compiler.backend_compile_and_load`` to forbid compiling for a platform; under
    minijax.compat that module is this one, and the call goes through the module attribute."""
    # The ir.Module itself, as JAX hands it: it lives in the lowering thread's own MLIR
    # context (stablehlo.context), so no other thread builds in that context meanwhile.
    if host_callbacks:  # Python functions the program calls (minijax/callbacks.py)
        return client.compile_and_load(
            module, DeviceList(tuple(devices_)), options, host_callbacks=host_callbacks)
    return client.compile_and_load(module, DeviceList(tuple(devices_)), options)


# ------------------------------------------------------------------------------------------------
# The C++ jit fast path (``_jax.pjit``): on a cache hit C++ flattens the arguments, checks their
# signature, executes and builds the outputs without entering Python. It reads three process-
# global config states, which we create once under minijax's own names and keep in sync with
# minijax.config. On a miss it calls back into minijax's Python jit.

_cpp_x64 = _jax.config.Config(
    "minijax_enable_x64", bool(config.jax_enable_x64), include_in_jit_key=True
)
_cpp_disable_jit = _jax.config.Config(
    "minijax_disable_jit", bool(config.jax_disable_jit), include_in_trace_context=True
)
# On while jax_debug_nans/infs is: part of the key, so flipping it misses the C++ cache and the
# call goes through Python, which checks the outputs (debug_numerics.py).
_cpp_debug_numerics = _jax.config.Config(
    "minijax_debug_numerics", False, include_in_jit_key=True
)
_cpp_post_hook = _jax.config.Config("minijax_post_hook", None, include_in_jit_key=False)
# Every trace-affecting flag's value (config.trace_state, e.g. jax_default_matmul_precision):
# part of the C++ key as the Python key, so flipping one retraces instead of hitting a program
# traced under the old value.
_cpp_trace_state = _jax.config.Config(
    "minijax_trace_state", config.trace_state, include_in_jit_key=True
)
# This thread's set_mesh mesh (sharding_types.set_mesh): a program traced under another mesh
# names other axes and runs on other devices.
_cpp_context_mesh = _jax.config.Config("minijax_context_mesh", None, include_in_jit_key=True)
set_context_mesh = _cpp_context_mesh.set_local
context_mesh = lambda: _cpp_context_mesh.value  # noqa: E731 - this thread's, or None
# Whether this thread is tracing (core.on_tracing_change): a call under a trace misses the C++
# cache and goes through Python, which stages it.
_cpp_tracing = _jax.config.Config("minijax_tracing", False, include_in_jit_key=True)
core.on_tracing_change = _cpp_tracing.set_local
_jax.jax_jit.set_enable_x64_state(_cpp_x64)
_jax.jax_jit.set_disable_jit_state(_cpp_disable_jit)
_jax.jax_jit.set_post_hook_state(_cpp_post_hook)


def _sync_cpp_states(name, value):
    if name == "jax_enable_x64":
        _cpp_x64.set_global(bool(value))
    elif name == "jax_disable_jit":
        _cpp_disable_jit.set_global(bool(value))
    _cpp_trace_state.set_global(config.trace_state)


config.on_change(_sync_cpp_states)

HAS_CPP_JIT = hasattr(_jax, "pjit") and hasattr(_jax, "PjitFunctionCache")


class FastpathData(typing.NamedTuple):
    """What the C++ fast path reads after a miss (it requires a tuple; field order matters)."""

    xla_executable: object
    out_pytree_def: object
    in_shardings: list
    out_shardings: list
    out_avals: list
    out_committed: list
    kept_var_bitvec: list
    in_device_local_layouts: list
    const_args: list


# One C++ cache for every jitted function, its entries bounded together (least recently used
# first), as JAX's: each entry holds an executable (caches.py says why the total is bounded).
_CPP_CACHE = _jax.PjitFunctionCache(caches.EXECUTABLES) if HAS_CPP_JIT else None


def make_cpp_jit(name, fun, cache_miss, static_argnums, static_argnames, registry, shard_arg,
                 serial):
    """A C++ ``PjitFunction``; ``cache_miss(*args, **kw)`` returns (outputs, FastpathData | None,
    False), ``shard_arg(x, sharding, layout)`` puts a non-Array argument on a device. ``serial``
    tells this jit's entries apart in the shared cache from another jit of the same ``fun``
    with other options."""
    return _jax.pjit(
        name,
        fun,
        cache_miss,
        list(static_argnums),
        list(static_argnames),
        ("minijax", serial),
        registry,
        shard_arg,
        _CPP_CACHE,
    )
