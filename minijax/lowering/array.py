"""``minijax.Array``: an immutable array living on one or more devices.

Every concrete array *is* jaxlib's C++ ``ArrayImpl`` (named ``Array`` inside minijax, as in
JAX's ``ArrayImpl``): jaxlib's result handlers and device puts create these objects directly, so
the dispatch hot path never wraps or unwraps anything, and the C++ jit fast path can consume
them. Our Python behaviour (properties, host interop, repr; operators come from
``minijax.numpy``) is attached to the class once, at import, by ``_install``. Its ``aval`` is our
ShapedArray, passed to jaxlib at creation.

The public ``minijax.Array`` is ``BaseArray``, jaxlib's base class of ``ArrayImpl`` (JAX's
``jax.Array``): its metaclass also answers True for tracers of arrays (it asks the registered
tracer class's ``_is_traced_array``), so ``isinstance(x, minijax.Array)`` holds inside ``jit``,
``grad`` and ``vmap``. Code that needs a buffer tests ``Array`` (``ArrayImpl``), never
``BaseArray``.

Caveat: the attachment is process-global; importing the real ``jax`` into the same process
would attach its own methods over ours.
"""

from __future__ import annotations

import enum
import sys
import warnings

import numpy as np

from minijax import core, dtypes
from minijax.config import config
from minijax.lowering import backends, jaxlib_ext

Array = backends.ArrayImpl
BaseArray = backends._jax.Array
BaseArray.__module__, BaseArray.__qualname__ = "minijax", "Array"
backends._jax.set_tracer_class(core.Tracer)


# jaxlib's own method, kept before ``_install`` wraps it: called straight from user code it
# may import ``jax`` (seen under pytest), which would take over ArrayImpl's methods; called
# from a minijax frame that import is refused (``backends._RefuseJaxImportFromMinijax``).
_cpp_unsafe_buffer_pointer = Array.unsafe_buffer_pointer


class DLDeviceType(enum.IntEnum):
    """DLPack's device type codes (the first element of ``__dlpack_device__()``)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLROCM = 10


class _ArrayMethods:
    __array_priority__ = 100

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)

    # --- device placement ----------------------------------------------------------------
    # The sharding ``device_put`` was given, as given (JAX's Array keeps the one it was made
    # with: ``P()`` and ``P(None,)`` lay out alike but print otherwise); set on the Arrays
    # device_put makes, None on the others (a class attribute: no per-Array cost).
    _given_sharding = None

    @property
    def sharding(self):
        """The user-facing sharding (NamedSharding, SingleDeviceSharding, ...)."""
        given = self._given_sharding
        if given is not None:
            return given
        return array_sharding_of(self._sharding, self.aval)

    def devices(self):
        self._check_alive()
        return set(backends.buffer_devices(self))

    @property
    def device(self):
        """Its one device; on several, its sharding (as JAX's)."""
        self._check_alive()
        devs = backends.buffer_devices(self)
        return devs[0] if len(devs) == 1 else self.sharding

    @property
    def is_fully_replicated(self):
        return self._sharding._hlo_sharding.is_replicated()

    @property
    def is_fully_addressable(self):
        return self._sharding._internal_device_list.is_fully_addressable

    @property
    def format(self):
        """The array's ``Format``: its on-device ``Layout`` and its ``sharding``."""
        from minijax.layout import Format, Layout  # why: layout -> sharding_types -> this module

        if self.is_deleted():
            return Format(None, self.sharding)
        return Format(Layout.from_pjrt_layout(self._pjrt_layout), self.sharding)

    @property
    def committed(self):
        return self._committed

    @property
    def addressable_shards(self):
        """One ``Shard`` per device: its ``device``, ``index`` (slices of the global array),
        ``replica_id`` and ``data`` (a single-device Array)."""
        self._check_alive()
        indices = self.sharding.devices_indices_map(self.aval.shape)
        pieces = (
            [self] if len(backends.buffer_devices(self)) == 1 else backends.shard_pieces(self)
        )
        seen, shards = {}, []
        for piece in pieces:
            (dev,) = backends.buffer_devices(piece)
            index = indices[dev]
            key = tuple((s.start, s.stop) for s in index)
            replica = seen[key] = seen.get(key, -1) + 1
            shards.append(Shard(dev, index, replica, _as_single_device(piece, self.aval, index)))
        return shards

    global_shards = addressable_shards

    def addressable_data(self, i):
        return self.addressable_shards[i].data

    def unsafe_buffer_pointer(self):
        return _cpp_unsafe_buffer_pointer(self)

    def _check_alive(self):
        if self.is_deleted():
            raise deleted_error(self)

    # --- host interop ----------------------------------------------------------------------
    @property
    def _value(self) -> np.ndarray:
        self._check_alive()  # checked even when cached: a donated Array must not be read
        value = self._npy_value
        if value is None:
            value = jaxlib_ext.gather_to_host(self)  # one buffer: a plain copy
            value.flags.writeable = False
            self._npy_value = value
        return value

    def __array__(self, dtype=None, copy=None):
        value = self._value
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        return value.copy() if copy else value

    def tolist(self):
        return self._value.tolist()

    def tobytes(self, order="C"):
        return self._value.tobytes(order)

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

    def __hex__(self):
        return hex(self.__index__())

    def __oct__(self):
        return oct(self.__index__())

    def __index__(self):
        # JAX's check: an integer scalar only, never a bool (so `x ** jnp.asarray(True)` is
        # lax.pow of the converted exponent, not integer_pow) nor a one-element array
        if self.shape != () or not dtypes.is_int(self.dtype):
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
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
        # NumPy's: a 0-d array formats as its scalar, a non-empty spec refuses other shapes
        return format(self._value[()] if self.ndim == 0 else self._value, spec)

    def __repr__(self):
        value = self._value  # a deleted Array's raises, as in JAX
        prefix = "Array("
        body = np.array2string(value, prefix=prefix, separator=", ", threshold=1000)
        weak = ", weak_type=True" if self.weak_type else ""
        shape = f", shape={self.shape}" if value.size == 0 else ""  # [] alone hides it
        return f"{prefix}{body}{shape}, dtype={self.dtype.name}{weak})"

    def __str__(self):
        return str(self._value)

    def __reduce__(self):
        return (_reconstruct, (np.asarray(self._value), self.weak_type))

    def copy_to_host_async(self):
        """Starts the device-to-host copy that ``np.asarray(x)`` will then find done."""
        self._check_alive()
        if self._npy_value is None and len(backends.buffer_devices(self)) == 1:
            self._copy_single_device_array_to_host_async()

    # --- DLPack ------------------------------------------------------------------------------
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this (single-device) array's buffer; ``copy=True`` shares a
        fresh copy instead. ``dl_device`` must be the array's own device."""
        self._check_alive()
        devs = backends.buffer_devices(self)
        if len(devs) > 1:
            raise BufferError(
                "to_dlpack can only pack a dlpack tensor from an array on a singular device, but "
                f"an array with a Sharding over {len(devs)} devices was provided.")
        if dl_device is not None and tuple(dl_device) != tuple(self.__dlpack_device__()):
            raise BufferError(
                f"__dlpack__: dl_device={dl_device} is not the array's device "
                f"{self.__dlpack_device__()}; move it with x.to_device(...) first.")
        arr = device_copy(self) if copy else self
        return backends._jax.buffer_to_dlpack_managed_tensor(arr, stream=stream)

    def __dlpack_device__(self):
        devs = backends.buffer_devices(self)
        if len(devs) != 1:
            raise BufferError("__dlpack__ only supported for unsharded arrays.")
        (dev,) = devs
        if dev.platform == "cpu":
            return DLDeviceType.kDLCPU, 0
        if dev.platform in ("cuda", "gpu"):
            return DLDeviceType.kDLCUDA, dev.local_hardware_id
        raise BufferError(f"Unknown platform for __dlpack__: {dev.platform}")



def deleted_error(x):
    """JAX's error for any use of a deleted (or donated) Array's buffer."""
    return RuntimeError(f"Array has been deleted with shape={x.aval.str_short()}.")


class Shard:
    """One device's piece of an Array (``Array.addressable_shards``)."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


def _as_single_device(piece, aval, index):
    if piece._sharding in _single_device_shardings:
        return piece
    (dev,) = backends.buffer_devices(piece)
    shape = tuple(len(range(*s.indices(n))) for s, n in zip(index, aval.shape))
    sharding = single_device_sharding(dev, memory_kind_of(piece._sharding))
    _single_device_shardings.add(sharding)
    return Array(aval.update(shape=shape), sharding, [piece], True, _skip_checks=True)


# ------------------------------------------------------------------------------------------------
# Interned multi-device jaxlib shardings (one object per layout and mesh: minijax's dispatch
# tests an argument's sharding by identity; jaxlib's C++ jit signature compares two plain
# GSPMDShardings by layout, a MeshSharding also by its mesh) and the user-facing sharding each
# stands for.

# The user-facing sharding of a jaxlib sharding, ``user_sharding_of(jaxlib_sharding, ndim)``:
# ``sharding_types.from_jaxlib``, installed by that module (it builds on this one).
user_sharding_of = None
# The user-facing sharding of a computed Array, ``array_sharding_of(jaxlib_sharding, aval)``
# (``sharding_types.array_sharding``: on Explicit axes its type's), installed likewise.
array_sharding_of = None

_interned = {}  # (device ids, HloSharding, mesh) -> GSPMDSharding
_multi_device = set()  # every interned sharding over more than one device
_single_device_shardings = set()
# Every interned sharding whose buffers live in another memory than the devices' default
# ("pinned_host", ...): eager dispatch runs an op on such an operand as its jit, whose
# lowering carries the memory kinds.
in_other_memory = set()
_user = {}  # (jaxlib sharding, ndim) -> minijax.sharding object


class MeshSharding(backends._jax.GSPMDSharding):
    """A GSPMDSharding of one mesh, equal only to one of the same mesh, as JAX's
    NamedSharding (its mesh is part of it). jaxlib's C++ jit signature compares two
    GSPMDShardings by layout alone but shardings of another type by ``__eq__``: with plain
    GSPMDShardings an Array on a mesh of Explicit axes (or of other axis names) hit the entry
    compiled for the same layout on another mesh of the same devices, and came back with that
    mesh's type and sharding. ``_to_xla_hlo_sharding`` and ``memory_kind`` are what jaxlib
    asks a sharding of a type it does not know (placing data; ``memory_kind`` an attribute,
    no call)."""

    def __init__(self, devices, hlo, memory_kind, mesh):
        super().__init__(devices, hlo, memory_kind=memory_kind)
        self._mesh = mesh
        self.memory_kind = self._memory_kind

    def __eq__(self, other):
        return self is other or (type(other) is MeshSharding and self._mesh == other._mesh
                                 and backends._jax.GSPMDSharding.__eq__(self, other))

    def __ne__(self, other):
        return not self == other

    __hash__ = backends._jax.GSPMDSharding.__hash__

    def _to_xla_hlo_sharding(self, ndim):
        return self._hlo_sharding


def interned_sharding(devices, hlo, mesh=None, memory_kind=None):
    """The one GSPMDSharding over ``devices`` (in this order) with HloSharding ``hlo``, per
    ``mesh`` (a MeshSharding when given): one layout can be named on several meshes (P("x")
    on an 8-mesh is P(("x", "y")) on a 4x2 one, or on a mesh of other axis types), and an
    Array's ``.sharding`` and type name it on the mesh that made it.
    ``memory_kind``: None for the devices' default memory, else the one its buffers are in."""
    if len(devices) == 1:
        return single_device_sharding(devices[0], memory_kind)
    key = (tuple(d.id for d in devices), hlo, mesh, memory_kind)
    out = _interned.get(key)
    if out is None:
        devices = backends.DeviceList(tuple(devices))
        out = _interned[key] = (
            backends._jax.GSPMDSharding(devices, hlo, memory_kind=memory_kind) if mesh is None
            else MeshSharding(devices, hlo, memory_kind, mesh))
        _multi_device.add(out)
        if memory_kind is not None:
            in_other_memory.add(out)
    return out


def memory_kind_of(jaxlib_sharding):
    """The memory a jaxlib sharding's buffers are in: None for the devices' default (jaxlib
    names that one too), else its kind."""
    kind = jaxlib_sharding._memory_kind
    return None if kind == jaxlib_sharding._internal_device_list.default_memory_kind else kind


def single_device_sharding(device, memory_kind=None):
    """``backends.single_device_sharding``, noting one in another memory than the default."""
    out = backends.single_device_sharding(device, memory_kind)
    if memory_kind is not None:
        in_other_memory.add(out)
    return out


def is_multi_device(jaxlib_sharding):
    return jaxlib_sharding in _multi_device or len(jaxlib_sharding._internal_device_list) > 1


# The results jit's out_shardings names report the sharding as given (as JAX's): each has a
# type object of its own, remembered with it, per compiled program (never dropped, as _user)
named_results = {}  # id(aval) -> (aval, user-facing sharding)


def named_result(aval, sharding):
    """``aval``, or a copy of it whose Arrays report ``sharding`` (a NamedSharding)."""
    if sharding is None or type(aval) is not core.ShapedArray:
        return aval
    own = aval.update()
    named_results[id(own)] = (own, sharding)
    return own


def remember_user_sharding(jaxlib_sharding, ndim, user):
    if len(jaxlib_sharding._internal_device_list) > 1:
        _multi_device.add(jaxlib_sharding)
    _user[(jaxlib_sharding, ndim)] = user


def user_sharding(jaxlib_sharding, ndim):
    return _user.get((jaxlib_sharding, ndim))


def same_layout(a, b):
    """Whether two jaxlib shardings put the same slices on the same devices, in the same
    memory."""
    return a is b or (
        a._hlo_sharding == b._hlo_sharding
        and list(a._internal_device_list) == list(b._internal_device_list)
        and a._memory_kind == b._memory_kind
    )


def device_copy(x: Array) -> Array:
    """A new buffer on ``x``'s devices holding its value: unlike ``x`` itself it survives
    ``x``'s donation or deletion."""
    x._check_alive()
    sharding = x._sharding
    (out,) = backends._jax.batched_copy_array_to_devices_with_sharding(
        [x], [sharding._internal_device_list], [sharding],
        [backends._jax.ArrayCopySemantics.ALWAYS_COPY])
    return out


def relabel(x: Array, jaxlib_sharding) -> Array:
    """``x``'s buffers under an equivalent sharding object (no copy)."""
    return Array(x.aval, jaxlib_sharding, backends.shard_pieces(x), x._committed, _skip_checks=True)


def committed(x: Array, aval=None, jaxlib_sharding=None) -> Array:
    """A new Array over ``x``'s buffers (no copy), committed to their devices, under ``aval``
    and ``jaxlib_sharding`` (an equivalent one) when given: JAX's device_put to a device, a
    memory space or an equal sharding gives a new Array even where ``x`` already is one."""
    return Array(x.aval if aval is None else aval,
                 x._sharding if jaxlib_sharding is None else jaxlib_sharding,
                 backends.shard_pieces(x), True, _skip_checks=True)


def put_like(x: Array, like: Array) -> Array:
    """``x`` laid out as ``like`` (its sharding, or its first device when the shapes differ
    and ``like`` is split), in its memory, and committed as ``like`` is: where JAX puts the
    result of ``zeros_like(like)`` and kin."""
    target = like._sharding
    devs = target._internal_device_list
    if x.shape != like.shape and not like.sharding.is_fully_replicated:
        target = single_device_sharding(devs[0], memory_kind_of(target))
    aval = x.aval
    if target._memory_kind != x._sharding._memory_kind:  # its type says where it now is
        aval = aval.update(memory_space=core.mem_kind_to_space(memory_kind_of(target)))
    if x._sharding is target or (len(devs) == 1 and x._sharding._internal_device_list == devs
                                 and aval is x.aval):
        buf = x
    elif len(devs) == 1:
        (buf,) = backends._jax.batched_copy_array_to_devices_with_sharding(
            [x], [devs], [target], [backends._jax.ArrayCopySemantics.REUSE_INPUT])
    else:
        buf = put_global(x._value, aval, target)
    return Array(aval, buf._sharding, backends.shard_pieces(buf), like._committed,
                 _skip_checks=True)


def put_global(value: np.ndarray, aval, jaxlib_sharding) -> Array:
    """Puts host ``value`` on the devices of ``jaxlib_sharding``, each getting its slice."""
    if len(jaxlib_sharding._internal_device_list) == 1:
        return backends.device_put_numpy(value, aval, jaxlib_sharding._internal_device_list[0],
                                         sharding=jaxlib_sharding)
    _multi_device.add(jaxlib_sharding)
    return jaxlib_ext.put_sharded(value, aval, jaxlib_sharding)


_SKIP = {"__module__", "__dict__", "__weakref__", "__doc__", "__qualname__"}


def _install():
    if "jax" in sys.modules:
        warnings.warn(
            "jax is already imported: jax and minijax both define the methods of jaxlib's "
            "ArrayImpl type, so they cannot be used in one process. minijax's definitions now "
            "win; jax arrays will misbehave.", RuntimeWarning, stacklevel=2)
    for name, value in vars(_ArrayMethods).items():
        if name not in _SKIP:
            setattr(Array, name, value)
            setattr(BaseArray, name, value)  # so the public class documents the whole API


_install()


def _reconstruct(value, weak_type):
    return device_put_value(value, weak_type=weak_type)


def device_put_value(x, device=None, weak_type=None) -> Array:
    """A NumPy array or Python scalar on ``device``, committed to it (JAX's ``committed``);
    without one, on the default backend's first device and uncommitted.

    64-bit dtypes are canonicalized here, on the host, before the copy: with x64 off an int64
    input arrives as int32, and the Array's aval always matches its buffer.
    """
    aval = core.get_aval(x)
    if weak_type is not None and weak_type != aval.weak_type:
        aval = aval.update(weak_type=weak_type)
    if aval.dtype == dtypes.float0:  # as JAX's result handler (backends.result_handler)
        return dtypes.float0_zeros(aval.shape, aval)
    value = np.asarray(x, dtype=aval.dtype)
    if device is None:
        return backends.device_put_numpy(value, aval, default_device(), False)
    return backends.device_put_numpy(value, aval, device)


_default_device = [None]


def default_device():
    chosen = config.jax_default_device  # jax.default_device(...): a Device or a platform
    if chosen is not None:
        return (backends.get_backend(chosen).local_devices()[0] if isinstance(chosen, str)
                else chosen)
    dev = _default_device[0]
    if dev is None:
        # This process's first device (in a multi-process job devices()[0] may be another's).
        dev = _default_device[0] = backends.get_backend().local_devices()[0]
    return dev


def _reset_default_device(name, value):
    if name in ("jax_platforms", "jax_num_cpu_devices"):
        _default_device[0] = None
        _interned.clear()  # their devices may belong to a client that is gone
        _user.clear()


backends.config.on_change(_reset_default_device)
