"""Reductions over sliding windows: ``reduce_window`` (any computation) and the specialised
``reduce_window_sum``, ``reduce_window_max`` and ``reduce_window_min`` primitives.

All are ``stablehlo.reduce_window``. Params: ``window_dimensions``, ``window_strides``,
``padding`` (one (low, high) pair per axis), ``base_dilation`` (the operand is dilated first,
holes holding the init value) and ``window_dilation``.

Differentiation:

- ``reduce_window_sum`` is linear; its transpose pads the cotangent (interior padding undoes
  the strides) and sums windows again with the roles of strides and base dilation swapped
  (as JAX does).
- ``reduce_window_max/min``: JAX's ``select_and_gather_add`` primitive, linear in the
  tangent: the tangent of the element a sequential scan of the window keeps (the first of
  ties, never a NaN followed by a number), lowered as a fold over the window's offsets
  carrying (value, tangent) pairs. Its transpose is JAX's ``select_and_scatter_add``
  primitive (each window's cotangent goes to the element XLA's SelectAndScatter picks,
  starting from the window's first element, padding included) with JAX's transpose, JVP and
  batching rules (the two primitives are each other's transposes; vmap broadcasts the operand
  to the batch, which is how a jacrev's result keeps the operand's sharding). It is lowered
  as the same kind of fold, not as ``stablehlo.select_and_scatter``: XLA's SPMD partitioner
  miscomputes that op on an operand sharded along a window axis when windows overlap (JAX
  0.10.2's sharded ``jit(grad)`` of a stride-1 max pool is wrong; triage_19000_d.md). Window
  dilation has no VJP (as in JAX).
- the generic ``reduce_window``: the tangent is the JVP of the same reduction written as a
  fold over the window's offsets, with the computation's own lax ops, so their JVP rules apply.
- The folds: each offset contributes one strided ``slice`` of the padded, dilated operand.
  This is gather-free, differentiable with the rules of ``pad``, ``slice`` and ``select_n``, and
  costs one elementwise op per window element — windows are small. The primal output is still
  one ``reduce_window``. XLA's computation must be associative and commutative, which is what
  makes the generic fold's order irrelevant.

vmap adds a window axis of size 1 for the batch axis.
"""

from __future__ import annotations

import functools
import itertools
import operator

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import ad, batching
from minijax.interpreters.mlir import lower_traced
from minijax.lax import elementwise
from minijax.lax.control_flow.common import trace_user_fun
from minijax.lax.convolution import _vjp_lhs_padding, dilate_shape, padtype_to_pads
from minijax.lax.families import (
    NUMBER,
    REAL_NUMBER,
    check_dtype_allowed,
    fill_region,
    highest,
    lowest,
    scalar_type,
)
from minijax.lax.structural import broadcast_in_dim, pad
from minijax.lax.structural import slice as lax_slice
from minijax.lowering.stablehlo import dense_i64, ir_constant, lower_closed_jaxpr, tensor_type
from minijax.tree_util import _registry
from minijax.lax import sharding_rules

__all__ = [
    "reduce_window", "reduce_window_max_p", "reduce_window_min_p", "reduce_window_p",
    "reduce_window_shape_tuple", "reduce_window_sum_p", "select_and_gather_add_p",
    "select_and_scatter_add_p",
]

_PARAM_NAMES = ("window_dimensions", "window_strides", "padding", "base_dilation",
                "window_dilation")


# ------------------------------------------------------------------------------------------------
# Shapes


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    if base_dilation is not None:
        operand_shape = dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = dilate_shape(window_dimensions, window_dilation)
    padded = [n + lo + hi for n, (lo, hi) in zip(operand_shape, padding)]
    return tuple(0 if p < w else (p - w) // s + 1
                 for p, w, s in zip(padded, window_dimensions, window_strides))


def _check_window_params(name, aval, window_dimensions, window_strides, padding, base_dilation,
                         window_dilation):
    for what, seq in (("window_dimensions", window_dimensions),
                      ("window_strides", window_strides), ("padding", padding),
                      ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if len(seq) != aval.ndim:
            raise TypeError(f"{name}: {what} {tuple(seq)} must have one entry per axis of "
                            f"operand {aval.str_short(True)}")
    for what, seq in (("window_dimensions", window_dimensions),
                      ("window_strides", window_strides), ("base_dilation", base_dilation),
                      ("window_dilation", window_dilation)):
        if any(s < 1 for s in seq):
            raise ValueError(f"{name}: {what} must be positive, got {tuple(seq)} for operand "
                             f"{aval.str_short(True)}")
    dilated = dilate_shape(aval.shape, base_dilation)
    if any(n + lo + hi < 0 for n, (lo, hi) in zip(dilated, padding)):
        raise ValueError(f"{name}: padding {padding} leaves a negative size for operand "
                         f"{aval.str_short(True)}")


def _window_rule(name, allowed):
    def rule(operand, *, window_dimensions, window_strides, padding, base_dilation,
             window_dilation):
        if name == "reduce_window_sum" and operand.dtype not in allowed:  # JAX's own words
            raise TypeError("operand to reduce_window_sum must have a number dtype, got "
                            f"{operand.dtype.name}")
        check_dtype_allowed(name, operand.dtype, allowed)
        _check_window_params(name, operand, window_dimensions, window_strides, padding,
                             base_dilation, window_dilation)
        shape = reduce_window_shape_tuple(operand.shape, window_dimensions, window_strides,
                                          padding, base_dilation, window_dilation)
        return ShapedArray(shape, operand.dtype, operand.weak_type)

    return rule


# ------------------------------------------------------------------------------------------------
# Lowering


def _reduce_window_op(ctx, operands, inits, body, *, window_dimensions, window_strides,
                      padding, base_dilation, window_dilation):
    out_types = [tensor_type(a) for a in ctx.avals_out]
    ndim = len(window_dimensions)
    pads = ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(ndim, 2))
    op = hlo.ReduceWindowOp(
        out_types, list(operands), list(inits), dense_i64(window_dimensions),
        window_strides=dense_i64(window_strides), base_dilations=dense_i64(base_dilation),
        window_dilations=dense_i64(window_dilation), padding=pads,
    )
    dtypes_in = [a.dtype for a in ctx.avals_in[:len(operands)]]
    fill_region(op.body, [scalar_type(d) for d in dtypes_in] * 2, body)
    return op.results


def _monoid_lowering(combiner, identity):
    def rule(ctx, x, **params):
        dtype = ctx.avals_in[0].dtype
        init = ir_constant(np.array(identity(dtype), dtype))
        return _reduce_window_op(ctx, [x], [init], combiner, **params)[0]

    return rule


def _monoid_primitive(name, combiner, identity, allowed):
    p = Primitive(name)
    p.def_abstract_eval(_window_rule(name, allowed))
    p.def_lowering(_monoid_lowering(combiner, identity))
    p.def_batching(_monoid_batching(p))
    return p


# ------------------------------------------------------------------------------------------------
# Batching: the batch axis is one more axis with a window of 1


def _batched_params(params, bdim):
    def ins(seq, value):
        seq = list(seq)
        seq.insert(bdim, value)
        return tuple(seq)

    return dict(window_dimensions=ins(params["window_dimensions"], 1),
                window_strides=ins(params["window_strides"], 1),
                padding=ins(params["padding"], (0, 0)),
                base_dilation=ins(params["base_dilation"], 1),
                window_dilation=ins(params["window_dilation"], 1))


def _monoid_batching(prim):
    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        return prim.bind(x, **_batched_params(params, d)), d

    return rule


reduce_window_sum_p = _monoid_primitive("reduce_window_sum", hlo.add, lambda dt: 0, NUMBER)
reduce_window_max_p = _monoid_primitive("reduce_window_max", hlo.maximum, lowest,
                                        REAL_NUMBER)
reduce_window_min_p = _monoid_primitive("reduce_window_min", hlo.minimum, highest,
                                        REAL_NUMBER)


# ------------------------------------------------------------------------------------------------
# Differentiation


def _reduce_window_sum_transpose(ct, operand, **params):
    shape = operand.aval.shape
    ones = (1,) * len(shape)
    pads = _vjp_lhs_padding(shape, params["window_dimensions"], params["window_strides"],
                            get_aval(ct).shape, params["padding"], params["base_dilation"],
                            params["window_dilation"])
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, params["window_strides"])]
    padded = pad(ct, np.zeros((), get_aval(ct).dtype), config)
    out = reduce_window_sum_p.bind(
        padded, window_dimensions=params["window_dimensions"],
        window_strides=params["base_dilation"], padding=((0, 0),) * len(shape),
        base_dilation=ones, window_dilation=params["window_dilation"])
    assert get_aval(out).shape == shape, (get_aval(out).shape, shape)
    return [out]


ad.deflinear(reduce_window_sum_p, _reduce_window_sum_transpose)


def _window_slice_bounds(shape, *, window_dimensions, window_strides, padding, base_dilation,
                         window_dilation):
    """(start, limit, strides) of every window offset's strided slice of the operand padded
    and dilated as the window params say."""
    out_shape = reduce_window_shape_tuple(shape, window_dimensions, window_strides, padding,
                                          base_dilation, window_dilation)
    bounds = []
    for offset in itertools.product(*(range(w) for w in window_dimensions)):
        # an empty output axis slices [0, 0): its window may reach past the padded operand
        start = [o * d if n else 0 for o, d, n in zip(offset, window_dilation, out_shape)]
        limit = [s + (n - 1) * st + 1 if n else 0
                 for s, n, st in zip(start, out_shape, window_strides)]
        bounds.append((start, limit, window_strides))
    return bounds


def _window_slices(x, init, **params):
    """Every window offset's strided slice of ``x`` padded and dilated with ``init``."""
    config = [(lo, hi, b - 1) for (lo, hi), b in zip(params["padding"], params["base_dilation"])]
    padded = pad(x, init, config)
    return [lax_slice(padded, start, limit, strides)
            for start, limit, strides in _window_slice_bounds(get_aval(x).shape, **params)]


def _fold_windows(combine, xs, inits, params):
    """The windowed reduction of operands ``xs`` as a fold of ``combine`` over window offsets,
    started (as XLA's reduce_window is) from the init values."""
    per_operand = [_window_slices(x, i, **params) for x, i in zip(xs, inits)]
    shape = reduce_window_shape_tuple(get_aval(xs[0]).shape, **params)
    acc = [broadcast_in_dim(i, shape, ()) for i in inits]
    for parts in zip(*per_operand):
        acc = list(combine(acc, list(parts)))
    return acc


def _chooser_jvp(prim, select_prim):
    def rule(primals, tangents, **params):
        (x,), (g,) = primals, tangents
        ans = prim.bind(x, **params)
        return ans, select_and_gather_add_p.bind(g, x, select_prim=select_prim, **params)

    return rule


ad.primitive_jvps[reduce_window_max_p] = _chooser_jvp(reduce_window_max_p, elementwise.ge_p)
ad.primitive_jvps[reduce_window_min_p] = _chooser_jvp(reduce_window_min_p, elementwise.le_p)


# JAX's select_and_gather_add: linear in the tangents ``t``, the operand ``x`` fixed. Its
# transpose is not the transpose of its fold but JAX's select_and_scatter_add, whose choice
# differs where a window holds only the identity (-inf for max) or padding.


def _select_identity(select_prim, dtype):
    return np.array((lowest if select_prim is elementwise.ge_p else highest)(dtype), dtype)


def _gather_fold(t, x, *, select_prim, **params):
    """The tangent of the element XLA's sequential window scan keeps: it starts from
    (identity, 0), skips padding and dilation holes (``valid``), keeps the first of ties, and
    keeps a NaN only until the next element."""
    dtype = get_aval(x).dtype

    def choose(acc, part):
        which = elementwise.bitwise_or(select_prim.bind(acc[0], part[0]),
                                       elementwise.bitwise_not(part[2]))
        return [elementwise.select(which, a, p) for a, p in zip(acc, part)]

    valid = broadcast_in_dim(np.array(True), get_aval(x).shape, ())
    inits = [_select_identity(select_prim, dtype), np.zeros((), get_aval(t).dtype),
             np.array(False)]
    return _fold_windows(choose, [x, t, valid], inits, params)[1]


def _select_and_gather_add_rule(t, x, *, select_prim, **params):
    shape = reduce_window_shape_tuple(x.shape, **params)
    return ShapedArray(shape, t.dtype, t.weak_type)


def _fold_lowering(fold):
    """A lowering that emits ``fold(values, operand, **params)`` traced at the strong types."""
    def lowering(ctx, values, operand, **params):
        return lower_traced(ctx.module_ctx, lambda *a: [fold(*a, **params)],
                            [a.update(weak_type=False) for a in ctx.avals_in],
                            [values, operand])[0]
    return lowering


def _linear_in_values_jvp(prim):
    """The JVP of a primitive linear in its first operand (the operand only picks positions)."""
    def jvp(primals, tangents, **params):
        (values, x), (g, _) = primals, tangents
        out = prim.bind(values, x, **params)
        if type(g) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        return out, prim.bind(g, x, **params)
    return jvp


def _select_and_gather_add_transpose(ct, t, x, *, select_prim, window_dimensions,
                                     window_strides, padding, base_dilation, window_dilation):
    assert ad.is_undefined_primal(t) and not ad.is_undefined_primal(x)
    if any(d != 1 for d in window_dilation):
        # XLA's SelectAndScatter has no window dilation; JAX 0.10.2 raises this
        # NotImplementedError from its transpose too
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
            f"window_dilation={window_dilation}.")
    if type(ct) is ad.Zero:
        return [ad.Zero(t.aval), None]
    # base dilation: the holes are elements holding the identity, their cotangents dropped
    dilated = any(d != 1 for d in base_dilation)
    if dilated:
        x = pad(x, _select_identity(select_prim, get_aval(x).dtype),
                [(0, 0, d - 1) for d in base_dilation])
    out = select_and_scatter_add_p.bind(ct, x, select_prim=select_prim,
                                        window_dimensions=window_dimensions,
                                        window_strides=window_strides, padding=padding)
    if dilated:
        out = lax_slice(out, (0,) * len(base_dilation), get_aval(out).shape, base_dilation)
    return [out, None]


def _select_and_gather_add_batching(args, dims, *, select_prim, **params):
    size = batching.axis_size(args, dims)
    t, x = (batching.bdim_at_front(a, d, size) for a, d in zip(args, dims))
    out = select_and_gather_add_p.bind(t, x, select_prim=select_prim,
                                       **_batched_params(params, 0))
    return out, 0


select_and_gather_add_p = Primitive("select_and_gather_add")
select_and_gather_add_p.def_abstract_eval(_select_and_gather_add_rule)
select_and_gather_add_p.def_lowering(_fold_lowering(_gather_fold))
select_and_gather_add_p.def_batching(_select_and_gather_add_batching)
ad.primitive_jvps[select_and_gather_add_p] = _linear_in_values_jvp(select_and_gather_add_p)
ad.primitive_transposes[select_and_gather_add_p] = _select_and_gather_add_transpose


# JAX's select_and_scatter_add: linear in the cotangents ``source`` (one per window), the
# operand fixed. Each window's cotangent is added at the element XLA's SelectAndScatter picks:
# the window's first element unless ``select_prim(chosen, later)`` is false for a later one.
# The operand's padding is made of identity elements (JAX's lowering on CPU and GPU).


def _select_and_scatter_add_rule(source, operand, *, select_prim, window_dimensions,
                                 window_strides, padding):
    return ShapedArray(operand.shape, source.dtype, source.weak_type and operand.weak_type)


def _scatter_fold(ct, x, *, select_prim, window_dimensions, window_strides, padding):
    """select_and_scatter_add as XLA's SelectAndScatter computes it on ``x`` padded with the
    identity as real elements: each window's choice starts at its first element and moves on
    to a later one wherever ``select_prim(chosen, later)`` is false; the window's cotangent is
    added at the chosen element (dropped when that is padding)."""
    ones = (1,) * len(window_dimensions)
    params = dict(window_dimensions=window_dimensions, window_strides=window_strides,
                  padding=padding, base_dilation=ones, window_dilation=ones)
    slices = _window_slices(x, _select_identity(select_prim, get_aval(x).dtype), **params)
    best, chosen = slices[0], broadcast_in_dim(np.int32(0), get_aval(ct).shape, ())
    for k, part in enumerate(slices[1:], 1):
        move = elementwise.bitwise_not(select_prim.bind(best, part))
        best = elementwise.select(move, part, best)
        chosen = elementwise.select(move, broadcast_in_dim(np.int32(k), get_aval(ct).shape, ()),
                                    chosen)
    # each offset's share goes back through the transpose of its strided slice: a pad
    padded_shape = [n + lo + hi for n, (lo, hi) in zip(get_aval(x).shape, padding)]
    zero = np.zeros((), get_aval(ct).dtype)
    total = None
    for k, (start, limit, strides) in enumerate(_window_slice_bounds(get_aval(x).shape,
                                                                     **params)):
        share = elementwise.select(elementwise.eq(chosen, np.int32(k)), ct,
                                   broadcast_in_dim(zero, get_aval(ct).shape, ()))
        share = pad(share, zero, [(b, n - e, st - 1) for b, e, n, st in
                                  zip(start, limit, padded_shape, strides)])
        total = share if total is None else elementwise.add(total, share)
    # the padding's cotangents are dropped (pad's transpose)
    return pad(total, zero, [(-lo, -hi, 0) for lo, hi in padding])


def _select_and_scatter_add_transpose(ct, s, x, *, select_prim, window_dimensions,
                                      window_strides, padding):
    assert ad.is_undefined_primal(s) and not ad.is_undefined_primal(x)
    if type(ct) is ad.Zero:
        return [ad.Zero(s.aval), None]
    ones = (1,) * len(window_dimensions)
    return [select_and_gather_add_p.bind(
        ct, x, select_prim=select_prim, window_dimensions=window_dimensions,
        window_strides=window_strides, padding=padding, base_dilation=ones,
        window_dilation=ones), None]


def _select_and_scatter_add_batching(args, dims, *, select_prim, window_dimensions,
                                     window_strides, padding):
    size = batching.axis_size(args, dims)
    s, x = (batching.bdim_at_front(a, d, size) for a, d in zip(args, dims))
    out = select_and_scatter_add_p.bind(
        s, x, select_prim=select_prim, window_dimensions=(1,) + tuple(window_dimensions),
        window_strides=(1,) + tuple(window_strides), padding=((0, 0),) + tuple(padding))
    return out, 0


select_and_scatter_add_p = Primitive("select_and_scatter_add")
select_and_scatter_add_p.def_abstract_eval(_select_and_scatter_add_rule)
select_and_scatter_add_p.def_lowering(_fold_lowering(_scatter_fold))
select_and_scatter_add_p.def_batching(_select_and_scatter_add_batching)
ad.primitive_jvps[select_and_scatter_add_p] = _linear_in_values_jvp(select_and_scatter_add_p)
ad.primitive_transposes[select_and_scatter_add_p] = _select_and_scatter_add_transpose


# ------------------------------------------------------------------------------------------------
# The generic reduce_window: any computation (a jaxpr of scalars), any number of operands


def _generic_rule(*args, jaxpr, **params):
    n = len(args) // 2
    operands, inits = args[:n], args[n:]
    name = "reduce_window"
    for x, i in zip(operands, inits):
        if i.ndim != 0 or i.dtype != x.dtype:
            raise TypeError(f"{name}: init values must be scalars of the operands' dtypes, got "
                            f"operand {x.str_short(True)} and init value {i.str_short(True)}")
    if any(x.shape != operands[0].shape for x in operands):
        raise TypeError(f"{name}: operands must have the same shape, got "
                        f"{[x.str_short(True) for x in operands]}")
    _check_window_params(name, operands[0], **params)
    scalars = [ShapedArray((), x.dtype) for x in operands]
    outs = [ShapedArray(a.shape, a.dtype) for a in jaxpr.out_avals]
    if outs != scalars:
        raise TypeError(f"{name}: the computation must return "
                        f"{[a.str_short(True) for a in scalars]}, "
                        f"got {[a.str_short(True) for a in outs]}")
    shape = reduce_window_shape_tuple(operands[0].shape, **params)
    return [ShapedArray(shape, x.dtype) for x in operands]


def _generic_lowering(ctx, *args, jaxpr, **params):
    n = len(args) // 2

    def body(*scalars):
        return lower_closed_jaxpr(ctx.module_ctx, jaxpr, scalars)

    return _reduce_window_op(ctx, args[:n], args[n:], body, **params)


def _apply_computation(jaxpr):
    def combine(acc, parts):
        return core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *acc, *parts)

    return combine


def _generic_jvp(primals, tangents, *, jaxpr, **params):
    n = len(primals) // 2
    outs = reduce_window_p.bind(*primals, jaxpr=jaxpr, **params)
    inits = primals[n:]
    combine = _apply_computation(jaxpr)

    def fold(*xs_and_inits):
        return _fold_windows(combine, list(xs_and_inits[:n]), list(xs_and_inits[n:]), params)

    _, t_outs = ad.jvp_flat(fold, list(primals[:n]) + list(inits), list(tangents))
    return outs, t_outs


def _generic_batching(args, dims, *, jaxpr, **params):
    n = len(args) // 2
    size = batching.axis_size(args, dims)
    if any(d is not None for d in dims[n:]):
        # per-example init values (they fill the padding too): vmap the fold over the window
        # offsets instead, which is all lax ops
        combine = _apply_computation(jaxpr)
        outs, out_dims = batching.batch_flat(
            lambda *a: _fold_windows(combine, list(a[:n]), list(a[n:]), params), list(args),
            list(dims), batching.AxisData(None, size, None))
        return [batching.bdim_at_front(o, d, size) for o, d in zip(outs, out_dims)], [0] * n
    xs = [batching.bdim_at_front(x, d, size) for x, d in zip(args[:n], dims[:n])]
    outs = reduce_window_p.bind(*xs, *args[n:], jaxpr=jaxpr, **_batched_params(params, 0))
    return outs, [0] * n


reduce_window_p = Primitive("reduce_window", multiple_results=True)
reduce_window_p.def_abstract_eval(_generic_rule)
reduce_window_p.def_lowering(_generic_lowering)
ad.primitive_jvps[reduce_window_p] = _generic_jvp
reduce_window_p.def_batching(_generic_batching)


# ------------------------------------------------------------------------------------------------
# Wrapper


def _ints(seq, n, what):
    if seq is None:
        return (1,) * n
    seq = tuple(operator.index(s) for s in seq)
    if len(seq) != n:
        raise TypeError(f"reduce_window: {what} {seq} must have one entry per operand axis ({n})")
    return seq


def _concrete_scalar(x):
    """The value of a concrete scalar init value, or None when it is traced."""
    if isinstance(x, core.Tracer):
        return None
    try:
        return np.asarray(x).item() if np.ndim(x) == 0 else None
    except Exception:  # noqa: BLE001 - any value that is not plainly concrete
        return None


def _monoid_for(computation, init):
    """The reduce_window_{sum,max,min} primitive when ``init`` is its monoid's identity in the
    init's own dtype (as JAX decides it: ``-inf`` starts a max over integers too)."""
    value = _concrete_scalar(init)
    if value is None:
        return None
    dtype = np.asarray(init).dtype
    if computation is elementwise.add and value == 0:
        return reduce_window_sum_p
    if dtype != np.bool_ and computation is elementwise.max and value == lowest(dtype):
        return reduce_window_max_p
    if dtype != np.bool_ and computation is elementwise.min and value == highest(dtype):
        return reduce_window_min_p
    return None


def reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                  padding, base_dilation=None, window_dilation=None):
    """Reduces each window of ``operand`` with ``computation`` (as ``jax.lax.reduce_window``).

    ``operand`` and ``init_value`` may be matching pytrees (a variadic reduction);
    ``computation(acc, x)`` takes and returns such pytrees of scalars. ``padding`` is 'SAME',
    'VALID' or a sequence of (low, high) pairs.
    """
    flat_ops, tree = _registry.flatten(operand)
    flat_inits, init_tree = _registry.flatten(init_value)
    if tree != init_tree:
        raise TypeError(f"reduce_window: operand and init_value must have the same structure, "
                        f"got {tree} and {init_tree}")
    avals = [get_aval(x) for x in flat_ops]
    ndim = avals[0].ndim
    window_dimensions = _ints(window_dimensions, ndim, "window_dimensions")
    window_strides = _ints(window_strides, ndim, "window_strides")
    if isinstance(padding, str):
        padding = tuple(padtype_to_pads(avals[0].shape, window_dimensions, window_strides,
                                        padding))
    else:
        padding = tuple(padtype_to_pads(None, None, None, padding))
    params = dict(window_dimensions=window_dimensions, window_strides=window_strides,
                  padding=padding, base_dilation=_ints(base_dilation, ndim, "base_dilation"),
                  window_dilation=_ints(window_dilation, ndim, "window_dilation"))
    if len(flat_ops) == 1:
        monoid = _monoid_for(computation, flat_inits[0])
        if monoid is not None:
            return tree.unflatten([monoid.bind(flat_ops[0], **params)])
    inits = [_as_init(i, a.dtype) for i, a in zip(flat_inits, avals)]
    pair_tree = _registry.flatten((operand, operand))[1]
    closed, consts, out_tree = _computation_jaxpr(computation, pair_tree,
                                                  tuple(a.dtype for a in avals))
    if consts:
        raise TypeError("reduce_window: the computation must not close over traced or array "
                        "values; pass them through the operands instead")
    if out_tree != tree:
        raise TypeError(f"reduce_window: the computation must return the structure of the "
                        f"operand ({tree}), got {out_tree}")
    outs = reduce_window_p.bind(*flat_ops, *inits, jaxpr=closed, **params)
    return tree.unflatten(outs)


@functools.lru_cache(maxsize=256)
def _computation_jaxpr(computation, pair_tree, operand_dtypes):
    """The computation traced on scalars, cached per function so that eager calls reuse one
    jaxpr (and so one compiled executable), as JAX caches it."""
    scalars = [ShapedArray((), d) for d in operand_dtypes]
    return trace_user_fun(lambda acc, x: computation(acc, x), pair_tree, scalars + scalars)


def _as_init(x, dtype):
    if isinstance(x, core.Tracer) or hasattr(x, "aval"):
        return x
    return np.asarray(x, dtype=dtypes.canonicalize_dtype(dtype))

# Sharding rules (operands split over Explicit mesh axes)
for _p in (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
    _p.sharding_rule = sharding_rules.varying_shape("reduce_window", _p.abstract_eval)
select_and_gather_add_p.sharding_rule = sharding_rules.select_and_gather_add
select_and_scatter_add_p.sharding_rule = lambda source, operand, **params: operand.parts()
