"""Built-in simplification passes, written with the public pass API (and examples of it).

- ``dce``: drops equations whose results no output needs, in nested jaxprs too (their
  signatures are kept: a loop body still returns its whole carry).
- ``cse``: one equation per (primitive, operands, params); repeats reuse the first result.
- ``fold_constants``: equations whose operands are all literals or small constants run now
  (eagerly, on the same XLA executor an eager call would use) and become literals (scalars)
  or small constants; identities (a convert to the same type, a reshape/broadcast to the same
  shape, an identity transpose) are forwarded to their operand.
- ``simplify``: the three, folding first.

None of them changes a value: the tests compare the programs bit for bit.
"""

from __future__ import annotations

import numpy as np

from minijax import core
from minijax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Tracer, Var
from minijax.interpreters.partial_eval import dce_jaxpr
from minijax.interpreters.structure import param_key
from minijax.interpreters.walk import map_sub_jaxprs, sub_jaxprs


def has_side_effects(prim):
    """Primitives that must run even when unused, and are never merged: the effectful ones
    (debug and io callbacks, checkify's checks), as ``dce_jaxpr`` keeps them."""
    return prim.effectful


# ------------------------------------------------------------------------------------------------
# DCE


def dce(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Dead-code elimination, nested jaxprs included (reuses ``partial_eval.dce_jaxpr``)."""
    jaxpr = closed.jaxpr
    eqns, changed = [], False
    for eqn in jaxpr.eqns:
        params = map_sub_jaxprs(eqn.params, dce)
        if params is not eqn.params:
            changed = True
            eqn = JaxprEqn(eqn.primitive, eqn.invars, eqn.outvars, params, eqn.source_info)
        eqns.append(eqn)
    if changed:
        closed = ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns),
                             closed.consts)
    if any(has_side_effects(e.primitive) for e in eqns):
        return _dce_keeping_effects(closed)
    return dce_jaxpr(closed)


def _dce_keeping_effects(closed):
    jaxpr = closed.jaxpr
    live = {v for v in jaxpr.outvars if type(v) is Var}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if has_side_effects(eqn.primitive) or any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(v for v in eqn.invars if type(v) is Var)
    kept.reverse()
    consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in live]
    new = Jaxpr([v for v, _ in consts], jaxpr.invars, jaxpr.outvars, kept)
    return ClosedJaxpr(new, [c for _, c in consts])


# ------------------------------------------------------------------------------------------------
# CSE


def _hashable(v):
    # within one pass an unhashable param may stand for itself (its id): the jaxpr holds it
    return param_key(v, fallback=lambda x: ("id", id(x)))


def _atom_key(a):
    if type(a) is Literal:
        val = np.asarray(a.val)
        return ("lit", val.dtype.str, val.tobytes(), a.aval.weak_type)
    return a


def cse(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Common-subexpression elimination: identical equations computed once."""
    jaxpr = closed.jaxpr
    env, seen, eqns = {}, {}, []

    def read(a):
        return env.get(a, a) if type(a) is Var else a

    for eqn in jaxpr.eqns:
        params = map_sub_jaxprs(eqn.params, cse)
        invars = [read(a) for a in eqn.invars]
        key = None
        if not has_side_effects(eqn.primitive):
            key = (eqn.primitive, tuple(map(_atom_key, invars)), _hashable(params))
            prev = seen.get(key)
            if prev is not None and all(p.aval == v.aval for p, v in zip(prev, eqn.outvars)):
                env.update(zip(eqn.outvars, prev))
                continue
        eqns.append(JaxprEqn(eqn.primitive, invars, eqn.outvars, params, eqn.source_info))
        if key is not None:
            seen[key] = eqn.outvars
    new = Jaxpr(jaxpr.constvars, jaxpr.invars, [read(v) for v in jaxpr.outvars], eqns)
    return ClosedJaxpr(new, closed.consts)


# ------------------------------------------------------------------------------------------------
# Constant folding and forwarding


def _is_identity(eqn, invars):
    """Whether ``eqn`` returns its first operand unchanged (same type, same values)."""
    if eqn.primitive.multiple_results or not invars or type(invars[0]) is Literal:
        return False
    x, out = invars[0].aval, eqn.outvars[0].aval
    if x != out:  # shape, dtype and weak type
        return False
    name, p = eqn.primitive.name, eqn.params
    if name == "convert_element_type":
        return True
    if name in ("reshape", "broadcast_in_dim", "squeeze", "copy"):
        return len(invars) == 1
    if name == "transpose":
        return tuple(p["permutation"]) == tuple(range(x.ndim))
    return False


def fold_constants(closed: ClosedJaxpr, max_size=16) -> ClosedJaxpr:
    """Evaluates equations on literals and constants of at most ``max_size`` elements whose
    results are that small too; forwards identity equations to their operands."""
    jaxpr = closed.jaxpr
    known = {}  # var -> concrete value (small constants and folded results)
    for v, c in zip(jaxpr.constvars, closed.consts):
        if not isinstance(c, Tracer) and int(np.prod(v.aval.shape)) <= max_size:
            known[v] = c
    env, eqns = {}, []
    new_constvars, new_consts = list(jaxpr.constvars), list(closed.consts)

    def read(a):
        return env.get(a, a) if type(a) is Var else a

    def value(a):
        if type(a) is Literal:
            return core.WeakScalar(a.val, a.aval.dtype) if a.aval.weak_type else a.val
        return known.get(a)

    for eqn in jaxpr.eqns:
        params = map_sub_jaxprs(eqn.params, lambda c: fold_constants(c, max_size))
        invars = [read(a) for a in eqn.invars]
        if _is_identity(eqn, invars):
            env[eqn.outvars[0]] = invars[0]
            continue
        vals = [value(a) for a in invars]
        small_out = all(int(np.prod(v.aval.shape)) <= max_size for v in eqn.outvars)
        if (invars and small_out and all(v is not None for v in vals)
                and not has_side_effects(eqn.primitive) and not any(sub_jaxprs(params))):
            with core.set_current_trace(core.eval_trace):
                outs = eqn.primitive.bind(*vals, **params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            for v, o in zip(eqn.outvars, outs):
                if v.aval.shape == ():
                    env[v] = Literal(np.asarray(o).astype(v.aval.dtype), v.aval)
                else:
                    new_constvars.append(v)  # the eqn's own var now names a constant
                    new_consts.append(o)
                    known[v] = o
            continue
        eqns.append(JaxprEqn(eqn.primitive, invars, eqn.outvars, params, eqn.source_info))
    new = Jaxpr(new_constvars, jaxpr.invars, [read(v) for v in jaxpr.outvars], eqns)
    return dce_jaxpr(ClosedJaxpr(new, new_consts))


def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``fold_constants``, then ``cse``, then ``dce``."""
    return dce(cse(fold_constants(closed)))
