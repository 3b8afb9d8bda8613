"""``jax.interpreters.mlir``: registering lowering rules the way JAX libraries do.

``register_lowering(prim, rule, platform=None)`` sets ``prim``'s lowering (a view, see
``rule_views.py``); ``rule(ctx, *operands, **params)`` reads ``ctx.avals_in``,
``ctx.avals_out`` and ``ctx.module_context`` and returns one ``ir.Value`` per result, in a
list. ``lower_fun(fun)`` makes such a rule from ordinary ``lax``/``jnp`` code. The helpers
below build ops with the jaxlib.mlir bindings in minijax's one MLIR context.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from minijax import dtypes
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.interpreters.rule_views import LoweringRuleContext, register_lowering
from minijax.lowering import stablehlo

__all__ = ["LoweringRuleContext", "aval_to_ir_type", "aval_to_ir_types", "dense_int_array",
           "dtype_to_ir_type", "emit_python_callback", "i32_attr", "i64_attr", "ir",
           "ir_constant", "ir_constants", "lower_fun", "make_ir_context", "module_to_string",
           "register_lowering"]


def lower_fun(fun, multiple_results=True):
    """A lowering rule that emits ``fun(*operands, **params)`` (traced with the operands'
    types) in place; ``fun`` returns a sequence of results when ``multiple_results``."""

    def rule(ctx, *values, **params):
        def flat(*args):
            out = fun(*args, **params)
            return list(out) if multiple_results else [out]

        return lower_traced(ctx.module_context, flat, ctx.avals_in, values)

    rule.__name__ = f"lower_fun({getattr(fun, '__name__', 'fun')})"
    return rule


def lower_traced(module_ctx, fun, avals_in, values):
    """The values of ``fun``'s results (a list), traced with ``avals_in`` and emitted in place
    on ``values``: what a primitive whose lowering is lax code (here and in minijax's own
    rules, which pass their ``ctx.module_ctx``) emits."""
    return stablehlo.lower_closed_jaxpr(module_ctx, trace_to_jaxpr(fun, list(avals_in)), values)


def emit_python_callback(ctx, callback, token, operands, operand_avals, result_avals, *,
                         has_side_effect, returns_token=True, partitioned=False, sharding=None):
    """A call of the Python ``callback`` from the program (numpy arrays in, one array per
    ``result_avals`` entry out), for a library's lowering rule. Returns ``(results, token,
    keepalive)``: a ``token`` given orders the call after the region's earlier ordered calls
    and the token returned after it; minijax's module keeps the callback alive itself."""
    del operand_avals, returns_token  # the operands carry their types
    if partitioned and result_avals:
        raise ValueError("Partitioned callback not supported with return values.")

    def checked(*args):
        outs = callback(*args)
        if len(outs) != len(result_avals):
            raise RuntimeError(f"Mismatched number of outputs from callback. Expected: "
                               f"{len(result_avals)}, Actual: {len(outs)}")
        outs = [np.asarray(o) for o in outs]
        outs = tuple(o.astype(dtypes.canonicalize_dtype(o.dtype)) for o in outs)
        for i, (o, a) in enumerate(zip(outs, result_avals)):
            if o.shape != a.shape:
                raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                                   f"Expected: {a.shape}, Actual: {o.shape}")
            if o.dtype != a.dtype:
                raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                                   f"Expected: {a.dtype}, Actual: {o.dtype}")
        return outs

    mctx = ctx.module_context
    ordered = "python_callback" if token is not None else None  # its own ordered effect
    # a sharding given (JAX's callers pass the one its rules make) places the call as
    # minijax's own callbacks are placed; none leaves it unannotated, as in JAX
    results = mctx.emit_host_call(checked, operands, result_avals, has_side_effect, ordered,
                                  placed=sharding is not None)
    return results, (mctx.tokens[ordered] if ordered else None), None


def dtype_to_ir_type(dtype):
    return stablehlo.element_type(dtypes.canonicalize_dtype(np.dtype(dtype)))


def aval_to_ir_type(aval):
    return ir.RankedTensorType.get(aval.shape, dtype_to_ir_type(aval.dtype))


def aval_to_ir_types(aval):
    return (aval_to_ir_type(aval),)


def ir_constant(val):
    """A ``stablehlo.constant`` op's result holding ``val`` (a NumPy value or scalar)."""
    return stablehlo.ir_constant(val)


def ir_constants(val):
    return [ir_constant(val)]


def dense_int_array(values):
    return stablehlo.dense_i64(values)


def i32_attr(i):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(i))


def i64_attr(i):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(i))


def make_ir_context():
    """A fresh MLIR context with the dialects minijax lowers to registered."""
    return stablehlo.make_context()


def module_to_string(module, enable_debug_info=None):
    return stablehlo.module_to_text(module, debug_info=bool(enable_debug_info))
