"""Which arguments a jitted program uses: ``jit(f, keep_unused=False)``, the default, compiles
the program without the arguments (and closed-over constants) that no output depends on, as
JAX does. Dispatch still takes them, but they are not operands of the executable: they neither
pick its devices nor are donated.

Dead equations go first (an argument read only by an unused computation is unused), through
nested ``jit`` and ``checkpoint`` calls and ``cond`` branches too, as JAX's rules for them do:
their unused outputs and then the operands no longer needed go, so an argument an inner
function ignores is unused outside as well.
"""

from __future__ import annotations

from minijax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from minijax.interpreters.partial_eval import dce_rules
from minijax.interpreters.walk import sub_jaxprs
from minijax.jitting.pjit import pjit_p
from minijax.lax.control_flow.conditionals import cond_p
from minijax.rematerialization import checkpoint_p


def prune_unused(closed):
    """``(program, kept)``: ``closed`` without dead equations, unused constants and unused
    arguments, and the indices of the arguments it keeps (None: it keeps them all, and
    ``program`` may be ``closed`` itself)."""
    jaxpr, used_consts, used_args = _dce(closed.jaxpr, [True] * len(closed.jaxpr.outvars))
    consts = [c for c, u in zip(closed.consts, used_consts) if u]
    kept = [i for i, u in enumerate(used_args) if u]
    program = ClosedJaxpr(jaxpr, consts)
    return program, (None if len(kept) == len(used_args) else tuple(kept))


def _dce(jaxpr, used_outputs):
    """``(jaxpr, used constvars, used invars)``: ``jaxpr`` computing only the outputs flagged
    in ``used_outputs`` (the others dropped), without what they do not need."""
    live = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is Var}
    eqns = []
    # one pass per jit: set operations keep it cheap (literals join ``live`` harmlessly)
    for eqn in reversed(jaxpr.eqns):
        if live.isdisjoint(eqn.outvars) and not _has_effects(eqn):
            continue
        prim = eqn.primitive
        if prim is pjit_p or prim is checkpoint_p:
            eqn = _dce_call(eqn, [v in live for v in eqn.outvars])
        elif prim is cond_p:
            eqn = _dce_cond(eqn, [v in live for v in eqn.outvars])
        elif prim in dce_rules:  # the loops: their dead carries go
            eqn = dce_rules[prim](eqn, [v in live for v in eqn.outvars])[1]
        eqns.append(eqn)
        live.update(eqn.invars)
    eqns.reverse()
    used_consts = [v in live for v in jaxpr.constvars]
    used_invars = [v in live for v in jaxpr.invars]
    out = Jaxpr(
        [v for v, u in zip(jaxpr.constvars, used_consts) if u],
        [v for v, u in zip(jaxpr.invars, used_invars) if u],
        [v for v, u in zip(jaxpr.outvars, used_outputs) if u],
        eqns,
    )
    return out, used_consts, used_invars


def _has_effects(eqn):
    """Whether ``eqn`` must run for its side effects (a ``debug.print`` in a loop body too)."""
    return eqn.primitive.effectful or any(
        _has_effects(e) for _, sub in sub_jaxprs(eqn.params)
        for e in getattr(sub, "jaxpr", sub).eqns)


def _dce_call(eqn, used_outputs):
    """A ``jit`` or ``checkpoint`` equation giving only its used outputs (and its callee's
    side effects), on the operands its callee needs for them. A ``jit`` holds its callee as
    a ClosedJaxpr, a ``checkpoint`` as an open Jaxpr."""
    callee = eqn.params["jaxpr"]
    closed = type(callee) is ClosedJaxpr
    body = callee.jaxpr if closed else callee
    inner, used_consts, used_in = _dce(body, used_outputs)
    if all(used_in) and all(used_outputs) and len(inner.eqns) == len(body.eqns):
        return eqn
    params = dict(eqn.params)
    params["jaxpr"] = inner
    if closed:
        params["jaxpr"] = ClosedJaxpr(inner, [c for c, u in zip(callee.consts, used_consts) if u])
    if "donated_invars" in params:
        params["donated_invars"] = tuple(d for d, u in zip(params["donated_invars"], used_in) if u)
    return _rebuilt(eqn, used_in, used_outputs, params)


def _dce_cond(eqn, used_outputs):
    """A ``cond`` giving only its used outputs, on the operands some branch needs for them
    (its first operand, the branch index, always stays)."""
    branches = eqn.params["branches"]
    pruned = [_dce(b.jaxpr, used_outputs) for b in branches]
    used_ops = [any(p[2][i] for p in pruned) for i in range(len(eqn.invars) - 1)]
    if all(used_ops) and all(used_outputs) and all(
            len(p[0].eqns) == len(b.jaxpr.eqns) for p, b in zip(pruned, branches)):
        return eqn
    new = tuple(
        ClosedJaxpr(Jaxpr(b.jaxpr.constvars, [v for v, u in zip(b.jaxpr.invars, used_ops) if u],
                          p[0].outvars, p[0].eqns), b.consts)
        for p, b in zip(pruned, branches))
    return _rebuilt(eqn, [True] + used_ops, used_outputs, dict(eqn.params, branches=new))


def _rebuilt(eqn, used_in, used_outputs, params):
    return JaxprEqn(
        eqn.primitive,
        [v for v, u in zip(eqn.invars, used_in) if u],
        [v for v, u in zip(eqn.outvars, used_outputs) if u],
        params,
        eqn.source_info,
    )
