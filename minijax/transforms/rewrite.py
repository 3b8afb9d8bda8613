"""Rewriting equations: replace one by ordinary minijax code traced on its operands.

``rewrite(closed, rule)`` walks the program (nested jaxprs too, with the same rule); for each
equation ``rule(eqn)`` returns ``None`` (keep it) or a function. The function is traced on
the equation's operands (``fn(*operands)`` returning its output, or a list of outputs for a
multiple-result primitive) and its jaxpr is inlined in place of the equation: its constants
become constvars of the program, its equations keep the replaced equation's source line, so
errors and dumps still point at the user's code.
"""

from __future__ import annotations

from minijax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.interpreters.walk import map_sub_jaxprs
from minijax.source_info import with_user_line
from minijax.tree_util import _registry


class _Builder:
    """A jaxpr under construction: the original's vars, renamed where equations were replaced."""

    def __init__(self, jaxpr, consts):
        self.env = {}
        self.constvars = list(jaxpr.constvars)
        self.consts = list(consts)
        self.const_ids = {}
        self.eqns = []

    def read(self, a):
        return self.env.get(a, a) if type(a) is Var else a

    def const_var(self, value, aval):
        var = self.const_ids.get(id(value))
        if var is None:
            var = self.const_ids[id(value)] = Var(aval)
            self.constvars.append(var)
            self.consts.append(value)
        return var

    def inline(self, closed, in_atoms, source_info=None):
        """Emits ``closed``'s equations on ``in_atoms``; returns the atoms of its outputs."""
        jaxpr = closed.jaxpr
        sub = dict(zip(jaxpr.invars, in_atoms))
        for v, c in zip(jaxpr.constvars, closed.consts):
            sub[v] = self.const_var(c, v.aval)

        def read(a):
            return sub.get(a, a) if type(a) is Var else a

        for eqn in jaxpr.eqns:
            self.eqns.append(JaxprEqn(eqn.primitive, [read(a) for a in eqn.invars], eqn.outvars,
                                      eqn.params, source_info or eqn.source_info))
        return [read(v) for v in jaxpr.outvars]

    def finish(self, jaxpr):
        outvars = [self.read(v) for v in jaxpr.outvars]
        return ClosedJaxpr(Jaxpr(self.constvars, jaxpr.invars, outvars, self.eqns), self.consts)


def trace_replacement(fn, avals, what="replacement"):
    """``fn`` traced on operands of types ``avals``: a ClosedJaxpr with a flat output list."""
    def flat(*xs):
        outs, _ = _registry.flatten(fn(*xs))
        return outs

    return trace_to_jaxpr(flat, list(avals))


def _same(a, b):
    return tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype


def replace_eqn(builder, eqn, fn, operands=None):
    """Inlines ``fn`` traced on ``operands`` (default: ``eqn``'s, already renamed) in place of
    ``eqn``: ``eqn``'s outputs become ``fn``'s."""
    operands = eqn.invars if operands is None else [builder.read(a) for a in operands]
    closed = trace_replacement(fn, [a.aval for a in operands])
    if len(closed.out_avals) != len(eqn.outvars) or not all(
            _same(v.aval, a) for v, a in zip(eqn.outvars, closed.out_avals)):
        got = ", ".join(a.str_short(True) for a in closed.out_avals)
        want = ", ".join(v.aval.str_short(True) for v in eqn.outvars)
        name = getattr(fn, "__name__", repr(fn))
        where = f" (traced at {eqn.source_info})" if eqn.source_info else ""
        raise TypeError(with_user_line(
            f"the replacement {name} for `{eqn.primitive.name}`{where} returned ({got}); the "
            f"equation's outputs are ({want}). Convert the result to the original types."))
    outs = builder.inline(closed, operands, eqn.source_info)
    for v, o in zip(eqn.outvars, outs):
        builder.env[v] = o


def rewrite(closed: ClosedJaxpr, rule, recursive=True) -> ClosedJaxpr:
    """``closed`` with each equation for which ``rule(eqn)`` gives a function replaced by it.

    ``rule`` sees the equation with its operands renamed and its nested jaxprs already
    rewritten. A replacement must return values of the equation's output types. To match a
    pattern of several equations, ``rule`` may return ``(fn, operands)``: ``fn`` is traced on
    those variables (any defined before ``eqn``) instead of ``eqn``'s operands; equations left
    unused are dropped by a following ``dce``.
    """
    jaxpr = closed.jaxpr
    b = _Builder(jaxpr, closed.consts)
    for eqn in jaxpr.eqns:
        params = eqn.params
        if recursive:
            params = map_sub_jaxprs(params, lambda c: rewrite(c, rule, recursive))
        new = JaxprEqn(eqn.primitive, [b.read(a) for a in eqn.invars], eqn.outvars, params,
                       eqn.source_info)
        fn = rule(new)
        if fn is None:
            b.eqns.append(new)
        elif isinstance(fn, tuple):
            replace_eqn(b, new, *fn)
        else:
            replace_eqn(b, new, fn)
    return b.finish(jaxpr)


def replace_pass(replacements, name=None):
    """A pass re-tracing every equation of primitive ``p`` as ``replacements[p](*operands)``."""
    table = dict(replacements)

    def pass_(closed):
        return rewrite(closed, lambda eqn: table.get(eqn.primitive.name))

    pass_.__name__ = name or f"replace({', '.join(sorted(table))})"
    return pass_


def is_literal(a):
    return type(a) is Literal
