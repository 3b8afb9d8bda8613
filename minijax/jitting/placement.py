"""Where a jitted program runs: :class:`Placement` and :func:`plan`, which derives it.

One device is a one-device placement: the program is unannotated and its arguments and
results are whole on that device. A sharded program (``in_shardings``/``out_shardings``,
committed multi-device Arrays, or ``with_sharding_constraint``/``shard_map`` inside) runs over
the devices of one mesh: its arguments and results carry Shardy annotations and XLA's SPMD
partitioner splits it.
"""

from __future__ import annotations

from minijax import core
from minijax import sharding_types as shd
from minijax.lax.sharding_constraint import (device_put_p, moves_memory, put_memory_kind,
                                             with_sharding_constraint_p)
from minijax.lowering import backends, stablehlo
from minijax.lowering.array import Array, default_device, memory_kind_of
from minijax.tree_util import _registry, keystr, tree_flatten_with_path_internal


REPLICATED = "replicated"  # an argument's sharding: replicated over the program's mesh


class Placement:
    """``devices`` (partition i on ``devices[i]``), the ``mesh`` the program's annotations name
    (None: one device, no annotations), and per argument / result leaf its NamedSharding,
    ``REPLICATED`` (an argument only), or None: left to Shardy's propagation, as JAX leaves an
    uncommitted argument's; the executable says what it chose and the call places it there."""

    __slots__ = ("devices", "mesh", "in_shardings", "out_shardings", "in_memory", "out_memory",
                 "moves")

    def __init__(self, devices, mesh, in_shardings, out_shardings, memory=None, moves=False):
        self.devices = tuple(devices)
        self.mesh = mesh
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        # None when every value is in the devices' default memory (the common case, which
        # costs nothing); else per argument its memory kind (None: unnamed, an uncommitted
        # value) and per result the one out_shardings names (None: none named).
        self.in_memory, self.out_memory = memory or (None, None)
        self.moves = moves  # the program moves values between memories (a staged device_put)

    def memory_kinds(self, jaxpr):
        """The ``stablehlo.MemoryKinds`` of the program ``jaxpr`` (constants first), or None
        when every value is in device memory. A result's memory is the one out_shardings
        names, else its type's memory space (as JAX's)."""
        if self.in_memory is None:
            return None
        consts = [None] * len(jaxpr.constvars)
        results = [given or core.mem_space_to_kind(a.memory_space)
                   for given, a in zip(self.out_memory, jaxpr.out_avals)]
        return stablehlo.MemoryKinds(consts + self.in_memory, results, self.out_memory)

    def argument_memory(self, n_consts):
        """Per argument (constants first), the memory kind its buffer must be in (None: the
        devices' default), for the executable; None when all are in the default memory."""
        if self.in_memory is None:
            return None
        default = self.devices[0].default_memory().kind
        return [None] * n_consts + [None if k in (None, default) else k for k in self.in_memory]

    def module_shardings(self, n_consts):
        """``(arg_shardings, result_shardings)`` for the lowering (constants first), or
        ``(None, None)`` for an unannotated program. The constants are left unannotated, so
        Shardy lays them out as it would JAX's constants baked into the module (a replicated
        constant argument beside a sharded operand crashes XLA's partitioner: FINDINGS 116);
        their buffers are placed by the executable's chosen layout."""
        if self.mesh is None:
            return None, None
        replicated = shd.NamedSharding(self.mesh, shd.PartitionSpec())
        args = [None] * n_consts + [replicated if s is REPLICATED else s
                                    for s in self.in_shardings]
        return args, self.out_shardings


def _home():
    """The sharding of an Array whole on the default device (jaxlib interns it)."""
    return backends.single_device_sharding(default_device())


def any_placed(leaves):
    """Whether an Array argument lies elsewhere than whole on the default device: where it
    lies then shapes the program, and ``committed_key`` goes in the cache key."""
    home = _home()
    for x in leaves:
        if type(x) is Array and x._sharding is not home:
            return True
    return False


def committed_key(leaves):
    """The part of the cache key that arguments placed elsewhere add: their layouts, and
    whether those on the default device are committed there (then they clash with others)."""
    home = _home()
    return tuple([
        (x._sharding if x._sharding is not home else x._committed) if type(x) is Array else None
        for x in leaves
    ])


def _constraint_meshes(jaxpr, out, memories):
    """The meshes the program's constraints name (into ``out``), and the memory kinds its
    staged device_puts move values to (into ``memories``)."""
    for eqn in jaxpr.eqns:
        if eqn.primitive is with_sharding_constraint_p:
            out.append(eqn.params["sharding"].mesh)
        elif eqn.primitive.name == "shard_map":  # its program runs on the mesh's devices
            out.append(eqn.params["mesh"])
        elif eqn.primitive is device_put_p:
            for d in eqn.params["devices"]:
                if isinstance(d, shd.NamedSharding):
                    out.append(d.mesh)
                if moves_memory(d):
                    memories.append(put_memory_kind(d))
        for v in eqn.params.values():
            for sub in v if isinstance(v, (list, tuple)) else (v,):
                if isinstance(sub, core.ClosedJaxpr):
                    _constraint_meshes(sub.jaxpr, out, memories)
                elif isinstance(sub, core.Jaxpr):
                    _constraint_meshes(sub, out, memories)
    return out


def plan(name, record, closed, out_tree, in_shardings, out_shardings, device, kept=None,
         arg_names=None):
    """The Placement of the program ``closed`` traced from ``record`` (an ArgRecord), taking
    the argument leaves ``kept`` (None: all of them); ``arg_names()`` names the leaves in
    errors (default: their paths).

    An argument's sharding comes from ``in_shardings``, else from the committed multi-device
    Array passed (replicated if not a NamedSharding), else it is left open, as JAX leaves an
    uncommitted one (an Array committed to one device is resharded like one). Outputs without
    ``out_shardings`` are left to Shardy's propagation; the executable says what it chose (and
    the call places open arguments where it chose). Without any sharding
    the program runs on ``device`` (default: the default device). Arguments the program does
    not take have no say, as in JAX: neither their layouts nor their ``in_shardings``.
    """
    in_sh, in_mem = _argument_shardings(record, in_shardings)
    if kept is not None:
        in_sh = [in_sh[i] for i in kept]
        in_mem = [in_mem[i] for i in kept]
    kept = range(len(record.leaves)) if kept is None else kept
    out_sh, out_mem = _result_shardings(closed, out_tree, out_shardings)
    out_sh = _typed_result_shardings(closed, in_sh, out_sh)
    meshes = [s.mesh for s in in_sh + out_sh if isinstance(s, shd.NamedSharding)]
    moves = []
    meshes += _constraint_meshes(closed.jaxpr, [], moves)
    ctx = shd.current_mesh()
    if ctx is not None and not ctx.empty:  # as JAX, a program under set_mesh runs on its mesh
        meshes.append(ctx)
    memory = _memory(in_mem, out_mem, moves)
    if not meshes:
        if device is None and in_shardings is None:
            device = _argument_device(name, record, kept, arg_names or (lambda: record.paths))
        return Placement((device or default_device(),), None, in_sh, out_sh, memory,
                         bool(moves))
    mesh = meshes[0]
    for m in meshes[1:]:
        if m._flat != mesh._flat:
            raise ValueError(
                f"jit({name}): all shardings must use the same devices in the same "
                f"order; got {mesh!r} (device ids {[d.id for d in mesh._flat]}) and {m!r} "
                f"(device ids {[d.id for d in m._flat]})"
            )
    return Placement(mesh._flat, mesh, in_sh, out_sh, memory, bool(moves))


def _memory(in_memory, out_memory, moves):
    """The memory kinds for a Placement, or None when no argument, result or device_put
    (``moves``) names another memory than "device" (as JAX decides whether a program has
    memory kinds)."""
    if all(k in (None, "device") for k in in_memory + out_memory + moves):
        return None
    return in_memory, out_memory


def _argument_device(name, record, kept, arg_names):
    """The device that the taken Arrays committed to one device share, or None. JAX runs a
    program where its committed arguments are and refuses two devices; uncommitted Arrays
    follow them."""
    found = None
    for i in kept:
        x = record.leaves[i]
        if type(x) is not Array or not x._committed:
            continue
        devs = x._sharding._internal_device_list
        if len(devs) != 1:
            continue
        if found is None:
            found = (devs[0], i)
        elif devs[0] != found[0]:
            names, j = arg_names(), found[1]
            raise ValueError(
                "Received incompatible devices for jitted computation. Got argument "
                f"{names[j]} of {name} with shape {_type(record.avals[j])} and with device ids "
                f"[{found[0].id}] on platform {found[0].platform.upper()} and argument "
                f"{names[i]} of {name} with shape {_type(record.avals[i])} and with device ids "
                f"[{devs[0].id}] on platform {devs[0].platform.upper()}")
    return None if found is None else found[0]


def _type(aval):
    """JAX's ``float32[4]``, ``float32<host>[4]`` for a value in host memory."""
    return f"{aval.dtype.name}{aval._space_str()}[{','.join(map(str, aval.shape))}]"


def resolve_given(g, name, what):
    """A sharding given to jit's ``name`` (in_shardings or out_shardings) as a Sharding; a
    bare PartitionSpec needs a mesh in context (JAX's RuntimeError)."""
    if isinstance(g, shd.PartitionSpec) and shd.current_mesh() is None:
        raise RuntimeError(
            f"jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to "
            f"{name}. You can define a context mesh via `jax.set_mesh(mesh)`. Alternatively, "
            f"provide `Sharding`s to {name} and then the mesh context manager is not required.")
    return shd.resolve(g, what)


def _argument_shardings(record, in_shardings):
    n = len(record.leaves)
    if in_shardings is not None:
        given = shd.broadcast_prefix(in_shardings, tuple(record.args), "jit in_shardings")
        given += [None] * record.num_kwarg_leaves
    else:
        given = [None] * n
    out, memory = [], []
    for x, g, path, aval in zip(record.leaves, given, record.paths, record.avals):
        if g is not None:
            g = resolve_given(g, "in_shardings", f"jit in_shardings for {path}")
            if type(x) is Array and g._memory_kind != memory_kind_of(x._sharding):
                # as JAX: jit moves no Array between memories, even an uncommitted one (a
                # NumPy argument, which it places there, comes here as NumPy: see
                # JitFunction._numpy_to_memory)
                have = shd.from_jaxlib(x._sharding, len(aval.shape)).memory_kind
                raise ValueError(
                    "Memory kinds passed to jax.jit does not match memory kind on the "
                    f"respective arg. Got jit memory kind: {g.memory_kind}, arg memory kind: "
                    f"{have} for arg type: {_type(aval)}")
            if type(x) is Array and x._committed and (
                    shd._hlo_of(g, len(aval.shape)) != x._sharding._hlo_sharding):
                # as JAX: jit reshards no committed Array (on any mesh); only the layout is
                # compared, so P("x") matches P("x", None) and one device matches P()
                raise ValueError(
                    "Sharding passed to jit does not match the sharding on the respective arg. "
                    f"Got jit sharding: {g},\narg sharding: "
                    f"{shd.from_jaxlib(x._sharding, len(aval.shape))} for arg type: {aval}")
        elif type(x) is Array and len(x._sharding._internal_device_list) > 1:
            g = shd.from_jaxlib(x._sharding, len(aval.shape))
        elif type(x) is not Array and isinstance(getattr(x, "sharding", None), shd.Sharding):
            g = x.sharding  # a ShapeDtypeStruct(..., sharding=...) given to lower()
        # the memory the argument is in: its sharding's, a committed Array's, else unnamed
        # (an uncommitted value, in the default memory)
        if g is not None:
            memory.append(g.memory_kind)
        elif type(x) is Array and x._committed:
            memory.append(x._sharding._memory_kind)  # jaxlib names the default too
        else:
            memory.append(None)
        if g is None:
            pass  # open: Shardy chooses, the call places the argument there
        elif not isinstance(g, shd.NamedSharding):
            g = REPLICATED  # SingleDeviceSharding or an opaque layout: resharded at call
        else:
            shd.check_divisible(g, aval.shape,
                                f"jit in_shardings for {path} of {aval.str_short(True)}")
        out.append(g)
    return out, memory


def _result_shardings(closed, out_tree, out_shardings):
    out_avals = closed.jaxpr.out_avals
    if out_shardings is None:
        return [None] * len(out_avals), [None] * len(out_avals)
    extra = []
    if hasattr(out_tree, "written"):  # function._RefOutputs: the written Refs' values follow
        extra = [None] * len(out_tree.written)  # the outputs, laid out as XLA chooses
        out_tree, out_avals = out_tree.tree, out_avals[:out_tree.n_out]
    given = result_sharding_leaves(out_shardings, out_tree, len(out_avals))
    out_paths = [
        "output" + keystr(p)
        for p, _ in tree_flatten_with_path_internal(out_tree.unflatten(out_avals))[0]
    ]
    out, memory = [], []
    for g, path, aval in zip(given, out_paths, out_avals):
        memory.append(None)
        if g is not None:
            g = resolve_given(g, "out_shardings", f"jit out_shardings for {path}")
            memory[-1] = g.memory_kind
            if isinstance(g, shd.NamedSharding):
                shd.check_divisible(
                    g, aval.shape, f"jit out_shardings for {path} of {aval.str_short(True)}"
                )
            else:
                g = None
        out.append(g)
    return out + extra, memory + extra


def _typed_result_shardings(closed, in_sh, out_sh):
    """Results on a mesh of Explicit axes are laid out as their types say (JAX's sharding in
    types), a result whose type no axis splits replicated; ``out_shardings`` still win."""
    mesh = None
    for aval in closed.in_avals + closed.jaxpr.out_avals:
        explicit = getattr(aval, "explicit", None)
        if explicit is not None:
            mesh = explicit[0]
            break
    else:  # no value is split: under set_mesh, the results are whole on its devices
        ctx = shd.current_mesh()
        mesh = None if ctx is None or ctx.empty else ctx.abstract_mesh
    if mesh is None or shd.AxisType.Auto in mesh.axis_types:
        return out_sh
    concrete = next((s.mesh for s in in_sh if isinstance(s, shd.NamedSharding)
                     and s.mesh.abstract_mesh == mesh), None)
    if concrete is None:
        concrete = shd.current_mesh()
        if concrete is None or concrete.abstract_mesh != mesh:
            return out_sh
    return [shd.NamedSharding(concrete, shd.PartitionSpec(*aval.parts()))
            if g is None and type(aval) is core.ShapedArray else g
            for g, aval in zip(out_sh, closed.jaxpr.out_avals)]


def result_sharding_leaves(out_shardings, out_tree, n_out):
    """``out_shardings`` (a pytree prefix of the outputs) broadcast to one entry per leaf."""
    out_struct = out_tree.unflatten([0] * n_out)
    return shd.broadcast_prefix(out_shardings, out_struct, "jit out_shardings")


def names_other_memory(in_shardings):
    """Whether some sharding of ``in_shardings`` is in another memory than the default."""
    return in_shardings is not None and any(
        getattr(s, "_memory_kind", None) is not None
        for s in _registry.flatten(in_shardings, leaf_predicate=shd.is_sharding_leaf)[0])


def in_shardings_in_key(in_shardings):
    """Whether committed layouts belong in the cache key: with every argument's sharding given
    they do not change the program (other layouts are resharded at the call)."""
    return in_shardings is None or any(
        s is None for s in _registry.flatten(in_shardings, leaf_predicate=shd.is_sharding_leaf)[0]
    )
