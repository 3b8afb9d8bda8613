"""Helpers for call-like primitives (``custom_jvp_call``, ``custom_vjp_call``, ``checkpoint``,
``shard_map``): primitives whose params hold an open jaxpr that they run and lower.

Their jaxprs are *open* (see ``partial_eval``'s docstring): whatever the traced function closed
over is hoisted into leading operands (``partial_eval.trace_open``). Transforming them is the
interpreters' job: ``ad.jvp_jaxpr``, ``ad.transpose_jaxpr``, ``batching.batch_open``,
``partial_eval.split_known_staged``.
"""

from __future__ import annotations

from minijax import core
from minijax.lowering.stablehlo import lower_jaxpr_body


def eval_open(jaxpr, args):
    return core.eval_jaxpr(jaxpr, [], *args)


def lower_open(ctx, jaxpr, args):
    """Emits ``jaxpr`` inline (XLA sees one program; no nested function), continuing the
    region's ordered-effect tokens."""
    mctx = ctx.module_ctx
    return lower_jaxpr_body(mctx, jaxpr, [], list(args), mctx.tokens)
