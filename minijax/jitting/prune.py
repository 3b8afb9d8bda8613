"""Which arguments a jitted program uses: ``jit(f, keep_unused=False)``, the default, compiles
the program without the arguments (and closed-over constants) that no output depends on, as
JAX does. Dispatch still takes them, but they are not operands of the executable: they neither
pick its devices nor are donated.

Dead equations go first (an argument read only by an unused computation is unused), through
nested ``jit`` and ``checkpoint`` calls, ``cond`` branches and loops too, by their DCE rules
(``partial_eval.dce_rules``, JAX's): their unused outputs and then the operands no longer
needed go, so an argument an inner function ignores is unused outside as well.
"""

from __future__ import annotations

from minijax.core import ClosedJaxpr, Jaxpr, Var
from minijax.interpreters.partial_eval import dce_rules
from minijax.interpreters.walk import has_effects


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
        if live.isdisjoint(eqn.outvars) and not has_effects(eqn):
            continue
        rule = dce_rules.get(eqn.primitive)
        if rule is not None:  # every time: an operand only a dead inner equation read goes
            eqn = rule(eqn, [v in live for v in eqn.outvars])[1]
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
