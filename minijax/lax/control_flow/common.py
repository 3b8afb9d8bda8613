"""Shared machinery of the control-flow primitives: tracing user functions to closed jaxprs,
and rewriting jaxprs by a transformation (JVP, vmap, partial evaluation, transposition).

Conventions used by every control-flow primitive:

- A user function (branch, loop body) is traced once, with pytree inputs and outputs, into a
  jaxpr whose closed-over values (arrays, tracers of outer transformations) are *hoisted* to
  leading inputs and passed as ordinary operands of the primitive. So outer transformations
  see them as operands (grad/vmap of a loop that closes over a traced value just works), and
  under jit they become executable arguments, never baked-in constants.
- Jaxprs made *inside* rules (the JVP of a body ...) may keep small concrete constants
  (``ClosedJaxpr.consts``) made by other rules; the lowering emits them as constants.
- Carry and branch types are compared on shape and dtype; weak types are not part of the
  contract (a Python scalar as the initial carry is made strong), as in JAX.
"""

from __future__ import annotations

from minijax import core
from minijax.core import ClosedJaxpr, Jaxpr, ShapedArray, get_aval, jaxpr_as_fun, pp_jaxpr
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import BatchTrace, BatchTracer, not_mapped
from minijax.interpreters.partial_eval import (
    DynamicJaxprTracer,
    PartialEvalTrace,
    dce_jaxpr,
    trace_to_jaxpr,
)
from minijax.source_info import with_user_line
from minijax.tree_util import _registry

# ------------------------------------------------------------------------------------------------
# Tracing user functions


def aval_of(x):
    return get_aval(x)


def strong(aval):
    return aval.strip_weak_type()


def trace_user_fun(fun, in_tree, in_avals):
    """Traces ``fun(*in_tree.unflatten(args))`` with abstract ``in_avals``.

    Returns ``(closed, consts, out_tree)``: ``closed`` takes (consts..., args...) and has no
    consts of its own; ``consts`` are the closed-over values to pass as operands.
    """
    out_trees = []

    def flat(*leaves):
        out = fun(*in_tree.unflatten(leaves))
        out_leaves, out_tree = _registry.flatten(out)
        out_trees.append(out_tree)
        return out_leaves

    closed = trace_to_jaxpr(flat, list(in_avals))
    hoisted, consts = hoist_consts(closed)
    return hoisted, consts, out_trees[0]


def hoist_consts(closed):
    """``closed`` with its constvars turned into leading inputs, and the const values."""
    jaxpr = closed.jaxpr
    if not jaxpr.constvars:
        return closed, []
    new = Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns)
    return ClosedJaxpr(new, []), list(closed.consts)


def trace_flat(fn, in_avals):
    """A ClosedJaxpr of ``fn`` on flat lists (used by rules; consts stay concrete consts)."""
    return trace_to_jaxpr(lambda *a: list(fn(*a)), list(in_avals))


def type_str(avals):
    return "(" + ", ".join(a.str_short() for a in avals) + ")"


def same_types(a, b):
    """Shape and dtype agree (weak types are not part of the contract)."""
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype for x, y in zip(a, b)
    )


def check_operand_types(name, jaxpr_avals, avals, what):
    if not same_types(jaxpr_avals, avals):
        raise TypeError(f"{name}: {what} types {type_str(avals)} do not match the jaxpr's "
                        f"{type_str(jaxpr_avals)}")


def permute_invars(closed, order):
    """``closed`` whose i-th input is the old input ``order[i]``."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, [j.invars[i] for i in order], j.outvars, j.eqns),
                       closed.consts)


def permute_outvars(closed, order):
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, [j.outvars[i] for i in order], j.eqns),
                       closed.consts)


def split(xs, sizes):
    out, i = [], 0
    for n in sizes:
        out.append(list(xs[i:i + n]))
        i += n
    assert i == len(xs), (i, len(xs))
    return out


def interleave_order(groups):
    """For inputs laid out as [g0, g1, ..., d0, d1, ...] (primals then their tangents, each
    group of sizes ``groups=[(n_primal_i, n_tangent_i), ...]``), the order that gives
    [g0, d0, g1, d1, ...]."""
    n_primal = sum(p for p, _ in groups)
    order, p_at, t_at = [], 0, n_primal
    for p, t in groups:
        order += list(range(p_at, p_at + p)) + list(range(t_at, t_at + t))
        p_at += p
        t_at += t
    return order


# ------------------------------------------------------------------------------------------------
# JVP of a jaxpr


def jvp_jaxpr(closed, nonzeros, instantiate):
    """The JVP of ``closed``: inputs (primals..., nonzero tangents...), outputs (primals...,
    nonzero tangents...). Returns ``(jvp_closed, out_nonzeros)``. ``instantiate[i]`` forces
    output i's tangent to be materialized (zeros) when differentiable."""
    in_avals = closed.in_avals
    n = len(in_avals)
    t_avals = [ad.tangent_aval(a) for a, nz in zip(in_avals, nonzeros) if nz]
    found = []

    def fn(*args):
        it = iter(args[n:])
        tangents = [next(it) if nz else ad.Zero(ad.tangent_aval(a))
                    for a, nz in zip(in_avals, nonzeros)]
        outs, touts = ad.jvp_flat(jaxpr_as_fun(closed), list(args[:n]), tangents)
        out_nz = [type(t) is not ad.Zero
                  or (inst and ad.is_differentiable_dtype(get_aval(o).dtype))
                  for o, t, inst in zip(outs, touts, instantiate)]
        found[:] = out_nz
        return outs + [ad.instantiate_zeros(t) for t, nz in zip(touts, out_nz) if nz]

    return trace_flat(fn, list(in_avals) + t_avals), list(found)


def differentiable(avals, flags):
    return [bool(f) and ad.is_differentiable_dtype(a.dtype) for a, f in zip(avals, flags)]


# ------------------------------------------------------------------------------------------------
# vmap of a jaxpr


def batch_jaxpr(closed, axis_data, in_batched, force_out):
    """``closed`` on batched values: inputs marked in ``in_batched`` have the batch at axis 0,
    and outputs come out with the batch at axis 0 where batched (or forced by ``force_out``).
    Returns ``(batched_closed, out_batched)``."""
    size = axis_data.size
    in_avals = []
    for a, b in zip(closed.in_avals, in_batched):
        in_avals.append(a.update(shape=(size, *a.shape)) if b else a)
    found = []

    def fn(*args):
        trace = BatchTrace(core.current_trace(), size, axis_data.name, axis_data.spmd_name)
        tracers = [BatchTracer(trace, x, 0) if b else x for x, b in zip(args, in_batched)]
        try:
            with core.set_current_trace(trace):
                outs = jaxpr_as_fun(closed)(*tracers)
            infos = [trace.to_batch_info(o) for o in outs]
        finally:
            trace.invalidate()
        out_b = [d is not not_mapped or f for (_, d), f in zip(infos, force_out)]
        found[:] = out_b
        return [batching.bdim_to(v, d, 0, size) if b else v
                for (v, d), b in zip(infos, out_b)]

    return trace_flat(fn, in_avals), list(found)


def to_batched(x, d, want, size, dst=0):
    """Operand ``x`` (batch axis ``d``) with its batch axis at ``dst`` if ``want``."""
    if not want:
        assert d is not_mapped
        return x
    return batching.bdim_to(x, d, dst, size)


# ------------------------------------------------------------------------------------------------
# Partial evaluation of a jaxpr (the known part now, the unknown part staged)


def is_unknown(trace, x):
    return type(x) is DynamicJaxprTracer and x._trace is trace


def partial_eval_jaxpr(closed, unknowns, instantiate):
    """Splits ``closed`` given which inputs are unknown.

    Returns ``(known, unknown, out_unknowns, res_avals, res_forwarded)``:
    ``known`` maps the known inputs to (known outputs..., residuals...); ``unknown`` maps
    (residuals..., unknown inputs...) to the unknown outputs. ``instantiate[i]`` forces output i
    to be unknown. ``res_forwarded[k]`` is the index (among the known inputs) of the input
    that residual k simply is, or None: callers pass such residuals along without copying.
    """
    in_avals = closed.in_avals
    known_avals = [a for a, u in zip(in_avals, unknowns) if not u]
    found = {}

    def known_fun(*known_args):
        pe = PartialEvalTrace(core.current_trace())
        unk_in = [pe.new_arg(a) for a, u in zip(in_avals, unknowns) if u]
        ik, iu = iter(known_args), iter(unk_in)
        args = [next(iu) if u else next(ik) for u in unknowns]
        try:
            with core.set_current_trace(pe):
                outs = jaxpr_as_fun(closed)(*args)
            out_unk = [is_unknown(pe, o) or bool(inst) for o, inst in zip(outs, instantiate)]
            staged = pe.finish(unk_in, [o for o, u in zip(outs, out_unk) if u])
        finally:
            pe.invalidate()
        residuals = staged.consts
        ids = {id(x): i for i, x in enumerate(known_args)}
        found["fwd"] = [ids.get(id(r)) for r in residuals]
        sj = staged.jaxpr
        found["unknown"] = dce_jaxpr(ClosedJaxpr(
            Jaxpr([], sj.constvars + sj.invars, sj.outvars, sj.eqns), []))
        found["res_avals"] = [v.aval for v in sj.constvars]
        found["out_unk"] = out_unk
        return [o for o, u in zip(outs, out_unk) if not u] + list(residuals)

    known = dce_jaxpr(trace_flat(known_fun, known_avals))
    return (known, found["unknown"], found["out_unk"], found["res_avals"], found["fwd"])


def stage_unknown(trace, prim, args, params):
    """Records ``prim(*args)`` in the PartialEvalTrace ``trace`` (known args become residuals)."""
    from minijax.interpreters.partial_eval import DynamicJaxprTrace

    return DynamicJaxprTrace.process_primitive(trace, prim, args, params)


def run_known(trace, fn):
    """Runs ``fn()`` with the parent of ``trace`` current (known values compute there)."""
    with core.set_current_trace(trace.parent):
        return fn()


# ------------------------------------------------------------------------------------------------
# Transposition of a jaxpr


def transpose_jaxpr(closed, linear, ct_present):
    """The transpose of ``closed`` (linear in the inputs marked ``linear``): inputs are
    (non-linear inputs..., cotangents of the outputs marked ``ct_present``...), outputs the
    cotangents of the linear inputs (zeros materialized)."""
    in_avals = closed.in_avals
    res_avals = [a for a, lin in zip(in_avals, linear) if not lin]
    ct_avals = [a for a, p in zip(closed.out_avals, ct_present) if p]
    n_res = len(res_avals)

    def fn(*args):
        it = iter(args[:n_res])
        operands = [ad.UndefinedPrimal(a) if lin else next(it) for a, lin in zip(in_avals, linear)]
        ict = iter(args[n_res:])
        cts = [next(ict) if p else ad.Zero(ad.tangent_aval(a))
               for a, p in zip(closed.out_avals, ct_present)]
        in_cts = ad.backward_pass(closed.jaxpr, closed.consts, operands, cts)
        return [ad.instantiate_zeros(ct) if ct is not None and type(ct) is not ad.Zero
                else ad.zeros_like_aval(ad.tangent_aval(a))
                for ct, a, lin in zip(in_cts, in_avals, linear) if lin]

    return trace_flat(fn, res_avals + [ad.tangent_aval(a) for a in ct_avals])


class _Text(str):
    """A param already formatted (the printer shows ``str`` of unknown param values)."""


def _pp_block(closed):
    return pp_jaxpr(closed.jaxpr, width=76).replace("\n", "\n  ")


def pp_nested(params):
    """Params for the jaxpr printer: nested jaxprs each on their own indented lines."""
    shown = {}
    for k, v in params.items():
        if isinstance(v, ClosedJaxpr):
            shown[k] = _Text("\n  " + _pp_block(v) + "\n")
        elif isinstance(v, tuple) and v and all(isinstance(b, ClosedJaxpr) for b in v):
            inner = "".join("\n  " + _pp_block(b) for b in v)
            shown[k] = _Text("(" + inner + "\n)")
        else:
            shown[k] = v
    return shown


def zeros(aval):
    return ad.zeros_like_aval(aval)


def user_error(msg):
    return TypeError(with_user_line(msg))


__all__ = ["ShapedArray"]
