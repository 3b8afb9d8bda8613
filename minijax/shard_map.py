"""``shard_map``: manual SPMD. ``f`` runs once per device on that device's block of each
argument, and may talk to the other devices with collectives over the mesh axes.

``shard_map(f, mesh, in_specs, out_specs)(*args)`` binds one ``shard_map`` primitive holding
``f``'s jaxpr, traced on *per-shard* types (each dimension divided by the mesh axes its spec
names) with the mesh axes bound as named axes (so ``psum(x, 'x')`` resolves ``'x'``). Its rules:

- Lowering: ``sdy.manual_computation`` over all mesh axes, whose in/out shardings are the specs;
  the body is lowered inline with the mesh recorded on the module context, which turns the
  collectives into real StableHLO collectives (``minijax/lowering/collectives.py``). XLA's
  Shardy partitioner then moves data between the global program and the manual region.
- Eager: ``jit`` of the same primitive (a manual region only exists inside a program).
- JVP: a ``shard_map`` of the body's JVP; tangents use their primals' specs.
- Partial evaluation (linearize, so ``grad``): the body's equations whose inputs are all known
  run now as one ``shard_map``; the rest is staged as another one. Values the staged part
  needs (residuals) leave the known part stacked along a new leading axis split over every
  mesh axis (one slot per device), so no device's value is lost or assumed replicated.
- Transpose: a ``shard_map`` of the body's transpose. With check_vma the body's types already
  place the sums (pvary transposes to psum, psum to pvary), as in JAX. Without it, the old
  convention (the one psum's own transpose, psum, assumes): the cotangent of an output
  replicated over axes the out spec does not name is divided by their size (the copies share
  the cotangent), and the cotangent of an input replicated over unnamed axes is psum'd.
- Batching: a ``shard_map`` of the body batched along a new leading axis that no mesh axis
  splits.

``auto`` axes: the body is manual over the other mesh axes only (its shapes, collectives,
replication checks and residual slots refer to those, ``_ManualAxes``); the manual
computation's shardings stay open, so Shardy shards the body's work over the auto axes.

``check_vma`` (default True; ``check_rep`` is its old name) types the body's values with the
manual axes they vary over (``ShapedArray.vma``, printed ``f32[2]{V:x}``), as JAX 0.10 does: a
replicated value meeting a varying one is cast by ``pvary``, whose transpose is a psum, and an
output whose out spec omits an axis it varies over is an error (Shardy would silently keep one
device's copy). ``check_vma=False`` types nothing and checks nothing.
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

from minijax import core, lax
from minijax.config import config_context
from minijax.core import ClosedJaxpr, Jaxpr, Literal, Primitive, get_aval
from minijax.interpreters import ad, batching
from minijax.interpreters.ad import UndefinedPrimal, Zero
from minijax.interpreters.batching import batch_open
from minijax.interpreters.calls import eval_open
from minijax.interpreters.partial_eval import hoist_consts, split_known_staged, trace_open
from minijax.jitting import jit
from minijax.lowering.stablehlo import ir_constant, lower_jaxpr_body, tensor_type
from minijax.sharding_types import (
    Mesh,
    NamedSharding,
    PartitionSpec,
    _axes_of,
    _check_spec_axes,
    sdy_sharding_attr,
)
from minijax.source_info import with_user_line
from minijax.tree_util import _registry

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
            f"{aval.ndim} ({aval.str_short()})"))
    shape = []
    for dim, (n, k) in enumerate(zip(aval.shape, _factor(mesh, spec, aval.ndim))):
        if n % k:
            axes = _axes_of(spec[dim])
            names = " x ".join(f"{a!r} (size {mesh.shape[a]})" for a in axes)
            raise ValueError(with_user_line(
                f"shard_map: {what} of shape {aval.shape}: dimension {dim} has size {n}, which "
                f"is not divisible by mesh axis {names}"))
        shape.append(n // k)
    return aval.update(shape=tuple(shape))


def _global_aval(mesh, spec, aval):
    k = _factor(mesh, spec, aval.ndim)
    return aval.update(shape=tuple(n * f for n, f in zip(aval.shape, k)))


def _unmentioned(mesh, spec):
    used = set(_spec_axes(spec))
    return tuple(a for a in mesh.axis_names if a not in used)


class _ManualAxes(typing.NamedTuple):
    """The mesh axes a shard_map body is manual over (all but ``auto``), with their sizes: what
    the body's shapes, collectives, replication checks and residual slots refer to."""

    axis_names: tuple
    shape: dict


def _manual_axes(mesh, auto):
    names = tuple(a for a in mesh.axis_names if a not in auto)
    return _ManualAxes(names, {a: mesh.shape[a] for a in names})


def _manual(params):
    return _manual_axes(params["mesh"], params["auto"])


def _all_axes_spec(mesh):
    """A leading dimension split over every mesh axis: one slot per device."""
    return P(tuple(mesh.axis_names))


def _axis_env(mesh):
    return batching.extend_axis_env(list(mesh.shape.items()))


def _vma_env(mesh, check):
    """With ``check`` (check_vma), values know which of the manual axes they vary over."""
    return core.check_vma(mesh.axis_names if check else ())


def _trace_body(mesh, fun, local_avals, check=False):
    """``(jaxpr, consts)``: ``fun`` staged on per-shard avals with the mesh axes bound (and,
    with ``check``, typed with the manual axes they vary over)."""
    with _axis_env(mesh), _vma_env(mesh, check):
        return trace_open(fun, local_avals)


# ------------------------------------------------------------------------------------------------
# The user-facing function


def shard_map(f, mesh, in_specs, out_specs, check_rep=None, auto=frozenset(), *,
              check_vma=None):
    """Maps ``f`` over the shards of its arguments on ``mesh``: each device runs ``f`` on its
    block (``in_specs``, a pytree prefix of PartitionSpecs for the positional arguments) and
    the per-device results are assembled as ``out_specs`` say. Inside ``f``, collectives
    (``lax.psum`` ...) over the mesh axis names communicate between devices.

    ``auto``: mesh axes that stay automatic (as in JAX's ``shard_map(..., auto=)``): the body
    is manual over the other axes only, specs may not name them, and XLA's partitioner
    shards the body's work over them as it does outside.

    ``check_vma`` (default True; ``check_rep`` is its old name): values in the body are typed
    with the manual axes they vary over (``typeof(x).manual_axis_type``); a replicated value
    meeting a varying one is cast with ``pvary``, so the gradient w.r.t. a replicated input
    arrives already summed over the devices, and an output whose out spec omits an axis it
    varies over is an error."""
    if check_vma is not None and check_rep is not None and bool(check_vma) != bool(check_rep):
        raise TypeError("shard_map: check_vma and its old name check_rep disagree; pass one")
    check = bool(check_rep if check_vma is None and check_rep is not None else
                 check_vma if check_vma is not None else True)
    if not isinstance(mesh, Mesh):
        raise TypeError(f"shard_map: mesh must be a minijax Mesh, got {mesh!r}")
    auto = frozenset(auto)
    unknown = sorted(a for a in auto if a not in mesh.axis_names)
    if unknown:
        raise ValueError(f"shard_map: auto names {unknown[0]!r}, which is not an axis of the "
                         f"mesh (axes {tuple(mesh.axis_names)})")
    manual = _manual_axes(mesh, auto)
    if not callable(f):
        raise TypeError(f"shard_map: f must be callable, got {f!r}")

    eager = []

    @functools.wraps(f)
    def wrapped(*args):
        if core.is_eval_trace_current():
            # Eagerly: one jit per shard_map'd function, so repeated calls trace and compile
            # once per signature (a manual region only exists inside a program anyway).
            if not eager:
                eager.append(jit(wrapped))
            # Even under disable_jit: the manual region exists only inside a program, and
            # running jit(wrapped) op by op would come straight back here.
            with config_context("jax_disable_jit", False), _eager_body():
                return eager[0](*args)
        leaves, in_tree = _registry.flatten(args)
        in_leaf_specs = _specs_for(in_specs, args, "in_specs")
        for s in in_leaf_specs:
            _check_spec_axes(mesh, s, "shard_map in_specs: ")
            _check_not_auto(auto, s, "in_specs")
        avals = [get_aval(x) for x in leaves]
        paths = [f"argument {i}" for i in range(len(leaves))]
        local = [_local_aval(manual, s, a, p) for s, a, p in zip(in_leaf_specs, avals, paths)]
        if check:
            local = [a.update(vma=_spec_axes(s)) for a, s in zip(local, in_leaf_specs)]
        out_trees = []

        def flat_fun(*xs):
            out = f(*in_tree.unflatten(xs))
            out_leaves, out_tree = _registry.flatten(out)
            out_trees.append(out_tree)  # not ``out``: the body's tracers must not outlive it
            return out_leaves

        jaxpr, consts = _trace_body(manual, flat_fun, local, check)
        out_tree = out_trees[0]
        out_example = out_tree.unflatten(range(out_tree.num_leaves))  # the structure only
        out_leaf_specs = _specs_for(out_specs, out_example, "out_specs")
        for s in out_leaf_specs:
            _check_spec_axes(mesh, s, "shard_map out_specs: ")
            _check_not_auto(auto, s, "out_specs")
        in_all = tuple([P()] * len(consts) + list(in_leaf_specs))
        if check:
            _check_vma(manual, jaxpr, out_leaf_specs, f)
        params = dict(jaxpr=jaxpr, mesh=mesh, in_specs=in_all, out_specs=tuple(out_leaf_specs),
                      check_vma=check, auto=auto)
        outs = shard_map_p.bind(*consts, *leaves, **params)
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


def in_eager_body():
    """Whether a shard_map called eagerly is tracing its body here. JAX runs such a body op by
    op, and some ops refuse that (device_put to an explicit device); minijax stages it in a
    jit, so this says when to refuse them as JAX does."""
    return getattr(_EAGER, "on", False)


def _check_not_auto(auto, spec, what):
    named = [a for a in _spec_axes(spec) if a in auto]
    if named:
        raise ValueError(with_user_line(
            f"shard_map {what}: PartitionSpec {spec} names mesh axis {named[0]!r}, which is "
            f"in auto; specs name only the manual axes"))


def _is_spec(x):
    # None inside a spec tree is an empty subtree (it matches a None output), as in JAX.
    return isinstance(x, PartitionSpec)


def _specs_for(prefix, tree, what):
    """One PartitionSpec per leaf of ``tree`` from the pytree prefix ``prefix``."""
    if isinstance(prefix, PartitionSpec):
        return [prefix] * len(_registry.flatten(tree)[0])
    if prefix is None:
        raise TypeError(f"shard_map {what}: None is not a PartitionSpec; use P() for replicated")
    pleaves, ptree = _registry.flatten(prefix, leaf_predicate=_is_spec)
    if not all(isinstance(p, PartitionSpec) for p in pleaves):
        raise TypeError(f"shard_map {what} must be PartitionSpecs (a pytree prefix of the "
                        f"{'arguments' if what == 'in_specs' else 'outputs'}), got {prefix!r}")
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


def _check_vma(mesh, jaxpr, out_specs, f):
    for i, (spec, v) in enumerate(zip(out_specs, jaxpr.outvars)):
        missing = [a for a in _unmentioned(mesh, spec) if a in v.aval.vma]
        if missing:
            name = getattr(f, "__name__", repr(f))
            raise ValueError(with_user_line(
                f"shard_map applied to the function {name!r} was given out_specs which require "
                f"replication which can't be statically inferred given the mesh: output {i} "
                f"has type {v.aval.str_short()}, which varies over mesh axis {missing[0]!r}, "
                f"but its out spec {spec} does not name {missing[0]!r}, which implies it is "
                f"the same on every device along {missing[0]!r}. Name {missing[0]!r} in the out "
                f"spec, make the value replicated over it (e.g. with lax.psum), or pass "
                f"check_vma=False to shard_map."))


# ------------------------------------------------------------------------------------------------
# The primitive


shard_map_p = Primitive("shard_map", multiple_results=True)


def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, auto):
    return [_global_aval(mesh, s, v.aval).update(vma=frozenset())
            for s, v in zip(out_specs, jaxpr.outvars)]


shard_map_p.def_abstract_eval(_abstract_eval)
shard_map_p.own_vma = True  # its results are global values (nested shard_maps: not supported)
shard_map_p.axis_names_of = lambda params: ()  # binds its axes; uses none from outside
shard_map_p.pp_params = lambda p: dict(
    mesh=p["mesh"], in_specs=p["in_specs"], out_specs=p["out_specs"],
    **({"auto": tuple(sorted(p["auto"]))} if p["auto"] else {}), jaxpr=p["jaxpr"])

_eager_cache = {}


@shard_map_p.def_impl
def _impl(*args, **params):
    # A manual region only exists inside a program: eagerly, run the jit of the primitive.
    key = (params["jaxpr"], params["mesh"], params["in_specs"], params["out_specs"],
           params["auto"])
    fn = _eager_cache.get(key)
    if fn is None:
        fn = jit(lambda *xs: shard_map_p.bind(*xs, **params))
        if len(_eager_cache) > 256:
            _eager_cache.clear()
        _eager_cache[key] = fn
    return fn(*args)


@shard_map_p.def_lowering
def _lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma, auto):
    mctx = ctx.module_ctx
    if getattr(mctx, "manual_mesh", None) is not None:
        raise NotImplementedError(with_user_line(
            "shard_map inside shard_map is not supported", getattr(ctx.eqn, "source_info", None)))
    name = mctx.mesh_symbol(mesh)

    def shardings(specs, avals):
        # with auto axes every dimension stays open, so Shardy may shard it over them
        return sdy.TensorShardingPerValueAttr.get([
            sdy_sharding_attr(NamedSharding(mesh, s), a.ndim, name, open_dims=bool(auto))
            for s, a in zip(specs, avals)])

    if all(mesh.shape[a] == 1 for a in mesh.axis_names if a not in auto):
        # Each device holds the whole value: the body is the program (as JAX lowers it; a
        # ManualComputationOp here would reach XLA unpartitioned on one device).
        mctx.manual_mesh = mesh
        try:
            return lower_jaxpr_body(mctx, jaxpr, [], list(args))
        finally:
            mctx.manual_mesh = None
    out_types = [tensor_type(a) for a in ctx.avals_out]
    manual = sdy.ManualAxesAttr.get(
        [ir.StringAttr.get(a) for a in mesh.axis_names if a not in auto])
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
    mctx.manual_mesh = mesh
    try:
        with ir.InsertionPoint(block):
            block_args = iter(block.arguments)
            body_args = [next(block_args) if p else ir_constant(np.zeros(v.aval.shape,
                                                                          v.aval.dtype))
                         for v, p in zip(jaxpr.invars, passed)]
            outs = lower_jaxpr_body(mctx, jaxpr, [], body_args)
            sdy.ReturnOp(outs)
    finally:
        mctx.manual_mesh = None
    return op.results


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
    (see the module doc for how residuals cross between them)."""
    jaxpr, mesh = params["jaxpr"], _manual(params)
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    unknown_in = [trace.is_unknown(x) for x in args]
    split = split_known_staged(jaxpr, unknown_in)
    out_known, residuals, unknown_invars = split.out_known, split.residuals, split.unknown_invars
    spec_of_invar = {v: s for v, s in zip(jaxpr.invars, in_specs)}
    arg_of_invar = {v: x for v, x in zip(jaxpr.invars, args)}
    # Residuals that are known inputs pass straight through with their own spec; others are
    # computed in the known shard_map and leave it stacked one slot per device.
    res_in = [v for v in residuals if v in spec_of_invar]
    res_new = [v for v in residuals if v not in spec_of_invar]

    known_invars = split.known_invars
    known_outs = [v for v, k in zip(jaxpr.outvars, out_known) if k]
    known_jaxpr = split.known_jaxpr(known_outs, res_new)
    n_ko = len(known_outs)

    def known_fun(*xs):
        outs = eval_open(known_jaxpr, xs)
        return outs[:n_ko] + [r.reshape((1,) + r.shape) for r in outs[n_ko:]]

    all_spec = _all_axes_spec(mesh)
    check = params["check_vma"]
    k_jaxpr, k_consts = _trace_body(mesh, known_fun, [v.aval for v in known_invars], check)
    k_out_specs = [s for s, k in zip(out_specs, out_known) if k] + [all_spec] * len(res_new)
    with core.set_current_trace(trace.parent):
        known_vals = _bind_like(params, k_jaxpr, k_consts,
                                [x for x, u in zip(args, unknown_in) if not u],
                                [s for s, u in zip(in_specs, unknown_in) if not u], k_out_specs)
    res_vals = known_vals[n_ko:]

    n_in, n_new = len(res_in), len(res_new)
    staged_jaxpr = split.staged_jaxpr(res_in + res_new)

    def staged_fun(*xs):
        new = [r.reshape(r.shape[1:]) for r in xs[n_in:n_in + n_new]]
        return eval_open(staged_jaxpr, list(xs[:n_in]) + new + list(xs[n_in + n_new:]))

    s_avals = [v.aval for v in res_in] + [v.aval.update(shape=(1,) + v.aval.shape)
                                         for v in res_new] + [v.aval for v in unknown_invars]
    s_jaxpr, s_consts = _trace_body(mesh, staged_fun, s_avals, check)
    s_in_specs = ([spec_of_invar[v] for v in res_in] + [all_spec] * n_new
                  + [s for s, u in zip(in_specs, unknown_in) if u])
    s_args = ([arg_of_invar[v] for v in res_in] + list(res_vals)
              + [x for x, u in zip(args, unknown_in) if u])
    s_out_specs = [s for s, k in zip(out_specs, out_known) if not k]
    in_all = tuple([P()] * len(s_consts) + s_in_specs)
    staged = trace.stage(shard_map_p, [*s_consts, *s_args],
                         dict(params, jaxpr=s_jaxpr, in_specs=in_all,
                              out_specs=tuple(s_out_specs)))
    known_it, staged_it = iter(known_vals[:n_ko]), iter(staged)
    return [next(known_it) if k else next(staged_it) for k in out_known]


shard_map_p.partial_eval = _partial_eval


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
