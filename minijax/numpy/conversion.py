"""Arrays from foreign data: ``jnp.frombuffer``, ``jnp.fromstring`` (NumPy's parsers, then
the device), ``jnp.from_dlpack`` (any object with ``__dlpack__``), and ``jnp.fromfile`` and
``jnp.fromiter``, which JAX 0.10.2 refuses as impure."""

from __future__ import annotations

import numpy as np

from minijax.lowering import backends
from minijax.lowering.array import DLDeviceType, device_put_value
from minijax.numpy.creation import asarray

__all__ = ["from_dlpack", "frombuffer", "fromfile", "fromiter", "fromstring"]


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """A 1-D array of the bytes of ``buffer`` read as ``dtype`` (``numpy.frombuffer``)."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """A 1-D array parsed from the text ``string`` (``numpy.fromstring``)."""
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def fromfile(*args, **kwargs):
    """Refused as in JAX: reading a file object is a side effect that jit cannot repeat."""
    # JAX 0.10.2 refuses it too: NotImplementedError("jnp.fromfile() is not implemented ...")
    raise NotImplementedError(
        "jnp.fromfile() is not implemented because it may be non-pure and thus unsafe for use "
        "with JIT and other JAX transformations. Consider using jnp.asarray(np.fromfile(...)) "
        "instead, although care should be taken if np.fromfile is used within a jax "
        "transformations because of its potential side-effect of consuming the file object; "
        "for more information see "
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")


def fromiter(*args, **kwargs):
    """Refused as in JAX: consuming an iterator is a side effect that jit cannot repeat."""
    # JAX 0.10.2 refuses it too: NotImplementedError("jnp.fromiter() is not implemented ...")
    raise NotImplementedError(
        "jnp.fromiter() is not implemented because it may be non-pure and thus unsafe for use "
        "with JIT and other JAX transformations. Consider using jnp.asarray(np.fromiter(...)) "
        "instead, although care should be taken if np.fromiter is used within a jax "
        "transformations because of its potential side-effect of consuming the iterable "
        "object; for more information see "
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")


_PLATFORM_OF_DL_DEVICE = {DLDeviceType.kDLCPU: "cpu", DLDeviceType.kDLCUDA: "gpu",
                          DLDeviceType.kDLCUDAHost: "gpu"}


def from_dlpack(x, /, *, device=None, copy=None):
    """An Array of the DLPack tensor of ``x`` (an object with ``__dlpack__`` and
    ``__dlpack_device__``), on ``x``'s device or on ``device`` (moving there is refused with
    ``copy=False``). 64-bit data is canonicalized (x64 off)."""
    if device is not None and hasattr(device, "device_set"):
        if len(device.device_set) > 1:
            raise ValueError(
                "from_dlpack can only unpack a dlpack tensor onto a singular device, but "
                f"a Sharding with {len(device.device_set)} devices was provided.")
        (device,) = device.device_set
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError(
            "The array passed to from_dlpack must have __dlpack__ and __dlpack_device__ methods.")
    dl_type, device_id = x.__dlpack_device__()
    try:
        platform = _PLATFORM_OF_DL_DEVICE[dl_type]
    except KeyError:
        raise TypeError("Array passed to from_dlpack is on unsupported device type "
                        f"(DLDeviceType: {dl_type}, array: {x}") from None
    source = backends.get_backend(platform).client.device_from_local_hardware_id(device_id)
    moves = device is not None and device != source
    if moves and copy is not None and not copy:
        raise ValueError(
            f"Specified {device=} which requires a copy since the source device "
            f"is {source!r}, however copy=False. Set copy=True or "
            "copy=None to perform the requested operation.")
    # jaxlib's own DLPack import builds its result's aval through the jax package, which
    # minijax must not load: the data comes over through NumPy's DLPack import (a view of a
    # host tensor, a host copy of a device one) and is put on the device, committed as JAX's.
    host = np.from_dlpack(x, device="cpu", copy=True if copy or platform != "cpu" else None)
    return device_put_value(host, source if device is None else device)
