"""minijax: composable function transformations (jit, make_jaxpr ...) over XLA, with JAX's API."""

import os as _os

_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # before jaxlib loads: no INFO lines

from minijax.config import config, default_matmul_precision  # noqa: E402
from minijax.config import (  # noqa: E402
    check_tracer_leaks,
    debug_infs,
    debug_nans,
    default_prng_impl,
    enable_x64,
    explain_cache_misses,
    log_compiles,
    checking_leaks,
    numpy_dtype_promotion,
    numpy_rank_promotion,
    default_device,
    transfer_guard,
    transfer_guard_device_to_device,
    transfer_guard_device_to_host,
    transfer_guard_host_to_device,
)
from minijax import dtypes, errors, lax, nn, numpy, tree_util
from minijax import random
from minijax.api import (
    ShapeDtypeStruct,
    block_until_ready,
    checkpoint,
    checkpoint_policies,
    custom_jvp,
    custom_vjp,
    default_backend,
    device_count,
    device_get,
    device_put,
    devices,
    eval_shape,
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jit,
    jvp,
    linear_transpose,
    linearize,
    local_device_count,
    local_devices,
    make_jaxpr,
    remat,
    value_and_grad,
    vjp,
    vmap,
)
from minijax.core import ShapedArray
from types import SimpleNamespace as _SimpleNamespace  # noqa: E402
from minijax.core import MemorySpace as _MemorySpace  # noqa: E402

memory = _SimpleNamespace(Space=_MemorySpace)  # jax.memory.Space: the memory a type names
from minijax import debug, debug_numerics, sharding  # noqa: E402, F401
from minijax.sharding import make_mesh, reshard, set_mesh  # noqa: E402
from minijax.shard_map import shard_map  # noqa: E402  (the function; the module stays importable)
from minijax.pmapping import device_put_replicated, device_put_sharded, pmap  # noqa: E402
from minijax import distributed  # noqa: E402
from minijax.distributed import (  # noqa: E402
    make_array_from_callback,
    make_array_from_process_local_data,
    make_array_from_single_device_arrays,
    process_count,
    process_index,
    process_indices,
)
from minijax.lowering.array import BaseArray as Array
from minijax.callbacks import pure_callback  # noqa: E402
from minijax import tree  # noqa: E402  (jax.tree: tree_util's functions, short names)
from minijax.api import (  # noqa: E402
    Device,
    clear_caches,
    closure_convert,
    custom_gradient,
    disable_jit,
    effects_barrier,
    ensure_compile_time_eval,
    float0,
    live_arrays,
    named_call,
    named_scope,
    typeof,
)
from minijax.sharding import PartitionSpec as P  # noqa: E402
from minijax.sharding import NamedSharding  # noqa: E402
from minijax.refs import Ref, freeze, new_ref  # noqa: E402
from minijax.environment_info import print_environment_info  # noqa: E402
from minijax.custom_derivatives import custom_jvp as _custom_jvp  # noqa: E402
from minijax.lax.control_flow import solves as _solves  # noqa: E402

_solves.CUSTOM_JVP.append(_custom_jvp)  # lax.custom_root is a custom_jvp, a layer above lax
del _custom_jvp, _solves

__version__ = "0.1.0"

__all__ = [
    "Array", "ShapeDtypeStruct", "ShapedArray", "block_until_ready", "config",
    "default_backend", "default_matmul_precision", "device_count", "device_get", "device_put",
    "devices", "dtypes", "errors",
    "eval_shape", "jit", "lax", "local_device_count", "local_devices", "make_jaxpr", "nn", "numpy",
    "random", "tree_util", "vmap",
    "grad", "hessian", "jacfwd", "jacobian", "jacrev", "jvp", "linear_transpose", "linearize",
    "value_and_grad", "vjp",
    "checkpoint", "checkpoint_policies", "custom_jvp", "custom_vjp", "remat",
    "debug", "make_mesh", "pure_callback", "sharding", "reshard", "set_mesh",
    "distributed", "process_count", "process_index", "process_indices", "shard_map",
    "pmap", "device_put_replicated", "device_put_sharded",
    "make_array_from_callback", "make_array_from_process_local_data",
    "make_array_from_single_device_arrays",
    "Device", "P", "clear_caches", "closure_convert", "custom_gradient", "disable_jit",
    "effects_barrier", "ensure_compile_time_eval", "float0", "live_arrays", "named_call",
    "named_scope", "tree", "typeof", "NamedSharding", "Ref", "freeze", "new_ref",
    "check_tracer_leaks", "checking_leaks", "numpy_dtype_promotion", "numpy_rank_promotion",
    "debug_infs", "debug_nans", "default_prng_impl", "enable_x64", "explain_cache_misses", "log_compiles",
    "default_device", "transfer_guard", "transfer_guard_device_to_device",
    "transfer_guard_device_to_host", "transfer_guard_host_to_device", "print_environment_info",
]


def __getattr__(name):  # tools load on first use, so `import minijax` stays as fast
    if name in ("checkpoint_io", "profiler", "tools", "transforms",
                "api_util", "flatten_util", "monitoring", "stages", "typing",
                "scipy", "experimental", "image"):  # `import jax` makes these attributes too
        import importlib

        return importlib.import_module(f"minijax.{name}")
    raise AttributeError(f"module 'minijax' has no attribute {name!r}")
