"""Walking a jaxpr: its equations, the jaxprs nested in their params, matching by name.

Jaxprs nest in two forms: control flow holds ``ClosedJaxpr``s (``cond``'s ``branches``, a
tuple; ``while``'s ``cond_jaxpr``/``body_jaxpr``; ``scan``'s ``jaxpr``), call-like primitives
hold *open* ``Jaxpr``s with no constvars (``custom_jvp_call``/``custom_vjp_call``'s
``call_jaxpr``, ``checkpoint``'s and ``shard_map``'s ``jaxpr``), and a nested ``jit`` holds a
``ClosedJaxpr`` without consts in ``jaxpr``. The helpers below find nested jaxprs by type, so
a new primitive that holds one is walked without being listed here. This is the one walker of
the package: the interpreters (vmap's search for collectives), the program transforms
(``minijax.transforms``) and the tools use it.
"""

from __future__ import annotations

from minijax.core import ClosedJaxpr, Jaxpr


def _is_jaxpr(v):
    return isinstance(v, (ClosedJaxpr, Jaxpr))


def sub_jaxprs(params):
    """``(name, jaxpr)`` for each Jaxpr/ClosedJaxpr in ``params``, those in a tuple or list
    included (named ``name[i]``)."""
    for k, v in params.items():
        if _is_jaxpr(v):
            yield k, v
        elif isinstance(v, (tuple, list)):
            for i, b in enumerate(v):
                if _is_jaxpr(b):
                    yield f"{k}[{i}]", b


def has_effects(eqn) -> bool:
    """Whether ``eqn`` must run for its side effects: an effectful primitive, or one holding
    such an equation in a nested jaxpr (a ``debug.print`` in a loop body or a jit's callee).
    Dead-code elimination keeps it."""
    return eqn.primitive.effectful or any(
        has_effects(e) for _, sub in sub_jaxprs(eqn.params)
        for e in getattr(sub, "jaxpr", sub).eqns)


def map_sub_jaxprs(params, fn):
    """``params`` with every nested ClosedJaxpr ``c`` replaced by ``fn(c)``.

    Open jaxprs are passed to ``fn`` wrapped as ``ClosedJaxpr(jaxpr, [])`` and unwrapped after;
    ``fn`` must not give them constants (they have no place to live in a call's operands).
    """
    def one(k, v):
        if isinstance(v, ClosedJaxpr):
            return fn(v)
        new = fn(ClosedJaxpr(v, []))
        if new.consts:
            # internal invariant of minijax's rewrites (no JAX 0.10.2 twin, no user call)
            raise NotImplementedError(
                f"rewriting the jaxpr in param {k!r} introduced {len(new.consts)} constants; "
                "jaxprs of call-like primitives cannot hold constants")
        return new.jaxpr

    out, changed = {}, False
    for k, v in params.items():
        if _is_jaxpr(v):
            out[k] = one(k, v)
        elif isinstance(v, (tuple, list)) and any(_is_jaxpr(b) for b in v):
            out[k] = type(v)(one(k, b) if _is_jaxpr(b) else b for b in v)
        else:
            out[k] = v
            continue
        changed = True
    return out if changed else params


def iter_eqns(closed, recursive=True):
    """Every equation of ``closed`` (a ClosedJaxpr or Jaxpr), nested jaxprs' included."""
    jaxpr = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    for eqn in jaxpr.eqns:
        yield eqn
        if recursive:
            for _, sub in sub_jaxprs(eqn.params):
                yield from iter_eqns(sub, recursive)


def matches(eqn, names):
    """Whether ``eqn``'s primitive is named ``names`` (a string) or one of them (a set)."""
    name = eqn.primitive.name
    return name == names if isinstance(names, str) else name in names


def find_eqns(closed, names, recursive=True):
    """The equations of the primitive(s) ``names``, in program order."""
    return [e for e in iter_eqns(closed, recursive) if matches(e, names)]


def count_eqns(closed, recursive=True):
    return sum(1 for _ in iter_eqns(closed, recursive))


def producers(closed):
    """``{var: the equation defining it}`` for the top level of ``closed``."""
    jaxpr = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    return {v: e for e in jaxpr.eqns for v in e.outvars}
