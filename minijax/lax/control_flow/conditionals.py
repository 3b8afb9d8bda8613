"""``cond`` and ``switch``: one primitive, ``cond_p``, choosing among branch jaxprs.

``cond_p.bind(index, *operands, branches=(jaxpr0, jaxpr1, ...))``: ``index`` is an int32
scalar already clamped into range; every branch takes all the operands (the union of what the
branches close over, hoisted, plus the user's operands) and returns outputs of one type.
It lowers to ``stablehlo.case``, so only the chosen branch runs. Under vmap with a batched
index every branch runs and ``select_n`` picks per example, as in JAX.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import (ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Primitive, Tracer, get_aval,
                          jaxpr_as_fun, set_current_trace)
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import not_mapped
from minijax.interpreters.partial_eval import (dce_jaxpr, dce_jaxpr_used, dce_rules,
                                               partial_eval_jaxpr, trace_to_jaxpr)
from minijax.lax.control_flow import common
from minijax.lax.convert import _convert_element_type, convert_element_type
from minijax.lax.elementwise import clamp, eq, ne, select_n, stop_gradient
from minijax.lax.structural import broadcast_in_dim, empty_like
from minijax.lowering.stablehlo import (lower_closed_jaxpr, ordered_effects, region_named,
                                       tensor_type)
from minijax.tree_util import _registry
from minijax.lax import sharding_rules

__all__ = ["cond", "cond_p", "switch"]

cond_p = Primitive("cond", multiple_results=True)
# Inside shard_map, as in JAX, a varying index does not make the operands (or the results)
# vary: each branch keeps its operands' types and the results have the branches' types.
cond_p.own_vma = True
cond_p.own_memory_space = True  # its results are its branches'


def _out_avals(branches):
    """Branch 0's output types, weak types included (JAX's abstract eval returns branch 0's
    avals: ``cond(p, strong_fn, weak_fn)`` is weak, whichever branch runs); an output varies
    over the manual axes any branch's varies over."""
    outs = []
    for i, a in enumerate(branches[0].out_avals):
        vma = frozenset().union(*(getattr(b.out_avals[i], "vma", ()) for b in branches))
        outs.append(a.update(vma=vma) if vma else a)
    return outs


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *ops, branches, branches_platforms=None):
    if index.shape != () or index.dtype != np.int32:
        raise TypeError(
            f"cond: the branch index must be an int32 scalar, got {index.str_short(True)}")
    for i, b in enumerate(branches):
        common.check_operand_types("cond", b.in_avals, ops, f"branch {i} operand")
        if not common.same_types(b.out_avals, branches[0].out_avals):
            raise TypeError(
                "cond: branches must return the same types, got "
                f"{common.type_str(branches[0].out_avals)} and {common.type_str(b.out_avals)}")
    return _out_avals(branches)


@cond_p.def_lowering
def _cond_lowering(ctx, index, *ops, branches, branches_platforms=None):
    mctx = ctx.module_ctx
    if len(branches) == 1:
        return _lower_closed(mctx, branches[0], ops, mctx.tokens)
    # the ordered effects' tokens go in (captured) and come out first, as in JAX
    effects = ordered_effects_of(branches)
    tokens = mctx.region_tokens(effects)
    case = hlo.CaseOp([t.type for t in tokens] + [tensor_type(a) for a in ctx.avals_out],
                      index, num_branches=len(branches))
    for i, (region, branch) in enumerate(zip(case.branches, branches)):
        block = region.blocks.append()
        with ir.InsertionPoint(block), region_named(mctx, ctx.eqn, f"branch_{i}_fun"):
            threaded = dict(zip(effects, tokens))
            outs = _lower_closed(mctx, branch, ops, threaded)  # operands captured from above
            hlo.return_([threaded[e] for e in effects] + outs)
    results = list(case.results)
    mctx.tokens.update(zip(effects, results))
    return results[len(effects):]


def ordered_effects_of(closed_jaxprs):
    """The ordered effects of any of ``closed_jaxprs``, in order of appearance."""
    found = []
    for c in closed_jaxprs:
        found += [e for e in ordered_effects(c.jaxpr) if e not in found]
    return found


def _lower_closed(mctx, closed, args, tokens=None):
    # dead equations go first, as JAX's DCE drops them before lowering: a custom_vjp's tangent
    # (custom_lin, which cannot run forward) that only feeds a zero-derivative op such as trunc
    # must not be lowered inside a loop body or a branch
    return lower_closed_jaxpr(mctx, dce_jaxpr(closed), args, tokens)


def _cond_dce(eqn, used_outputs):
    """JAX's DCE rule for cond: each branch computes only the used outputs, and the operands no
    branch reads then go (the index stays). It runs with every output used too, so a value only
    a dead equation of some branch read (its tangent, in a linearized program) is not needed."""
    branches = eqn.params["branches"]
    if any(common.effectful(b) for b in branches):
        return [True] * len(eqn.invars), eqn
    split = [dce_jaxpr_used(b, used_outputs) for b in branches]
    used_ops = [any(reads[i] for _, reads in split) for i in range(len(eqn.invars) - 1)]
    if all(used_ops) and all(used_outputs) and all(
            len(b.jaxpr.eqns) == len(new.jaxpr.eqns) for (new, _), b in zip(split, branches)):
        return [True] * len(eqn.invars), eqn
    new_branches = tuple(common.pruned(new, used_ops) for new, _ in split)
    used_in = [True, *used_ops]
    return used_in, JaxprEqn(cond_p, common.keep(eqn.invars, used_in),
                             common.keep(eqn.outvars, used_outputs),
                             dict(eqn.params, branches=new_branches), eqn.source_info)


_cond_dce.runs_when_all_used = True
dce_rules[cond_p] = _cond_dce


# ------------------------------------------------------------------------------------------------
# Differentiation


def _cond_jvp(primals, tangents, *, branches, **params):
    index, ops = primals[0], primals[1:]
    op_tangents = tangents[1:]
    nonzeros = common.differentiable([get_aval(x) for x in ops],
                                     [type(t) is not ad.Zero for t in op_tangents])
    # the union over branches of which outputs have nonzero tangents, then instantiate it;
    # a linearization's cond linearizes its branches (JAX's _cond_linearize)
    lin = ad.linearizing_rule()
    out_nz = [False] * len(branches[0].out_avals)
    for b in branches:
        _, nz = ad.jvp_jaxpr(b, nonzeros, [False] * len(out_nz), lin)
        out_nz = [x or y for x, y in zip(out_nz, nz)]
    jvps = [ad.jvp_jaxpr(b, nonzeros, out_nz, lin)[0] for b in branches]
    dots = [t for t, nz in zip(op_tangents, nonzeros) if nz]
    outs = cond_p.bind(index, *ops, *dots, branches=tuple(jvps), **params)
    n = len(out_nz)
    primal_out, it = outs[:n], iter(outs[n:])
    avals = branches[0].out_avals
    tangent_out = [next(it) if nz else ad.Zero(ad.tangent_aval(a)) for a, nz in zip(avals, out_nz)]
    return primal_out, tangent_out


ad.primitive_jvps[cond_p] = _cond_jvp


def _cond_partial_eval(trace, args, params):
    branches = params["branches"]
    index, ops = args[0], args[1:]
    if trace.is_unknown(index):  # not reached by linearize: stage everything
        return trace.stage(cond_p, args, params)
    unknowns = [trace.is_unknown(x) for x in ops]
    n_out = len(branches[0].out_avals)
    out_uk = [False] * n_out
    for b in branches:
        out_uk = [x or y for x, y in zip(out_uk, partial_eval_jaxpr(
            b, unknowns, out_uk)[2])]
    splits = [partial_eval_jaxpr(b, unknowns, out_uk) for b in branches]
    known_ops = [x for x, u in zip(ops, unknowns) if not u]
    unk_ops = [x for x, u in zip(ops, unknowns) if u]
    if (all(out_uk) and any(s[4] for s in splits) and all(None not in s[4] for s in splits)
            and not any(common.effectful(s[0]) for s in splits)):
        # Every residual is a known operand (a cond split before: jit's partial evaluation of
        # a linearized body meets its tangent cond again): the staged cond reads those operands
        # itself, and no known cond forwards them (JAX splits the cond once; this leaves the
        # staged cond as it was).
        used = sorted({k for s in splits for k in s[4]})
        known_avals = [a for a, u in zip(branches[0].in_avals, unknowns) if not u]
        unk_avals = [a for a, u in zip(branches[0].in_avals, unknowns) if u]

        def staged(unknown, fwd):
            def fun(*xs):
                return jaxpr_as_fun(unknown)(*[xs[used.index(k)] for k in fwd],
                                             *xs[len(used):])
            return trace_to_jaxpr(fun, [known_avals[k] for k in used] + unk_avals)

        return trace.stage(cond_p, [index, *[known_ops[k] for k in used], *unk_ops], dict(
            params, branches=tuple(staged(s[1], s[4]) for s in splits)))
    res_avals, slots = _merge_residuals([s[3] for s in splits])
    # as JAX's (partial_eval_jaxpr_nounits of each branch), both halves are traced at the
    # branch's own input types, not the operands': a strong operand of a weak branch input
    # gives weak known outputs and residuals
    known_branches, unknown_branches = [], []
    for b, (known, unknown, *_), mine in zip(branches, splits, slots):
        known_avals = [a for a, u in zip(b.in_avals, unknowns) if not u]
        unk_avals = [a for a, u in zip(b.in_avals, unknowns) if u]

        def kfun(*xs, known=known, mine=mine):
            outs = jaxpr_as_fun(known)(*xs)
            n_known = len(outs) - len(mine)
            # as JAX's _join_cond_outputs: every slot a value nothing reads, then its own
            all_res = [empty_like(a) for a in res_avals]
            for j, r in zip(mine, outs[n_known:]):
                all_res[j] = r
            return list(outs[:n_known]) + all_res

        known_branches.append(trace_to_jaxpr(kfun, known_avals))

        def ufun(*xs, unknown=unknown, mine=mine):
            rest = xs[len(res_avals):]
            return jaxpr_as_fun(unknown)(*[xs[j] for j in mine], *rest)

        unknown_branches.append(trace_to_jaxpr(ufun, res_avals + unk_avals))
    with set_current_trace(trace.parent):  # the known cond runs now
        kouts = cond_p.bind(index, *known_ops, **dict(params, branches=tuple(known_branches)))
    n_known = n_out - sum(out_uk)
    residuals = kouts[n_known:]
    uouts = trace.stage(cond_p, [index, *residuals, *unk_ops],
                        dict(params, branches=tuple(unknown_branches)))
    ik, iu = iter(kouts[:n_known]), iter(uouts)
    return [next(iu) if u else next(ik) for u in out_uk]


cond_p.partial_eval = _cond_partial_eval


def _merge_residuals(per_branch):
    """JAX's residual slots (``_merge_branch_residuals``): the k-th residual of a type in each
    branch shares one slot, so the known cond returns one value per slot (zeros where the taken
    branch has none) and each unknown branch reads its slots. Shared slots matter beyond
    memory: a slot's tangent is nonzero if any branch's residual there has one, so under a
    further JVP the taken branch sees an instantiated zero tangent (``x / r`` then gives
    ``0 * inf`` NaN where ``r`` is 0, as in JAX). Returns the slots' avals and, per branch, the
    slot of each of its residuals."""
    index, avals, slots = {}, [], []
    for branch_avals in per_branch:
        seen, mine = {}, []
        for a in branch_avals:
            key = (a, seen.get(a, 0))
            seen[a] = key[1] + 1
            if key not in index:
                index[key] = len(avals)
                avals.append(a)
            mine.append(index[key])
        slots.append(mine)
    return avals, slots


def _cond_transpose(cts, index, *ops, branches, **params):
    assert not ad.is_undefined_primal(index)
    linear = [ad.is_undefined_primal(x) for x in ops]
    present = [type(ct) is not ad.Zero for ct in cts]
    cts = [ct for ct, p in zip(cts, present) if p]
    res = [x for x, lin in zip(ops, linear) if not lin]
    # as JAX's _cond_transpose_fancy, the branches are transposed at the residuals' and
    # cotangents' own types: a strong cotangent of a weak branch output gives strong input
    # cotangents
    ct_types = [get_aval(ct) for ct in cts]
    res_types = [get_aval(x) for x in res]
    transposed = tuple(ad.transpose_jaxpr(b, linear, present, ct_types, res_types)[0]
                       for b in branches)
    ct_in = cond_p.bind(index, *res, *cts, branches=transposed, **params)
    it = iter(ct_in)
    return [None] + [next(it) if lin else None for lin in linear]


ad.primitive_transposes[cond_p] = _cond_transpose


# ------------------------------------------------------------------------------------------------
# Batching


@batching.needs_axis_data
def _cond_batching(axis_data, args, dims, *, branches, **params):
    size = axis_data.size
    index, ops = args[0], args[1:]
    idx_dim, op_dims = dims[0], dims[1:]
    if idx_dim is not_mapped:
        in_b = [d is not not_mapped for d in op_dims]
        ops = [common.to_batched(x, d, b, size) for x, d, b in zip(ops, op_dims, in_b)]
        out_b = [False] * len(branches[0].out_avals)
        for b in branches:
            out_b = [x or y for x, y in zip(out_b, batching.batch_jaxpr(b, axis_data, in_b,
                                                                      out_b)[1])]
        batched = tuple(batching.batch_jaxpr(b, axis_data, in_b, out_b)[0] for b in branches)
        outs = cond_p.bind(index, *ops, branches=batched, **params)
        return outs, [0 if b else not_mapped for b in out_b]
    # A batched index: every branch runs, and each example selects its branch's outputs.
    # As in JAX, every operand is batched and branch i sees, for the examples that take
    # another branch, its operands through stop_gradient: an untaken branch's (possibly NaN)
    # partials then meet no cotangent under reverse mode (jax issue 1052).
    n_out = len(branches[0].out_avals)
    ops = [batching.bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
    batched = [batching.batch_jaxpr(b, axis_data, [True] * len(ops), [True] * n_out)[0]
               for b in branches]
    index = batching.moveaxis(index, idx_dim, 0)
    results = []
    for i, b in enumerate(batched):
        taken = eq(index, np.int32(i))  # once per branch, as JAX's
        results.append(jaxpr_as_fun(b)(*[_taken_only(taken, x) for x in ops]))
    outs = []
    for k in range(n_out):
        cases = [r[k] for r in results]
        shape = get_aval(cases[0]).shape
        which = broadcast_in_dim(index, shape, (0,)) if len(shape) > 1 else index
        outs.append(select_n(which, *cases))
    return outs, [0] * n_out


def _taken_only(taken, x):
    """``x`` where ``taken`` (over its leading axis), ``stop_gradient(x)`` elsewhere: of every
    operand, integer ones too, in JAX's order (stop_gradient, then the predicate's broadcast)."""
    held = stop_gradient(x)
    shape = get_aval(x).shape
    pred = broadcast_in_dim(taken, shape, (0,)) if len(shape) > 1 else taken
    return select_n(pred, held, x)


# Under a batched index the results are select_n's, weak only where every branch's output is
# (JAX's rule too), not branch 0's types as the primitive's abstract eval says.
_cond_batching.values_keep_weak_types = True
cond_p.def_batching(_cond_batching)


# ------------------------------------------------------------------------------------------------
# The user-facing functions


def _trace_branches(api_name, funs, names, operands):
    leaves, in_tree = _registry.flatten(operands)
    avals = [get_aval(x) for x in leaves]
    traced = [common.trace_user_fun(f, in_tree, avals) for f in funs]
    first_tree, first_avals = traced[0][2], traced[0][0].out_avals
    for i, ((closed, _, tree), name) in enumerate(zip(traced[1:], names[1:]), 1):
        if tree != first_tree or not common.same_types(closed.out_avals, first_avals):
            raise common.user_error(
                f"{names[0]} and {name} output must have identical types, got\n"
                f"  {names[0]}: {_describe(first_tree, first_avals)}\n"
                f"  {name}: {_describe(tree, closed.out_avals)}")
        # JAX names switch's branches "branch 0" and "branch1" here
        name2 = name if api_name == "cond" else f"branch{i}"
        common.check_branch_types(api_name, names[0], name2, funs[0], funs[i], first_tree,
                                first_avals, closed.out_avals)
    # every branch takes all the hoisted consts (of every branch, one each: a const two
    # branches close over is shared, JAX's _merge_common_consts), then the operands
    all_consts, at, picks = [], {}, []
    for _, consts, _ in traced:
        for c in consts:
            if id(c) not in at:
                at[id(c)] = len(all_consts)
                all_consts.append(c)
        picks.append([at[id(c)] for c in consts])
    const_avals = [get_aval(c) for c in all_consts]
    branches = []
    for (closed, _, _), pick in zip(traced, picks):
        order_fn = _taking_all(closed, pick, len(all_consts))
        branches.append(trace_to_jaxpr(order_fn, const_avals + avals))
    return branches, all_consts, leaves, first_tree


def _taking_all(closed, pick, total):
    def fn(*args):
        consts, rest = args[:total], args[total:]
        return jaxpr_as_fun(closed)(*[consts[i] for i in pick], *rest)

    return fn


def _describe(tree, avals):
    return str(tree.unflatten([a.str_short(True) for a in avals])).replace("'", "")


def _jaxpr_forwarding(jaxpr):
    """For each output of ``jaxpr``, the index of the input it is (through no-op
    convert_element_type/broadcast_in_dim equations), else None: JAX's pe._jaxpr_forwarding."""
    fwds = {v: v for v in jaxpr.invars}
    for eqn in jaxpr.eqns:
        if len(eqn.invars) != 1 or type(eqn.invars[0]) is Literal:
            continue
        v = eqn.invars[0]
        name, aval, p = eqn.primitive.name, v.aval, eqn.params
        if name == "convert_element_type":
            same = (aval.dtype == p["new_dtype"] and aval.weak_type == p["weak_type"]
                    and not dtypes.issubdtype(aval.dtype, dtypes.extended))
        elif name == "broadcast_in_dim":
            same = (tuple(p["shape"]) == tuple(aval.shape)
                    and p.get("sharding") is None)
        else:
            continue
        if same and v in fwds:
            fwds[eqn.outvars[0]] = fwds[v]
    idxs = {v: i for i, v in enumerate(jaxpr.invars)}
    return [None if type(v) is Literal else idxs.get(fwds.get(v)) for v in jaxpr.outvars]


def _prune_outputs(closed, keep):
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars,
                             [v for v, k in zip(j.outvars, keep) if k], j.eqns), closed.consts)


def _as_array(x):
    """JAX's lax.asarray: a forwarded operand as an Array (a Python scalar stays weak)."""
    if isinstance(x, Tracer) or hasattr(x, "aval"):
        return x
    weak = isinstance(x, (int, float, complex)) and not isinstance(x, bool)
    return _convert_element_type(x, None, weak_type=weak)


def _bind(index, branches, consts, leaves, out_tree, **params):
    # As JAX's cond/switch: outputs that every branch forwards from the same operand are
    # pruned from the branches and are that operand (so nothing downstream depends on the
    # index through them: a grad through cond(p, lambda x: x, lambda x: x, x) is constant).
    fwds = [_jaxpr_forwarding(b.jaxpr) for b in branches]
    in_fwd = [xs[0] if len(set(xs)) == 1 else None for xs in zip(*fwds)]
    keep = [f is None for f in in_fwd]
    if not all(keep):
        branches = [_prune_outputs(b, keep) for b in branches]
    outs = iter(cond_p.bind(index, *consts, *leaves, branches=tuple(branches), **params))
    all_inputs = [*consts, *leaves]
    outs = [next(outs) if f is None else _as_array(all_inputs[f]) for f in in_fwd]
    return out_tree.unflatten(outs)


def _index_of_pred(pred):
    aval = get_aval(pred)
    if aval.shape != ():
        raise common.user_error(f"cond: pred must be a scalar, got {aval.str_short(True)}")
    if aval.dtype == np.bool_:
        return convert_element_type(pred, np.int32)
    if aval.dtype.kind not in "iuf":  # JAX takes any real number: pred != 0
        raise common.user_error(
            f"cond: pred must be a boolean or real number scalar, got {aval.str_short(True)}")
    return convert_element_type(ne(pred, np.zeros((), aval.dtype)), np.int32)


_no_operand = object()  # ``operand=None`` is a real operand (an empty pytree)


def cond(pred, true_fun, false_fun, *operands, operand=_no_operand):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one staged
    conditional (both branches are traced; only the chosen one runs).

    JAX's older forms are accepted as in JAX 0.10: ``operand=x`` (one operand, by keyword)
    and ``cond(pred, x_true, f_true, x_false, f_false)``."""
    if not (callable(true_fun) and callable(false_fun)):
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true, x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    if operand is not _no_operand:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no positional "
                            f"operands can be passed, got {operand=} "
                            f"and positional operands {operands}")
        operands = (operand,)
    index = _index_of_pred(pred)
    branches, consts, leaves, tree = _trace_branches(
        "cond", [true_fun, false_fun], ["true_fun", "false_fun"], operands)
    return _bind(index, branches[::-1], consts, leaves, tree)  # index 0 is false


def switch(index, branches, *operands):
    """``branches[index](*operands)``, with ``index`` clamped into range (as in JAX)."""
    branches = list(branches)
    if not branches:
        raise ValueError("switch: branches must be a non-empty sequence")
    aval = get_aval(index)
    if aval.shape != () or aval.dtype.kind not in "iu":
        raise common.user_error(f"switch: index must be an integer scalar, got "
                                f"{aval.str_short(True)}")
    index = convert_element_type(index, np.int32)
    index = clamp(np.int32(0), index, np.int32(len(branches) - 1))
    return switch_unclamped(index, branches, operands)


def switch_unclamped(index, branches, operands, **params):
    """``switch`` on an int32 ``index`` known to be in range (JAX's ``_switch_internal``), with
    extra cond params (``platform_dependent``'s ``branches_platforms``)."""
    names = [f"branch {i}" for i in range(len(branches))]
    closed, consts, leaves, tree = _trace_branches("switch", branches, names, operands)
    return _bind(index, closed, consts, leaves, tree, **params)

cond_p.sharding_rule = sharding_rules.typed_by_body  # its results are its body's
