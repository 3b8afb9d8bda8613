"""``jax.experimental.mesh_utils``: the device array a ``Mesh`` is built from.

minijax runs on CPUs and GPUs, where JAX lays the devices out in order (GPUs by their global
id, which is topology-aware); the TPU torus layouts (``contiguous_submeshes``,
``allow_split_physical_axes``) have no counterpart, so those flags change nothing here.
"""

from __future__ import annotations

import math

import numpy as np

from minijax.lowering import backends

__all__ = ["create_device_mesh"]


def create_device_mesh(mesh_shape, devices=None, *, contiguous_submeshes=False,
                       allow_split_physical_axes=False):
    """An array of ``devices`` (default: all devices) of shape ``mesh_shape``."""
    del contiguous_submeshes, allow_split_physical_axes  # TPU layouts only
    if devices is None:
        devices = backends.devices()
    try:
        shape = tuple(int(s) for s in mesh_shape)
    except (TypeError, ValueError):
        raise ValueError(f"`mesh_shape` passed to `create_device_mesh` should be a sequence of"
                         f" ints. Got {mesh_shape}") from None
    if math.prod(shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product "
                         f"of mesh_shape {shape}")
    devices = list(devices)
    if devices[-1].platform in ("gpu", "cuda", "rocm"):
        devices = sorted(devices, key=lambda d: d.id)
    mesh = np.empty(len(devices), dtype=object)
    mesh[:] = devices
    return mesh.reshape(shape)
