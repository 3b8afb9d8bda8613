"""Shared machinery of the control-flow primitives: tracing user functions to jaxprs, and
the bookkeeping their rules share (splitting and permuting operand lists, type checks,
printing). Transforming a body is the interpreters' job: ``ad.jvp_jaxpr``,
``ad.transpose_jaxpr``, ``batching.batch_jaxpr``, ``partial_eval.partial_eval_jaxpr``.

Conventions used by every control-flow primitive:

- A user function (branch, loop body) is traced once, with pytree inputs and outputs, into an
  open jaxpr whose closed-over values (arrays, tracers of outer transformations) are *hoisted*
  to leading inputs and passed as ordinary operands of the primitive. So outer transformations
  see them as operands (grad/vmap of a loop that closes over a traced value just works), and
  under jit they become executable arguments, never baked-in constants.
- Jaxprs made *inside* rules (the JVP of a body ...) may keep small concrete constants
  (``ClosedJaxpr.consts``) made by other rules; the lowering emits them as constants.
- Carry and branch types are compared on shape and dtype; weak types are not part of the
  contract (a Python scalar as the initial carry is made strong), as in JAX.
"""

from __future__ import annotations

from minijax.core import ClosedJaxpr, Jaxpr, pp_jaxpr
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import not_mapped
from minijax.interpreters.partial_eval import trace_open
from minijax.source_info import with_user_line
from minijax.tree_util import _registry

# ------------------------------------------------------------------------------------------------
# Tracing user functions


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

    jaxpr, consts = trace_open(flat, list(in_avals))
    return ClosedJaxpr(jaxpr, []), consts, out_trees[0]


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
# For the rules


def differentiable(avals, flags):
    return [bool(f) and ad.is_differentiable_dtype(a.dtype) for a, f in zip(avals, flags)]


def to_batched(x, d, want, size, dst=0):
    """Operand ``x`` (batch axis ``d``) with its batch axis at ``dst`` if ``want``."""
    if not want:
        assert d is not_mapped
        return x
    return batching.bdim_to(x, d, dst, size)


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


def user_error(msg):
    return TypeError(with_user_line(msg))

