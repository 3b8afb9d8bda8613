"""Staging: trace a Python function into a jaxpr (for jit and make_jaxpr), and partial
evaluation (the known part of a computation now, the rest staged).

``DynamicJaxprTrace`` records one equation per primitive bound while it is current. Values it
does not own become inputs of the jaxpr: Python and NumPy scalars become inline ``Literal``s,
arrays (closed-over ``Array``s, NumPy arrays, tracers of outer transformations) become
*constvars*, which jit passes to the executable as arguments (the scalars it bakes in).

The convention for jaxprs held by primitives and made by transformations:

- A primitive that holds a body keeps it *open*: a jaxpr without constvars whose leading
  invars stand for what the traced function closed over; those values are passed as the
  equation's leading operands (``trace_open`` and ``hoist_consts`` give ``(jaxpr, consts)``).
  So every trace sees them as ordinary operands, and a staged body never captures a tracer of
  another trace. Call-like primitives (``checkpoint``, ``custom_jvp_call``, ``shard_map`` ...)
  hold the ``Jaxpr`` itself, control flow wraps it as ``ClosedJaxpr(jaxpr, [])``.
- The jaxpr-level transformations (``ad.jvp_jaxpr``, ``ad.transpose_jaxpr``,
  ``batching.batch_jaxpr``, ``partial_eval_jaxpr``) take a ``ClosedJaxpr`` (an open ``Jaxpr``
  as ``ClosedJaxpr(jaxpr, [])``) and return ``ClosedJaxpr``s whose consts are what the
  transformation itself created (constants of rules, or a tracer a rule closed over). Control
  flow keeps those consts (the lowering emits them as constants); a caller that holds open
  jaxprs opens the result with ``hoist_consts``.
"""

from __future__ import annotations

import typing

import numpy as np

from minijax import core, dtypes
from minijax.core import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    ShapedArray,
    Trace,
    Tracer,
    Var,
    WeakScalar,
    abstract_token,
    abstract_eval,
    escaped_tracer_error,
    get_aval,
    set_current_trace,
)
from minijax.interpreters.leaks import check_leaks
from minijax.interpreters.walk import has_effects
from minijax.source_info import user_frame


class DynamicJaxprTracer(Tracer):
    __slots__ = ("_aval", "val")

    def __init__(self, trace, aval, var):
        self._trace = trace
        self._aval = aval
        self.val = var

    @property
    def aval(self):
        return self._aval

    def __repr__(self):  # JAX 0.10.2's name for a tracer of a staged (jit) trace
        return f"JitTracer({self._aval})"


class DynamicJaxprTrace(Trace):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.eqns = []
        self.const_vars = {}  # id(value) -> Var
        self.consts = []  # (value, var) in first-use order; values kept alive here
        self.source = user_frame()

    arg_names = None  # readable names of the arguments (jit sets them), for error messages
    # True on an eagerly called shard_map's body (shard_map sets it): JAX runs that body op by
    # op, a jitted call (a jnp function's too) as one primitive typed by its jaxpr, so calls
    # stay calls there instead of being inlined
    runs_eagerly = False
    # False where JAX traces with its JaxprTrace, which has no forwarding rules (the matvec
    # ``linear_transpose`` transposes in ``custom_linear_solve``: a broadcast to its operand's
    # own shape stays an equation, its transpose a ``reduce_sum[axes=()]``)
    forwards = True

    def new_arg(self, aval):
        tracer = DynamicJaxprTracer(self, aval, Var(aval))
        self.__dict__.setdefault("invars", []).append(tracer.val)
        return tracer

    def describe_origin(self, tracer):
        """Where a traced value came from, for a concretization error: the line that made it
        and the arguments it depends on. Only runs when that error is raised."""
        var = getattr(tracer, "val", None)
        invars = self.__dict__.get("invars", [])
        if var is None:
            return None
        names = self.arg_names or [f"argument {i}" for i in range(len(invars))]
        index = {v: i for i, v in enumerate(invars)}
        if var in index:
            return f"It is the argument {names[index[var]]}."
        producer = {v: e for e in self.eqns for v in e.outvars}
        eqn = producer.get(var)
        deps, seen, todo = set(), set(), [var]
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in index:
                deps.add(index[v])
            elif v in producer:
                todo.extend(u for u in producer[v].invars if type(u) is Var)
        parts = []
        if eqn is not None and eqn.source_info is not None:
            parts.append(f"It was computed by '{eqn.primitive.name}' at {eqn.source_info}")
        if deps:
            parts.append("depends on " + ", ".join(names[i] for i in sorted(deps)))
        return (" and ".join(parts) + ".") if parts else None

    def to_var(self, x):
        """The Var or Literal standing for ``x`` in this jaxpr."""
        if isinstance(x, Tracer):
            if x._trace is self:
                return x.val
            if not x._trace.valid:
                raise escaped_tracer_error(x)
            return self._const_var(x)  # a tracer of an outer transformation: a constant here
        if type(x) in (float, complex):
            # JAX stages a Python float or complex as it is: the literal keeps its full
            # precision (``1.5707963267948966:f32[]``); it is rounded where it is used
            return Literal(x, get_aval(x))
        if type(x) in (int, bool) or isinstance(x, np.generic):
            aval = get_aval(x)
            return Literal(np.asarray(x, aval.dtype), aval)
        if type(x) is WeakScalar:
            return Literal(x.val, x.aval)
        if isinstance(x, np.ndarray) and x.ndim == 0:
            aval = get_aval(x)
            return Literal(np.asarray(x, aval.dtype), aval)
        if isinstance(x, np.ndarray) and x.dtype == dtypes.float0:
            # a float0 zero tangent has no buffer (XLA has no zero-width type) and one value:
            # built in the program, as JAX's broadcast of a float0 literal, never an operand
            # (a shard_map or eager program could not take it)
            return Literal(x, get_aval(x))
        return self._const_var(x)

    def _const_var(self, x):
        var = self.const_vars.get(id(x))
        if var is None:
            var = self.const_vars[id(x)] = Var(get_aval(x))
            self.consts.append((x, var))
        return var

    def process_primitive(self, prim, args, params):
        invars = [self.to_var(x) for x in args]
        out = abstract_eval(prim, [v.aval for v in invars], params)
        if (prim.forwards_operand is not None and prim.forwards_operand(invars[0].aval, out)
                and self.forwards):
            return DynamicJaxprTracer(self, out, invars[0])
        out_avals = out if prim.multiple_results else (out,)
        outvars = [Var(a) for a in out_avals]
        self.eqns.append(JaxprEqn(prim, invars, outvars, params, user_frame()))
        tracers = [DynamicJaxprTracer(self, v.aval, v) for v in outvars]
        return tracers if prim.multiple_results else tracers[0]

    def finish(self, in_tracers, outs):
        """Builds the ClosedJaxpr; constvars are listed in the order they were first used."""
        outvars = [self.to_var(x) for x in outs]
        invars = [t.val for t in in_tracers]
        jaxpr = Jaxpr([v for _, v in self.consts], invars, outvars, self.eqns)
        return ClosedJaxpr(jaxpr, [x for x, _ in self.consts])


def trace_to_jaxpr(flat_fun, in_avals: list[ShapedArray], arg_names=None,
                   forwards=True) -> ClosedJaxpr:
    """Stages ``flat_fun(*leaves) -> list of leaves`` into a ClosedJaxpr.

    The trace is invalidated when this returns, so a tracer that leaked out of ``flat_fun`` (a
    global, an attribute) raises UnexpectedTracerError the next time it is used, or at once
    with jax_check_tracer_leaks on.
    """
    trace = DynamicJaxprTrace(core.current_trace())
    trace.arg_names = arg_names
    trace.forwards = forwards
    in_tracers = [trace.new_arg(a) for a in in_avals]
    try:
        with set_current_trace(trace):
            outs = flat_fun(*in_tracers)
            closed = trace.finish(in_tracers, outs)
    finally:
        trace.invalidate()
    del in_tracers, outs  # the leak check counts every tracer still referenced
    check_leaks(trace)
    return closed


def hoist_consts(closed):
    """``(jaxpr, consts)``: ``closed`` opened, its constvars turned into leading invars."""
    jaxpr = closed.jaxpr
    if not jaxpr.constvars:
        return jaxpr, []
    return Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns), list(closed.consts)


def inline_consts(closed):
    """``closed`` with its NumPy-typed constants written into the equations as literals, as
    JAX 0.10 bakes a jit's constants, whatever their size, into its module (typed keys stay
    constvars)."""
    jaxpr = closed.jaxpr
    sub, keep, kept = {}, [], []
    for v, c in zip(jaxpr.constvars, closed.consts):
        if v.aval is abstract_token:  # lowered as a new token, as JAX's constant handler
            sub[v] = Literal(c, v.aval)
        elif isinstance(v.aval.dtype, np.dtype):
            sub[v] = Literal(np.asarray(c), v.aval)
        else:
            keep.append(v)
            kept.append(c)
    if not sub:
        return closed
    eqns = [JaxprEqn(e.primitive, [sub.get(v, v) if type(v) is Var else v for v in e.invars],
                     e.outvars, e.params, e.source_info) for e in jaxpr.eqns]
    outvars = [sub.get(v, v) if type(v) is Var else v for v in jaxpr.outvars]
    return ClosedJaxpr(Jaxpr(keep, jaxpr.invars, outvars, eqns), kept)


def trace_open(flat_fun, in_avals):
    """``(jaxpr, consts)``: ``flat_fun`` staged as an open jaxpr, its closed-over values as
    leading invars."""
    return hoist_consts(trace_to_jaxpr(flat_fun, in_avals))


# ------------------------------------------------------------------------------------------------
# Partial evaluation on the fly, and dead-code elimination


class PartialEvalTrace(DynamicJaxprTrace):
    """Stages only what depends on its own inputs (the *unknown* values).

    A primitive whose operands are all *known* (arrays, or values of the parent trace) is not
    recorded: it runs on the parent trace at once, so known values stay concrete when the
    parent is eager, and become part of the parent's jaxpr under ``jit``. A known value that a
    staged equation uses becomes a constvar of the staged jaxpr: a *residual*.

    ``linearize`` uses it for the tangents: primal computations run for real, the tangent
    computation becomes a linear jaxpr (JAX's "direct linearize").
    """

    lifts_to_parent = True  # a constant is known: computed by (or staged on) the parent

    def is_unknown(self, x):
        """Whether ``x`` is one of this trace's staged (unknown) values."""
        return type(x) is DynamicJaxprTracer and x._trace is self

    def stage(self, prim, args, params):
        """Records ``prim(*args)`` as an equation, known ``args`` becoming residuals: for the
        partial-evaluation rules of primitives, which decide what to run now and what to
        stage."""
        return DynamicJaxprTrace.process_primitive(self, prim, args, params)

    def process_primitive(self, prim, args, params):
        for x in args:
            if type(x) is DynamicJaxprTracer and x._trace is self:
                if prim.partial_eval is not None:  # e.g. scan: run the known part now
                    return prim.partial_eval(self, args, params)
                return super().process_primitive(prim, args, params)
        if prim.staged_when_known and prim.staged_when_known(params):
            return self.stage(prim, args, params)
        prev = core.swap_current_trace(self.parent)
        try:
            return prim.bind(*args, **params)
        finally:
            core.swap_current_trace(prev)


def staged_literal(value, aval):
    """``value`` (a rank-0 NumPy array of ``aval``'s type, or a bool) lifted into the current
    trace, as JAX's ``lax.stage`` lifts a scalar ``jnp.asarray`` converted: a literal of the
    jaxpr being built, handed down by the transformations above it (JVP, vmap, linearize), so
    it is printed inline (``2.0:f32[]``) and a checkpoint returning it gives the scalar back,
    not a constvar's array. None where it lands on the eval trace (or a compile-time-eval
    one): the caller makes it an array now."""
    trace = lifting_trace()
    if type(trace) is not DynamicJaxprTrace:
        return None
    return DynamicJaxprTracer(trace, aval, Literal(value, aval))


def lifting_trace():
    """The trace a constant lifted into the current one lands in (see ``lifts_to_parent``)."""
    trace = core.current_trace()
    while trace.lifts_to_parent:
        trace = trace.parent
    return trace


def building_jaxpr(trace) -> bool:
    """Whether a trace on the stack from ``trace`` down builds a jaxpr (``jit``, ``make_jaxpr``,
    a loop body), where JAX inlines a function jitted with ``inline=True``. A linearization's
    partial evaluation does not count: it runs known values now and stages only the tangents;
    nor does an eager shard_map's body, which JAX runs op by op."""
    while trace is not None:
        if type(trace) is DynamicJaxprTrace:
            return not trace.runs_eagerly
        trace = trace.parent
    return False


def in_linearization(trace):
    """Whether a JVP whose parent is ``trace`` belongs to a linearization (grad, vjp,
    linearize): its custom_vjp tangents (custom_lin) are the linearization's own, staged even on
    known operands, as JAX's LinearizeTrace stages them on its tangent trace. A plain jvp's go on
    down the traces instead, as JAX's JVPTrace binds them on its parent. The jaxpr traces of a
    loop, branch or call body's JVP stand between."""
    while type(trace) is DynamicJaxprTrace:
        trace = trace.parent
    return isinstance(trace, PartialEvalTrace)


def dce_jaxpr(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` without the equations (and constvars) no output depends on.

    Primitives have no side effects, so an equation whose results are unused can go, except
    the host callbacks marked ``effectful`` (``debug.print``). A loop's carries that no
    output needs go too (``dce_rules``).
    """
    jaxpr = closed.jaxpr
    kept, live = _dce_live(jaxpr.eqns, jaxpr.outvars)
    if len(kept) == len(jaxpr.eqns) and all(
            a is b for a, b in zip(kept, jaxpr.eqns)) and all(v in live for v in jaxpr.constvars):
        return closed
    consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in live]
    new = Jaxpr([v for v, _ in consts], jaxpr.invars, jaxpr.outvars, kept)
    return ClosedJaxpr(new, [c for _, c in consts])


# Primitive -> rule(eqn, used_outputs) -> (used_inputs, eqn): the equation computing only the
# flagged outputs (dropped from its outvars) on the flagged inputs (dropped from its invars),
# for primitives whose unused outputs can free more than themselves (the loops' carries).
# A rule with ``runs_when_all_used`` also runs when every output is used (cond: operands that
# only dead equations of its branches read go).
dce_rules: dict = {}


def _dce_live(eqns, outvars):
    """The equations ``outvars`` need (rewritten by ``dce_rules`` where an equation has one),
    and the variables they read."""
    live = {v for v in outvars if type(v) is Var}
    kept = []
    for eqn in reversed(eqns):  # set operations keep it cheap (literals join ``live`` harmlessly)
        if live.isdisjoint(eqn.outvars) and not has_effects(eqn):
            continue
        rule = dce_rules.get(eqn.primitive)
        if rule is not None:
            used = [v in live for v in eqn.outvars]
            if not all(used) or getattr(rule, "runs_when_all_used", False):
                eqn = rule(eqn, used)[1]
        kept.append(eqn)
        live.update(eqn.invars)
    kept.reverse()
    return kept, live


def dce_jaxpr_used(closed, used_outputs):
    """``(closed', used_inputs)``: ``closed`` computing only the outputs flagged in
    ``used_outputs`` (the others dropped, its invars all kept), and which of its invars
    that needs. For the loops' ``dce_rules``."""
    jaxpr = closed.jaxpr
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    kept, live = _dce_live(jaxpr.eqns, outvars)
    consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in live]
    new = Jaxpr([v for v, _ in consts], jaxpr.invars, outvars, kept)
    return ClosedJaxpr(new, [c for _, c in consts]), [v in live for v in jaxpr.invars]


# ------------------------------------------------------------------------------------------------
# Partial evaluation of a jaxpr: by tracing, or by splitting its equations


def partial_eval_jaxpr(closed, unknowns, instantiate, computed_literal=None):
    """Splits ``closed`` given which inputs are unknown, by running it under a
    ``PartialEvalTrace`` (so nested primitives split too, by their own partial-eval rules).
    ``computed_literal(eqn, i)``: whether literal operand ``i`` of ``eqn`` stands for a value
    computed on the known side (a residual the known part returns, printed as its literal
    output) instead of a literal of the staged part.

    Returns ``(known, unknown, out_unknowns, res_avals, res_forwarded)``:
    ``known`` maps the known inputs to (known outputs..., residuals...); ``unknown`` maps
    (residuals..., unknown inputs...) to the unknown outputs. ``instantiate[i]`` forces output i
    to be unknown. ``res_forwarded[k]`` is the index (among the known inputs) of the input
    that residual k simply is, or None: callers pass such residuals along without copying.
    """
    in_avals = closed.in_avals
    known_avals = [a for a, u in zip(in_avals, unknowns) if not u]
    found = {}

    if computed_literal is not None:
        closed, lifted = _literals_as_consts(closed, computed_literal)
    else:
        lifted = []

    def known_fun(*known_args):
        pe = PartialEvalTrace(core.current_trace())
        # the lifted literals are the known side's values: literals of the jaxpr it builds
        consts = list(closed.consts) + [_known_literal(lit) for lit in lifted]
        unk_in = [pe.new_arg(a) for a, u in zip(in_avals, unknowns) if u]
        ik, iu = iter(known_args), iter(unk_in)
        args = [next(iu) if u else next(ik) for u in unknowns]
        try:
            with set_current_trace(pe):
                outs = core.eval_jaxpr(closed.jaxpr, consts, *args)
            out_unk = [pe.is_unknown(o) or bool(inst) for o, inst in zip(outs, instantiate)]
            staged = pe.finish(unk_in, [o for o, u in zip(outs, out_unk) if u])
        finally:
            pe.invalidate()
        sj = staged.jaxpr
        unknown = dce_jaxpr(ClosedJaxpr(
            Jaxpr([], sj.constvars + sj.invars, sj.outvars, sj.eqns), [])).jaxpr
        # Residuals only dead staged equations read are not saved (as JAX), so the known side
        # need not compute them: a dead factorization JAX never lowers must not be lowered.
        read = {v for e in unknown.eqns for v in e.invars if type(v) is Var}
        read.update(v for v in unknown.outvars if type(v) is Var)
        kept = [(v, r) for v, r in zip(sj.constvars, staged.consts) if v in read]
        residuals = [r for _, r in kept]
        ids = {id(x): i for i, x in enumerate(known_args)}
        found["fwd"] = [ids.get(id(r)) for r in residuals]
        found["unknown"] = ClosedJaxpr(
            Jaxpr([], [v for v, _ in kept] + sj.invars, sj.outvars, unknown.eqns), [])
        found["res_avals"] = [v.aval for v, _ in kept]
        found["out_unk"] = out_unk
        return [o for o, u in zip(outs, out_unk) if not u] + list(residuals)

    known = dce_jaxpr(trace_to_jaxpr(known_fun, known_avals))
    return (known, found["unknown"], found["out_unk"], found["res_avals"], found["fwd"])


def _literals_as_consts(closed, computed_literal):
    """``closed`` with the literal operands ``computed_literal`` picks read from new constvars
    (appended to its constvars), and those literals."""
    jaxpr, lifted, new_vars, eqns = closed.jaxpr, [], [], []
    for eqn in jaxpr.eqns:
        invars = list(eqn.invars)
        for i, v in enumerate(invars):
            if type(v) is Literal and computed_literal(eqn, i):
                lifted.append(v)
                invars[i] = Var(v.aval)
                new_vars.append(invars[i])
        if invars != eqn.invars:
            eqn = JaxprEqn(eqn.primitive, invars, eqn.outvars, eqn.params, eqn.source_info)
        eqns.append(eqn)
    if not lifted:
        return closed, []
    return ClosedJaxpr(Jaxpr(jaxpr.constvars + new_vars, jaxpr.invars, jaxpr.outvars, eqns),
                       closed.consts), lifted


def _known_literal(lit):
    staged = staged_literal(lit.val, lit.aval)
    return lit.val if staged is None else staged


class KnownStagedSplit(typing.NamedTuple):
    """A body split by which operands are known now (see ``split_known_staged``)."""

    known_eqns: list        # computable from the known operands (not yet pruned)
    staged_eqns: list       # what the unknown outputs need (pruned)
    out_known: list         # per output: computable now
    known_invars: list
    unknown_invars: list
    staged_outs: list       # the unknown outputs
    residuals: list         # variables the staged part reads from the known side

    def known_jaxpr(self, outvars, residuals):
        """The known part as an open jaxpr on the known operands: the known ``outvars``, then
        ``residuals`` (host callbacks kept)."""
        outs = list(outvars) + list(residuals)
        return Jaxpr([], self.known_invars, outs,
                     dce_eqns(self.known_eqns, outs, keep_effects=True)[0])

    def staged_jaxpr(self, residuals):
        """The staged part as an open jaxpr on (``residuals``..., unknown operands...)."""
        return Jaxpr([], list(residuals) + self.unknown_invars, self.staged_outs,
                     self.staged_eqns)


def split_known_staged(jaxpr, unknown_in, recompute=None):
    """Splits the equations of an open ``jaxpr`` whose operands ``unknown_in`` are unknown,
    without tracing it: an equation reading only known values is known, any other is staged
    whole; ``recompute(eqn)`` (checkpoint's policy: "not saveable") puts a copy of a known one
    in the staged part too, to be recomputed there instead of saved. For the partial-evaluation
    rules of call-like primitives (checkpoint, shard_map), whose bodies become one known and
    one staged equation (``partial_eval_jaxpr`` instead traces, for control flow)."""
    known = {v for v, u in zip(jaxpr.invars, unknown_in) if not u}
    known_eqns, staged_eqns = [], []
    for eqn in jaxpr.eqns:
        if all(type(v) is Literal or v in known for v in eqn.invars):
            known_eqns.append(eqn)
            known.update(eqn.outvars)
            if recompute is not None and recompute(eqn):
                staged_eqns.append(eqn)
        else:
            staged_eqns.append(eqn)
    out_known = [type(v) is Literal or v in known for v in jaxpr.outvars]
    staged_outs = [v for v, k in zip(jaxpr.outvars, out_known) if not k]
    # a recomputed side effect runs again, as in JAX (a print in a checkpoint prints twice)
    staged_eqns, free = dce_eqns(staged_eqns, staged_outs, keep_effects=recompute is not None)
    unknown_invars = [v for v, u in zip(jaxpr.invars, unknown_in) if u]
    known_invars = [v for v, u in zip(jaxpr.invars, unknown_in) if not u]
    unknown_set = set(unknown_invars)
    residuals = [v for v in free if v not in unknown_set]
    return KnownStagedSplit(known_eqns, staged_eqns, out_known, known_invars, unknown_invars,
                            staged_outs, residuals)


def dce_eqns(eqns, outvars, keep_effects=False):
    """The equations of ``eqns`` that ``outvars`` need (and, with ``keep_effects``, the host
    callbacks marked ``effectful``), and the variables they read without defining, in
    first-use order so that residual order is deterministic. For the partial-evaluation
    rules that split a body into a known and a staged part (checkpoint, shard_map)."""
    live = {v for v in outvars if type(v) is Var}
    kept = []
    for eqn in reversed(eqns):
        if any(v in live for v in eqn.outvars) or (keep_effects and has_effects(eqn)):
            kept.append(eqn)
            live.difference_update(eqn.outvars)
            live.update(v for v in eqn.invars if type(v) is Var)
    kept.reverse()
    defined, free = set(), []
    for eqn in kept:
        for v in eqn.invars:
            if type(v) is Var and v not in defined and v not in free:
                free.append(v)
        defined.update(eqn.outvars)
    for v in outvars:
        if type(v) is Var and v not in defined and v not in free:
            free.append(v)
    return kept, free


# ------------------------------------------------------------------------------------------------
# JAX's partial-evaluation entry point, for libraries (flax's lazy init, its scan's broadcasts)


class PartialVal(tuple):
    """A value that is known now, ``(None, value)``, or only by type, ``(aval, None)``."""

    __slots__ = ()

    def __new__(cls, xs):
        pv, const = xs
        return tuple.__new__(cls, (pv, const))

    @classmethod
    def known(cls, const):
        return PartialVal((None, const))

    @classmethod
    def unknown(cls, aval):
        return PartialVal((aval, None))

    def is_known(self):
        return self[0] is None

    def get_known(self):
        return self[1] if self[0] is None else None

    def get_aval(self):
        return get_aval(self[1]) if self[0] is None else self[0]


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False):
    """Runs ``fun`` (a ``linear_util.WrappedFun`` or a callable of flat values returning a
    sequence) with the known ``pvals`` now and stages what depends on the unknown ones.

    Returns ``(jaxpr, out_pvals, residuals)``: the staged jaxpr takes the residuals as
    constvars and the unknown inputs, and gives the unknown outputs; ``out_pvals`` has the
    known outputs' values. ``instantiate`` (a bool, or one per output) stages known outputs
    too.
    """
    trace = PartialEvalTrace(core.current_trace())
    unknown = [trace.new_arg(pv[0]) for pv in pvals if not pv.is_known()]
    next_unknown = iter(unknown)
    args = [pv[1] if pv.is_known() else next(next_unknown) for pv in pvals]
    call = getattr(fun, "call_wrapped", fun)
    try:
        with set_current_trace(trace):
            outs = list(call(*args))
        if isinstance(instantiate, bool):
            instantiate = [instantiate] * len(outs)
        staged = [inst or (type(o) is DynamicJaxprTracer and o._trace is trace)
                  for o, inst in zip(outs, instantiate)]
        closed = trace.finish(unknown, [o for o, s in zip(outs, staged) if s])
    finally:
        trace.invalidate()
    out_pvals = [PartialVal.unknown(get_aval(o)) if s else PartialVal.known(o)
                 for o, s in zip(outs, staged)]
    return closed.jaxpr, out_pvals, closed.consts
