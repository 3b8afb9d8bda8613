"""Reductions over axes: ``reduce_sum/max/min/prod/and/or/xor`` and ``argmax/argmin``.

Every ``reduce_*`` primitive comes from one factory, ``reduction(name, combiner, identity,
abstract_eval)``: a ``stablehlo.reduce`` whose region applies ``combiner`` to two scalars, started
from ``identity(dtype)``. XLA may reassociate and reorder the reduction (and splits it across
threads or devices), which is only correct because each combiner is associative and commutative
and each init value is its identity — so we never pass anything else as init.

``argmax``/``argmin`` are a variadic reduce over (value, iota index) pairs. The pair reducer is
itself commutative (ties and NaNs are resolved by the smaller index, not by argument order), so
the result is the *first* occurrence of the extremum, and any NaN beats every number, as in NumPy.
"""

from __future__ import annotations

import functools

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray, check_memory_spaces, get_aval
from minijax.interpreters import ad
from minijax.lax.families import (
    ANY,
    COMPLEX,
    NUMBER,
    REAL,
    check_dtype_allowed,
    const,
    fill_region,
    highest,
    hlo_compare,
    is_nan,
    lowest,
    minmax_values,
    scalar_type,
)
from minijax.lax.convert import convert_element_type
from minijax.lax.elementwise import div, eq, mul, sub
from minijax.lax.structural import (
    broadcast_in_dim,
    broadcast_in_dim_p,
    expand_dims,
    full_like,
    pad,
    pad_p,
    reshape,
    slice,
    slice_in_dim,
    squeeze,
    tile_p,
    transpose,
)
from minijax.lowering.stablehlo import dense_i64, ir_constant, tensor_type
from minijax.lax import sharding_rules

__all__ = [
    "argmax", "argmax_p", "argmin", "argmin_p",
    "reduce_and", "reduce_and_p", "reduce_max", "reduce_max_p", "reduce_min", "reduce_min_p",
    "reduce_or", "reduce_or_p", "reduce_prod", "reduce_prod_p", "reduce_sum", "reduce_sum_p",
    "reduce_xor", "reduce_xor_p",
]

# ------------------------------------------------------------------------------------------------
# Identities: the init value of each reduction, per dtype


def _all_bits(dtype):
    """The identity of bitwise ``and``: every bit set (True for bool)."""
    dtype = np.dtype(dtype)
    return True if dtype == np.bool_ else np.array(-1).astype(dtype)


# ------------------------------------------------------------------------------------------------
# Axes: bound as given (``tuple(axes)``, as JAX's lax functions), in any order. Only jnp
# normalizes negative axes; a lax caller passes axes in [0, ndim).


def _check_axes(aval, axes):
    """The arithmetic reductions' checks, in JAX's words."""
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    if not all(0 <= a < aval.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for {aval}.")


def _reduced_shape(shape, axes):
    return tuple(d for i, d in enumerate(shape) if i not in axes)


# ------------------------------------------------------------------------------------------------
# The reduce_* family


# ``out_sharding`` is reduce_sum's param only (JAX's): always None, as minijax's types carry no
# sharding (lax.reduce lays a sum's result out after it instead)


def _arithmetic_rule(name, allowed, type_names=None):
    def rule(operand, *, axes, out_sharding=None):
        # JAX checks the axes before the dtype
        _check_axes(operand, axes)
        check_dtype_allowed(name, operand.dtype, allowed, type_names=type_names)
        return ShapedArray(_reduced_shape(operand.shape, axes), operand.dtype, operand.weak_type)

    return rule


def _logical_reduce_rule(operand, *, axes):
    """JAX's rule of reduce_and/or/xor: the dtype first, and no check of the axes. The result
    drops them with np.delete, so an out-of-range one is NumPy's IndexError while a negative
    or repeated one passes, to fail when lowered (XLA's verifier)."""
    if operand.dtype != np.bool_ and not dtypes.is_int(operand.dtype):
        raise TypeError("logical reduction requires operand dtype bool or int, got "
                        f"{operand.dtype.name}.")
    return ShapedArray(tuple(np.delete(operand.shape, axes).tolist()), operand.dtype)


def _reduce_lowering(combiner, identity):
    def rule(ctx, x, *, axes, out_sharding=None):
        dtype = ctx.avals_in[0].dtype
        init = ir_constant(np.array(identity(dtype), dtype))
        op = hlo.ReduceOp([tensor_type(ctx.avals_out[0])], [x], [init], dense_i64(axes))
        fill_region(op.body, [scalar_type(dtype)] * 2, lambda a, b: combiner(a, b, dtype))
        return op.results[0]

    return rule


def _reducer_batching(p):
    """JAX's batching rule of every reducer (its ``defreducer``): the axes move past the batch
    axis in the order given, as NumPy ints (np.where), and the result's batch axis is found
    with np.delete, so an axis past the end is NumPy's IndexError."""

    def rule(args, dims, *, axes, **params):
        (x,), (d,) = args, dims
        axes = tuple(np.where(np.less(axes, d), axes, np.add(axes, 1)))
        out_dim = int(list(np.delete(np.arange(get_aval(x).ndim), axes)).index(d))
        return p.bind(x, axes=axes, **params), out_dim

    # JAX checks only the batched reduction (an invalid axis stays invalid after the shift),
    # so its errors come from the rule, in the batched operand's terms
    rule.accepts_invalid = lambda vals, dims: True
    return rule


def reduction(name, combiner, identity, abstract_eval):
    """A ``reduce_*`` primitive: ``combiner(a, b, dtype)`` builds the scalar op,
    ``identity(dtype)`` its starting value."""
    p = Primitive(name)
    p.def_abstract_eval(abstract_eval)
    p.def_lowering(_reduce_lowering(combiner, identity))
    p.def_batching(_reducer_batching(p))
    return p


def _ignoring_dtype(hlo_op):
    return lambda a, b, dtype: hlo_op(a, b)


reduce_sum_p = reduction("reduce_sum", _ignoring_dtype(hlo.add), lambda dt: 0,
                         _arithmetic_rule("reduce_sum", NUMBER, "number"))
reduce_prod_p = reduction("reduce_prod", _ignoring_dtype(hlo.multiply), lambda dt: 1,
                          _arithmetic_rule("reduce_prod", NUMBER, "number"))
# complex values order lexicographically (real part, then imaginary), as in JAX
reduce_max_p = reduction("reduce_max", functools.partial(minmax_values, hlo.maximum, "GT"),
                         lowest, _arithmetic_rule("reduce_max", REAL | COMPLEX))
reduce_min_p = reduction("reduce_min", functools.partial(minmax_values, hlo.minimum, "LT"),
                         highest, _arithmetic_rule("reduce_min", REAL | COMPLEX))
reduce_and_p = reduction("reduce_and", _ignoring_dtype(hlo.and_), _all_bits, _logical_reduce_rule)
reduce_or_p = reduction("reduce_or", _ignoring_dtype(hlo.or_), lambda dt: 0, _logical_reduce_rule)
reduce_xor_p = reduction("reduce_xor", _ignoring_dtype(hlo.xor), lambda dt: 0,
                         _logical_reduce_rule)


# Differentiation rules
def _kept_axes(ndim, axes):
    return tuple(i for i in range(ndim) if i not in axes)


def _reduce_sum_transpose(ct, operand, *, axes, out_sharding):
    shape = operand.aval.shape
    # NumPy ints, as JAX's rule (np.delete): its jaxprs print broadcast_dimensions=(np.int64(0),)
    # split over Explicit mesh axes as the operand (JAX's out_sharding here)
    sharding = operand.aval.sharding if operand.aval.explicit is not None else None
    return [broadcast_in_dim(ct, shape, tuple(np.delete(np.arange(len(shape)), axes)),
                             out_sharding=sharding)]


def _reduce_chooser_jvp(g, ans, operand, *, axes):
    """The tangent of the chosen element; ties share it evenly (as JAX does). ``ans`` is
    compared at its keepdims shape, as JAX's rule (vmap then moves the batch axes to the front
    as JAX's, and XLA rewrites the same products of the mask)."""
    shape = [1 if i in axes else d for i, d in enumerate(get_aval(operand).shape)]
    chosen = eq(operand, reshape(ans, shape))
    chosen = convert_element_type(chosen, get_aval(g).dtype)
    return div(reduce_sum(mul(g, chosen), axes), reduce_sum(chosen, axes))


def _reduce_prod_jvp(primals, tangents, *, axes):
    """Correct where elements are zero: the tangent is the JVP of a pairwise product tree
    (mul's rule throughout), never a division by the product. The primal is the tree's
    product too, as JAX's: its order differs from the reduce's, and with an infinite complex
    factor so do the NaNs (``(a c) b`` vs ``(a b) c``)."""
    (x,), (g,) = primals, tangents
    shape = get_aval(x).shape
    kept = _kept_axes(len(shape), axes)
    n = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    if n == 0:  # JAX's product tree of no factors: ones (x is not read), zeros as tangent
        ans = full_like(x, 1, shape=[shape[i] for i in kept])
        return ans, ad.instantiate_zeros(ad.Zero.from_primal_value(ans))
    rows = (n, *(shape[i] for i in kept))  # the reduced axes flattened in front
    (ans,), (t,) = ad.jvp_flat(lambda v: [_product_tree(v)], [reshape(x, rows, axes + kept)],
                               [reshape(g, rows, axes + kept)])
    return ans, t


def _product_tree(x):
    """The product over axis 0 as a balanced tree of elementwise multiplications."""
    rest = [(0, 0, 0)] * (get_aval(x).ndim - 1)
    while (n := get_aval(x).shape[0]) > 1:
        half = (n + 1) // 2
        lo, hi = slice_in_dim(x, 0, half), slice_in_dim(x, half, n)
        if n % 2:
            hi = pad(hi, const(hi, 1), [(0, 1, 0)] + rest)
        x = mul(lo, hi)
    return squeeze(x, (0,))


ad.deflinear(reduce_sum_p, _reduce_sum_transpose)
ad.primitive_jvps[reduce_prod_p] = _reduce_prod_jvp
ad.defjvp2(reduce_max_p, _reduce_chooser_jvp)
ad.defjvp2(reduce_min_p, _reduce_chooser_jvp)
for _p in (reduce_and_p, reduce_or_p, reduce_xor_p):
    ad.defjvp_zero(_p)  # integer and boolean results


def reduce_sum(operand, axes):
    return reduce_sum_p.bind(operand, axes=tuple(axes), out_sharding=None)


def reduce_prod(operand, axes):
    return reduce_prod_p.bind(operand, axes=tuple(axes))


def reduce_max(operand, axes):
    return reduce_max_p.bind(operand, axes=tuple(axes))


def reduce_min(operand, axes):
    return reduce_min_p.bind(operand, axes=tuple(axes))


def reduce_and(operand, axes):
    return reduce_and_p.bind(operand, axes=tuple(axes))


def reduce_or(operand, axes):
    return reduce_or_p.bind(operand, axes=tuple(axes))


def reduce_xor(operand, axes):
    return reduce_xor_p.bind(operand, axes=tuple(axes))


# ------------------------------------------------------------------------------------------------
# argmax / argmin


def _argminmax_rule(name):
    def rule(operand, *, axes, index_dtype):
        # Complex operands pass here and fail when lowered (_argminmax_lowering), as in JAX:
        # an unused argmax/argmin of complex values that jit or remat drops never fails.
        check_dtype_allowed(name, operand.dtype, ANY)
        if not dtypes.is_int(index_dtype):
            raise TypeError(f"index_dtype must be an integer type, but got {index_dtype.name}")
        # JAX's rule: the axis must already be in [0, ndim) (lax.argmax does not normalize a
        # negative one; jnp.argmax does)
        axis, = axes
        if not 0 <= axis < operand.ndim:
            raise ValueError(f"Invalid axis {axis} for operand shape {operand.shape}")
        if operand.shape[axis] < 1:
            raise ValueError("argmin and argmax require non-empty reduced dimension. "
                             f"operand.shape={operand.shape} {axis=}")
        return ShapedArray(_reduced_shape(operand.shape, axes), index_dtype)

    return rule


def _argminmax_lowering(direction, identity):
    """Reduce (value, index) pairs. ``direction`` is "GT" for argmax, "LT" for argmin.

    The pair reducer is commutative: a pair wins on a strictly better value (a NaN beats any
    number); on equal values (or two NaNs) the smaller index wins. So the reduction order XLA
    picks cannot change the answer.
    """

    def rule(ctx, x, *, axes, index_dtype):
        aval = ctx.avals_in[0]
        dtype = aval.dtype
        if dtypes.is_complex(dtype):
            # JAX's message: its pair reducer compares the values with lax.lt/gt
            compare = "gt" if direction == "GT" else "lt"
            raise TypeError(f"{compare} does not accept dtype {np.dtype(dtype).name} at position "
                            "0. Accepted dtypes at position 0 are subtypes of integer, floating, "
                            "bool.")
        floating = dtypes.is_float(dtype)
        idx_aval = ShapedArray(aval.shape, index_dtype)
        # JAX lowers argmax as a reduce of the operand and this iota, typed in device memory:
        # its memory-space rule refuses an operand in host memory
        check_memory_spaces("reduce", [aval, idx_aval])
        iota = hlo.iota(tensor_type(idx_aval), axes[0])
        inits = [ir_constant(np.array(identity(dtype), dtype)),
                 ir_constant(np.array(0, index_dtype))]
        out_aval = ctx.avals_out[0]
        out_types = [tensor_type(out_aval.update(dtype=dtype)), tensor_type(out_aval)]
        op = hlo.ReduceOp(out_types, [x, iota], inits, dense_i64(axes))

        def body(a_val, a_idx, b_val, b_idx):
            better = hlo_compare(a_val, b_val, direction, dtype)
            same = hlo_compare(a_val, b_val, "EQ", dtype)
            if floating:
                a_nan, b_nan = is_nan(a_val, dtype), is_nan(b_val, dtype)
                better = hlo.or_(better, hlo.and_(a_nan, hlo.not_(b_nan)))
                same = hlo.or_(same, hlo.and_(a_nan, b_nan))
            first = hlo_compare(a_idx, b_idx, "LT", index_dtype)
            take_a = hlo.or_(better, hlo.and_(same, first))
            return [hlo.select(better, a_val, b_val), hlo.select(take_a, a_idx, b_idx)]

        fill_region(op.body, [scalar_type(dtype), scalar_type(index_dtype)] * 2, body)
        return op.results[1]

    return rule


def _argminmax(name, direction, identity):
    p = Primitive(name)
    p.def_abstract_eval(_argminmax_rule(name))
    p.def_lowering(_argminmax_lowering(direction, identity))

    p.def_batching(_reducer_batching(p))
    return p


argmax_p = _argminmax("argmax", "GT", lowest)
argmin_p = _argminmax("argmin", "LT", highest)
ad.defjvp_zero(argmax_p)
ad.defjvp_zero(argmin_p)


def argmax(operand, axis, index_dtype):
    """Index of the first maximum along ``axis`` (a NaN counts as the maximum); ``axis`` is
    in [0, ndim), as JAX's (which passes it on unchanged)."""
    return argmax_p.bind(operand, axes=(axis,), index_dtype=dtypes.canonicalize_dtype(index_dtype))


def argmin(operand, axis, index_dtype):
    """Index of the first minimum along ``axis`` (a NaN counts as the minimum); ``axis`` is
    in [0, ndim), as JAX's (which passes it on unchanged)."""
    return argmin_p.bind(operand, axes=(axis,), index_dtype=dtypes.canonicalize_dtype(index_dtype))


# ------------------------------------------------------------------------------------------------
# The transposes of broadcast_in_dim, tile and pad are sums: attached here, where reductions and the
# structural primitives (structural.py, imported above) are both defined.


def _broadcast_in_dim_transpose(ct, operand, *, shape, broadcast_dimensions, sharding):
    """As JAX's rule: sums over every result axis but those of the operand's non-unit axes,
    then ``expand_dims`` puts the operand's size-1 axes back (a size-1 axis kept at size 1 is
    summed too, so the jaxpr is JAX's). The kept axes then go back in the operand's order
    (unsorted ``broadcast_dimensions`` move them; JAX 0.10.2's transpose does not and fails
    its cotangent type check, sharp_bits)."""
    unit = [i for i, n in enumerate(operand.aval.shape) if n == 1]
    kept = [d for i, d in enumerate(broadcast_dimensions) if i not in unit]
    # a reduce_sum over no axes too (a broadcast to its operand's shape, which only a trace
    # without forwarding keeps: JAX's linear_transpose of solve's matvec)
    summed = reduce_sum(ct, tuple(a for a in range(len(shape)) if a not in kept))
    order = sorted(kept)
    perm = tuple(order.index(d) for d in kept)
    if perm != tuple(range(len(perm))):
        summed = transpose(summed, perm)
    return [expand_dims(summed, unit) if unit else summed]


def _sum_over(x, axes):
    return reduce_sum(x, axes) if axes else x


ad.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _tile_transpose(ct, operand, *, reps):
    """Each repeat is split onto its own axis (before the operand axis it repeats) and summed."""
    shape = operand.aval.shape
    split = reshape(ct, tuple(k for pair in zip(reps, shape) for k in pair))
    return [reduce_sum(split, tuple(range(0, 2 * len(shape), 2)))]


ad.deflinear(tile_p, _tile_transpose)


def _pad_transpose(ct, operand, padding_value, *, padding_config):
    """The operand's cotangent is ct with the padding cut off (and interior padding strided
    over); the padding value's is the sum of everything else."""
    ndim = len(padding_config)
    lo, hi, interior = zip(*padding_config) if ndim else ((), (), ())
    # a strong zero, as JAX's rule pads with: the cotangent comes out strong even when ct is
    # weak. The configs are NumPy ints, as JAX's rule computes them (its jaxprs print
    # padding_config=((np.int64(0), np.int64(-1), np.int64(0)),))
    unpadded = pad(ct, np.zeros((), get_aval(ct).dtype),
                   zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
    ct_operand = slice(unpadded, list(np.zeros_like(lo)), get_aval(unpadded).shape,
                       list(np.add(interior, 1)))
    ct_value = None
    if ad.is_undefined_primal(padding_value):
        every = tuple(range(ndim))
        ct_value = sub(_sum_over(ct, every), _sum_over(ct_operand, every))
    return [ct_operand if ad.is_undefined_primal(operand) else None, ct_value]


ad.deflinear(pad_p, _pad_transpose, data=True)

# Sharding rules (operands split over Explicit mesh axes)
for _p in (reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p, reduce_and_p, reduce_or_p,
           reduce_xor_p, argmax_p, argmin_p):
    _p.sharding_rule = sharding_rules.drop_axes()
