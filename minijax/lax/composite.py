"""``composite``: a function staged as one ``composite`` equation that lowers to a
``stablehlo.composite`` op (a name, attributes and version, and its decomposition as a private
function), so a compiler that knows the name may replace it; otherwise XLA inlines the
decomposition. As in JAX 0.10.2 it has no derivative, transpose or batching rule.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import ClosedJaxpr, Primitive, Tracer, get_aval, jaxpr_as_fun
from minijax.errors import UnexpectedTracerError
from minijax.interpreters import ad
from minijax.interpreters.partial_eval import hoist_consts, trace_to_jaxpr
from minijax.lowering.stablehlo import element_type, lower_jaxpr_body, tensor_type
from minijax.tree_util import tree_flatten, tree_unflatten
from minijax.lax import sharding_rules

__all__ = ["composite"]


class _HashableArray:
    """A NumPy attribute value as a hashable parameter (compared by contents)."""

    def __init__(self, value):
        self.value = np.asarray(value)

    def __hash__(self):
        return hash((self.value.shape, self.value.dtype, self.value.tobytes()))

    def __eq__(self, other):
        return (isinstance(other, _HashableArray) and self.value.dtype == other.value.dtype
                and np.array_equal(self.value, other.value))


def _ir_attribute(v):
    if isinstance(v, _HashableArray):
        v = v.value
    if isinstance(v, (bool, np.bool_)):
        return ir.BoolAttr.get(bool(v))
    if isinstance(v, (int, np.integer)):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v))
    if isinstance(v, (float, np.floating)):
        return ir.FloatAttr.get(ir.F64Type.get(), float(v))
    if isinstance(v, str):
        return ir.StringAttr.get(v)
    if isinstance(v, np.ndarray):
        return ir.DenseElementsAttr.get(np.ascontiguousarray(v))
    if isinstance(v, (tuple, list)):  # as JAX's: nested sequences are nested array attributes
        return ir.ArrayAttr.get([_ir_attribute(x) for x in v])
    if isinstance(v, np.dtype):  # e.g. scaled_dot's preferred_element_type: a type attribute
        return ir.TypeAttr.get(element_type(v))
    raise TypeError(f"composite: attribute value {v!r} of type {type(v).__name__} cannot be "
                    "an MLIR attribute (use Python scalars, strings or NumPy arrays)")


def _composite_lowering(ctx, *args, name, attributes, version, jaxpr):
    module = ctx.module_ctx.module
    symbols = ir.SymbolTable(module.operation)
    symbol, i = name, 0
    while symbol in symbols or symbol == "main":
        symbol, i = f"{name}_{i}", i + 1
    in_types = [tensor_type(a) for a in ctx.avals_in]
    out_types = [tensor_type(a) for a in ctx.avals_out]
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp(symbol, ir.FunctionType.get(in_types, out_types))
        fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
        entry = fn.add_entry_block()
    with ir.InsertionPoint(entry):
        func.ReturnOp(lower_jaxpr_body(ctx.module_ctx, jaxpr.jaxpr, list(jaxpr.consts),
                                       list(entry.arguments)))
    attrs = {}
    for key, leaves, treedef in attributes:
        value = tree_unflatten(treedef, leaves)
        if value is not None:
            attrs[key] = _ir_attribute(value)
    return list(hlo.CompositeOp(
        out_types, list(args), name=ir.StringAttr.get(name),
        decomposition=ir.FlatSymbolRefAttr.get(symbol),
        composite_attributes=ir.DictAttr.get(attrs),
        version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), version)).results)


def _composite_jvp(primals, tangents, **params):
    # JAX 0.10.2 refuses it too, in these words
    raise ValueError("JVP rule for composite not implemented. You can use `jax.custom_jvp` to "
                     "add support. See "
                     "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


def _composite_transpose(cts, *args, **params):
    raise ValueError("Transpose rule for composite not implemented. You can use"
                     "`jax.custom_jvp` or `jax.custom_vjp` to add support. See "
                     "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


composite_p = Primitive("composite", multiple_results=True)
composite_p.def_impl(lambda *args, jaxpr, **params: jaxpr_as_fun(jaxpr)(*args))
composite_p.def_abstract_eval(lambda *avals, jaxpr, **params: [v.aval for v in
                                                                jaxpr.jaxpr.outvars])
composite_p.def_lowering(_composite_lowering)
composite_p.own_memory_space = True  # its results are its body's
ad.primitive_jvps[composite_p] = _composite_jvp
ad.primitive_transposes[composite_p] = _composite_transpose


def composite(decomposition, name, version=0):
    """``decomposition`` as a composite op ``name`` (of ``version``): call the result with
    array arguments, and keyword arguments that become the op's attributes."""

    def wrapped(*args, **kwargs):
        if any(isinstance(v, Tracer) for v in kwargs.values()):
            raise UnexpectedTracerError(
                "Found a JAX Tracer as an attribute in the decomposition for the composite op "
                f"'{name}'. This means that the decomposition function closes over a value "
                "that is involved in a JAX transformation. Any values that aren't explicitly "
                "known at compile time must be explicitly passed as arguments to the "
                "composite.\n\nNote: If you are passing jax arrays as attributes, use numpy "
                "arrays instead.")
        flat_args, in_tree = tree_flatten(args)
        out_trees = []

        def flat_fun(*leaves):
            out = decomposition(*tree_unflatten(in_tree, leaves), **kwargs)
            flat_out, out_tree = tree_flatten(out)
            out_trees.append(out_tree)
            return flat_out

        closed = trace_to_jaxpr(flat_fun, [get_aval(x) for x in flat_args])
        jaxpr, consts = hoist_consts(closed)
        attributes = []
        for key, value in kwargs.items():
            leaves, treedef = tree_flatten(value)
            leaves = tuple(_HashableArray(v) if isinstance(v, np.ndarray) else v
                           for v in leaves)
            attributes.append((key, leaves, treedef))
        outs = composite_p.bind(*consts, *flat_args, name=name, attributes=tuple(attributes),
                                version=version, jaxpr=ClosedJaxpr(jaxpr, []))
        return tree_unflatten(out_trees[0], outs)

    return wrapped

composite_p.sharding_rule = sharding_rules.typed_by_body  # its results are its body's
