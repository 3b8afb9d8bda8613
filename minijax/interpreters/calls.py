"""Helpers for call-like primitives (``custom_jvp_call``, ``custom_vjp_call``, ``checkpoint``):
primitives whose params hold a jaxpr that they run, differentiate, batch and lower.

Their jaxprs are *open*: whatever the traced function closed over (constants, tracers of outer
transformations) is hoisted into leading operands, so every trace sees those values as
ordinary operands of the equation and a staged jaxpr never captures a foreign tracer.
"""

from __future__ import annotations

from minijax import core
from minijax.core import Jaxpr, get_aval
from minijax.interpreters.partial_eval import trace_to_jaxpr


def trace_open(flat_fun, in_avals):
    """``(jaxpr, consts)``: ``flat_fun`` staged with its closed-over values as leading invars."""
    closed = trace_to_jaxpr(flat_fun, in_avals)
    jaxpr = closed.jaxpr
    return Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns), closed.consts


def eval_open(jaxpr, args):
    return core.eval_jaxpr(jaxpr, [], *args)


def lower_open(ctx, jaxpr, args):
    """Emits ``jaxpr`` inline (XLA sees one program; no nested function)."""
    from minijax.lowering.stablehlo import lower_jaxpr_body

    return lower_jaxpr_body(ctx.module_ctx, jaxpr, [], list(args))


def batch_open(jaxpr, args, dims):
    """``(jaxpr, consts, args)`` for the batched ``jaxpr``: mapped operands moved to axis 0,
    every output mapped at axis 0 (a broadcast where it did not depend on the batch)."""
    from minijax.interpreters.batching import moveaxis, not_mapped
    from minijax.vmapping import vmap

    args = [x if d is not_mapped else moveaxis(x, d, 0) for x, d in zip(args, dims)]
    in_axes = tuple(None if d is not_mapped else 0 for d in dims)
    batched = vmap(lambda *xs: eval_open(jaxpr, xs), in_axes=in_axes, out_axes=0)
    new_jaxpr, consts = trace_open(lambda *xs: list(batched(*xs)), [get_aval(x) for x in args])
    return new_jaxpr, consts, args, in_axes
