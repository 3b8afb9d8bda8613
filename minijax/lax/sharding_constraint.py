"""``with_sharding_constraint`` (the ``sharding_constraint`` primitive) and ``reshard``: ask
XLA to lay out a value as a sharding at this point of the program; outside a transformation,
a placement. ``device_put_p``: ``device_put`` under a transformation to a sharding in another
memory (``memory_kind="pinned_host"``, ...)."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core
from minijax.core import Primitive
from minijax.interpreters import ad
from minijax.layout import Format, Layout
from minijax.lowering import backends
from minijax.lowering.stablehlo import annotate_device_placement
from minijax.sharding_types import (
    UNCONSTRAINED,
    _axes_of,
    AxisType,
    Mesh,
    NamedSharding,
    P,
    Sharding,
    SingleDeviceSharding,
    broadcast_prefix,
    check_divisible,
    check_given,
    current_mesh,
    legacy_mesh,
    fit_rank,
    get_abstract_mesh,
    put,
    resolve,
    sdy_sharding_attr,
)
from minijax.source_info import user_frame, with_user_line
from minijax.tree_util import _registry

__all__ = ["device_put_p", "lay_out", "moves_memory", "put_in_memory", "put_memory_kind", "reshard",
           "reshard_p", "sharding_constraint_p", "with_sharding_constraint", "with_sharding_constraint_p"]


# sharding_constraint[sharding layout context_mesh unconstrained_dims], JAX's params: layout is
# a Layout a ``Format`` gave (else None), the context mesh is only shown, unconstrained_dims
# are the spec's UNCONSTRAINED entries


def _wsc_abstract_eval(x, *, sharding, layout, context_mesh, unconstrained_dims):
    check_divisible(sharding, x.shape, f"with_sharding_constraint on {x.str_short(True)}")
    return x


def _wsc_lowering(ctx, x, *, sharding, layout, context_mesh, unconstrained_dims):
    mesh_name = ctx.module_ctx.mesh_symbol(sharding.mesh)
    ndim = len(ctx.avals_in[0].shape)
    x = sdy.ShardingConstraintOp(x, sdy_sharding_attr(sharding, ndim, mesh_name)).result
    if layout is not None:
        x = _layout_constraint(x, layout, ndim)
    return x


def _layout_constraint(x, layout, ndim):
    """JAX's ``wrap_with_layout_op``: XLA's LayoutConstraint custom call lays the value out
    as ``layout`` says (the operand's layout is ignored there: any will do)."""
    def dims(d):
        return ir.DenseIntElementsAttr.get(np.asarray(d, np.int64), type=ir.IndexType.get())

    op = hlo.CustomCallOp([x.type], [x], "LayoutConstraint",
                          api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
                          backend_config=ir.StringAttr.get(""))
    op.attributes["operand_layouts"] = ir.ArrayAttr.get([dims(range(ndim))])
    op.attributes["result_layouts"] = ir.ArrayAttr.get([dims(layout.major_to_minor[::-1])])
    return op.result


def _wsc_impl(x, *, sharding, layout, context_mesh, unconstrained_dims):
    # Outside jit the constraint is a placement (as in JAX; its layout is the default one
    # here: minijax places no Array in another layout)
    if any(e is UNCONSTRAINED for e in sharding.spec):
        return x
    return put(x, sharding, "with_sharding_constraint")


def _wsc_batching(args, dims, *, sharding, layout, unconstrained_dims, **params):
    # as JAX's (vmap without spmd_axis_name): the batch dimension is left unconstrained
    (x,), (d,) = args, dims
    spec = list(sharding.spec) + [None] * (x.ndim - 1 - len(sharding.spec))
    spec.insert(d, UNCONSTRAINED)
    if layout is not None:  # JAX's get_layout_for_vmap, as it is
        major_to_minor = [m + 1 for m in layout.major_to_minor]
        major_to_minor.insert(d, 0)
        layout = layout.update(major_to_minor=tuple(major_to_minor))
    return with_sharding_constraint_p.bind(
        x, sharding=NamedSharding(sharding.mesh, P(*spec)), layout=layout,
        unconstrained_dims=frozenset({d, *(u + (d <= u) for u in unconstrained_dims)}),
        **params), d


def _wsc_transpose(ct, x, **params):
    if type(ct) is ad.Zero:
        return [ct]
    return [with_sharding_constraint_p.bind(ct, **params)]


with_sharding_constraint_p = Primitive("sharding_constraint")
sharding_constraint_p = with_sharding_constraint_p  # JAX's public name for it
with_sharding_constraint_p.def_abstract_eval(_wsc_abstract_eval)
with_sharding_constraint_p.def_lowering(_wsc_lowering)
with_sharding_constraint_p.def_impl(_wsc_impl)
with_sharding_constraint_p.def_batching(_wsc_batching)
ad.deflinear(with_sharding_constraint_p, _wsc_transpose)
with_sharding_constraint_p.sharding_rule = lambda x, **params: x.parts()  # (asserted above)


# ------------------------------------------------------------------------------------------------
# device_put to another memory, staged (JAX's device_put primitive; minijax stages it only
# where a memory kind is named: its other placements are sharding constraints or nothing)


def put_in_memory(x, sharding):
    """The traced ``x`` moved to the memory of ``sharding`` (JAX's staged ``device_put``)."""
    (out,) = device_put_p.bind(x, devices=(sharding,), srcs=(None,),
                               copy_semantics=(backends._jax.ArrayCopySemantics.REUSE_INPUT,))
    return out


def _dp_lowering(ctx, *xs, devices, srcs, copy_semantics):
    outs = []
    for x, d, aval in zip(xs, devices, ctx.avals_in):
        if not moves_memory(d):
            # a placement in the default memory lowers to nothing (JAX's lowering), but on
            # Explicit axes the value is laid out as its new type says (as reshard's)
            if isinstance(d, NamedSharding) and AxisType.Explicit in d.mesh.axis_types:
                x = _reshard_lowering(ctx, x, dst_sharding=d, concrete_mesh=d.mesh)
            outs.append(x)
            continue
        if isinstance(d, NamedSharding):  # laid out as it says, as under JAX's GPU lowering
            mesh_name = ctx.module_ctx.mesh_symbol(d.mesh)
            x = sdy.ShardingConstraintOp(x, sdy_sharding_attr(d, aval.ndim, mesh_name)).result
        # JAX's CPU lowering is the identity (host and device memory are one there); on an
        # accelerator XLA moves the value where the annotation says, in a program that has
        # values in another memory than the default (else, as JAX's, nothing moves)
        if ctx.module_ctx.platform != "cpu" and ctx.module_ctx.memory_kinds:
            x = annotate_device_placement(x, put_memory_kind(d))
        outs.append(x)
    return outs


def moves_memory(target):
    """Whether a device_put target names a memory: a memory space, a sharding given a memory
    kind, or a single device's sharding (its default memory: a host value comes back)."""
    return isinstance(target, core.MemorySpace) or isinstance(target, Sharding) and (
        target._memory_kind is not None or isinstance(target, SingleDeviceSharding))


def put_memory_kind(target):
    """The memory kind a device_put's target names: a sharding's, or a memory space's (JAX's
    checkpoint offloading moves a value to a memory space, on the devices it is on)."""
    if isinstance(target, core.MemorySpace):
        return core.mem_space_to_kind(target)
    return target.memory_kind


def _dp_impl(*xs, devices, srcs, copy_semantics):
    return [_put(x, d) for x, d in zip(xs, devices)]


def _put(x, target):
    if target is None:
        return x
    if isinstance(target, core.MemorySpace):  # that memory, on the devices x is on
        target = x.sharding.with_memory_kind(put_memory_kind(target))
    elif hasattr(target, "platform"):  # a device
        target = SingleDeviceSharding(target)
    return put(x, target, "device_put")


def _dp_transpose(cts, *xs, devices, srcs, copy_semantics):
    # the cotangent goes back where the value came from (as JAX: copied, never reused)
    live = [i for i, (ct, x) in enumerate(zip(cts, xs))
            if ad.is_undefined_primal(x) and type(ct) is not ad.Zero]
    out = [ct if ad.is_undefined_primal(x) else None for ct, x in zip(cts, xs)]
    if live:
        copy = backends._jax.ArrayCopySemantics.ALWAYS_COPY
        moved = device_put_p.bind(*[cts[i] for i in live],
                                  devices=tuple(srcs[i] for i in live),
                                  srcs=tuple(devices[i] for i in live),
                                  copy_semantics=(copy,) * len(live))
        for i, ct in zip(live, moved):
            out[i] = ct
    return out


def _dp_abstract_eval(*avals, devices, srcs, copy_semantics):
    return [_dp_aval(a, d) for a, d in zip(avals, devices)]


def _dp_aval(aval, target):
    """JAX's ``update_dp_aval``: a sharding retypes the value (a NamedSharding over Explicit
    axes splits it, any other sharding drops the split); a value put in another memory has
    that memory's space in its type."""
    if type(aval) is not core.ShapedArray or target is None or hasattr(target, "platform"):
        return aval
    if isinstance(target, Sharding):
        explicit = core.explicit_of(target, aval.shape)
        if explicit != aval.explicit:
            aval = aval.update(explicit=explicit)
        if not moves_memory(target):
            return aval
    return aval.update(memory_space=core.mem_kind_to_space(put_memory_kind(target)))


device_put_p = Primitive("device_put", multiple_results=True)
device_put_p.def_abstract_eval(_dp_abstract_eval)
device_put_p.own_memory_space = True
device_put_p.def_lowering(_dp_lowering)
device_put_p.def_impl(_dp_impl)
device_put_p.sharding_rule = lambda *avals, **params: None  # _dp_aval types its results
device_put_p.def_batching(lambda args, dims, **params: (device_put_p.bind(*args, **params),
                                                       list(dims)))
ad.deflinear(device_put_p, _dp_transpose)


def with_sharding_constraint(x, shardings):
    """Asks XLA to lay out ``x`` (a pytree) as ``shardings`` (a pytree prefix of Shardings or
    PartitionSpecs; bare specs need ``set_mesh`` or ``with mesh:``) at this point of the program."""
    check_given(shardings, "shardings", allow_unconstrained=True)
    leaves, tree = _registry.flatten(x)
    per_leaf = broadcast_prefix(shardings, x, "with_sharding_constraint")
    outs = []
    for leaf, s in zip(leaves, per_leaf):
        layout = None
        if isinstance(s, Format):  # a layout with the sharding (flax's spmd passes one)
            layout, s = s.layout, s.sharding
            if isinstance(layout, Layout):
                _check_layout_rank(layout, np.shape(leaf))
            else:  # None or Layout.AUTO: the compiler chooses, as with no layout
                layout = None
        if s is None:
            raise ValueError(
                f"One of with_sharding_constraint arguments got sharding {s} which is not "
                "allowed. Please only pass `jax.sharding.Sharding` instances.")
        s = resolve(s, "with_sharding_constraint", legacy=True)
        if not isinstance(s, NamedSharding):
            raise TypeError(
                f"with_sharding_constraint needs a NamedSharding or PartitionSpec, got {s!r}"
            )
        if get_abstract_mesh().are_all_axes_explicit and layout is None:
            _assert_typed_as(core.get_aval(leaf), s)  # set_mesh's Explicit axes: an assert
            outs.append(leaf)
            continue
        _check_auto_only(s)
        outs.append(_constrain(leaf, s, layout))
    return tree.unflatten(outs)


def _check_layout_rank(layout, shape):
    """JAX's ``check_aval_layout_compatibility``."""
    if len(layout.major_to_minor) != len(shape):
        raise ValueError(
            "One of with_sharding_constraint arguments is incompatible with its layout "
            f"annotation {layout}: Length of major_to_minor and the rank of the value should "
            f"match. Got major_to_minor={layout.major_to_minor} and shape={tuple(shape)}")


def _constrain(x, sharding, layout=None):
    """The constraint equation laying ``x`` out as ``sharding`` (a NamedSharding) and, when
    given, ``layout``."""
    try:
        return with_sharding_constraint_p.bind(
            x, sharding=sharding, layout=layout, context_mesh=_context_mesh(),
            unconstrained_dims=frozenset(i for i, e in enumerate(sharding.spec)
                                         if e is UNCONSTRAINED))
    except ValueError as e:
        raise ValueError(with_user_line(str(e).split("\n(at ")[0])) from None


def _check_auto_only(sharding):
    """JAX's refusal of a constraint naming Explicit axes outside a set_mesh of them: the
    split of such a value is its type's, changed by reshard."""
    mesh = sharding.mesh
    types = dict(zip(mesh.axis_names, mesh.axis_types))
    if any(types[a] != AxisType.Auto for e in sharding.spec if e is not UNCONSTRAINED
           for a in _axes_of(e)):
        raise ValueError(with_user_line(
            "The spec of NamedSharding passed to with_sharding_constraint can only refer to "
            f"Auto axes of the mesh. Got spec={sharding.spec} and mesh={mesh.abstract_mesh}. "
            "You probably meant to use `reshard` API?"))


def _assert_typed_as(aval, sharding):
    """On a mesh of Explicit axes a constraint only asserts the value's type (as JAX's)."""
    have = P(*aval.parts())
    want = P(*(tuple(sharding.spec) + (None,) * (aval.ndim - len(sharding.spec))))
    if any(w is not UNCONSTRAINED and h != w for h, w in zip(have, want)):
        raise AssertionError(with_user_line(
            "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
            f"`Explicit`. The array sharding: {have} did not match the sharding provided: "
            f"{want}. Please use `jax.sharding.reshard` to shard your input to the sharding "
            "you want."))


_EMPTY_MESH = Mesh(np.empty((), dtype=object), ())


def _context_mesh():
    """JAX's ``context_mesh``: an abstract mesh set in context (a shard_map body's), else the
    ``set_mesh`` one, else the ``with mesh:`` one, else the empty Mesh."""
    mesh, abstract = current_mesh() or legacy_mesh(), get_abstract_mesh()
    if not abstract.empty and (mesh is None or abstract != mesh.abstract_mesh):
        return abstract
    return _EMPTY_MESH if mesh is None else mesh


def reshard(xs, out_shardings):
    """``xs`` (a pytree) laid out as ``out_shardings`` (a pytree prefix of Shardings or
    PartitionSpecs; bare specs need a mesh in context). Under a transformation, a value on a
    mesh with Explicit axes is retyped (the ``reshard`` primitive); on Auto axes this is
    ``with_sharding_constraint``. Outside, it is ``device_put``."""
    return _reshard(xs, out_shardings, _check_reshard_target)


def _reshard(xs, out_shardings, check):
    leaves, tree = _registry.flatten(xs)
    outs = []
    for leaf, s in zip(leaves, broadcast_prefix(out_shardings, xs, "reshard")):
        check(s)
        s = resolve(s, "reshard")
        if isinstance(s, NamedSharding) and AxisType.Explicit in s.mesh.axis_types:
            # as JAX: the spec fit to the rank (padded with None; a longer one loses its
            # trailing None entries), and the type checks the split (JAX's errors), eagerly too
            ndim = np.ndim(leaf)
            spec = fit_rank(s.spec, ndim)
            s = s.update(spec=P(*spec, *(None,) * (ndim - len(spec))))
            dst = NamedSharding(s.mesh.abstract_mesh, s.spec)
            core.explicit_of(dst, np.shape(leaf))
        if isinstance(leaf, core.Tracer):
            if isinstance(s, NamedSharding) and AxisType.Explicit in s.mesh.axis_types:
                outs.append(reshard_p.bind(
                    leaf, dst_sharding=dst,
                    concrete_mesh=s.mesh if isinstance(s.mesh, Mesh) else current_mesh()))
            else:  # Auto axes (explicit_axes' arguments too, whatever the context's types)
                outs.append(_constrain(leaf, s))
        else:
            outs.append(put(leaf, s, "reshard"))
    return tree.unflatten(outs)


# reshard[dst_sharding concrete_mesh]: the value retyped to the split ``dst_sharding`` gives
# over Explicit axes (JAX's reshard primitive; XLA moves the data where the split changes).
# JAX prints no params.


def _reshard_abstract_eval(x, *, dst_sharding, concrete_mesh):
    return x.update(explicit=core.explicit_of(dst_sharding, x.shape))


def _reshard_lowering(ctx, x, *, dst_sharding, concrete_mesh):
    mesh = concrete_mesh or current_mesh() or next(iter(ctx.module_ctx.meshes), None)
    if mesh is None:  # a program on one device: nothing to lay out
        return x
    sharding = NamedSharding(mesh, dst_sharding.spec)
    # Auto axes (auto_axes' body) leave the layout to Shardy: its dimensions stay open
    attr = sdy_sharding_attr(sharding, len(ctx.avals_in[0].shape),
                             ctx.module_ctx.mesh_symbol(mesh),
                             open_dims=AxisType.Auto in dst_sharding.mesh.axis_types)
    return sdy.ShardingConstraintOp(x, attr).result


def _reshard_impl(x, *, dst_sharding, concrete_mesh):
    mesh = concrete_mesh or current_mesh()
    types = dst_sharding.mesh.axis_types
    if mesh.axis_types != types:  # auto_axes' axes: the value is typed by the destination's
        mesh = Mesh(mesh.devices, mesh.axis_names, types)
    return put(x, NamedSharding(mesh, dst_sharding.spec), "reshard")


def _reshard_batching(args, dims, *, dst_sharding, concrete_mesh):
    (x,), (d,) = args, dims
    aval = core.get_aval(x)
    spec = list(dst_sharding.spec) + [None] * (aval.ndim - 1 - len(dst_sharding.spec))
    spec.insert(d, aval.parts()[d])  # the batch axis keeps its split (vmap over it)
    return reshard_p.bind(x, dst_sharding=NamedSharding(dst_sharding.mesh, P(*spec)),
                          concrete_mesh=concrete_mesh), d


def _reshard_transpose(ct, x, *, dst_sharding, concrete_mesh):
    """The cotangent goes back to the operand's split."""
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    return [reshard_p.bind(ct, dst_sharding=x.aval.sharding, concrete_mesh=concrete_mesh)]


reshard_p = Primitive("reshard")
reshard_p.def_abstract_eval(_reshard_abstract_eval)
reshard_p.def_lowering(_reshard_lowering)
reshard_p.def_impl(_reshard_impl)
reshard_p.def_batching(_reshard_batching)
reshard_p.sharding_rule = lambda x, *, dst_sharding, concrete_mesh: _given_parts(dst_sharding,
                                                                                  x.shape)
reshard_p.pp_params = lambda params: {}
ad.deflinear(reshard_p, _reshard_transpose)


def _given_parts(sharding, shape):
    explicit = core.explicit_of(sharding, shape)
    return (None,) * len(shape) if explicit is None else explicit[1]


def _check_reshard_target(sharding):
    """JAX's refusals of a reshard target (its ``canonicalize_sharding``): only a
    NamedSharding on a mesh or a PartitionSpec under one, naming no Auto or Manual axis."""
    _check_placement_target(sharding)
    if not isinstance(sharding, (NamedSharding, P)):
        raise TypeError(
            "`out_sharding` argument of reshard only supports instances of `NamedSharding` "
            f"or `PartitionSpec`. Got {sharding} of type: {type(sharding)}")
    spec = sharding if isinstance(sharding, P) else sharding.spec
    mesh = get_abstract_mesh() if isinstance(sharding, P) else sharding.mesh
    types = dict(zip(mesh.axis_names, mesh.axis_types))
    for name in (a for e in spec if e is not UNCONSTRAINED for a in _axes_of(e)):
        if types.get(name) in (AxisType.Auto, AxisType.Manual):
            raise ValueError(
                "PartitionSpec passed to reshard cannot contain axis names that are of type "
                f"Auto or Manual. Got PartitionSpec: {spec} with axis name: {name} of type: "
                f"{types[name]}. This error occurs at source:  {user_frame()}")


def _check_placement_target(sharding):
    """A placement needs a sharding, and a bare spec a mesh in context."""
    if sharding is None or (isinstance(sharding, NamedSharding) and sharding.mesh.empty):
        raise ValueError("Reshard should only be used with out_shardings which are non-None "
                         f"and have a non-empty mesh. Got sharding {sharding}.")
    _check_mesh_for(sharding)


def _check_mesh_for(sharding):
    """JAX's refusal of a bare PartitionSpec outside any mesh."""
    if isinstance(sharding, P) and current_mesh() is None and get_abstract_mesh().empty:
        raise ValueError(with_user_line(
            "Using PartitionSpec when you are not under a mesh context is not allowed. Please "
            "pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`. "
            f"Got {sharding}"))


def explicit_out_sharding(out_sharding, what="out_sharding", api_name=None):
    """An ``out_sharding=`` keyword as the sharding type a primitive takes as its param: a
    NamedSharding over the abstract mesh when its mesh has Explicit axes, else None (then
    the result is laid out with ``lay_out``). With ``api_name`` (a lax op's keyword), only a
    NamedSharding or a PartitionSpec is taken, as JAX's ``canonicalize_sharding``."""
    if out_sharding is None:
        return None
    if api_name is not None and not isinstance(out_sharding, (NamedSharding, P)):
        raise TypeError(
            f"`out_sharding` argument of {api_name} only supports instances of `NamedSharding` "
            f"or `PartitionSpec`. Got {out_sharding} of type: {type(out_sharding)}")
    if not isinstance(out_sharding, NamedSharding):
        _check_mesh_for(out_sharding)
        out_sharding = resolve(out_sharding, what)
    if not isinstance(out_sharding, NamedSharding) or (
            AxisType.Explicit not in out_sharding.mesh.axis_types):
        return None
    return NamedSharding(out_sharding.mesh.abstract_mesh, out_sharding.spec)


def lay_out(x, out_sharding):
    """An op's result ``x`` laid out as its ``out_sharding=`` keyword asks: None, or a
    NamedSharding over the empty mesh (what ``get_abstract_mesh()`` gives outside any mesh,
    as flax passes it), leaves the layout to XLA, as in JAX; anything else is ``reshard``."""
    if out_sharding is None or (isinstance(out_sharding, NamedSharding)
                                and out_sharding.mesh.empty):
        return x
    # minijax takes Auto axes here too, laid out as asked (JAX 0.10.2 refuses them:
    # "PartitionSpec passed to uniform cannot contain axis names that are of type Auto ...")
    return _reshard(x, out_sharding, _check_placement_target)
