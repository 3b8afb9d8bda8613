"""The ``jit`` primitive: a jitted function called under a trace is one equation.

``jit(f)(x)`` inside another trace (``jit``, ``make_jaxpr``, ``grad``, ``vmap`` ...) binds
``pjit_p`` (printed ``jit``, as in JAX) whose ``jaxpr`` param is ``f``'s ClosedJaxpr, traced once
per abstract signature by ``JitFunction`` (its own cache). As in JAX, the concrete NumPy-typed
values ``f`` closed over stay consts of that ClosedJaxpr (the lowering bakes them into the
callee's function); a tracer ``f`` closed over (or a typed key) is hoisted into a leading
operand, so a staged body never captures another trace's tracer (``open_closed``). Params:
``jaxpr``, ``name`` and ``donated_invars`` (one flag per operand).

The rules, each emitting a ``jit`` equation again, as JAX does:

- impl (an equation evaluated eagerly): the callee compiled and run through ``jit``'s own path;
- lowering: a private function of the module called by ``func.call``, as JAX lowers it
  (inlined inside shard_map and for effectful callees);
- JVP: ``ad.jvp_jaxpr`` of the callee; transpose: ``ad.transpose_jaxpr``; batching:
  ``batching.batch_jaxpr_dims`` (batch axes where the operands have them);
- partial evaluation: ``partial_eval_jaxpr`` splits the callee into a known ``jit`` run now
  and a staged one on the residuals and the unknown operands; a residual that is a known
  operand is passed along, not returned by the known call.

Each derived jaxpr is cached by the identity of the jaxpr it was derived from (the caches keep
that alive) and what the rule saw, so calling a jitted function many times derives it once.
"""

from __future__ import annotations

import numpy as np

from minijax import core, dtypes
from minijax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Primitive, Var, eval_jaxpr
from minijax.interpreters import ad
from minijax.interpreters.ad import UndefinedPrimal, Zero
from minijax.interpreters.batching import batch_jaxpr_dims, needs_axis_data
from minijax.interpreters.partial_eval import (
    DynamicJaxprTrace,
    DynamicJaxprTracer,
    dce_jaxpr,
    dce_jaxpr_used,
    dce_rules,
    in_linearization,
    inline_consts,
    partial_eval_jaxpr,
)
from minijax.caches import BoundedCache
from minijax.jitting import function
from minijax.lax.convert import convert_element_type_p
from minijax.lax.elementwise import select_n_p
from minijax.lax.structural import pad_p
from minijax.lax.control_flow.common import keep, pruned
from minijax.lowering.stablehlo import lower_call, lower_jaxpr_body, op_name
from minijax.source_info import user_frame
from minijax.lax import sharding_rules


class _JitPrimitive(Primitive):
    """A call with ``inline`` bound on a staging trace is inlined there, its equations keeping
    the callee's types, as JAX's ``pjit_staging_rule`` does: a transformation above the staging
    trace saw the call first and derived the callee at its own types (the JVP of a weak primal
    has a weak tangent, whatever the tangent operand's type), and those types hold."""

    def bind(self, *args, **params):
        if params["inline"]:
            trace = core.current_trace()
            if type(trace) is DynamicJaxprTrace and not trace.runs_eagerly:
                return _inline_into(trace, params["jaxpr"], args)
        return super().bind(*args, **params)


pjit_p = _JitPrimitive("jit", multiple_results=True)


def _inline_into(trace, closed, args):
    """``closed``'s equations appended to ``trace`` on ``args``, with fresh variables (one
    callee may be inlined twice) typed as in the callee."""
    jaxpr = closed.jaxpr
    env = dict(zip(jaxpr.constvars, closed.consts))
    env.update(zip(jaxpr.invars, args))
    src = user_frame()

    def read(v):
        return core.literal_value(v) if type(v) is Literal else env[v]

    for eqn in jaxpr.eqns:
        if eqn.primitive is convert_element_type_p:
            folded = _fold_convert(read(eqn.invars[0]), eqn.params, eqn.outvars[0].aval)
            if folded is not None:
                env[eqn.outvars[0]] = folded
                continue
        invars = [v if type(v) is Literal else trace.to_var(env[v]) for v in eqn.invars]
        outvars = [Var(v.aval) for v in eqn.outvars]
        trace.eqns.append(JaxprEqn(eqn.primitive, invars, outvars, eqn.params, src))
        for v, w in zip(eqn.outvars, outvars):
            env[v] = DynamicJaxprTracer(trace, w.aval, w)
    return [read(v) for v in jaxpr.outvars]


_FOLDABLE = (int, float, complex, bool, np.generic, np.ndarray, core.WeakScalar)


def _fold_convert(x, params, aval):
    """A scalar constant's conversion done while inlining, as JAX's constant folding of
    ``convert_element_type`` (a Python scalar argument's promotion leaves a literal, not a
    conversion): weak result a weak literal, strong a strong one; None when not foldable."""
    new_dtype = params["new_dtype"]
    if (not isinstance(x, _FOLDABLE) or np.shape(x)
            or dtypes.issubdtype(new_dtype, dtypes.extended)):
        return None
    out = np.asarray(x)
    if np.iscomplexobj(out) and not dtypes.issubdtype(new_dtype, np.complexfloating):
        out = out.real
    out = out.astype(new_dtype)
    return core.WeakScalar(out, out.dtype) if aval.weak_type else out


def open_closed(closed):
    """``(callee, operands)``: ``closed`` with its tracer consts (another trace's values, which
    a staged callee must not capture) and typed keys hoisted into leading operands. Concrete
    NumPy-typed consts stay in the callee's ClosedJaxpr, as JAX's jit keeps them: its lowering
    bakes them into the module, and an eager derived call (the JVP of a jit) does not take
    them as runtime arguments, which XLA would fold otherwise (s22012-472)."""
    jaxpr = closed.jaxpr
    hoist = [isinstance(c, core.Tracer) or not isinstance(v.aval.dtype, np.dtype)
             for v, c in zip(jaxpr.constvars, closed.consts)]
    if not any(hoist):
        return closed, []
    kept = [(v, c) for v, c, h in zip(jaxpr.constvars, closed.consts, hoist) if not h]
    moved = [(v, c) for v, c, h in zip(jaxpr.constvars, closed.consts, hoist) if h]
    opened = Jaxpr([v for v, _ in kept], [v for v, _ in moved] + jaxpr.invars, jaxpr.outvars,
                   jaxpr.eqns)
    return ClosedJaxpr(opened, [c for _, c in kept]), [c for _, c in moved]


_opened = BoundedCache()  # a traced ClosedJaxpr -> its open form, one object per callee


def bind(closed, args, name, donated=(), inline=False):
    """``closed`` called on ``args`` as one ``jit`` equation (see ``open_closed`` for its consts).
    ``inline``: JAX's param of a function jitted with ``inline=True`` (jnp's ufuncs, ``sum``),
    which JAX's linearization inlines: see ``_pjit_partial_eval``."""
    opened = _opened.get(closed)
    if opened is None:  # the rules' caches key on the open jaxpr's identity: kept per callee
        opened = _opened.put(_unless_tracers(closed, closed.consts), open_closed(closed))
    jaxpr, consts = opened
    donated = set(donated)
    flags = (False,) * len(consts) + tuple(i in donated for i in range(len(args)))
    return pjit_p.bind(*consts, *args, jaxpr=jaxpr, name=name, donated_invars=flags,
                       inline=inline)


def _rebind(jaxpr, consts, args, name, inline=False):
    """A derived callee (no donation: its operands are the caller's intermediates)."""
    n = len(consts) + len(args)
    return pjit_p.bind(*consts, *args, jaxpr=jaxpr, name=name, donated_invars=(False,) * n,
                       inline=inline)


def _unless_tracers(key, consts):
    """No caching when a derivation captured a tracer of an outer trace (a custom rule closing
    over one): that value belongs to the trace running now."""
    return None if any(isinstance(c, core.Tracer) for c in consts) else key


pjit_p.def_abstract_eval(lambda *avals, jaxpr, **_: jaxpr.out_avals)
# Inside shard_map a call keeps its operands' types and has its body's result types, as in
# JAX (a pvary of the operands would sum a replicated operand's cotangent over the devices).
pjit_p.own_vma = True
pjit_p.own_memory_space = True  # its results are its body's

# --- impl: the callee compiled once, run through jit ------------------------------------------

_callees = BoundedCache()


@pjit_p.def_impl
def _pjit_impl(*args, jaxpr, name, donated_invars, inline):
    key = (jaxpr, donated_invars)
    callee = _callees.get(key)
    if callee is None:
        def run(*xs):
            outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs)
            # The equation's types are the jaxpr's: an operand may be weak where the callee was
            # traced strong or the reverse (a jacfwd basis for a Python float's tangent), and
            # retracing on the operands would give the outputs other weak types.
            return [o if core.get_aval(o).weak_type == a.weak_type else
                    convert_element_type_p.bind(o, new_dtype=a.dtype, weak_type=a.weak_type)
                    for o, a in zip(outs, jaxpr.out_avals)]

        run.__name__ = run.__qualname__ = name
        donate = tuple(i for i, d in enumerate(donated_invars) if d)
        callee = _callees.put(key, function.jit(run, donate_argnums=donate or None))
    return callee(*args)


@pjit_p.def_lowering
def _pjit_lowering(ctx, *args, jaxpr, name, donated_invars, inline):
    mctx = ctx.module_ctx
    # Inline inside shard_map's manual region (nothing propagates there, and XLA's import
    # refuses some calls in it).
    if getattr(mctx, "manual_mesh", None) is not None:
        # the callee's ops (its trace has its own name stack) are named under the call, as
        # JAX names an inlined call's
        saved = mctx.scope, mctx.scope_base
        if ctx.eqn is not None:
            mctx.scope, mctx.scope_base = op_name(mctx, ctx.eqn), ()
        outs = lower_jaxpr_body(mctx, _baked(jaxpr).jaxpr, [], list(args), mctx.tokens)
        mctx.scope, mctx.scope_base = saved
        return outs
    return lower_call(mctx, _baked(jaxpr).jaxpr, args, name)


_baked_cache = BoundedCache()


def _baked(closed):
    """``closed`` with its consts written into the body as constants, as JAX bakes a callee's
    consts into its private function (one baked jaxpr per callee: the module's functions are
    keyed by it)."""
    if not closed.consts:
        return closed
    baked = _baked_cache.get(closed)
    if baked is None:
        baked = _baked_cache.put(closed, inline_consts(closed))
    return baked


def inline_calls(closed):
    """``closed`` with its ``jit`` equations replaced by their callees' equations, recursively
    (what the lowering emits anyway): whole-program passes (attention fusion matching a
    forward against its backward) see one level. ``closed`` itself when it has none."""
    jaxpr = closed.jaxpr
    if not any(e.primitive is pjit_p for e in jaxpr.eqns):
        return closed
    env, eqns = {}, []
    constvars, consts = list(jaxpr.constvars), list(closed.consts)
    _inline_eqns(jaxpr.eqns, env, eqns, fresh=False, consts=(constvars, consts))
    outs = [env.get(v, v) if type(v) is Var else v for v in jaxpr.outvars]
    return ClosedJaxpr(Jaxpr(constvars, jaxpr.invars, outs, eqns), consts)


def _inline_eqns(eqns, env, out, fresh, consts):
    """Appends ``eqns`` to ``out`` with operands renamed by ``env``; a callee's variables get
    fresh ones (one callee may be inlined twice), recorded in ``env``, and its consts fresh
    constvars appended to ``consts`` (the outer ``(constvars, values)``)."""
    for e in eqns:
        ins = [env.get(a, a) if type(a) is Var else a for a in e.invars]
        if e.primitive is pjit_p:
            callee = e.params["jaxpr"]
            body = callee.jaxpr
            inner = dict(zip(body.invars, ins))
            for v, c in zip(body.constvars, callee.consts):
                inner[v] = Var(v.aval)
                consts[0].append(inner[v])
                consts[1].append(c)
            _inline_eqns(body.eqns, inner, out, fresh=True, consts=consts)
            for o, v in zip(e.outvars, body.outvars):
                env[o] = inner.get(v, v) if type(v) is Var else v
            continue
        outvars = e.outvars
        if fresh:
            outvars = [Var(v.aval, v.suffix) for v in e.outvars]
            env.update(zip(e.outvars, outvars))
        out.append(JaxprEqn(e.primitive, ins, outvars, e.params, e.source_info))


# --- printing: as JAX's rule, ``name`` first, then the rest sorted; ``inline`` hidden ------------


def _pp_params(params):
    shown = [("name", params["name"])]
    if any(params["donated_invars"]):  # shown only when some operand is donated
        shown.append(("donated_invars", params["donated_invars"]))
    return shown + [("jaxpr", params["jaxpr"])]


pjit_p.pp_params = _pp_params
pjit_p.pp_callee = lambda params: params["jaxpr"].jaxpr

# --- dead-code elimination: the callee computes only the used outputs, on the operands it reads --

_dce_cache = BoundedCache()


def _pjit_dce(eqn, used_outputs):
    """JAX's DCE rule for jit. It runs with every output used too: an operand only a dead
    equation of the callee read (a custom_vjp's tangent feeding ``trunc``'s zero derivative)
    goes, so the caller's DCE can drop what computed it."""
    jaxpr = eqn.params["jaxpr"]  # its effectful equations stay (dce_jaxpr_used keeps them)
    key = (jaxpr, tuple(used_outputs))
    cached = _dce_cache.get(key)
    if cached is None:
        new, used_in = dce_jaxpr_used(jaxpr, used_outputs)
        unchanged = all(used_in) and all(used_outputs) and len(new.jaxpr.eqns) == len(
            jaxpr.jaxpr.eqns)
        cached = _dce_cache.put(key, (None if unchanged else pruned(new, used_in), used_in))
    callee, used_in = cached
    if callee is None:
        return used_in, eqn
    params = dict(eqn.params, jaxpr=callee,
                  donated_invars=tuple(keep(eqn.params["donated_invars"], used_in)))
    return used_in, JaxprEqn(pjit_p, keep(eqn.invars, used_in), keep(eqn.outvars, used_outputs),
                             params, eqn.source_info)


_pjit_dce.runs_when_all_used = True
dce_rules[pjit_p] = _pjit_dce

# --- JVP ---------------------------------------------------------------------------------------

_jvp_cache = BoundedCache()


def _pjit_jvp(primals, tangents, *, jaxpr, name, donated_invars, inline):
    tangents = ad.drop_integer_tangents(primals, tangents)
    nonzero = tuple(type(t) is not Zero for t in tangents)
    # a custom_vjp's tangent in the body is staged differently inside a linearization, and a
    # linearization's own jit linearizes its body (JAX's _pjit_linearize)
    linearizing = ad.linearizing_rule()
    key = (jaxpr, nonzero, in_linearization(core.current_trace()), linearizing)
    cached = _jvp_cache.get(key)
    if cached is None:
        jvp_closed, out_nonzero = ad.jvp_jaxpr(jaxpr, nonzero, [False] * len(jaxpr.out_avals),
                                               linearizing)
        jvp_jaxpr, consts = open_closed(jvp_closed)
        cached = _jvp_cache.put(_unless_tracers(key, consts), (jvp_jaxpr, consts, out_nonzero))
    jvp_jaxpr, consts, out_nonzero = cached
    outs = _rebind(jvp_jaxpr, consts,
                   [*primals, *[t for t in tangents if type(t) is not Zero]], name, inline)
    n_out = len(jaxpr.out_avals)
    return outs[:n_out], ad.with_zeros(outs[n_out:], out_nonzero, jaxpr.out_avals)


ad.primitive_jvps[pjit_p] = _pjit_jvp
# the rule binds jit on the primals as given (the callee is traced already), so partial
# evaluation forwards a known operand (a vjp's TypedFloat, linearize's plain float) as JAX's
ad.raw_primal_primitives.add(pjit_p)

# --- partial evaluation: a known jit now, a staged jit on the residuals --------------------------

_partial_eval_cache = BoundedCache()


def _zero_case(eqn, i):
    """A literal case of a staged ``select_n``, or the literal padding value of a staged
    ``pad``: in a linearization, the zeros a JVP rule made for an operand without a tangent
    (``select_n``'s ``full_like``, ``pad``'s instantiated zero padding tangent). JAX linearizes
    a call's body directly, making those zeros on the known side, so they are residuals of the
    known call (its ``0.0:f32[]`` outputs, passed to the staged call even where its transpose
    does not read them), not literals of the staged one."""
    return (i > 0 and eqn.primitive is select_n_p) or (i == 1 and eqn.primitive is pad_p)


def _split(jaxpr, unknown):
    """The known and staged jits. ``out_fwd[i]``: the known operand that known output ``i`` is
    (JAX's input-to-output forwarding: the known jit does not compute it), else None;
    ``forwarded[j]`` likewise for residual ``j``, and ``res_consts[j]`` the callee's const that
    residual ``j`` is, as a 1-tuple (JAX forwards it too: the staged jit takes the value);
    ``res_outs[j]`` the computed known output that residual ``j`` is, else None."""
    known, staged, out_unknown, _, forwarded = partial_eval_jaxpr(
        jaxpr, list(unknown), [False] * len(jaxpr.out_avals), _zero_case)
    kj = known.jaxpr
    n_known_out = sum(not u for u in out_unknown)
    in_index = {v: i for i, v in enumerate(kj.invars)}
    out_fwd = [in_index.get(v) if type(v) is Var else None for v in kj.outvars[:n_known_out]]
    const_of = {v: (c,) for v, c in zip(kj.constvars, known.consts)}
    res_vars = kj.outvars[n_known_out:]
    res_consts = [const_of.get(v) if f is None and type(v) is Var else None
                  for v, f in zip(res_vars, forwarded)]
    # JAX's output-to-output forwarding: a residual that is a (computed) known output is taken
    # from that output, not returned twice
    out_index = {v: i for i, (v, f) in enumerate(zip(kj.outvars, out_fwd))
                 if f is None and type(v) is Var}
    res_outs = [out_index.get(v) if f is None and c is None else None
                for v, f, c in zip(res_vars, forwarded, res_consts)]
    outs = [v for v, f in zip(kj.outvars, out_fwd) if f is None] + [
        v for v, f, c, o in zip(res_vars, forwarded, res_consts, res_outs)
        if f is None and c is None and o is None]
    known = dce_jaxpr(ClosedJaxpr(Jaxpr(kj.constvars, kj.invars, outs, kj.eqns), known.consts))
    known_jaxpr, known_consts = open_closed(known)
    return (known_jaxpr, known_consts, staged, out_unknown, out_fwd, forwarded, res_consts,
            res_outs)


def _pjit_partial_eval(trace, args, params):
    """The known part runs now as a ``jit``; the staged part on the residuals is a ``jit``
    equation, or, for an ``inline`` one, its equations: JAX's linearization binds such a call's
    tangent jaxpr inline on its tangent trace, so in an eager grad/vjp/linearize its transpose
    runs op by op (XLA would contract a compiled multiply+reduce to an FMA)."""
    jaxpr, name, inline = params["jaxpr"], params["name"], params["inline"]
    unknown = tuple(trace.is_unknown(x) for x in args)
    key = (jaxpr, unknown)
    cached = _partial_eval_cache.get(key)
    if cached is None:
        cached = _split(jaxpr, unknown)
        cached = _partial_eval_cache.put(_unless_tracers(key, cached[1]), cached)
    (known_jaxpr, known_consts, staged, out_unknown, out_fwd, forwarded, res_consts,
     res_outs) = cached
    known_args = [x for x, u in zip(args, unknown) if not u]
    prev = core.swap_current_trace(trace.parent)
    try:
        # a literal output comes from running the call, as in JAX (an Array, not the literal)
        if known_jaxpr.jaxpr.eqns or not all(type(v) is Var for v in known_jaxpr.jaxpr.outvars):
            known_outs = _rebind(known_jaxpr, known_consts, known_args, name, inline)
        else:  # nothing to compute now (outputs are operands)
            known_outs = eval_jaxpr(known_jaxpr.jaxpr, known_jaxpr.consts, *known_consts,
                                    *known_args)
    finally:
        core.swap_current_trace(prev)
    # a known output that is a known operand is that operand as given (a vjp's TypedFloat
    # primal stays one), as JAX's forwarding
    computed = iter(known_outs)
    known_outs = [next(computed) if f is None else known_args[f] for f in out_fwd]
    residuals = [c[0] if c is not None else known_args[f] if f is not None
                 else known_outs[o] if o is not None else next(computed)
                 for f, c, o in zip(forwarded, res_consts, res_outs)]
    unknown_args = [x for x, u in zip(args, unknown) if u]
    if inline:
        staged_outs = _inline_staged(trace, staged, residuals + unknown_args)
    else:
        n = len(residuals) + len(unknown_args)
        staged_outs = trace.stage(pjit_p, residuals + unknown_args,
                                  dict(jaxpr=staged, name=name, donated_invars=(False,) * n,
                                       inline=False))
    known_it, staged_it = iter(known_outs), iter(staged_outs)
    return [next(staged_it) if u else next(known_it) for u in out_unknown]


def _inline_staged(trace, closed, args):
    """``closed`` (an ``inline`` call's staged part) run on the linearization's ``trace``, as
    JAX's linearization inlines the call's tangent jaxpr (``inline_jaxpr_into_trace``): an
    equation on a staged value is appended with the callee's types, which were derived at the
    primals' types, not retyped on its operands (``jnp.power(3, b) + b``: the tangent ``add``
    of pow's strong tangent and ``b``'s weak one is weak, so a later ``astype``'s transpose
    converts the cotangent to weak and ``grad`` is ``~float32``). An equation with a partial
    evaluation rule of its own (a nested call, a loop), or on known values only, is bound."""
    jaxpr = closed.jaxpr
    env = dict(zip(jaxpr.constvars, closed.consts))
    env.update(zip(jaxpr.invars, args))

    def read(v):
        return core.literal_value(v) if type(v) is Literal else env[v]

    src = None
    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        prim = eqn.primitive
        if prim.partial_eval is None and any(trace.is_unknown(x) for x in ins):
            src = src or user_frame()
            outvars = [Var(v.aval) for v in eqn.outvars]
            trace.eqns.append(JaxprEqn(prim, [trace.to_var(x) for x in ins], outvars,
                                       eqn.params, src))
            outs = [DynamicJaxprTracer(trace, v.aval, v) for v in outvars]
        else:
            with core.set_current_trace(trace):
                outs = prim.bind(*ins, **eqn.params)
            if not prim.multiple_results:
                outs = (outs,)
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


pjit_p.partial_eval = _pjit_partial_eval

# --- transpose ---------------------------------------------------------------------------------

_transpose_cache = BoundedCache()


def _pjit_transpose(cts, *args, jaxpr, name, donated_invars, inline):
    linear = tuple(type(x) is UndefinedPrimal for x in args)
    ct_present = tuple(type(c) is not Zero for c in cts)
    ct_types = _ct_types(cts, jaxpr.out_avals)
    res_types = _res_types(args, jaxpr.in_avals)
    lin_types = _lin_types(args, jaxpr.in_avals)
    key = (jaxpr, linear, ct_present, ct_types, res_types, lin_types)
    cached = _transpose_cache.get(key)
    if cached is None:
        t_closed, nonzero = ad.transpose_jaxpr(jaxpr, list(linear), list(ct_present),
                                               ct_types, res_types, lin_types)
        t_jaxpr, consts = open_closed(t_closed)
        cached = _transpose_cache.put(_unless_tracers(key, consts), (t_jaxpr, consts, nonzero))
    t_jaxpr, consts, nonzero = cached
    res = [x for x, lin in zip(args, linear) if not lin]
    outs = iter(_rebind(t_jaxpr, consts, [*res, *[c for c in cts if type(c) is not Zero]],
                        name, inline))
    nz = iter(nonzero)
    in_cts = []
    for lin in linear:  # the transposed callee gives one (maybe zero) cotangent per linear input
        ct = next(outs) if lin else None
        in_cts.append(ct if lin and next(nz) else None)
    return in_cts


ad.primitive_transposes[pjit_p] = _pjit_transpose


def _ct_types(cts, out_avals):
    """None, or the present cotangents' types where one has another dtype or weak type than
    its output's tangent, as JAX's transpose of a call traces the cotangents as they are: a
    strong cotangent of a weak output stays strong, and a custom_vjp bwd's cotangent of
    another dtype flows on (or fails in a lax op) rather than reaching an ill-typed callee."""
    return _own_types([(ad.tangent_aval(a), c) for c, a in zip(cts, out_avals)
                       if type(c) is not Zero])


def _res_types(args, in_avals):
    """None, or the residuals' (non-linear operands') types where one has another dtype or
    weak type than its invar, as JAX traces a call's transpose at its operands' own types: a
    strong tangent fed to a jit's JVP at a weak primal's tangent invar stays strong there."""
    return _own_types([(a, x) for x, a in zip(args, in_avals) if type(x) is not UndefinedPrimal])


def _lin_types(args, in_avals):
    """None, or per operand the linear operand's type where it has another weak type than its
    invar (``ad.linear_input_type``), as JAX's transpose of a call types the callee's binders."""
    types = [ad.linear_input_type(x, a) for x, a in zip(args, in_avals)]
    return None if all(t is None for t in types) else tuple(types)


def _own_types(pairs):
    """None where every value of ``pairs`` (expected aval, value) has its expected aval's dtype
    and weak type, else the expected avals with the values' ones. Only arrays are retyped
    (float0 tangents and refs stay as expected)."""
    pairs = [(t, core.get_aval(x)) for t, x in pairs]
    retype = [isinstance(t, core.ShapedArray) and isinstance(c, core.ShapedArray)
              and t.dtype != dtypes.float0
              and (t.dtype, t.weak_type) != (c.dtype, c.weak_type) for t, c in pairs]
    if not any(retype):
        return None
    return tuple(t.update(dtype=c.dtype, weak_type=c.weak_type) if r else t
                 for (t, c), r in zip(pairs, retype))


# --- batching ----------------------------------------------------------------------------------

_batch_cache = BoundedCache()


@pjit_p.def_batching
@needs_axis_data
def _pjit_batching(axis_data, args, dims, *, jaxpr, name, donated_invars, inline):
    try:
        key = (jaxpr, tuple(dims), axis_data)
        hash(key)
    except TypeError:
        key = None
    cached = _batch_cache.get(key)
    if cached is None:
        batched, out_dims = batch_jaxpr_dims(jaxpr, axis_data, list(dims))
        b_jaxpr, consts = open_closed(batched)
        cached = _batch_cache.put(_unless_tracers(key, consts), (b_jaxpr, consts, out_dims))
    b_jaxpr, consts, out_dims = cached
    outs = pjit_p.bind(*consts, *args, jaxpr=b_jaxpr, name=name,
                       donated_invars=(False,) * len(consts) + tuple(donated_invars),
                       inline=inline)
    return outs, list(out_dims)

pjit_p.sharding_rule = sharding_rules.typed_by_body  # its results are its body's
