"""``minijax.Array``: an immutable array living on a device, over a jaxlib buffer.

The Python object is a thin wrapper (``_buf`` is jaxlib's ArrayImpl; ``aval`` our ShapedArray)
so that nothing outside ``backends.py`` depends on jaxlib's private array API. Operators and
NumPy-like methods (``x + 1``, ``x.sum()``, ``x[1:]``) are attached by ``minijax.numpy``.
"""

from __future__ import annotations

import numpy as np

from minijax import core, dtypes
from minijax.lowering import backends


class Array:
    __slots__ = ("_buf", "aval", "_npy", "__weakref__")
    __array_priority__ = 100

    def __init__(self, buf, aval):
        self._buf = buf
        self.aval = aval
        self._npy = None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)

    # --- device placement ----------------------------------------------------------------
    @property
    def sharding(self):
        return backends.buffer_sharding(self._buf)

    def devices(self):
        return set(backends.buffer_devices(self._buf))

    @property
    def device(self):
        devs = backends.buffer_devices(self._buf)
        if len(devs) != 1:
            raise ValueError("device is only defined for single-device arrays; use .devices()")
        return devs[0]

    def block_until_ready(self):
        self._buf.block_until_ready()
        return self

    def is_deleted(self):
        return self._buf.is_deleted()

    def delete(self):
        self._buf.delete()
        self._npy = None

    def is_fully_replicated(self):
        return len(backends.buffer_devices(self._buf)) == 1

    # --- host interop ----------------------------------------------------------------------
    @property
    def _value(self) -> np.ndarray:
        if self._npy is None:
            if self._buf.is_deleted():
                raise RuntimeError(
                    "Array has been deleted (its buffer was donated to a jitted call or deleted)."
                )
            value = backends.to_numpy(self._buf)
            value.flags.writeable = False
            self._npy = value
        return self._npy

    def __array__(self, dtype=None, copy=None):
        value = self._value
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        return value.copy() if copy else value

    def tolist(self):
        return self._value.tolist()

    def item(self, *args):
        return self._value.item(*args)

    def __bool__(self):
        return bool(self._value)

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __complex__(self):
        return complex(self._value)

    def __index__(self):
        if not dtypes.is_int(self.dtype) and self.dtype != dtypes.bool_:
            raise TypeError(f"only integer arrays can be used as an index, not {self.dtype}")
        return int(self._value)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self):
        raise TypeError("unhashable type: 'minijax.Array'")

    def __format__(self, spec):
        return format(self._value, spec) if self.ndim == 0 else format(str(self), spec)

    def __repr__(self):
        if self._buf.is_deleted():
            return f"Array(<deleted>, shape={self.shape}, dtype={self.dtype.name})"
        value = self._value
        prefix = "Array("
        body = np.array2string(value, prefix=prefix, separator=", ", threshold=1000)
        weak = ", weak_type=True" if self.weak_type else ""
        return f"{prefix}{body}, dtype={self.dtype.name}{weak})"

    def __str__(self):
        return str(self._value)

    def __reduce__(self):
        return (_reconstruct, (np.asarray(self._value), self.weak_type))

    def copy_to_host_async(self):
        pass  # reading is synchronous; kept for API compatibility


def _reconstruct(value, weak_type):
    return device_put_value(value, weak_type=weak_type)


def device_put_value(x, device=None, weak_type=None) -> Array:
    """A NumPy array or Python scalar on ``device`` (default: the default backend's first).

    64-bit dtypes are canonicalized here, on the host, before the copy: with x64 off an int64
    input arrives as int32, and the Array's aval always matches its buffer.
    """
    aval = core.get_aval(x)
    if weak_type is not None and weak_type != aval.weak_type:
        aval = aval.update(weak_type=weak_type)
    value = np.asarray(x, dtype=aval.dtype)
    if device is None:
        device = default_device()
    return Array(backends.device_put_numpy(value, aval, device), aval)


_default_device = [None]


def default_device():
    dev = _default_device[0]
    if dev is None:
        dev = _default_device[0] = backends.get_backend().devices()[0]
    return dev


def _reset_default_device(name, value):
    if name in ("jax_platforms", "jax_num_cpu_devices"):
        _default_device[0] = None


backends.config.on_change(_reset_default_device)
