"""Running passes: ``apply(pass_, f)`` and ``replace(f, {"tanh": g})``.

A pass is a function ``ClosedJaxpr -> ClosedJaxpr``. ``apply`` traces ``f`` to a jaxpr at the
arguments' types, runs the pass(es), type-checks each result, and evaluates the result with
``eval_jaxpr`` *inside whatever trace is current*: under ``jit`` the rewritten equations are
staged into the jitted program (so they show in ``make_jaxpr`` and in the dumps), under
``grad``/``vmap`` they are differentiated/batched like any others. Called eagerly, the
rewritten program runs as one jitted executable, cached per argument signature.
"""

from __future__ import annotations

import functools

from minijax import caches, core
from minijax.core import ClosedJaxpr, Tracer, get_aval
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.jitting import jit
from minijax.transforms.rewrite import replace_pass
from minijax.transforms.typecheck import JaxprTypeError, check_jaxpr, check_signature
from minijax.tree_util import _registry


def pass_name(pass_):
    return getattr(pass_, "__name__", None) or repr(pass_)


def run_pass(pass_, closed: ClosedJaxpr, check=True) -> ClosedJaxpr:
    """``pass_(closed)``, rejected with a JaxprTypeError naming the pass if it is ill-typed."""
    out = pass_(closed)
    name = pass_name(pass_)
    if not isinstance(out, ClosedJaxpr):
        raise TypeError(f"pass {name!r} returned {type(out).__name__}, not a ClosedJaxpr")
    if check:
        try:
            check_jaxpr(out)
        except JaxprTypeError as e:
            raise JaxprTypeError(f"pass {name!r} produced an ill-typed jaxpr: {e}",
                                 e.eqn) from None
    return out


def run_passes(passes, closed: ClosedJaxpr, check=True) -> ClosedJaxpr:
    for p in passes:
        closed = run_pass(p, closed, check)
    return closed


def _as_passes(pass_):
    return list(pass_) if isinstance(pass_, (list, tuple)) else [pass_]


def trace(f, args, kwargs=None):
    """``(closed_jaxpr, leaves, out_tree)``: ``f`` staged at the types of ``args``/``kwargs``."""
    leaves, in_tree = _registry.flatten((tuple(args), dict(kwargs or {})))
    box = []

    def flat_fun(*xs):
        a, k = in_tree.unflatten(xs)
        outs, out_tree = _registry.flatten(f(*a, **k))
        box.append(out_tree)
        return outs

    closed = trace_to_jaxpr(flat_fun, [get_aval(x) for x in leaves])
    return closed, leaves, box[0]


class Transformed:
    """``f`` with passes applied at each call (see the module docstring)."""

    def __init__(self, passes, f, check=True):
        # name and docstring only: copying f's __dict__ (updated=) would let attributes of a
        # callable object (a custom_jvp's `fun`) overwrite ours
        functools.update_wrapper(self, f, updated=())
        self.passes = passes
        self.fun = f
        self.check = check
        # (in_tree, avals) -> (closed, out_tree, jitted runner): eager calls
        self._cache = caches.BoundedCache(caches.EXECUTABLES)

    def transformed_jaxpr(self, *args, **kwargs):
        """The ClosedJaxpr that runs for these arguments, after the passes."""
        return self._transform(args, kwargs)[0]

    def _transform(self, args, kwargs):
        closed, leaves, out_tree = trace(self.fun, args, kwargs)
        new = closed
        for p in self.passes:
            new = run_pass(p, new, self.check)
            check_signature(closed, new, pass_name(p))
        return new, leaves, out_tree

    def __call__(self, *args, **kwargs):
        if core.is_eval_trace_current():
            return self._call_eager(args, kwargs)
        closed, leaves, out_tree = self._transform(args, kwargs)
        outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *leaves)
        return out_tree.unflatten(outs)

    def _call_eager(self, args, kwargs):
        leaves, in_tree = _registry.flatten((tuple(args), dict(kwargs or {})))
        key = (in_tree, tuple(get_aval(x) for x in leaves))
        entry = self._cache.get(key)
        if entry is None:
            closed, _, out_tree = self._transform(args, kwargs)

            jaxpr = closed.jaxpr
            run = jit(lambda consts, xs: core.eval_jaxpr(jaxpr, consts, *xs))
            entry = (closed, out_tree, run)
            if not any(isinstance(c, Tracer) for c in closed.consts):
                self._cache.put(key, entry)
        closed, out_tree, run = entry
        return out_tree.unflatten(run(closed.consts, list(leaves)))


def apply(pass_, f, check=True):
    """``f`` with ``pass_`` (a pass or a list of passes) applied to its jaxpr at every trace.

    Like ``jit``, the constants ``f`` closes over are read when a signature is first traced.
    """
    return Transformed(_as_passes(pass_), f, check)


def replace(f, replacements):
    """``f`` with every equation of primitive ``name`` re-traced as ``replacements[name]``
    applied to its operands: ``transforms.replace(f, {"tanh": my_tanh})``."""
    return apply(replace_pass(replacements), f)
