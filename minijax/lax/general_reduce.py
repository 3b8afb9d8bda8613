"""``lax.reduce``: XLA's reduce with a user's computation (``reduce_p``).

A computation that is one of lax's monoids (``add``, ``mul``, ``max``, ``min``,
``bitwise_and/or/xor``) started from its identity, given as a concrete scalar, becomes that
monoid's ``reduce_*`` primitive, as in JAX; anything else is ``reduce_p``, whose params hold the
computation's jaxpr (a pytree of operands reduces together: a variadic reduce). Like XLA, the
result is undefined unless ``init_values`` is an identity of an associative ``computation``.
``reduce_p`` differentiates as JAX's: the JVP of a balanced tree of the computation over the
reduced elements, with the computation batched over the kept axes.
"""

from __future__ import annotations

import functools

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive, ShapedArray, Tracer, get_aval, jaxpr_as_fun
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import AxisData, not_mapped
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.lax.convert import _convert_element_type
from minijax.lax.elementwise import add, bitwise_and, bitwise_or, bitwise_xor, max, min, mul
from minijax.lax.families import highest, lowest
from minijax.lax.reductions import (reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod,
                                    reduce_sum, reduce_xor)
from minijax.lax.sharding_constraint import lay_out
from minijax.lax.structural import full, pad, reshape, slice_in_dim, squeeze
from minijax.lowering.stablehlo import dense_i64, lower_closed_jaxpr, tensor_type
from minijax.tree_util import _registry

__all__ = ["reduce", "reduce_p"]


def _int_like(dtype):
    return dtype == np.bool_ or np.issubdtype(dtype, np.integer)


def _monoid_reducer(op, xs):
    """The ``reduce_*`` function ``op`` started at ``xs`` amounts to, if any (JAX's
    ``_get_monoid_reducer``)."""
    if len(xs) != 1:
        return None
    x, = xs
    aval = get_aval(x)
    if isinstance(x, Tracer) or aval.shape != ():
        return None
    val = np.asarray(x)
    dtype = aval.dtype
    if op is add:
        return reduce_sum if np.equal(val, 0) else None
    if op is mul:
        return reduce_prod if np.equal(val, 1) else None
    if op is bitwise_or and _int_like(dtype):
        return reduce_or if np.equal(val, np.array(0, dtype)) else None
    if op is bitwise_and and _int_like(dtype):
        return reduce_and if np.equal(val, np.array(-1).astype(dtype)) else None
    if op is bitwise_xor and _int_like(dtype):
        return reduce_xor if np.equal(val, np.array(0, dtype)) else None
    if op is max:
        return reduce_max if np.equal(val, np.array(lowest(dtype), dtype)) else None
    if op is min:
        return reduce_min if np.equal(val, np.array(highest(dtype), dtype)) else None
    return None


@functools.lru_cache(maxsize=256)
def _reduction_jaxpr(computation, flat_avals, tree):
    """``computation(xs, ys)`` on two pytrees ``tree`` of scalars, as a closed jaxpr on
    (xs..., ys...), and its output tree. Cached, so eager calls reuse one executable."""
    out_trees = []

    def flat(*args):
        n = len(flat_avals)
        out = computation(tree.unflatten(args[:n]), tree.unflatten(args[n:]))
        leaves, out_tree = _registry.flatten(out)
        out_trees.append(out_tree)
        return leaves

    closed = trace_to_jaxpr(flat, list(flat_avals) * 2)
    if any(isinstance(c, Tracer) for c in closed.consts):
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an issue "
            "at https://github.com/jax-ml/jax.")
    return closed, out_trees[0]


def reduce(operands, init_values, computation, dimensions, out_sharding=None):
    """XLA's reduce of ``operands`` (a pytree of arrays) over ``dimensions``, started from
    ``init_values`` (a pytree of scalars of the same structure) and combined by
    ``computation(xs, ys)``, which must be associative with ``init_values`` its identity.
    ``out_sharding`` lays out a sum's result; the general reduce ignores it, as JAX's."""
    flat_operands, operand_tree = _registry.flatten(operands)
    flat_init_values, init_value_tree = _registry.flatten(init_values)
    if operand_tree != init_value_tree:
        raise ValueError("Operands must have the same tree structure as init_values:"
                         f" {operand_tree} vs. {init_value_tree}")
    if len(flat_operands) != len(flat_init_values):
        raise ValueError("Must have same total number of operands as init_values: "
                         f" {len(flat_operands)} vs. {len(flat_init_values)}")
    monoid_reducer = _monoid_reducer(computation, flat_init_values)
    if monoid_reducer:
        weak_type = (all(get_aval(x).weak_type for x in flat_operands)
                     and all(get_aval(x).weak_type for x in flat_init_values))
        if out_sharding is not None and monoid_reducer is not reduce_sum:
            # JAX 0.10.2 refuses it too (a bare NotImplementedError)
            raise NotImplementedError
        out = lay_out(monoid_reducer(*flat_operands, tuple(dimensions)), out_sharding)
        return _convert_element_type(out, weak_type=weak_type)
    init_avals = tuple(get_aval(x) for x in flat_init_values)
    closed, out_tree = _reduction_jaxpr(computation, init_avals, init_value_tree)
    out = reduce_p.bind(*flat_operands, *flat_init_values, computation=computation,
                        jaxpr=closed, dimensions=tuple(dimensions))
    return out_tree.unflatten(out)


reduce_p = Primitive("reduce", multiple_results=True)


@reduce_p.def_abstract_eval
def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
    n = len(avals) // 2
    operands, inits = avals[:n], avals[n:]
    if any(a.shape != () for a in inits):
        raise ValueError(f"reduce found non-scalar initial value: {[a.shape for a in inits]}")
    if [a.dtype for a in operands] != [a.dtype for a in inits]:
        raise TypeError(
            "reduce operand dtypes should match corresponding initial value dtypes, "
            f"got operands={list(operands)} and initial_values={list(inits)}")
    return [ShapedArray(tuple(np.delete(np.array(op.shape, dtype=int), dimensions).tolist()),
                        op.dtype, op.weak_type and init.weak_type)
            for op, init in zip(operands, inits)]


@reduce_p.def_lowering
def _reduce_lowering(ctx, *values, computation, jaxpr, dimensions):
    n = len(values) // 2
    init_avals = ctx.avals_in[n:]
    op = hlo.ReduceOp([tensor_type(a) for a in ctx.avals_out], list(values[:n]),
                      list(values[n:]), dense_i64(dimensions))
    scalar_types = [tensor_type(a.update(weak_type=False)) for a in init_avals]
    block = op.body.blocks.append(*(scalar_types + scalar_types))
    with ir.InsertionPoint(block):
        hlo.return_(lower_closed_jaxpr(ctx.module_ctx, jaxpr, block.arguments))
    return list(op.results)


@batching.needs_axis_data
def _reduce_batching(axis_data, args, dims, *, computation, jaxpr, dimensions):
    n = len(args) // 2
    if any(d is not not_mapped for d in dims[n:]):
        # JAX 0.10.2 refuses batched init values too (a bare NotImplementedError)
        raise NotImplementedError
    operands = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(args[:n], dims[:n])]
    outs = reduce_p.bind(*operands, *args[n:], computation=computation, jaxpr=jaxpr,
                         dimensions=tuple(d + 1 for d in dimensions))
    return outs, [0] * n


reduce_p.def_batching(_reduce_batching)


def _reduce_jvp_rule(primals, tangents, *, computation, jaxpr, dimensions):
    n = len(primals) // 2
    xs, inits = list(primals[:n]), list(primals[n:])
    if any(type(t) is not ad.Zero for t in tangents[n:]):
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            "Gradient of general lax.reduce with non-zero tangents for "
            "initial values to reduction not implemented")
    shape = get_aval(xs[0]).shape
    kept = tuple(i for i in range(len(shape)) if i not in dimensions)
    count = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
    new_shape = (count, *(shape[i] for i in kept))
    perm = tuple(dimensions) + kept
    xs = [reshape(x, new_shape, perm) for x in xs]
    ts = [t if type(t) is ad.Zero else reshape(t, new_shape, perm) for t in tangents[:n]]
    kept_shape = tuple(shape[i] for i in kept)

    def reducer(half, *args):
        """The computation elementwise over arrays of shape (half, *kept_shape)."""
        batched = jaxpr
        for size in (*reversed(kept_shape), half):
            batched, _ = batching.batch_jaxpr(batched, AxisData(None, size, None),
                                              [True] * (2 * n), [True] * n)
        return jaxpr_as_fun(batched)(*args)

    def tree(*vs):
        vs = list(vs)
        while get_aval(vs[0]).shape[0] > 1:
            m = get_aval(vs[0]).shape[0]
            m1 = (m + 1) // 2
            lo = [slice_in_dim(v, 0, m1) for v in vs]
            hi = [slice_in_dim(v, m1, m) for v in vs]
            if m - m1 != m1:
                pads = [(0, 1, 0)] + [(0, 0, 0)] * len(kept)
                hi = [pad(h, i, pads) for h, i in zip(hi, inits)]
            vs = list(reducer(m1, *lo, *hi))
        if get_aval(vs[0]).shape[0] == 0:
            return [full(kept_shape, i) for i in inits]
        return [squeeze(v, (0,)) for v in vs]

    return ad.jvp_flat(tree, xs, ts)


ad.primitive_jvps[reduce_p] = _reduce_jvp_rule
