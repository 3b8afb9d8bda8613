"""The mesh and sharding *types*: ``Mesh``, ``AbstractMesh``, ``PartitionSpec``,
``NamedSharding``, ``SingleDeviceSharding``, ``GSPMDSharding``, the mesh in context, and how a
sharding maps to jaxlib's shardings and to Shardy attributes.

minijax never partitions a program itself: shardings become Shardy annotations (``sdy.mesh``,
``sdy.sharding`` on arguments/results, ``sdy.sharding_constraint``) and XLA's SPMD partitioner
does the rest. What this module owns is the *meaning* of a sharding for host data: which slice
of a global array each device holds (``devices_indices_map``), and the jaxlib ``GSPMDSharding``
(interned per layout and mesh: ``lowering.array.MeshSharding``) that device buffers and
executables carry. It
sits with the lowering (layer 1): lowering, dispatch and arrays need it; the
``with_sharding_constraint`` primitive is in ``lax/sharding_constraint.py`` and the public
``minijax.sharding`` module gathers both.

A ``NamedSharding(mesh, P("x", None))`` over a mesh of axes ``x=4, y=2`` tiles dimension 0 four
ways along ``x`` and replicates over ``y``. Devices are numbered row-major over the mesh
(``mesh.devices.flat``); that order is the executable's device assignment, so Shardy's logical
ids and jaxlib's device lists agree.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import itertools
import math
import threading
import warnings

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.mlir.dialects import sdy

from minijax import core, dtypes
from minijax.lowering import array as _array
from minijax.lowering import backends, jaxlib_ext
from minijax.tree_util import _registry

# ------------------------------------------------------------------------------------------------
# PartitionSpec


class _Unconstrained:
    def __repr__(self):
        return "UNCONSTRAINED"

    def __reduce__(self):
        return (_unconstrained, ())


UNCONSTRAINED = _Unconstrained()


def _unconstrained():
    return UNCONSTRAINED


class PartitionSpec(tuple):
    """How each dimension of an array is split over mesh axes: ``P("x", None, ("y", "z"))``.

    An entry is None (replicated), a mesh axis name, a tuple of names (split over their product,
    major to minor) or ``P.UNCONSTRAINED`` (only in ``with_sharding_constraint``: XLA decides).
    Dimensions beyond the spec's length are replicated, so ``P("x") == P("x", None)``.
    """

    UNCONSTRAINED = UNCONSTRAINED

    def __new__(cls, *entries):
        norm = []
        for e in entries:
            if isinstance(e, list):
                e = tuple(e)
            if isinstance(e, tuple):
                e = tuple(e) if len(e) != 1 else e[0]
                if e == ():
                    e = None
            if not (e is None or e is UNCONSTRAINED or isinstance(e, (str, tuple))):
                raise TypeError(
                    f"PartitionSpec entries must be None, a mesh axis name or a tuple of names; "
                    f"got {e!r}"
                )
            norm.append(e)
        return super().__new__(cls, norm)

    def _stripped(self):
        n = len(self)
        while n and self[n - 1] is None:
            n -= 1
        return tuple(self[:n])

    def __eq__(self, other):
        if isinstance(other, PartitionSpec):
            return self._stripped() == other._stripped()
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._stripped())

    def __repr__(self):  # JAX 0.10's: P('x',), P(('x', 'y'), None), P(UNCONSTRAINED,)
        entries = ["UNCONSTRAINED" if e is UNCONSTRAINED else repr(e) for e in self]
        return "P(" + ", ".join(entries) + ("," if len(entries) == 1 else "") + ")"

    def __reduce__(self):
        return (PartitionSpec, tuple(self))


P = PartitionSpec


def _axes_of(entry):
    """The mesh axis names one spec entry splits over, major to minor."""
    if entry is None or entry is UNCONSTRAINED:
        return ()
    return (entry,) if isinstance(entry, str) else tuple(entry)


# ------------------------------------------------------------------------------------------------
# Mesh


_mesh_context = threading.local()


class AxisType(enum.Enum):
    """How a mesh axis takes part in sharding types: on ``Auto`` axes XLA's partitioner
    decides what no constraint pins; ``Explicit`` axes put the split in the value's type
    (``float32[8@x]``); ``Manual`` axes are a shard_map body's."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):  # as JAX's: Explicit; str() stays AxisType.Explicit
        return self.name


class _MeshAxes:
    """What a mesh says about its axes, shared by ``Mesh`` and ``AbstractMesh``."""

    @property
    def shape(self):
        return dict(zip(self.axis_names, self.axis_sizes))

    size = property(lambda self: math.prod(self.axis_sizes))
    empty = property(lambda self: not self.axis_names)
    are_all_axes_auto = property(lambda self: all(t == AxisType.Auto for t in self.axis_types))
    are_all_axes_explicit = property(
        lambda self: bool(self.axis_types) and all(t == AxisType.Explicit
                                                   for t in self.axis_types))
    are_all_axes_manual = property(
        lambda self: bool(self.axis_types) and all(t == AxisType.Manual for t in self.axis_types))


def _axis_types(axis_types, axis_names):
    """One AxisType per axis: ``None`` is all ``Auto``, one AxisType is every axis's."""
    if axis_types is None:
        return (AxisType.Auto,) * len(axis_names)
    if isinstance(axis_types, AxisType):
        return (axis_types,) * len(axis_names)
    axis_types = tuple(axis_types)
    if len(axis_types) != len(axis_names):
        raise ValueError("Number of axis names should match the number of axis_types. Got "
                         f"axis_names={axis_names} and axis_types={axis_types}")
    return axis_types


class AbstractMesh(_MeshAxes):
    """A mesh's axis names, sizes and types without devices: the mesh part of a sharding
    type (``minijax.typeof(x).sharding.mesh``)."""

    def __init__(self, axis_sizes, axis_names, axis_types=None):
        self.axis_sizes = tuple(int(n) for n in axis_sizes)
        self.axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if len(self.axis_sizes) != len(self.axis_names):
            raise ValueError(f"AbstractMesh: {len(self.axis_sizes)} sizes {self.axis_sizes} "
                             f"but {len(self.axis_names)} names {self.axis_names}")
        self.axis_types = _axis_types(axis_types, self.axis_names)
        self._key = (self.axis_sizes, self.axis_names, self.axis_types)

    abstract_mesh = property(lambda self: self)

    def __eq__(self, other):
        return isinstance(other, AbstractMesh) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):  # as JAX prints it
        if self.empty:
            return "AbstractMesh((), axis_types=())"
        shape = ", ".join(f"'{n}': {s}" for n, s in self.shape.items())
        return f"AbstractMesh({shape}, axis_types={self.axis_types!r})"

    def _flat_devices_or_error(self):
        raise ValueError("an AbstractMesh has no devices: use a Mesh (minijax.make_mesh) for "
                         "a sharding that places data")


class Mesh(_MeshAxes):
    """An n-d array of devices with a name per axis; also a context manager that lets bare
    ``PartitionSpec``s stand for ``NamedSharding(mesh, spec)`` (jit shardings, constraints)."""

    def __init__(self, devices, axis_names, axis_types=None):
        devices = np.asarray(devices, dtype=object)
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        if devices.ndim != len(axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                "of its second argument (`axis_names`), but got devices.ndim == "
                f"{devices.ndim} and len(axis_names) == {len(axis_names)}.")
        self.axis_types = _axis_types(axis_types, axis_names)
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh: axis names must be distinct, got {axis_names}")
        if not all(isinstance(n, str) and n for n in axis_names):
            raise TypeError(f"Mesh: axis names must be non-empty strings, got {axis_names}")
        # JAX's empty mesh Mesh(np.empty((), dtype=object), ()) holds no device
        flat = list(devices.flat) if axis_names else []
        if len({d.id for d in flat}) != len(flat):
            raise ValueError("Mesh: a device appears more than once")
        self.devices = devices
        self.axis_names = axis_names
        self._flat = tuple(flat)
        self._key = (tuple(d.id for d in flat), devices.shape, axis_names, self.axis_types)
        self._hash = hash(self._key)

    axis_sizes = property(lambda self: tuple(self.devices.shape))
    abstract_mesh = property(
        lambda self: AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types))
    device_ids = property(lambda self: np.vectorize(lambda d: d.id, otypes=[int])(self.devices))

    def __eq__(self, other):
        return isinstance(other, Mesh) and self._key == other._key

    def __hash__(self):
        return self._hash

    def __repr__(self):  # as JAX's
        if self.empty:
            return "Mesh(axis_sizes=(), axis_names=())"
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names!r}, "
                f"axis_types={self.axis_types!r})")

    def __str__(self):  # as JAX's (jaxpr params, NamedSharding's repr, shard_map's errors)
        if self.empty:
            return "Mesh()"
        axes = ", ".join(f"'{n}': {s}" for n, s in self.shape.items())
        return f"Mesh({axes}, axis_types={self.axis_types!r})"

    def __enter__(self):
        # JAX 0.10.2's deprecated block: it names the mesh only for bare PartitionSpecs given
        # to with_sharding_constraint, not for jit, shard_map or get_abstract_mesh (set_mesh)
        warnings.warn("`with mesh:` context manager has been deprecated. Please use `with "
                      "jax.set_mesh(mesh):` instead.", DeprecationWarning, stacklevel=2)
        stack = getattr(_mesh_context, "legacy", None)
        if stack is None:
            stack = _mesh_context.legacy = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _mesh_context.legacy.pop()
        return False


def current_mesh():
    """The concrete mesh ``set_mesh`` put in context, or None."""
    stack = getattr(_mesh_context, "stack", None)
    return stack[-1] if stack else None


def legacy_mesh():
    """The mesh of the innermost ``with mesh:`` block, or None."""
    stack = getattr(_mesh_context, "legacy", None)
    return stack[-1] if stack else None


_EMPTY_ABSTRACT_MESH = AbstractMesh((), ())


def get_abstract_mesh():
    """The abstract form of the mesh in context (``set_mesh``), or the empty one; inside a
    shard_map body, the one it set (its manual axes typed ``Manual``)."""
    abstract = getattr(_mesh_context, "abstract", None)
    if abstract:
        return abstract[-1]
    mesh = current_mesh()
    return _EMPTY_ABSTRACT_MESH if mesh is None else mesh.abstract_mesh


@contextlib.contextmanager
def use_abstract_mesh(mesh):
    """``get_abstract_mesh()`` is ``mesh`` (an AbstractMesh) while the block runs."""
    stack = getattr(_mesh_context, "abstract", None)
    if stack is None:
        stack = _mesh_context.abstract = []
    stack.append(mesh)
    try:
        yield
    finally:
        stack.pop()


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None):
    """A Mesh of the first ``prod(axis_shapes)`` devices (default: the default backend's).
    ``axis_types`` defaults to ``Explicit`` axes, as JAX 0.10's does (a ``Mesh`` built
    directly defaults to ``Auto``)."""
    try:
        axis_shapes = tuple(int(s) for s in axis_shapes)
    except (TypeError, ValueError):
        raise ValueError("`axis_shapes` passed to `make_mesh` should be a sequence of ints. "
                         f"Got {axis_shapes}") from None
    devices = list(backends.devices() if devices is None else devices)
    n = math.prod(axis_shapes)
    if n > len(devices):
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of "
                         f"mesh_shape {axis_shapes}")
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(axis_shapes)
    arr = np.empty(n, dtype=object)
    arr[:] = devices[:n]
    return Mesh(arr.reshape(axis_shapes), axis_names, axis_types)


# ------------------------------------------------------------------------------------------------
# Shardings


class Sharding:
    """Base of minijax's shardings: a device set and the slice of a global array on each."""

    @property
    def device_set(self):
        return set(self._device_list())

    @property
    def num_devices(self):
        return len(self._device_list())

    @property
    def addressable_devices(self):
        return set(self._device_list())

    is_fully_addressable = property(lambda self: True)
    _memory_kind = None  # None: the devices' default memory

    @property
    def memory_kind(self):
        """The memory the array's buffers are in: "device" (the default on CPU and GPU),
        "pinned_host" or "unpinned_host"."""
        if self._memory_kind is not None:
            return self._memory_kind
        return self._device_list()[0].default_memory().kind

    @property
    def _internal_device_list(self):
        return backends.DeviceList(tuple(self._device_list()))

    def shard_shape(self, global_shape):
        """The shape of the piece each device holds."""
        global_shape = tuple(global_shape)
        self._check_shape(global_shape, "shard_shape")
        index = next(iter(self.devices_indices_map(global_shape).values()))
        return tuple(len(range(*s.indices(n))) for s, n in zip(index, global_shape))

    def _check_shape(self, shape, what):
        pass

    def is_equivalent_to(self, other, ndim):
        return _hlo_of(self, ndim) == _hlo_of(other, ndim) and (
            self._device_list() == other._device_list()
        ) and self.memory_kind == other.memory_kind


def _memory_kind_on(device, memory_kind):
    """``memory_kind`` checked against the memories ``device`` addresses (JAX's ValueError),
    None for its default memory: a sharding stores that, so the default costs nothing and
    compares equal however it was named."""
    if memory_kind is None:
        return None
    kinds = _memory_kinds(device)
    if memory_kind not in kinds:
        raise ValueError(
            f"Could not find memory addressable by device {device.device_kind}. Device "
            f"{device.device_kind} can address the following memory kinds: {', '.join(kinds)}. "
            f"Got memory kind: {memory_kind}")
    return None if memory_kind == kinds[0] else memory_kind


@functools.cache
def _memory_kinds(device):
    """The kinds of the memories ``device`` addresses, its default first."""
    default = device.default_memory().kind
    return (default,) + tuple(m.kind for m in device.addressable_memories()
                              if m.kind != default)


def _memory_str(sharding):
    kind = sharding.memory_kind
    return "" if kind is None else f", memory_kind={kind}"


class SingleDeviceSharding(Sharding):
    """The whole array on one device, in its default memory or the one ``memory_kind``
    names."""

    def __init__(self, device, *, memory_kind=None):
        self._device = device
        self._memory_kind = _memory_kind_on(device, memory_kind)

    def with_memory_kind(self, kind):
        return SingleDeviceSharding(self._device, memory_kind=kind)

    def _device_list(self):
        return [self._device]

    is_fully_replicated = property(lambda self: True)

    def devices_indices_map(self, global_shape):
        return {self._device: tuple(slice(None) for _ in global_shape)}

    def _to_jaxlib(self, ndim=None):
        return _array.single_device_sharding(self._device, self._memory_kind)

    def __eq__(self, other):
        return (isinstance(other, SingleDeviceSharding) and self._device == other._device
                and self._memory_kind == other._memory_kind)

    def __hash__(self):
        return hash(("single", self._device.id, self._memory_kind))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}{_memory_str(self)})"


class NamedSharding(Sharding):
    """``NamedSharding(mesh, P("x", None))``: dimension i is split over the mesh axes named by
    ``spec[i]``; mesh axes the spec does not name replicate."""

    def __init__(self, mesh, spec=None, *, memory_kind=None):
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError("NamedSharding: mesh must be a minijax.sharding.Mesh or AbstractMesh, "
                            f"got {mesh!r}")
        if spec is None:
            spec = PartitionSpec()
        elif not isinstance(spec, PartitionSpec):
            if isinstance(spec, (tuple, list)):
                spec = PartitionSpec(*spec)
            else:
                raise TypeError(f"NamedSharding: spec must be a PartitionSpec, got {spec!r}")
        _check_spec_axes(mesh, spec)
        self.mesh = mesh
        self.spec = spec
        if memory_kind is not None and isinstance(mesh, Mesh):  # an AbstractMesh has no memories
            memory_kind = _memory_kind_on(mesh._flat[0], memory_kind)
        self._memory_kind = memory_kind
        self._hash = hash((mesh, spec, memory_kind))

    @property
    def memory_kind(self):
        if self._memory_kind is None and isinstance(self.mesh, AbstractMesh):
            return None
        return Sharding.memory_kind.fget(self)

    def _device_list(self):
        if isinstance(self.mesh, AbstractMesh):
            self.mesh._flat_devices_or_error()
        return list(self.mesh._flat)

    def update(self, *, mesh=None, spec=None, memory_kind=None):
        """This sharding with ``mesh``, ``spec`` and/or ``memory_kind`` replaced."""
        return NamedSharding(self.mesh if mesh is None else mesh,
                             self.spec if spec is None else spec,
                             memory_kind=self._memory_kind if memory_kind is None else memory_kind)

    def with_memory_kind(self, kind):
        return NamedSharding(self.mesh, self.spec, memory_kind=kind)

    @property
    def is_fully_replicated(self):
        return all(self.mesh.shape[a] == 1 for e in self.spec for a in _axes_of(e))

    def _check_shape(self, shape, what):
        check_divisible(self, shape, what)

    def devices_indices_map(self, global_shape):
        global_shape = tuple(global_shape)
        self._check_shape(global_shape, "devices_indices_map")
        mesh = self.mesh
        sizes = mesh.shape
        pos = {n: i for i, n in enumerate(mesh.axis_names)}
        spec = tuple(self.spec) + (None,) * (len(global_shape) - len(self.spec))
        out = {}
        for coord in itertools.product(*[range(s) for s in mesh.axis_sizes]):
            index = []
            for entry, n in zip(spec, global_shape):
                chunk, count = 0, 1
                for a in _axes_of(entry):
                    chunk = chunk * sizes[a] + coord[pos[a]]
                    count *= sizes[a]
                size = n // count
                index.append(slice(None) if count == 1 else slice(chunk * size, (chunk + 1) * size))
            out[mesh.devices[coord]] = tuple(index)
        return out

    def _to_jaxlib(self, ndim):
        return _named_to_jaxlib(self, ndim)

    def __eq__(self, other):
        return (
            isinstance(other, NamedSharding)
            and self.mesh == other.mesh
            and self.spec == other.spec
            and self._memory_kind == other._memory_kind
        )

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec}{_memory_str(self)})"


def _unsharded(ndim):
    """The sharding type of a value no mesh axis splits (``core.ShapedArray.sharding``)."""
    return NamedSharding(get_abstract_mesh(), PartitionSpec(*(None,) * ndim))


def _typed(mesh, parts):
    """The NamedSharding of a type split over Explicit axes (``ShapedArray.sharding``)."""
    return NamedSharding(mesh, PartitionSpec(*parts))


def fit_rank(spec, ndim):
    """The entries of ``spec`` for a value of rank ``ndim``: as JAX's type
    (``core._make_lengths_same``), a spec longer than the rank drops its trailing None
    entries; any other is JAX's internal assertion."""
    entries = tuple(spec)
    if len(entries) > ndim:
        if any(e is not None for e in entries[ndim:]):
            raise AssertionError((ndim, spec))
        entries = entries[:ndim]
    return entries


def explicit_of(sharding, shape):
    """The ``explicit`` field of a value of ``shape`` placed with ``sharding``: its
    partitions over the mesh's Explicit axes (an Auto axis leaves no trace in a type, as in
    JAX), with the abstract mesh; None when no Explicit axis splits it. Checked as JAX's
    ``core.get_sharding``: a spec longer than the rank only by None entries (``fit_rank``),
    each split dividing its dimension, no mesh axis twice."""
    if not isinstance(sharding, NamedSharding):
        return None
    mesh = sharding.mesh
    if AxisType.Explicit not in mesh.axis_types:
        return None
    explicit = {n for n, t in zip(mesh.axis_names, mesh.axis_types) if t == AxisType.Explicit}
    ndim = len(shape)
    spec = fit_rank(sharding.spec, ndim)
    spec += (None,) * (ndim - len(spec))
    core.check_no_duplicate_axes(spec)
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    parts = []
    for dim, (entry, size) in enumerate(zip(spec, shape)):
        axes = _axes_of(entry)
        split = math.prod(sizes[n] for n in axes)
        if split and size % split:
            raise ValueError(
                f"Sharding spec {axes} implies that array axis {dim} is partitioned {split} "
                f"times, but does not evenly divide the dimension size {size}. Got shape: "
                f"{tuple(shape)} and sharding {sharding}")
        names = tuple(n for n in axes if n in explicit)
        parts.append(None if not names else names[0] if len(names) == 1 else names)
    if all(p is None for p in parts):
        return None
    return mesh.abstract_mesh, tuple(parts)


core.unsharded_sharding = _unsharded
core.typed_sharding = _typed
core.explicit_of = explicit_of


def _spec_str(spec):
    return "P(" + ", ".join(repr(e) for e in spec) + ")"


class GSPMDSharding(Sharding):
    """A sharding XLA chose that no NamedSharding on the known mesh expresses (wraps jaxlib's)."""

    def __init__(self, jaxlib_sharding):
        self._jaxlib = jaxlib_sharding
        self._hlo = jaxlib_sharding._hlo_sharding
        self._memory_kind = _array.memory_kind_of(jaxlib_sharding)

    def _device_list(self):
        return list(self._jaxlib._internal_device_list)

    is_fully_replicated = property(lambda self: self._hlo.is_replicated())

    def devices_indices_map(self, global_shape):
        return dict(jaxlib_ext.shard_indices(self._jaxlib, tuple(global_shape)))

    def _to_jaxlib(self, ndim=None):
        return self._jaxlib

    _hlo_sharding = property(lambda self: self._hlo)

    def __eq__(self, other):
        return (
            isinstance(other, GSPMDSharding)
            and self._hlo == other._hlo
            and [d.id for d in self._device_list()] == [d.id for d in other._device_list()]
            and self._memory_kind == other._memory_kind
        )

    def __hash__(self):
        return hash((str(self._hlo), tuple(d.id for d in self._device_list())))

    def __repr__(self):
        return f"GSPMDSharding({self._hlo}, {self.num_devices} devices)"


# ------------------------------------------------------------------------------------------------
# Validation (errors name the array, the dimension and the axis)


def _check_spec_axes(mesh, spec):
    """JAX's ``check_pspec``: no mesh axis twice (``DuplicateSpecError``), then every axis
    in ``mesh``, and UNCONSTRAINED only where some axis is Auto."""
    core.check_no_duplicate_axes(tuple(spec), spec=str(spec))
    for entry in spec:
        for a in _axes_of(entry):
            if a not in mesh.shape:
                raise ValueError(
                    f"Resource axis: {a} of {spec} is not found in mesh: {mesh.axis_names}.")
    if AxisType.Auto not in mesh.axis_types and any(e is UNCONSTRAINED for e in spec):
        raise ValueError(
            f"{spec} cannot contain `P.UNCONSTRAINED` when no mesh axis_types are `Auto`. Got "
            f"mesh axis_types: {tuple(mesh.axis_types)}")


def check_given(shardings, arg_name, allow_unconstrained=False):
    """JAX's ``prepare_axis_resources``: the shardings a user gives ``arg_name`` (a pytree of
    Shardings, PartitionSpecs and None), checked before any mesh is known: no UNCONSTRAINED
    unless allowed, and no bare spec naming a mesh axis twice."""
    for entry in _registry.flatten(shardings, leaf_predicate=is_sharding_leaf)[0]:
        spec = entry.spec if isinstance(entry, NamedSharding) else entry
        if not isinstance(spec, PartitionSpec):
            continue
        if not allow_unconstrained and any(e is UNCONSTRAINED for e in spec):
            raise ValueError(
                f"Unconstrained dims are not allowed when passed to {arg_name}: {entry}")
        if entry is spec:
            core.check_no_duplicate_axes(tuple(spec), arg_name, str(spec))


def check_divisible(sharding, shape, what):
    """Raises ValueError naming ``what`` (an argument path), the dimension and the axis when
    ``sharding`` cannot split an array of ``shape`` evenly."""
    if not isinstance(sharding, NamedSharding):
        return
    spec = sharding.spec
    if len(spec) > len(shape):
        raise ValueError(
            f"{what}: PartitionSpec {_spec_str(spec)} has {len(spec)} entries but the array "
            f"has rank {len(shape)} (shape {tuple(shape)})"
        )
    sizes = sharding.mesh.shape
    for dim, entry in enumerate(spec):
        axes = _axes_of(entry)
        count = math.prod(sizes[a] for a in axes)
        if count > 1 and shape[dim] % count:
            names = " x ".join(f"{a!r} (size {sizes[a]})" for a in axes)
            raise ValueError(
                f"{what}: dimension {dim} of shape {tuple(shape)} has size {shape[dim]}, which "
                f"is not divisible by mesh axis {names} of {sharding.mesh!r}"
            )


def resolve(sharding_or_spec, what, legacy=False):
    """A Sharding from a Sharding, or a PartitionSpec over the ``set_mesh`` mesh (``legacy``:
    or the ``with mesh:`` one, as with_sharding_constraint takes it). A NamedSharding over an
    AbstractMesh (``NamedSharding(get_abstract_mesh(), spec)``) places
    data on the mesh in context, which it must describe."""
    if isinstance(sharding_or_spec, NamedSharding) and isinstance(sharding_or_spec.mesh,
                                                                  AbstractMesh):
        mesh = current_mesh()
        abstract = sharding_or_spec.mesh
        if mesh is None or (mesh.axis_names, mesh.axis_sizes) != (abstract.axis_names,
                                                                  abstract.axis_sizes):
            raise ValueError(
                f"{what}: {sharding_or_spec!r} is over an AbstractMesh, which places data only "
                f"on a concrete mesh of the same axes in context (jax.set_mesh); the mesh in "
                f"context is {mesh!r}")
        return NamedSharding(mesh, sharding_or_spec.spec,
                             memory_kind=sharding_or_spec._memory_kind)
    if isinstance(sharding_or_spec, Sharding):
        return sharding_or_spec
    if isinstance(sharding_or_spec, PartitionSpec):
        mesh = current_mesh() or (legacy_mesh() if legacy else None)
        if mesh is None:
            raise ValueError(
                f"{what}: a bare PartitionSpec {_spec_str(sharding_or_spec)} needs a mesh; use "
                "NamedSharding(mesh, spec) or call inside `with jax.set_mesh(mesh):`"
            )
        return NamedSharding(mesh, sharding_or_spec)
    if hasattr(sharding_or_spec, "platform") and hasattr(sharding_or_spec, "id"):
        return SingleDeviceSharding(sharding_or_spec)
    raise TypeError(
        f"{what}: expected a Sharding, a PartitionSpec or a device, got {sharding_or_spec!r}"
    )


# ------------------------------------------------------------------------------------------------
# minijax shardings <-> jaxlib shardings (interned)


def _named_hlo(sharding, ndim):
    mesh = sharding.mesh
    spec = tuple(sharding.spec) + (None,) * (ndim - len(sharding.spec))
    if any(e is UNCONSTRAINED for e in spec):
        raise ValueError(
            f"PartitionSpec {_spec_str(sharding.spec)}: UNCONSTRAINED is only allowed in "
            "with_sharding_constraint"
        )
    pos = {n: i for i, n in enumerate(mesh.axis_names)}
    sizes = mesh.shape
    perm, dims = [], []
    for entry in spec:
        axes = _axes_of(entry)
        perm.extend(pos[a] for a in axes)
        dims.append(math.prod(sizes[a] for a in axes))
    rest = [i for i in range(len(mesh.axis_names)) if i not in perm]
    replicated = math.prod(mesh.axis_sizes[i] for i in rest)
    if math.prod(dims) == 1:
        return xc.HloSharding.replicate()
    perm.extend(rest)
    if replicated > 1:
        return xc.HloSharding.iota_tile(
            dims + [replicated], list(mesh.axis_sizes), perm, [xc.OpSharding.Type.REPLICATED]
        )
    return xc.HloSharding.iota_tile(dims, list(mesh.axis_sizes), perm)


_named_cache = {}  # (NamedSharding, ndim) -> interned jaxlib sharding


def _clear_named_cache(name, value):
    if name in ("jax_platforms", "jax_num_cpu_devices"):
        _named_cache.clear()


backends.config.on_change(_clear_named_cache)


def _named_to_jaxlib(sharding, ndim):
    key = (sharding, ndim)
    out = _named_cache.get(key)
    if out is None:
        mesh = sharding.mesh
        if mesh.size == 1:
            out = _array.single_device_sharding(mesh._flat[0], sharding._memory_kind)
        else:
            out = _array.interned_sharding(mesh._flat, _named_hlo(sharding, ndim), mesh,
                                           sharding._memory_kind)
            _array.remember_user_sharding(out, ndim, sharding)
        _named_cache[key] = out
    return out


def _hlo_of(sharding, ndim):
    return sharding._to_jaxlib(ndim)._hlo_sharding


def _candidate_specs(mesh, tiles):
    """Every spec on ``mesh`` whose per-dimension split counts are ``tiles``."""
    names = [n for n in mesh.axis_names if mesh.shape[n] > 1]

    def go(dim, free):
        if dim == len(tiles):
            yield ()
            return
        for k in range(len(free) + 1):
            for axes in itertools.permutations(free, k):
                if math.prod(mesh.shape[a] for a in axes) != tiles[dim]:
                    continue
                rest = [a for a in free if a not in axes]
                entry = None if not axes else (axes[0] if len(axes) == 1 else axes)
                for tail in go(dim + 1, rest):
                    yield (entry,) + tail

    return go(0, names)


def from_jaxlib(jaxlib_sharding, ndim, mesh=None):
    """The user-facing sharding of a jaxlib sharding: a NamedSharding on ``mesh`` when one
    expresses it, else SingleDeviceSharding or an opaque GSPMDSharding."""
    known = _array.user_sharding(jaxlib_sharding, ndim)
    if known is not None:
        return known
    devs = list(jaxlib_sharding._internal_device_list)
    hlo = jaxlib_sharding._hlo_sharding
    kind = _array.memory_kind_of(jaxlib_sharding)
    out = None
    if len(devs) == 1:
        out = SingleDeviceSharding(devs[0], memory_kind=kind)
    elif mesh is not None and list(mesh._flat) == devs:
        if hlo.is_replicated():
            out = NamedSharding(mesh, P(), memory_kind=kind)
        elif hlo.is_tiled():
            tiles = list(hlo.tile_assignment_dimensions())[:ndim]
            for spec in _candidate_specs(mesh, tiles):
                while spec and spec[-1] is None:  # as JAX names it: P('x',), not P('x', None)
                    spec = spec[:-1]
                cand = NamedSharding(mesh, P(*spec), memory_kind=kind)
                if _named_hlo(cand, ndim) == hlo:
                    out = cand
                    break
    if out is None:
        out = GSPMDSharding(jaxlib_sharding)
    _array.remember_user_sharding(jaxlib_sharding, ndim, out)
    return out


_typed = {}  # (a NamedSharding on Explicit axes, a type's parts) -> the one JAX names


def array_sharding(jaxlib_sharding, aval):
    """The user-facing sharding of a computed Array (device_put's keep theirs): on a mesh of
    Explicit axes its type's, every dimension named (``P(None,)`` for a replicated vector,
    ``P('x', None)``), as JAX names a result by its type there; else ``from_jaxlib``'s. A
    result jit's out_shardings names reports that one, as given."""
    named = _array.named_results.get(id(aval))
    if named is not None:
        return named[1]
    out = from_jaxlib(jaxlib_sharding, len(aval.shape))
    if type(out) is not NamedSharding or type(aval) is not core.ShapedArray or not (
            out.mesh.are_all_axes_explicit):
        return out
    if aval.explicit is None and not jaxlib_sharding._hlo_sharding.is_replicated():
        return out  # a split its type does not say (none seen): named by its layout
    key = (out, aval.parts())
    typed = _typed.get(key)
    if typed is None:
        typed = _typed[key] = NamedSharding(out.mesh, P(*key[1]), memory_kind=out._memory_kind)
    return typed


# ------------------------------------------------------------------------------------------------
# Placing data


def put(x, sharding, what="device_put"):
    """``x`` (NumPy, scalar or Array) as an Array laid out by ``sharding``."""
    aval = core.get_aval(x)
    check_divisible(sharding, aval.shape, what)
    target = sharding._to_jaxlib(len(aval.shape))
    space = core.mem_kind_to_space(sharding._memory_kind)
    explicit = explicit_of(sharding, aval.shape)
    if aval.memory_space is not space or aval.explicit != explicit:  # its type says where it is
        aval = aval.update(memory_space=space, explicit=explicit)
    if aval.dtype == dtypes.float0:  # as JAX's result handler (backends.result_handler)
        return dtypes.float0_zeros(aval.shape, aval)
    if type(x) is _array.Array:
        x._check_alive()
        if _array.same_layout(x._sharding, target):  # a named sharding commits it there
            return _array.committed(x, aval, target)
        value = x._value
    else:
        value = np.asarray(x, dtype=aval.dtype)
    return _array.put_global(value, aval, target)


# ------------------------------------------------------------------------------------------------
# Shardy attributes


def _sdy_dims(sharding, ndim, open_dims=False):
    spec = tuple(sharding.spec) + (None,) * (ndim - len(sharding.spec))
    dims = []
    for entry in spec:
        axes = [sdy.AxisRefAttr.get(a) for a in _axes_of(entry)]
        closed = entry is not UNCONSTRAINED and not open_dims
        dims.append(sdy.DimensionShardingAttr.get(axes, is_closed=closed))
    return dims


def sdy_sharding_attr(sharding, ndim, mesh_name, open_dims=False):
    """The ``#sdy.sharding<@mesh, [...]>`` attribute of a NamedSharding for rank ``ndim``;
    ``open_dims``: every dimension open (Shardy may add axes), as ``?`` in the text."""
    return sdy.TensorShardingAttr.get(mesh_name, _sdy_dims(sharding, ndim, open_dims))


class set_mesh:
    """Puts ``mesh`` in context for this thread (None: no mesh), so bare PartitionSpecs name
    its axes: as a global setter, ``set_mesh(mesh)``, or for a block, ``with set_mesh(mesh):``
    (the previous meshes come back when the block ends)."""

    __slots__ = ("prev",)

    def __init__(self, mesh):
        if mesh is not None and not isinstance(mesh, Mesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
        if not core.is_eval_trace_current():
            raise ValueError("`set_mesh` can only be used outside of `jax.jit`.")
        self.prev = getattr(_mesh_context, "stack", None)
        _set_mesh_stack([] if mesh is None else [mesh])

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set_mesh_stack(self.prev)
        return False


def _set_mesh_stack(stack):
    _mesh_context.stack = stack
    backends.set_context_mesh(stack[-1] if stack else None)


# ------------------------------------------------------------------------------------------------
# Pytree prefixes of shardings


def is_sharding_leaf(x):
    return x is None or isinstance(x, (Sharding, PartitionSpec)) or hasattr(x, "platform")


def broadcast_prefix(prefix, tree, what):
    """One entry of ``prefix`` (a pytree prefix of shardings/specs/None) per leaf of ``tree``."""
    if is_sharding_leaf(prefix):
        return [prefix] * len(_registry.flatten(tree)[0])
    pleaves, ptree = _registry.flatten(prefix, leaf_predicate=is_sharding_leaf)
    try:
        subtrees = ptree.flatten_up_to(tree)
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"{what}: the shardings {prefix!r} are not a pytree prefix of the arguments: {e}"
        ) from None
    out = []
    for p, sub in zip(pleaves, subtrees):
        out.extend([p] * len(_registry.flatten(sub)[0]))
    return out


_array.user_sharding_of = from_jaxlib
_array.array_sharding_of = array_sharding
