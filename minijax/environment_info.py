"""``jax.print_environment_info``: the versions and devices to quote in a bug report."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap

import jaxlib.version
import numpy as np

from minijax.api import device_count, devices, local_device_count
from minijax.compat import JAX_API_VERSION
from minijax.distributed import process_count


def _nvidia_smi():
    try:
        return subprocess.check_output(["nvidia-smi"], universal_newlines=True, timeout=10)
    except Exception:  # no GPU driver (or no nvidia-smi): nothing to add
        return None


def print_environment_info(return_string: bool = False) -> str | None:
    """Prints (or returns) the JAX API level, jaxlib, NumPy and Python versions, the devices,
    the platform and the JAX_*/XLA_* environment variables."""
    python_version = sys.version.replace("\n", " ")
    info = textwrap.dedent(f"""\
    jax:    {JAX_API_VERSION}
    jaxlib: {jaxlib.version.__version__}
    numpy:  {np.__version__}
    python: {python_version}
    device info: {devices()[0].device_kind}-{device_count()}, {local_device_count()} local devices"
    process_count: {process_count()}
    platform: {platform.uname()}""")
    for key, value in os.environ.items():
        if key.startswith(("JAX_", "XLA_")):
            info += f"\n{key}={value}"
    smi = _nvidia_smi()
    if smi:
        info += "\n\n$ nvidia-smi\n" + smi
    if return_string:
        return info
    print(info)
    return None
