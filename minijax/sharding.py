"""``minijax.sharding``: meshes, shardings, ``with_sharding_constraint``, ``reshard``,
``auto_axes``, ``explicit_axes`` and ``shard_map``, at JAX's path; and ``device_put``, placing values on a
device or a sharding (``minijax.device_put`` and ``Array.to_device``).

The types live in ``sharding_types.py`` (beside the lowering, which needs them), the
constraint primitive in ``lax/sharding_constraint.py``; this module gathers the public names.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
from jaxlib import _jax

from minijax import core
from minijax import sharding_types as shd
from minijax.config import explicit_device_put_scope
from minijax.core import ManualAxisType, Tracer
from minijax.jitting.args import arg_paths
from minijax.layout import Format
from minijax.lax.sharding_constraint import (device_put_p, put_in_memory, reshard, reshard_p,
                                              with_sharding_constraint)
from minijax.lowering.array import (Array, committed, device_copy, device_put_value,
                                   memory_kind_of)
from minijax.shard_map import in_eager_body, shard_map
from minijax.tree_util import _prefix_errors, _registry, tree_map_internal
from minijax.sharding_types import (
    AbstractMesh,
    AxisType,
    GSPMDSharding,
    Mesh,
    NamedSharding,
    PartitionSpec,
    Sharding,
    SingleDeviceSharding,
    get_abstract_mesh,
    make_mesh,
    set_mesh,
)

__all__ = [
    "AbstractDevice", "AbstractMesh", "AxisType", "GSPMDSharding", "ManualAxisType", "Mesh",
    "NamedSharding", "PartitionSpec", "Sharding", "SingleDeviceSharding", "auto_axes",
    "explicit_axes", "get_abstract_mesh", "get_mesh", "make_mesh", "make_single_device_sharding",
    "reshard", "set_mesh", "shard_map", "use_abstract_mesh", "with_sharding_constraint",
]


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractDevice:
    """The kind of device an abstract mesh stands for (no device itself)."""
    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self):
        return (f"AbstractDevice(device_kind={self.device_kind}, num_cores={self.num_cores}, "
                f"platform={self.platform})")


_EMPTY_MESH = Mesh(np.empty((), dtype=object), ())


def get_mesh():
    """The concrete mesh in context (``set_mesh``), or the empty ``Mesh()``; outside ``jit``
    only (a traced function reads :func:`get_abstract_mesh`)."""
    if core.current_trace() is not core.eval_trace:
        raise ValueError(
            "`get_mesh` can only be used outside of `jax.jit`. Maybe you want"
            " `jax.sharding.get_abstract_mesh()`?")
    mesh = shd.current_mesh()
    return _EMPTY_MESH if mesh is None else mesh


class use_abstract_mesh:
    """``with use_abstract_mesh(abstract_mesh):`` makes ``get_abstract_mesh()`` return it; the
    mesh may not change the size of a non-empty mesh already in context."""

    __slots__ = ("mesh", "_cm")

    def __init__(self, mesh):
        if not isinstance(mesh, AbstractMesh):
            raise ValueError("Expected mesh of type `jax.sharding.AbstractMesh`. Got type:"
                             f" {type(mesh)}")
        self.mesh = mesh

    def __enter__(self):
        prev = get_abstract_mesh()
        if not prev.empty and not self.mesh.empty and prev.size != self.mesh.size:
            raise ValueError(
                "use_abstract_mesh cannot change the size of the mesh. Got new mesh:"
                f" {self.mesh} with size={self.mesh.size} and prev mesh:"
                f" {prev} with size={prev.size}")
        self._cm = shd.use_abstract_mesh(self.mesh)
        return self._cm.__enter__()

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def _given_or_keyword(value, kwargs, name):
    """``value``, else the call's keyword ``name``, taken out of ``kwargs``: JAX's axes
    decorators take their sharding either way."""
    if value is not None:
        return value
    if name not in kwargs:
        raise TypeError(f"Missing required keyword argument: '{name}'")
    return kwargs.pop(name)


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """``f`` run with mesh ``axes`` (default: all) in Auto mode, its outputs resharded to
    ``out_sharding`` (given here or as the call's ``out_sharding=`` keyword). On Explicit
    axes, the arguments' types drop those axes first (XLA places them inside ``f``), as
    JAX's."""
    if f is None:
        return lambda g: auto_axes(g, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        out = _given_or_keyword(out_sharding, kwargs, "out_sharding")
        mesh = _mesh_of_shardings(out)
        names = mesh.axis_names if axes is None else axes
        names = (names,) if isinstance(names, str) else tuple(names)
        types = dict(zip(mesh.axis_names, mesh.axis_types))
        if not any(types[n] == AxisType.Explicit for n in names):
            return reshard(f(*args, **kwargs), out)
        for n in names:
            types[n] = AxisType.Auto
        auto = AbstractMesh(mesh.axis_sizes, mesh.axis_names, tuple(types.values()))
        with shd.use_abstract_mesh(auto):
            args = tree_map_internal(lambda x: _drop_axes(x, auto), args)
            res = f(*args, **kwargs)
        return reshard(res, out)

    return wrapped


def _mesh_of_shardings(shardings):
    """The abstract mesh ``auto_axes``' out_sharding names, else the one in context."""
    for s in _registry.flatten(shardings)[0]:
        if isinstance(s, NamedSharding):
            return s.mesh.abstract_mesh
    return get_abstract_mesh()


def _drop_axes(x, auto_mesh):
    """``x`` retyped without the mesh axes ``auto_mesh`` makes Auto (no data moves)."""
    aval = core.get_aval(x)
    if getattr(aval, "explicit", None) is None:
        return x
    return reshard_p.bind(x, dst_sharding=NamedSharding(auto_mesh, PartitionSpec(*aval.parts())),
                          concrete_mesh=shd.current_mesh())


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """``f`` run with the context mesh's ``axes`` (default: all) typed ``Explicit``, its
    arguments resharded to ``in_sharding`` (given here or as the call's ``in_sharding=``
    keyword). minijax computes on every axis as Auto and its types carry no sharding, so
    ``f`` sees the Explicit axes only in ``get_abstract_mesh()``, and its outputs keep the
    layout XLA gives them (JAX's reshard back to the outer mesh's types constrains nothing
    on Auto axes, and on Explicit ones keeps the sharding the outputs already have)."""
    if f is None:
        return lambda g: explicit_axes(g, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        shardings = _given_or_keyword(in_sharding, kwargs, "in_sharding")
        mesh = get_abstract_mesh()
        if mesh.empty:
            raise ValueError(
                "Context mesh cannot be empty. Please use `jax.set_mesh` API to enter into a "
                "mesh context when using `explicit_axes` API.")
        names = mesh.axis_names if axes is None else axes
        names = names if isinstance(names, tuple) else (names,)
        types = dict(zip(mesh.axis_names, mesh.axis_types))
        for name in names:
            if types[name] == AxisType.Manual:  # an unknown name is JAX's KeyError too
                # JAX 0.10.2 refuses it too, in these words (inside shard_map, say)
                raise NotImplementedError(
                    "Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not "
                    "allowed. Please file a bug at https://github.com/jax-ml/jax/issues with "
                    "your use case")
            types[name] = AxisType.Explicit
        explicit = AbstractMesh(mesh.axis_sizes, mesh.axis_names, tuple(types.values()))
        with shd.use_abstract_mesh(explicit):
            return f(*reshard(args, shardings), **kwargs)

    return wrapped


def make_single_device_sharding(device, *, memory_kind=None):
    """``SingleDeviceSharding(device, memory_kind=memory_kind)``."""
    return SingleDeviceSharding(device, memory_kind=memory_kind)


def _put_leaf(x, device):
    if type(x) is Array:
        if device is None:
            return x
        if x.devices() == {device}:  # naming its device commits it there, a new Array (as JAX)
            kind = memory_kind_of(x._sharding)
            if kind is not None:  # JAX names the buffer as one in device memory: jaxlib refuses
                raise ValueError(
                    "Memory kind mismatch with xla::PjRtBuffers. Got sharding with memory "
                    f"kind '{device.default_memory().kind}' and a buffer with memory_kind "
                    f"'{kind}'")
            return committed(x)
        return device_put_value(x._value, device, weak_type=x.weak_type)
    if type(x) is core.Token:  # as JAX: a new token, its empty buffer where it is asked
        x.block_until_ready()
        return core.Token(device_put_value(np.zeros((0,), np.bool_), device))
    return device_put_value(x, device)


def _check_in_shard_map(x, target):
    """JAX's refusals of an explicit placement inside shard_map: a value varying over manual
    axes cannot take a sharding over the (non-manual) mesh; and a shard_map called eagerly
    takes no explicit device at all."""
    vma = getattr(x.aval, "vma", ())
    mesh = getattr(target, "mesh", None)
    if vma and mesh is not None:
        axis = sorted(vma, key=str)[0]
        kind = dict(zip(mesh.axis_names, mesh.axis_types)).get(axis, shd.AxisType.Auto)
        raise ValueError(
            "Axes mentioned in `manual_axis_type` field of ShapedArray should be of type "
            f"`Manual`. Got manual_axis_type={x.aval.manual_axis_type} with axis: {axis} of "
            f"type AxisType.{kind.name}")
    if in_eager_body():
        raise ValueError("device_put with explicit device not allowed within "
                         f"shard_map-decorated functions, but got device {target}")


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Puts every leaf of ``x`` on ``device`` as an Array: a device (default: the default
    device), a ``minijax.sharding`` Sharding (each device gets its slice), a PartitionSpec
    under ``set_mesh``, a ``jax.memory.Space`` (that memory of the devices the leaf is on), or
    a pytree prefix of these matching ``x``. An explicit transfer (``transfer_guard("disallow")``
    allows it). ``src``, ``donate`` and ``may_alias`` (each a value or a pytree prefix of ``x``)
    are JAX's: ``may_alias=False`` or ``donate=True`` gives a new buffer (the CPU donates none:
    the input stays alive, as JAX's), both True are refused; ``src`` is checked only."""
    with explicit_device_put_scope():
        leaves, tree = _registry.flatten(x)
        for s in _per_leaf("source", src, x, tree):
            if isinstance(s, PartitionSpec) and shd.current_mesh() is None:  # JAX's refusal
                raise ValueError("Please set a mesh via `jax.set_mesh` if a PartitionSpec is "
                                 "passed to device_put")
        donates = [donate] * len(leaves) if isinstance(donate, bool) else _per_leaf(
            "donate", donate, x, tree)
        aliases = [may_alias] * len(leaves) if isinstance(may_alias, bool) else _per_leaf(
            "may_alias", may_alias, x, tree)
        copies = []
        for d, m in zip(donates, aliases):
            if m and d:
                raise ValueError("may_alias and donate cannot be True at the same time.")
            copies.append(not (not d if m is None else m))
        if not core.is_eval_trace_current():  # under a transformation: JAX's one equation
            return tree.unflatten(_staged_device_put(x, leaves, tree, device, src, donates,
                                                     copies))
        out = _registry.flatten(_device_put(x, device))[0]
        return tree.unflatten([
            device_copy(o) if copy and type(leaf) is Array else o
            for o, leaf, copy in zip(out, leaves, copies)])


def _staged_device_put(x, leaves, tree, device, src, donates, copies):
    """``device_put`` under a transformation: one ``device_put`` equation over every leaf, its
    targets and sources as given (a PartitionSpec named on the mesh in context), and each
    leaf's copy semantics, as JAX stages it."""
    targets = _per_leaf("device", device, x, tree)
    for s in targets:
        _check_target(s)
    paths = [p[len("args[0]"):] for p in arg_paths((x,), {})]
    devices, srcs, semantics = [], [], []
    for leaf, s, src_s, path, donate, copy in zip(
            leaves, targets, _per_leaf("source", src, x, tree), paths, donates, copies):
        if isinstance(s, PartitionSpec):
            s = shd.resolve(s, f"device_put of x{path}")
        if isinstance(leaf, Tracer) and (isinstance(s, Sharding) or hasattr(s, "platform")):
            _check_in_shard_map(leaf, s)
        devices.append(s)
        srcs.append(shd.resolve(src_s, "device_put") if isinstance(src_s, PartitionSpec)
                    else src_s)
        semantics.append(_jax.ArrayCopySemantics.DONATE_INPUT if donate and copy else
                         _jax.ArrayCopySemantics.ALWAYS_COPY if copy else
                         _jax.ArrayCopySemantics.REUSE_INPUT)
    return device_put_p.bind(*leaves, devices=tuple(devices), srcs=tuple(srcs),
                             copy_semantics=tuple(semantics))


def _per_leaf(what, prefix, x, tree):
    """One entry of ``prefix`` per leaf of ``x`` (JAX's ``flatten_axes``: None is a leaf, a
    value of no pytree type stands for every leaf under it), in JAX's words when it is not a
    pytree prefix of ``x``."""
    if prefix is None or isinstance(prefix, (Sharding, core.MemorySpace)) or hasattr(
            prefix, "platform"):
        return [prefix] * tree.num_leaves
    try:
        return shd.broadcast_prefix(prefix, x, "device_put")
    except ValueError:
        details = "\n  ".join(e(f"device_put {what}").args[0]
                              for e in _prefix_errors(prefix, x, is_leaf=lambda v: v is None))
        raise ValueError(
            f"device_put {what} specification must be a tree prefix of the corresponding value; "
            f"\n  Mismatch details ({details.count('pytree structure error')} found):"
            f"\n  {details}") from None


def _check_target(s):
    """JAX's check of each target (its ``_check_sharding``): a device's memory
    (``device.memory("pinned_host")``, which has a platform as a device has), a memory kind
    string or any other value is refused, eagerly and under a transformation alike."""
    if s is None or isinstance(s, (Sharding, PartitionSpec, Format, core.MemorySpace)) or (
            hasattr(s, "platform") and not isinstance(s, _jax.Memory)):
        return
    raise ValueError(
        "`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, `jax.Device`, `Format`, "
        f"`jax.memory.Space` or a pytree of these values. Received invalid value: {s}")


def _device_put(x, device):
    """``device_put`` outside any transformation: each leaf placed now."""
    if device is None or hasattr(device, "platform"):
        _check_target(device)
        return tree_map_internal(lambda leaf: _put_leaf(leaf, device), x)
    leaves, tree = _registry.flatten(x)
    per_leaf = _per_leaf("device", device, x, tree)
    paths = [p[len("args[0]"):] for p in arg_paths((x,), {})]
    out = []
    for s in per_leaf:
        _check_target(s)
    for leaf, s, path in zip(leaves, per_leaf, paths):
        what = f"device_put of x{path}"
        if s is None or hasattr(s, "platform"):
            out.append(_put_leaf(leaf, s))
            continue
        if isinstance(s, core.MemorySpace):  # that memory of the devices the leaf is on
            if not isinstance(leaf, Array):
                leaf = device_put_value(leaf)
            out.append(put_in_memory(leaf, s))
            continue
        s = shd.resolve(s, what)
        if type(leaf) is Array and leaf._committed and leaf.sharding == s and (
                type(s) is not NamedSharding or leaf.sharding.spec[:] == s.spec[:]):
            out.append(leaf)  # JAX reuses it (a new one where it must be copied: device_put)
            continue
        placed = shd.put(leaf, s, what)
        if type(s) is NamedSharding and type(placed) is Array:
            placed._given_sharding = s  # it reports its spec as given (P() stays P())
        out.append(placed)
    return tree.unflatten(out)
