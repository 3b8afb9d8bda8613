"""minijax: composable function transformations (jit, make_jaxpr ...) over XLA, with JAX's API."""

import os as _os

_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # before jaxlib loads: no INFO lines

from minijax.config import config  # noqa: E402
from minijax import dtypes, errors, lax, nn, numpy, tree_util
from minijax.api import (
    ShapeDtypeStruct,
    block_until_ready,
    default_backend,
    device_count,
    device_get,
    device_put,
    devices,
    eval_shape,
    jit,
    local_device_count,
    local_devices,
    make_jaxpr,
    vmap,
)
from minijax.core import ShapedArray
from minijax.lowering.array import Array

__version__ = "0.1.0"

__all__ = [
    "Array", "ShapeDtypeStruct", "ShapedArray", "block_until_ready", "config",
    "default_backend", "device_count", "device_get", "device_put", "devices", "dtypes", "errors",
    "eval_shape", "jit", "lax", "local_device_count", "local_devices", "make_jaxpr", "nn", "numpy",
    "tree_util", "vmap",
]
