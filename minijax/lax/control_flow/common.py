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

import functools
import inspect

from minijax import core
from minijax.core import ClosedJaxpr, Jaxpr
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import not_mapped
from minijax.interpreters.partial_eval import trace_open
from minijax.interpreters.walk import has_effects
from minijax.source_info import with_user_line
from minijax.tree_util import _registry, keystr, tree_flatten_with_path

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


def effectful(closed):
    """Whether ``closed`` (nested jaxprs included) holds a side effect: DCE keeps it whole."""
    return any(has_effects(e) for e in closed.jaxpr.eqns)


def keep(xs, flags):
    return [x for x, f in zip(xs, flags) if f]


def pruned(closed, used_in):
    """``closed`` without the invars ``used_in`` does not flag (DCE rules' operands)."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, keep(j.invars, used_in), j.outvars, j.eqns),
                       closed.consts)


def vary_like(tree, *refs):
    """``tree`` with every leaf cast (pvary) to the manual axes that any leaf of ``tree`` or
    ``refs`` varies over inside ``shard_map`` (unchanged outside one). minijax's own loops type
    their initial carries (and conditionals their branch outputs) with it, as JAX's library
    loops pvary theirs, so the body's output carry has the input carry's type."""
    leaves, treedef = _registry.flatten(tree)  # internal: a typed key's leaf is its data
    out = core.insert_pvary((*leaves, *_registry.flatten(refs)[0]))
    return treedef.unflatten(out[:len(leaves)])


def type_str(avals):
    return "(" + ", ".join(a.str_short(True) for a in avals) + ")"


def same_types(a, b):
    """Shape and dtype agree (weak types are not part of the contract)."""
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype for x, y in zip(a, b)
    )


def _mismatch_extra(a, b):
    """JAX's ``core.aval_mismatch_extra``: which of dtype, shape and manual axes differ."""
    what = [w for w, differs in (("the dtypes do not match", a.dtype != b.dtype),
                                 ("the shapes do not match", a.shape != b.shape),
                                 ("the manual axis types do not match", a.vma != b.vma))
            if differs]
    if not what:
        return ""
    if len(what) == 1:
        return ", so " + what[0]
    return ", so " + ", ".join(what[:-1]) + ", and " + what[-1]


def _typematch(a, b):
    return (a.shape == b.shape and a.dtype == b.dtype and a.vma == b.vma
            and a.explicit == b.explicit)


def _carry_list(items):
    """JAX's list in a carry error: one item as a sentence, several as a bullet list."""
    if len(items) == 1:
        return items[0][0].upper() + items[0][1:] + ".\n"
    return "\n".join(f"  * {d};\n" for d in items[:-1]) + f"  * {items[-1]}.\n"


_SCAN_VMA_DOC = ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
                 "information.\n\n")

def _unwrap(fun):
    while isinstance(fun, functools.partial):
        fun = fun.func
    return inspect.unwrap(fun)


def _paths(tree):
    return [keystr(p) for p, _ in tree_flatten_with_path(tree.unflatten(range(tree.num_leaves)))[0]]


def check_carry_types(name, body_fun, tree, in_avals, out_avals):
    """JAX's TypeError for a loop carry whose varying manual axes (inside ``shard_map``) the
    body changes; JAX pvarys no carry itself. Carries equal in shape and dtype come here;
    so do carries whose split over Explicit mesh axes changes (JAX's same error)."""
    if all(a.vma == b.vma and a.explicit == b.explicit for a, b in zip(in_avals, out_avals)):
        return
    try:
        carry_name = list(inspect.signature(body_fun, follow_wrapped=False).parameters)[0]
    except (ValueError, TypeError, IndexError):
        carry_name = None
    if carry_name:
        component = lambda p: (f"the input carry component {carry_name}{p}"  # noqa: E731
                               if p else f"the input carry {carry_name}")
    else:
        component = lambda p: (f"the input carry at path {p}"  # noqa: E731
                               if p else "the input carry")
    bad = [(p, a, b) for p, a, b in zip(_paths(tree), in_avals, out_avals) if not _typematch(a, b)]
    diffs = [f"{component(p)} has type {a.str_short()} but the corresponding output carry "
             f"component has type {b.str_short()}{_mismatch_extra(a, b)}" for p, a, b in bad]
    differences = _carry_list(diffs)
    fixes = [f"applying `jax.lax.pcast(..., {tuple(b.vma - a.vma)}, to='varying')`, to the "
             f"initial carry value corresponding to {component(p)}"
             for p, a, b in bad if b.vma - a.vma]
    if not fixes:
        fix = ""
    elif len(fixes) == 1:
        fix = f"This might be fixed by {fixes[0]}.\n" + _SCAN_VMA_DOC
    else:
        fix = "This might be fixed by:\n" + _carry_list(fixes) + _SCAN_VMA_DOC
    raise user_error(
        f"{name} function carry input and carry output must have equal types, but they "
        f"differ:\n\n{differences}\n{fix}Revise the function so "
        "that all output types match the corresponding input types.")


def _sourceinfo(fun):
    fun = _unwrap(fun)
    code = getattr(fun, "__code__", None)
    if code is None:
        return "<unknown>"
    return f"{fun.__name__} at {code.co_filename}:{code.co_firstlineno}"


def check_branch_types(api_name, name1, name2, f1, f2, tree, avals1, avals2):
    """JAX's TypeError for branches whose outputs (equal in shape and dtype) differ in their
    varying manual axes inside ``shard_map``, or in their split over Explicit mesh axes;
    JAX pvarys no branch output itself."""
    if all(a.vma == b.vma and a.explicit == b.explicit for a, b in zip(avals1, avals2)):
        return
    paths = _paths(tree)
    at = lambda p: f" at path {p}" if p else ""  # noqa: E731
    bad = [(p, a, b) for p, a, b in zip(paths, avals1, avals2) if not _typematch(a, b)]
    diffs = [f"the output of {name1}{at(p)} has type {a.str_short()} but the corresponding "
             f"output of {name2} has type {b.str_short()}{_mismatch_extra(a, b)}"
             for p, a, b in bad]
    if len(diffs) == 1:
        differences = diffs[0][0].upper() + diffs[0][1:] + ".\n"
    else:
        differences = ("\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n")
    # JAX's hint names the axes one way round and tests them the other
    fixes = [f"applying `jax.lax.pcast(..., {tuple(a1.vma - a2.vma)}, to='varying')` to the "
             f"output of {n}{at(p)}"
             for p, x, y in bad for n, a1, a2 in ((name1, y, x), (name2, x, y))
             if a2.vma - a1.vma]
    if not fixes:
        fix = ""
    elif len(fixes) == 1:
        fix = f"This might be fixed by {fixes[0]}.\n" + _SCAN_VMA_DOC
    else:
        fix = ("This might be fixed by:\n" + "\n".join(f"  * {d};" for d in fixes[:-1])
               + f"\n  * {fixes[-1]}.\n" + _SCAN_VMA_DOC)
    raise user_error(
        f"{api_name} branches must have equal output types but they differ.\n\n"
        f"{name1} is {_sourceinfo(f1)}\n{name2} is {_sourceinfo(f2)}\n\n{differences}\n{fix}"
        f"Revise {name1} and/or {name2} so that all output types match.")


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


def user_error(msg):
    return TypeError(with_user_line(msg))

