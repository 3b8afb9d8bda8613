"""``shard_map``: manual SPMD. ``f`` runs once per device on that device's block of each
argument, and may talk to the other devices with collectives over the mesh axes.

``shard_map(f, mesh=, in_specs=, out_specs=, axis_names=)(*args)`` (JAX 0.10's signature;
``experimental/shard_map.py`` has the deprecated positional one) binds one ``shard_map``
primitive holding ``f``'s jaxpr, traced on *per-shard* types (each dimension divided by the
manual mesh axes its spec names) with those axes bound as named axes (so ``psum(x, 'x')``
resolves ``'x'``). The mesh defaults to the one in context (``set_mesh``; inside a body, the
enclosing shard_map's, whose ``get_abstract_mesh()`` types its manual axes ``Manual``). Its
rules:

- Lowering: ``sdy.manual_computation`` over the axes it makes manual
  (``newly_manual_axes``), whose in/out shardings are the specs; the body is lowered inline
  with the mesh recorded on the module context, which turns the collectives into real
  StableHLO collectives (``minijax/lowering/collectives.py``). XLA's Shardy partitioner then
  moves data between the global program and the manual region. A shard_map inside a body,
  over axes still automatic there, is a manual computation nested in the outer one (Shardy
  nests regions over disjoint axes); its body is manual over both.
- Eager: the body traced, then run one equation at a time, each a small compiled shard_map
  (a manual region only exists inside a program), as JAX runs an eager shard_map op by op: a
  jitted call (a jnp function's) stays one equation, typed by its jaxpr; a constant operand
  is an argument of its equation's program; a debug callback runs on the host device by
  device in the mesh's order.
- JVP: a ``shard_map`` of the body's JVP; tangents use their primals' specs.
- Partial evaluation (linearize, so ``grad``): the body's equations whose inputs are all known
  run now as one ``shard_map``; the rest is staged as another one. Values the staged part
  needs (residuals) leave the known part stacked along a new leading axis split over every
  axis it makes manual (one slot per device), so no device's value is lost or assumed
  replicated.
- Transpose: a ``shard_map`` of the body's transpose. With check_vma the body's types already
  place the sums (pvary transposes to psum, psum to pvary), as in JAX. Without it, the old
  convention (the one psum's own transpose, psum, assumes): the cotangent of an output
  replicated over axes the out spec does not name is divided by their size (the copies share
  the cotangent), and the cotangent of an input replicated over unnamed axes is psum'd.
- Batching: a ``shard_map`` of the body batched along a new leading axis that no mesh axis
  splits.

Axes not in ``axis_names`` stay automatic: the body's shapes, collectives, replication checks
and residual slots refer to the manual ones only (``_ManualAxes``); the manual computation's
shardings stay open, so Shardy shards the body's work over the automatic axes.

``check_vma`` (default True) types the body's values with the manual axes they vary over
(``ShapedArray.vma``, printed ``f32[2]{V:x}``; nested, the outer body's axes too), as JAX 0.10
does: a replicated value meeting a varying one is cast by ``pvary``, whose transpose is a psum,
and an output whose out spec omits an axis it varies over is an error (Shardy would silently
keep one device's copy). ``check_vma=False`` types nothing and checks nothing.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
import typing

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from minijax import core, dtypes, lax
from minijax.config import config_context
from minijax.core import ClosedJaxpr, Primitive, get_aval
from minijax.callbacks import debug_callback_p
from minijax.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from minijax.interpreters import ad, batching
from minijax.interpreters.ad import UndefinedPrimal, Zero
from minijax.interpreters.batching import batch_open
from minijax.interpreters.partial_eval import (
    dce_jaxpr_used,
    dce_rules,
    hoist_consts,
    partial_eval_jaxpr,
    trace_open,
)
from minijax.lax.control_flow.common import keep
from minijax.lax.convert import convert_element_type_p
from minijax.caches import BoundedCache
from minijax.interpreters.structure import structure_key
from minijax.jitting import jit
from minijax.lowering.stablehlo import ir_constant, lower_jaxpr_body, tensor_type
from minijax.sharding_types import (
    AbstractMesh,
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    _axes_of,
    current_mesh,
    get_abstract_mesh,
    put,
    sdy_sharding_attr,
    use_abstract_mesh,
)
from minijax.source_info import with_user_line
from minijax.tree_util import _registry, keystr, tree_flatten_with_path
from minijax.lax import sharding_rules

__all__ = ["shard_map", "shard_map_p"]

P = PartitionSpec


# ------------------------------------------------------------------------------------------------
# Specs and shapes


def _spec_axes(spec):
    return [a for entry in spec for a in _axes_of(entry)]


def _factor(mesh, spec, ndim):
    """Per dimension, how many ways ``spec`` splits it."""
    spec = tuple(spec) + (None,) * (ndim - len(spec))
    return [math.prod(mesh.shape[a] for a in _axes_of(e)) for e in spec]


def _local_aval(mesh, spec, aval, what):
    if len(spec) > aval.ndim:
        raise ValueError(with_user_line(
            f"shard_map: {what} has PartitionSpec {spec} with {len(spec)} entries but rank "
            f"{aval.ndim} ({aval.str_short(True)})"))
    shape = []
    for dim, (n, k) in enumerate(zip(aval.shape, _factor(mesh, spec, aval.ndim))):
        if n % k:
            axes = _axes_of(spec[dim])
            names = " x ".join(f"{a!r} (size {mesh.shape[a]})" for a in axes)
            raise ValueError(with_user_line(
                f"shard_map: {what} of shape {aval.shape}: dimension {dim} has size {n}, which "
                f"is not divisible by mesh axis {names}"))
        shape.append(n // k)
    return aval.update(shape=tuple(shape), explicit=_split_without(aval, mesh.axis_names))


def _split_without(aval, names, add=None, add_mesh=None):
    """``aval``'s split over Explicit mesh axes without the axes ``names`` (manual in a
    shard_map body, so in no type there), with the partitions ``add`` (over ``add_mesh``)
    merged in."""
    ex = aval.explicit
    if ex is None and add is None:
        return None
    parts = [tuple(n for n in _axes_of(p) if n not in names) for p in aval.parts()]
    if add is not None:
        parts = [a + tuple(_axes_of(b)) for a, b in zip(parts, add)]
    parts = tuple(None if not p else p[0] if len(p) == 1 else p for p in parts)
    if all(p is None for p in parts):
        return None
    return (ex[0] if ex is not None else add_mesh), parts


def _global_aval(mesh, spec, aval, outer_mesh=None):
    """A body value's type outside: its dimensions gathered over ``spec``'s manual axes,
    split over those of them the outer mesh has as Explicit axes (JAX's out type)."""
    k = _factor(mesh, spec, aval.ndim)
    shape = tuple(n * f for n, f in zip(aval.shape, k))
    if outer_mesh is None or AxisType.Explicit not in outer_mesh.axis_types:
        return aval.update(shape=shape)
    explicit = {n for n, t in zip(outer_mesh.axis_names, outer_mesh.axis_types)
                if t == AxisType.Explicit}
    entries = tuple(spec) + (None,) * (aval.ndim - len(spec))
    add = [tuple(n for n in _axes_of(e) if n in explicit) or None for e in entries]
    return aval.update(shape=shape,
                       explicit=_split_without(aval, (), add, outer_mesh.abstract_mesh))


def _unmentioned(mesh, spec):
    used = set(_spec_axes(spec))
    return tuple(a for a in mesh.axis_names if a not in used)


class _ManualAxes(typing.NamedTuple):
    """The mesh axes a shard_map body is manual over (all but ``auto``), with their sizes: what
    the body's shapes, collectives, replication checks and residual slots refer to."""

    axis_names: tuple
    shape: dict


def _manual_axes(mesh, manual):
    names = tuple(a for a in mesh.axis_names if a in manual)
    return _ManualAxes(names, {a: mesh.shape[a] for a in names})


def _manual(params):
    return _manual_axes(params["mesh"], params["newly_manual_axes"])


def _all_axes_spec(mesh):
    """A leading dimension split over every mesh axis: one slot per device."""
    return P(tuple(mesh.axis_names))


def _axis_env(mesh):
    return batching.extend_axis_env(list(mesh.shape.items()))


def _vma_env(mesh, check):
    """With ``check`` (check_vma), values know which of the manual axes they vary over: these
    and those of the shard_maps around this one."""
    return core.check_vma(core.vma_axes() | frozenset(mesh.axis_names) if check else ())


def _trace_body(mesh, fun, local_avals, check=False):
    """``(jaxpr, consts)``: ``fun`` staged on per-shard avals with the mesh axes bound (and,
    with ``check``, typed with the manual axes they vary over)."""
    with _axis_env(mesh), _vma_env(mesh, check):
        return trace_open(fun, local_avals)


# ------------------------------------------------------------------------------------------------
# The user-facing function


class InferFromArgs:
    """``in_specs``' default: the specs are read from the arguments' shardings, which JAX
    allows only when every manual axis is ``Explicit``."""

    def __repr__(self):
        return "jax.sharding.Infer"

    def __reduce__(self):
        return (_get_infer, ())


Infer = InferFromArgs()


def _get_infer():
    return Infer


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """Maps ``f`` over the shards of its arguments on ``mesh`` (default: the mesh in context,
    ``set_mesh``; inside a shard_map body, the enclosing one's): each device runs ``f`` on its
    block (``in_specs``, a pytree prefix of PartitionSpecs for the positional arguments; a
    ``None`` leaf passes its arguments to ``f`` as they are) and the per-device results are
    assembled as ``out_specs`` say. Inside ``f``, collectives (``lax.psum`` ...) over the mesh
    axis names communicate between devices. Without ``f``, a decorator.

    ``axis_names``: the mesh axes ``f`` is manual over (default: all); the others stay
    automatic: specs may not name them, and XLA's partitioner shards the body's work over them
    as it does outside. Inside a body, a shard_map over the axes still automatic nests.

    ``check_vma``: values in the body are typed with the manual axes they vary over
    (``typeof(x).manual_axis_type``); a replicated value meeting a varying one is cast with
    ``pvary``, so the gradient w.r.t. a replicated input arrives already summed over the
    devices, and an output whose out spec omits an axis it varies over is an error."""
    kwargs = dict(mesh=mesh, in_specs=in_specs, out_specs=out_specs, axis_names=axis_names,
                  check_vma=check_vma)
    if f is None:
        return lambda g: _shard_map(g, **kwargs)
    return _shard_map(f, **kwargs)


class _Body(typing.NamedTuple):
    """A shard_map body being traced: its mesh and every axis manual in it (the enclosing
    bodies' too); what a shard_map nested in it takes as its context."""

    mesh: Mesh
    manual: frozenset


_BODIES = threading.local()


def _enclosing_body():
    stack = getattr(_BODIES, "stack", None)
    return stack[-1] if stack else None


@contextlib.contextmanager
def _in_body(mesh, manual):
    """While ``f`` is traced: the enclosing body for nested shard_maps, and the abstract mesh
    in context with the manual axes typed ``Manual``, as JAX's ``get_abstract_mesh()``."""
    stack = getattr(_BODIES, "stack", None)
    if stack is None:
        stack = _BODIES.stack = []
    stack.append(_Body(mesh, manual))
    types = [AxisType.Manual if a in manual else t
             for a, t in zip(mesh.axis_names, mesh.axis_types)]
    try:
        with use_abstract_mesh(AbstractMesh(mesh.axis_sizes, mesh.axis_names, types)):
            yield
    finally:
        stack.pop()


_EMPTY = AbstractMesh((), ())


def _resolve_mesh(mesh):
    """The concrete Mesh a call runs on: ``mesh``, else the context's (JAX's checks; an
    explicit mesh is checked against the context inside a body only)."""
    body = _enclosing_body()
    ctx = get_abstract_mesh() if body is not None else _EMPTY
    if mesh is None:
        mesh = body.mesh if body is not None else current_mesh()
        if mesh is None:
            raise ValueError("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to "
                             "enter into a mesh context")
        return mesh
    if isinstance(mesh, (Mesh, AbstractMesh)) and not ctx.empty and mesh.abstract_mesh != ctx:
        raise ValueError(f"The context mesh {ctx} should match the mesh passed to shard_map "
                         f"{mesh}")
    if not isinstance(mesh, (Mesh, AbstractMesh)):
        raise TypeError("shard_map requires a `jax.sharding.Mesh` or a "
                        "`jax.sharding.AbstractMesh` instance for its second argument, but got "
                        f"{mesh} of type {type(mesh)}.")
    if isinstance(mesh, AbstractMesh):
        # minijax lowers onto the concrete mesh in context of the same axes
        concrete = body.mesh if body is not None else current_mesh()
        if concrete is None or concrete.abstract_mesh.shape != mesh.shape:
            raise ValueError("Please pass `jax.Array`s with a `NamedSharding` as input to "
                             "`shard_map` when passing `AbstractMesh` to the mesh argument.")
        return concrete
    return mesh


def _manual_of(mesh, axis_names):
    """``axis_names`` checked as JAX does; empty is every mesh axis."""
    if mesh.empty:
        raise ValueError(f"shard_map requires a non-empty mesh. Got {mesh}")
    if not isinstance(axis_names, (frozenset, set)):
        raise TypeError("`axis_names` argument of shard_map should be of type `frozenset` or "
                        f"`set`. Got type: {type(axis_names)}")
    axis_names = frozenset(axis_names) or frozenset(mesh.axis_names)
    if not axis_names <= frozenset(mesh.axis_names):
        raise ValueError(f"jax.shard_map requires axis_names={axis_names} to be a subset of "
                         f"mesh.axis_names={frozenset(mesh.axis_names)}")
    return axis_names


def _check_specs(specs, manual, what):
    """JAX's errors for a spec tree whose leaves are not PartitionSpecs, or that names an axis
    that is not manual here."""
    paths = tree_flatten_with_path(specs, is_leaf=_is_spec)[0]
    leaves = [x for _, x in paths]
    bad = [(k, x) for k, x in paths if not isinstance(x, PartitionSpec)]
    if bad:
        msgs = "\n\n".join(f"  {what}_specs{keystr(k)} is {x} of type {type(x).__name__}, "
                             for k, x in bad)
        raise TypeError(f"shard_map {what}_specs argument must be a pytree of "
                        f"`jax.sharding.PartitionSpec` instances, but:\n\n{msgs}\n\n"
                        f"Check the {what}_specs values passed to shard_map.")
    named = [a for p in leaves for a in _spec_axes(p) if a not in manual]
    if named:
        msgs = "\n\n".join(f"  {what}_specs refers to {a!r}" for a in named)
        raise ValueError(f"shard_map {what}_specs argument must refer to an axis marked as "
                         f"manual ({manual}), but:\n\n{msgs}\n\n"
                         f"Check the {what}_specs values passed to shard_map.")


def _inferred_spec(x, mesh, manual):
    """The in spec ``Infer`` reads off an argument: its NamedSharding's spec over ``mesh``,
    keeping the manual axes (JAX's ``_manual_spec``); replicated for an unsharded Array."""
    if isinstance(x, core.Tracer):  # its type says how it is split
        aval = get_aval(x)
        sharding = aval.sharding if getattr(aval, "explicit", None) is not None else None
        if sharding is None:
            return P()
        mesh = mesh.abstract_mesh
    else:
        sharding = getattr(x, "sharding", None)
    if not isinstance(sharding, NamedSharding) or sharding.mesh != mesh:
        return P()
    out = []
    for entry in sharding.spec:
        if entry is None or isinstance(entry, str):
            out.append(entry if entry in manual else None)
            continue
        kept = [a if a in manual else None for a in entry]
        while kept and kept[-1] is None:
            kept.pop()
        if None in kept:
            raise ValueError(f"Invalid spec: {sharding.spec}")
        out.append(tuple(kept) or None)
    return P(*out)


def _check_specs_match_types(leaves, specs):
    """JAX's refusal of in_specs that differ from the split in an argument's type, when the
    body is manual over every axis of an all-Explicit mesh (shard_map reshards nothing)."""
    for x, spec in zip(leaves, specs):
        if spec is None:
            continue
        aval = get_aval(x)
        want = P(*spec, *(None,) * (len(aval.shape) - len(spec)))
        have = P(*aval.parts())
        if tuple(have) != tuple(want):  # entry by entry: P('x') == P('x', None) as specs
            raise ValueError(
                f"in_specs passed to shard_map: {want} does not match the specs of the input: "
                f"{have} for arg: {aval}. `in_specs` is an optional argument so "
                "you can omit specifying it and shard_map will infer the in_specs from the "
                "arguments. If you want to reshard your inputs, you can use `jax.reshard` on "
                "the arguments and then pass those args to shard_map.")


def _shard_map(f, *, mesh, in_specs, out_specs, axis_names, check_vma):
    if not callable(f):
        raise TypeError("shard_map requires a callable for its first argument, but got "
                        f"{f} of type {type(f)}.")
    check = bool(check_vma)

    @functools.wraps(f)
    def wrapped(*args):
        m = _resolve_mesh(mesh)
        names = _manual_of(m, axis_names)
        body = _enclosing_body()
        outer = body.manual if body is not None and body.mesh == m else frozenset()
        newly = names - outer
        leaves, in_tree = _registry.flatten(args)
        inferred = None
        if in_specs is Infer:
            if not all(t == AxisType.Explicit for a, t in zip(m.axis_names, m.axis_types)
                       if a in names):
                types = ", ".join(f"AxisType.{t.name}"
                                  for a, t in zip(m.axis_names, m.axis_types) if a in names)
                raise TypeError("shard_map in_specs argument must be a pytree of "
                                "`jax.sharding.PartitionSpec` instances, but it was `None` "
                                f"when axis_names={names} are of type {types}")
            inferred = tuple(_inferred_spec(x, m, newly) for x in leaves)
        elif in_specs is not None:
            _check_specs(in_specs, newly, "in")
        _check_specs(out_specs, newly, "out")
        in_leaf_specs = leaf_specs(inferred, args)
        if inferred is None and newly == set(m.axis_names) and all(
                t == AxisType.Explicit for t in m.axis_types):
            _check_specs_match_types(leaves, in_leaf_specs)
        if not core.is_eval_trace_current():
            return staged(m, newly, in_leaf_specs, in_tree, leaves)
        # Eagerly: the primitive bound now runs its body equation by equation (``_impl``).
        with _eager_body():
            return staged(m, newly, in_leaf_specs, in_tree, leaves)

    def leaf_specs(inferred, args):
        """One spec per argument leaf; None: a static one."""
        if inferred is not None:
            return list(inferred)
        if in_specs is None:
            return [None] * len(_registry.flatten(args)[0])
        return _specs_for(in_specs, args, "in_specs", none_is_leaf=True)

    def staged(m, newly, in_leaf_specs, in_tree, leaves):
        """The shard_map primitive bound on the argument ``leaves`` (traced here)."""
        body = _enclosing_body()
        outer = body.manual if body is not None and body.mesh == m else frozenset()
        manual = _manual_axes(m, newly)
        dynamic = [s is not None for s in in_leaf_specs]
        dyn_leaves = [x for x, d in zip(leaves, dynamic) if d]
        dyn_specs = [s for s in in_leaf_specs if s is not None]
        avals = [get_aval(x) for x in dyn_leaves]
        paths = [f"argument {i}" for i, d in enumerate(dynamic) if d]
        local = [_local_aval(manual, s, a, p) for s, a, p in zip(dyn_specs, avals, paths)]
        if check:
            local = [a.update(vma=frozenset(a.vma) | frozenset(_spec_axes(s)))
                     for a, s in zip(local, dyn_specs)]
        out_trees, failed = [], []
        eager = core.is_eval_trace_current()  # this shard_map runs now (``_impl``)
        if eager and not check and dyn_leaves:  # before the body runs, as in JAX
            _check_eager_unchecked(m, newly)

        def flat_fun(*xs):
            it_dyn, it_static = iter(xs), iter([x for x, d in zip(leaves, dynamic) if not d])
            full = [next(it_dyn) if d else next(it_static) for d in dynamic]
            if eager:  # JAX runs this body op by op: its jitted calls stay calls (pjit.py)
                core.current_trace().runs_eagerly = True
            try:
                with _in_body(m, outer | newly):
                    out = f(*in_tree.unflatten(full))
            except Exception:
                if eager:  # the body traced so far, to run before the error is raised
                    failed.append(_traced_so_far(core.current_trace(), xs))
                raise
            out_leaves, out_tree = _registry.flatten(out)
            out_trees.append(out_tree)  # not ``out``: the body's tracers must not outlive it
            return out_leaves

        try:
            jaxpr, consts = _trace_body(manual, flat_fun, local, check)
        except Exception:
            if failed:
                # JAX runs an eager body op by op as it is traced: the ops before the one that
                # failed to trace ran, and their errors (a lowering's) come first
                part, part_consts = failed[0]
                try:
                    _impl(*part_consts, *dyn_leaves, jaxpr=part, mesh=m,
                          in_specs=tuple([P()] * len(part_consts) + dyn_specs), out_specs=(),
                          check_vma=check, newly_manual_axes=newly)
                except Exception as earlier:
                    raise earlier from None  # JAX's error, not one raised handling the other
            raise
        out_tree = out_trees[0]
        out_example = out_tree.unflatten(range(out_tree.num_leaves))  # the structure only
        out_leaf_specs = _specs_for(out_specs, out_example, "out_specs")
        in_all = tuple([P()] * len(consts) + dyn_specs)
        _check_out_ranks(f, out_example, out_leaf_specs, [v.aval for v in jaxpr.outvars])
        if check:
            _check_vma(manual, jaxpr, out_leaf_specs, f)
        params = dict(jaxpr=jaxpr, mesh=m, in_specs=in_all, out_specs=tuple(out_leaf_specs),
                      check_vma=check, newly_manual_axes=newly)
        outs = shard_map_p.bind(*consts, *dyn_leaves, **params)
        return out_tree.unflatten(outs)

    return wrapped


_EAGER = threading.local()


@contextlib.contextmanager
def _eager_body():
    prev = getattr(_EAGER, "on", False)
    _EAGER.on = True
    try:
        yield
    finally:
        _EAGER.on = prev


def _traced_so_far(trace, in_tracers):
    """``(jaxpr, consts)``: the equations ``trace`` (a body's) holds, without outputs."""
    jaxpr = core.Jaxpr([], [v for _, v in trace.consts] + [t.val for t in in_tracers], [],
                       list(trace.eqns))
    return jaxpr, [x for x, _ in trace.consts]


def in_eager_body():
    """Whether a shard_map called eagerly is tracing its body here. JAX runs such a body op by
    op, and some ops refuse that (device_put to an explicit device); minijax traces the body
    first, so this says when to refuse them as JAX does."""
    return getattr(_EAGER, "on", False)


def _is_spec(x):
    # None inside a spec tree is an empty subtree (it matches a None output), as in JAX.
    return isinstance(x, PartitionSpec)


def _specs_for(prefix, tree, what, none_is_leaf=False):
    """One PartitionSpec per leaf of ``tree`` from the pytree prefix ``prefix``; with
    ``none_is_leaf`` (in_specs) a None in ``prefix`` is a leaf too (static arguments)."""
    if isinstance(prefix, PartitionSpec):
        return [prefix] * len(_registry.flatten(tree)[0])
    leaf = (lambda x: x is None or _is_spec(x)) if none_is_leaf else _is_spec
    pleaves, ptree = _registry.flatten(prefix, leaf_predicate=leaf)
    try:
        subtrees = ptree.flatten_up_to(tree)
    except (ValueError, TypeError) as e:
        raise ValueError(with_user_line(
            f"shard_map {what} {prefix!r} is not a pytree prefix of the "
            f"{'arguments' if what == 'in_specs' else 'outputs'}: {e}")) from None
    out = []
    for p, sub in zip(pleaves, subtrees):
        out.extend([p] * len(_registry.flatten(sub)[0]))
    return out


# ------------------------------------------------------------------------------------------------
# check_vma: an output must not vary over a mesh axis its out spec omits


def _check_out_ranks(f, out_example, specs, avals):
    """JAX's error for an out spec with more entries than its output has dimensions (the
    function named only then: a callable object's repr may not print mid-trace, flax's)."""
    paths = [keystr(p) for p, _ in tree_flatten_with_path(out_example)[0]]
    for path, spec, aval in zip(paths, specs, avals):
        if len(spec) > aval.ndim:
            name = getattr(f, "__name__", repr(f))
            shape = f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"
            raise ValueError(with_user_line(
                f"shard_map applied to the function {name!r} was given an out_specs entry which "
                "is too long to be compatible with the corresponding output value from the "
                f"function:\n\nout_specs{path} is {spec} which has length {len(spec)}, but "
                f"{name}(*args){path} has shape {shape}, which has rank {aval.ndim} (and "
                f"{aval.ndim} < {len(spec)})\n\nEntries in out_specs must be of length no "
                "greater than the number of axes in the corresponding output value.\n\nEither "
                f"revise the spec to be shorter, or modify {name!r} so that its outputs have "
                "sufficient rank."))


def _check_vma(mesh, jaxpr, out_specs, f):
    for i, (spec, v) in enumerate(zip(out_specs, jaxpr.outvars)):
        missing = [a for a in _unmentioned(mesh, spec) if a in v.aval.vma]
        if missing:
            name = getattr(f, "__name__", repr(f))
            raise ValueError(with_user_line(
                f"shard_map applied to the function {name!r} was given out_specs which require "
                f"replication which can't be statically inferred given the mesh: output {i} "
                f"has type {v.aval.str_short(True)}, which varies over mesh axis {missing[0]!r}, "
                f"but its out spec {spec} does not name {missing[0]!r}, which implies it is "
                f"the same on every device along {missing[0]!r}. Name {missing[0]!r} in the out "
                f"spec, make the value replicated over it (e.g. with lax.psum), or pass "
                f"check_vma=False to shard_map."))


# ------------------------------------------------------------------------------------------------
# The primitive


shard_map_p = Primitive("shard_map", multiple_results=True)


def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    # Global over this shard_map's axes; nested in another, a result varies over the outer
    # manual axes its body's output does (without check_vma: over all of them).
    manual = _manual_axes(mesh, newly_manual_axes)
    outer = core.vma_axes()
    return [_global_aval(manual, s, v.aval, mesh).update(
                vma=(frozenset(v.aval.vma) if check_vma else outer) - newly_manual_axes)
            for s, v in zip(out_specs, jaxpr.outvars)]


shard_map_p.def_abstract_eval(_abstract_eval)
shard_map_p.own_vma = True  # its operands keep their types (the specs say how they split)
shard_map_p.own_memory_space = True  # its results are its body's
shard_map_p.axis_names_of = lambda params: ()  # binds its axes; uses none from outside


class _PrintedSpec:
    """A spec as a JAX jaxpr prints it: ``P('i',)``."""

    __slots__ = ("spec",)

    def __init__(self, spec):
        self.spec = spec

    def __str__(self):
        entries = ", ".join(map(repr, self.spec))
        return f"P({entries},)" if len(self.spec) == 1 else f"P({entries})"


shard_map_p.pp_params = lambda p: dict(
    check_vma=p["check_vma"], in_specs=tuple(map(_PrintedSpec, p["in_specs"])),
    jaxpr=p["jaxpr"], mesh=p["mesh"], newly_manual_axes=p["newly_manual_axes"],
    out_specs=tuple(map(_PrintedSpec, p["out_specs"])))

# ------------------------------------------------------------------------------------------------
# Eager evaluation: equation by equation, as JAX's


@shard_map_p.def_impl
def _impl(*args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    """Eagerly, as JAX 0.10.2 runs a shard_map: the body one equation at a time, each equation
    compiled on its own over the mesh, so its intermediates round as JAX's do (float16
    ``x * x + sin(x)`` compiled whole rounds once; JAX rounds each op). Between equations a
    per-device value is a global array stacked over the manual axes: one leading dimension
    per axis, split over it."""
    # the checks tracing does on the way (an out spec longer than its value's rank ...)
    _abstract_eval(*map(get_aval, args), jaxpr=jaxpr, mesh=mesh, in_specs=in_specs,
                   out_specs=out_specs, check_vma=check_vma,
                   newly_manual_axes=newly_manual_axes)
    if not check_vma and (args or any(type(v) is core.Literal for e in jaxpr.eqns
                                      for v in e.invars)):
        _check_eager_unchecked(mesh, newly_manual_axes)
    axes = tuple(a for a in mesh.axis_names if a in newly_manual_axes)
    # Even under disable_jit: these jits are what running the body eagerly means.
    with config_context("jax_disable_jit", False):
        blocks = [_converter(mesh, axes, spec, into_blocks=True)(x)
                  for x, spec in zip(args, in_specs)]
        outs = _run_eqns(mesh, axes, jaxpr, blocks)
        return [_converter(mesh, axes, spec, into_blocks=False)(x)
                for x, spec in zip(outs, out_specs)]


def _check_eager_unchecked(mesh, manual):
    """JAX 0.10.2 runs an eager shard_map with ``check_vma=False`` only when every mesh axis is
    manual: it moves each argument (and each constant the body binds) into its blocks with a
    shard_map whose out spec names every mesh axis (``_unmatch``), and that one's out_specs
    check refuses the axes left automatic, as this ValueError (under grad and vmap too)."""
    if manual != frozenset(mesh.axis_names):
        _check_specs(P(tuple(mesh.axis_names)), manual, "out")


def _run_eqns(mesh, axes, jaxpr, blocks):
    """``jaxpr``'s outputs from its inputs' stacked ``blocks``, one program per equation. A
    custom_jvp/custom_vjp function's body runs op by op too, as in JAX's ShardMapTrace (a jit
    or a loop is one program there, as here)."""
    env = dict(zip(jaxpr.invars, blocks))

    def read(v):
        if type(v) is core.Literal:  # a constant operand of a body run op by op, or an output
            val = np.asarray(core.literal_value(v))
            return np.broadcast_to(val, tuple(mesh.shape[a] for a in axes) + val.shape)
        return env[v]

    for eqn in jaxpr.eqns:
        if eqn.primitive in (custom_jvp_call_p, custom_vjp_call_p):
            outs = _run_eqns(mesh, axes, eqn.params["call_jaxpr"], [read(v) for v in eqn.invars])
        elif eqn.primitive is debug_callback_p:
            # JAX's eager rule (debug.print's too): the callback runs on the host once per
            # device, in the mesh's order, on that device's blocks; a program would call it
            # from each device's thread in any order
            blocks = [np.asarray(read(v)).reshape(-1, *v.aval.shape) for v in eqn.invars]
            for per_device in zip(*blocks):
                eqn.params["callback"].fn(*per_device)
            outs = []
        else:
            if any(map(_passed_constant, eqn.invars)):
                # JAX's ShardMapTrace makes a constant operand (a Python scalar) a device array
                # before the op runs (``_unmatch_spec``): an argument of the op's program, not a
                # constant XLA folds into it (a bfloat16 pow's NaN sign differs, s33005-293)
                invars = [core.Var(v.aval) if _passed_constant(v) else v for v in eqn.invars]
                env.update((w, _constant_blocks(mesh, axes, v))
                           for v, w in zip(eqn.invars, invars) if w is not v)
                eqn = core.JaxprEqn(eqn.primitive, invars, eqn.outvars, eqn.params,
                                    eqn.source_info)
            operands = list(dict.fromkeys(v for v in eqn.invars if type(v) is not core.Literal))
            outs = _eqn_program(mesh, axes, eqn, operands)(*[env[v] for v in operands])
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


def _passed_constant(v):
    """Whether ``v`` is a constant operand passed to its equation's program as an argument: a
    number (a float0 tangent's zeros can not be transferred, and JAX's are symbolic)."""
    return (type(v) is core.Literal and isinstance(v.aval.dtype, np.dtype)
            and v.aval.dtype != dtypes.float0)


def _constant_blocks(mesh, axes, literal):
    """A constant operand's stacked blocks, placed as the programs take blocks (on an Explicit
    mesh a program's argument types must say how they are split)."""
    val = np.asarray(core.literal_value(literal), literal.aval.dtype)
    blocks = np.broadcast_to(val, tuple(mesh.shape[a] for a in axes) + val.shape)
    return put(blocks, NamedSharding(mesh, _blocks_spec(axes)))


_eager_programs = BoundedCache(1024)


def _blocks_spec(axes):
    return P(*axes)


def _stack(x, k):
    return lax.reshape(x, (1,) * k + tuple(x.shape))


def _unstack(x, k):
    return lax.reshape(x, tuple(x.shape[k:]))


def _converter(mesh, axes, spec, into_blocks):
    """The program taking a global value with ``spec`` to its stacked per-device blocks, or
    back."""
    key = ("blocks" if into_blocks else "global", mesh, axes, spec)
    program = _eager_programs.get(key)
    if program is None:
        k, blocks = len(axes), _blocks_spec(axes)
        if into_blocks:
            body, i, o = (lambda x: _stack(x, k)), spec, blocks
        else:
            body, i, o = (lambda b: _unstack(b, k)), blocks, spec
        program = _eager_programs.put(key, jit(shard_map(
            body, mesh=mesh, in_specs=(i,), out_specs=o, axis_names=set(axes),
            check_vma=False)))
    return program


def _eqn_program(mesh, axes, eqn, operands):
    """``eqn`` alone as a program over the mesh, on the stacked blocks of its ``operands``.
    The body was type-checked when it was traced: its equations run unchecked here, so an
    operand's blocks may be typed varying over every manual axis."""
    key = structure_key(core.Jaxpr([], operands, eqn.outvars, [eqn]))
    key = None if key is None else (mesh, axes, key)
    program = _eager_programs.get(key)
    if program is None:
        k, blocks = len(axes), _blocks_spec(axes)

        def body(*bs):
            vals = dict(zip(operands, bs))
            ins = [core.literal_value(v) if type(v) is core.Literal
                   else _typed_as(_unstack(vals[v], k), v.aval) for v in eqn.invars]
            outs = eqn.primitive.bind(*ins, **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            return tuple(_stack(_typed_as(o, v.aval), k) for o, v in zip(outs, eqn.outvars))

        program = _eager_programs.put(key, jit(shard_map(
            body, mesh=mesh, in_specs=(blocks,) * len(operands),
            out_specs=(blocks,) * len(eqn.outvars), axis_names=set(axes), check_vma=False)))
    return program


def _typed_as(x, aval):
    """``x`` with the dtype and weak type its variable has in the traced body. Bound again on
    its own, an equation may type its output otherwise: the JVP of a jnp function's call
    types a tangent as its primal, so the JVP of ``jnp.sin`` of a weak value has a weak
    tangent even where the tangent given was strong (s24051-96). A constant operand arrives as
    a NumPy block, which has no weak type (a Python float's is weak). An output that is no
    tracer (a literal output of a call the equation inlined: a partial evaluation's residual
    zero) becomes a constant of the body, as the stacked blocks need an array."""
    if not isinstance(x, core.Tracer):
        return convert_element_type_p.bind(x, new_dtype=aval.dtype, weak_type=aval.weak_type)
    if isinstance(aval, core.ShapedArray) and (get_aval(x).weak_type != aval.weak_type
                                               or get_aval(x).dtype != aval.dtype):
        return convert_element_type_p.bind(x, new_dtype=aval.dtype, weak_type=aval.weak_type)
    return x


@shard_map_p.def_lowering
def _lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    mctx = ctx.module_ctx
    outer = getattr(mctx, "manual_mesh", None)
    outer_axes = getattr(mctx, "manual_axes", None)
    if outer is not None and outer != mesh:
        raise ValueError(with_user_line(
            f"shard_map over {mesh} inside a shard_map over {outer}: a nested shard_map maps "
            f"over the enclosing one's mesh", getattr(ctx.eqn, "source_info", None)))
    name = mctx.mesh_symbol(mesh)
    newly = [a for a in mesh.axis_names if a in newly_manual_axes]
    # with axes not manual here every dimension stays open, so Shardy may shard it over them
    # (nested, the region is over the axes this one makes manual, as Shardy nests them)
    partial = len(newly) != len(mesh.axis_names)

    def shardings(specs, avals):
        return sdy.TensorShardingPerValueAttr.get([
            sdy_sharding_attr(NamedSharding(mesh, s), a.ndim, name, open_dims=partial)
            for s, a in zip(specs, avals)])

    body_axes = frozenset(outer_axes or ()) | frozenset(newly)
    if all(mesh.shape[a] == 1 for a in newly):
        # Each device holds the whole value: the body is the program (as JAX lowers it; a
        # ManualComputationOp here would reach XLA unpartitioned on one device).
        with _manual_region(mctx, mesh, body_axes):
            return lower_jaxpr_body(mctx, jaxpr, [], list(args))
    out_types = [tensor_type(a) for a in ctx.avals_out]
    manual = sdy.ManualAxesAttr.get([ir.StringAttr.get(a) for a in newly])
    # An empty operand holds no data: the body makes it as a constant. XLA turns empty
    # operands into constants itself, and then refuses a region none of whose remaining
    # operands comes through its GlobalToLocalShape (FINDINGS 117).
    passed = [not _empty(v.aval) for v in jaxpr.invars]
    op = sdy.ManualComputationOp(
        out_types, [x for x, p in zip(args, passed) if p],
        shardings([s for s, p in zip(in_specs, passed) if p],
                  [a for a, p in zip(ctx.avals_in, passed) if p]),
        shardings(out_specs, ctx.avals_out), manual)
    block = op.body.blocks.append(
        *[tensor_type(v.aval) for v, p in zip(jaxpr.invars, passed) if p])
    with _manual_region(mctx, mesh, body_axes), ir.InsertionPoint(block):
        block_args = iter(block.arguments)
        body_args = [next(block_args) if p else ir_constant(np.zeros(v.aval.shape,
                                                                      v.aval.dtype))
                     for v, p in zip(jaxpr.invars, passed)]
        outs = lower_jaxpr_body(mctx, jaxpr, [], body_args)
        sdy.ReturnOp(outs)
    return op.results


@contextlib.contextmanager
def _manual_region(mctx, mesh, axes):
    """While a body is lowered, the module context says its mesh and every axis manual there
    (what its collectives see)."""
    prev = getattr(mctx, "manual_mesh", None), getattr(mctx, "manual_axes", None)
    mctx.manual_mesh, mctx.manual_axes = mesh, axes
    try:
        yield
    finally:
        mctx.manual_mesh, mctx.manual_axes = prev


def _empty(aval):
    return 0 in aval.shape and isinstance(aval.dtype, np.dtype)


# ------------------------------------------------------------------------------------------------
# Differentiation


def _bind_like(params, jaxpr, consts, args, in_specs, out_specs):
    in_all = tuple([P()] * len(consts) + list(in_specs))
    return shard_map_p.bind(*consts, *args, **dict(params, jaxpr=jaxpr, in_specs=in_all,
                                                   out_specs=tuple(out_specs)))


def _jvp(primals, tangents, **params):
    jaxpr, mesh, in_specs = params["jaxpr"], _manual(params), params["in_specs"]
    nonzero = [type(t) is not Zero for t in tangents]
    # the body's collectives name the mesh axes
    with _axis_env(mesh), _vma_env(mesh, params["check_vma"]):
        jvp_closed, out_nonzero = ad.jvp_jaxpr(ClosedJaxpr(jaxpr, []), nonzero,
                                               [False] * len(jaxpr.outvars))
    jvp_jaxpr, consts = hoist_consts(jvp_closed)
    nz_t = [t for t in tangents if type(t) is not Zero]
    specs_in = list(in_specs) + [s for s, nz in zip(in_specs, nonzero) if nz]
    out_specs = params["out_specs"]
    specs_out = list(out_specs) + [s for s, nz in zip(out_specs, out_nonzero) if nz]
    outs = _bind_like(params, jvp_jaxpr, consts, [*primals, *nz_t], specs_in, specs_out)
    n_out = len(jaxpr.outvars)
    return outs[:n_out], ad.with_zeros(outs[n_out:], out_nonzero,
                                       [get_aval(p) for p in outs[:n_out]])


ad.primitive_jvps[shard_map_p] = _jvp


def _partial_eval(trace, args, params):
    """Known equations of the body run now as one shard_map; the rest is staged as another
    (see the module doc for how residuals cross between them). The body is split by tracing
    it (``partial_eval_jaxpr``), so a shard_map nested in it splits too, by this rule."""
    jaxpr, mesh = params["jaxpr"], _manual(params)
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    check = params["check_vma"]
    unknown_in = [trace.is_unknown(x) for x in args]
    with _axis_env(mesh), _vma_env(mesh, check):
        known_cj, staged_cj, out_unknown, res_avals, res_fwd = partial_eval_jaxpr(
            ClosedJaxpr(jaxpr, []), unknown_in, [False] * len(jaxpr.outvars))
    known_args = [x for x, u in zip(args, unknown_in) if not u]
    known_specs = [s for s, u in zip(in_specs, unknown_in) if not u]
    # Residuals that are known inputs pass straight through with their own spec; others are
    # computed in the known shard_map and leave it stacked one slot per device.
    new = [k for k, f in enumerate(res_fwd) if f is None]
    n_ko = len(out_unknown) - sum(out_unknown)

    def known_fun(*xs):
        outs = core.jaxpr_as_fun(known_cj)(*xs)
        res = outs[n_ko:]
        return list(outs[:n_ko]) + [res[k].reshape((1,) + res[k].shape) for k in new]

    all_spec = _all_axes_spec(mesh)
    k_avals = [v.aval for v, u in zip(jaxpr.invars, unknown_in) if not u]
    k_jaxpr, k_consts = _trace_body(mesh, known_fun, k_avals, check)
    k_out_specs = [s for s, u in zip(out_specs, out_unknown) if not u] + [all_spec] * len(new)
    with core.set_current_trace(trace.parent):
        known_vals = _bind_like(params, k_jaxpr, k_consts, known_args, known_specs, k_out_specs)
    new_vals = iter(known_vals[n_ko:])
    res_vals = [known_args[f] if f is not None else next(new_vals) for f in res_fwd]
    res_specs = [known_specs[f] if f is not None else all_spec for f in res_fwd]
    stacked = [f is None for f in res_fwd]
    n_res = len(res_fwd)

    def staged_fun(*xs):
        res = [r.reshape(r.shape[1:]) if st else r for r, st in zip(xs[:n_res], stacked)]
        return core.jaxpr_as_fun(staged_cj)(*res, *xs[n_res:])

    s_avals = ([a.update(shape=(1,) + a.shape) if st else a
                for a, st in zip(res_avals, stacked)]
               + [v.aval for v, u in zip(jaxpr.invars, unknown_in) if u])
    s_jaxpr, s_consts = _trace_body(mesh, staged_fun, s_avals, check)
    s_in_specs = res_specs + [s for s, u in zip(in_specs, unknown_in) if u]
    s_args = res_vals + [x for x, u in zip(args, unknown_in) if u]
    s_out_specs = [s for s, u in zip(out_specs, out_unknown) if u]
    in_all = tuple([P()] * len(s_consts) + s_in_specs)
    staged = trace.stage(shard_map_p, [*s_consts, *s_args],
                         dict(params, jaxpr=s_jaxpr, in_specs=in_all,
                              out_specs=tuple(s_out_specs)))
    known_it, staged_it = iter(known_vals[:n_ko]), iter(staged)
    return [next(staged_it) if u else next(known_it) for u in out_unknown]


shard_map_p.partial_eval = _partial_eval


def _dce(eqn, used_outputs):
    """JAX's DCE rule for shard_map (``_shard_map_dce``): the body computes only the used
    outputs (its side effects stay), on the operands it reads, so under jit a dead op of the
    body is neither lowered nor run. An eager shard_map runs its body whole, as JAX's."""
    body = eqn.params["jaxpr"]  # open: its constants are leading operands
    new, used_in = dce_jaxpr_used(ClosedJaxpr(body, []), used_outputs)
    if all(used_in) and all(used_outputs) and len(new.jaxpr.eqns) == len(body.eqns):
        return used_in, eqn
    body = core.Jaxpr([], keep(body.invars, used_in), new.jaxpr.outvars, new.jaxpr.eqns)
    params = dict(eqn.params, jaxpr=body, in_specs=tuple(keep(eqn.params["in_specs"], used_in)),
                  out_specs=tuple(keep(eqn.params["out_specs"], used_outputs)))
    return used_in, core.JaxprEqn(shard_map_p, keep(eqn.invars, used_in),
                                  keep(eqn.outvars, used_outputs), params, eqn.source_info)


_dce.runs_when_all_used = True  # as JAX's: operands the body ignores go too
dce_rules[shard_map_p] = _dce


def _transpose(cts, *args, **params):
    jaxpr, mesh = params["jaxpr"], _manual(params)
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    check = params["check_vma"]
    linear = [type(x) is UndefinedPrimal for x in args]
    res = [x for x in args if type(x) is not UndefinedPrimal]
    res_specs = [s for s, lin in zip(in_specs, linear) if not lin]
    ct_nonzero = [type(c) is not Zero for c in cts]
    nz_cts = [c for c in cts if type(c) is not Zero]
    ct_specs = [s for s, nz in zip(out_specs, ct_nonzero) if nz]
    lin_specs = [s for s, lin in zip(in_specs, linear) if lin]
    in_nonzero = []

    def scale(ct, spec):
        # Without check_vma, an output copied over the axes its spec omits: the copies share
        # its cotangent. With it, the body's types already say where cotangents are summed
        # (pvary's transpose), as in JAX.
        k = math.prod(mesh.shape[a] for a in _unmentioned(mesh, spec))
        if check or k == 1 or not ad.is_differentiable_dtype(get_aval(ct).dtype):
            return ct
        return ct * (1.0 / k)

    def transposed(*xs):
        it_res, it_ct = iter(xs[:len(res)]), iter(xs[len(res):])
        full = [UndefinedPrimal(v.aval) if lin else next(it_res)
                for v, lin in zip(jaxpr.invars, linear)]
        full_cts = [scale(next(it_ct), s) if nz else Zero(v.aval)
                    for nz, s, v in zip(ct_nonzero, out_specs, jaxpr.outvars)]
        in_cts = ad.backward_pass(jaxpr, [], full, full_cts)
        lin_cts = [ct for ct, lin in zip(in_cts, linear) if lin]
        out = []
        for ct, spec in zip(lin_cts, lin_specs):
            in_nonzero.append(type(ct) is not Zero)
            if type(ct) is Zero:
                continue
            axes = tuple(a for a in _unmentioned(mesh, spec) if mesh.shape[a] > 1)
            if axes and not check and ad.is_differentiable_dtype(get_aval(ct).dtype):
                ct = lax.psum(ct, axes)  # an input copied over those axes: sum its cotangents
            out.append(ct)
        return out

    # the body's own types for what it varies over
    res_vars = [v for v, lin in zip(jaxpr.invars, linear) if not lin]
    ct_vars = [v for v, nz in zip(jaxpr.outvars, ct_nonzero) if nz]
    local_res = [_local_aval(mesh, s, get_aval(x), "residual").update(vma=v.aval.vma)
                 for s, x, v in zip(res_specs, res, res_vars)]
    local_cts = [_local_aval(mesh, s, get_aval(c), "cotangent").update(vma=v.aval.vma)
                 for s, c, v in zip(ct_specs, nz_cts, ct_vars)]
    t_jaxpr, consts = _trace_body(mesh, transposed, local_res + local_cts, check)
    out_specs_t = [s for s, nz in zip(lin_specs, in_nonzero) if nz]
    outs = iter(_bind_like(params, t_jaxpr, consts, [*res, *nz_cts], res_specs + ct_specs,
                           out_specs_t))
    nz = iter(in_nonzero)
    return [(next(outs) if next(nz) else None) if lin else None for lin in linear]


ad.primitive_transposes[shard_map_p] = _transpose


# ------------------------------------------------------------------------------------------------
# Batching (vmap of a shard_map)


@shard_map_p.def_batching
def _batching(args, dims, **params):
    mesh = _manual(params)  # the body's collectives name the mesh axes
    with _axis_env(mesh), _vma_env(mesh, params["check_vma"]):
        # outputs that do not depend on the batch stay unbatched (jacfwd's primal outputs)
        new_jaxpr, consts, args, in_axes, out_dims = batch_open(params["jaxpr"], args, dims,
                                                                instantiate=False)
    in_specs = [P(None, *s) if d == 0 else s for s, d in zip(params["in_specs"], in_axes)]
    out_specs = [P(None, *s) if d == 0 else s for s, d in zip(params["out_specs"], out_dims)]
    outs = _bind_like(params, new_jaxpr, consts, args, in_specs, out_specs)
    return outs, out_dims

shard_map_p.sharding_rule = sharding_rules.typed_by_body  # its results are its body's
