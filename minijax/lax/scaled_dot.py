"""``scaled_dot``: ``(lhs * lhs_scale) @ (rhs * rhs_scale)`` where each scale is coarser than
its operand along the contracting dimensions (one scale per block of ``size // scale size``
elements), as JAX 0.10.2's ``scaled_dot_p``. It lowers as JAX's: a ``stablehlo.composite``
``xla.scaled_dot`` (a compiler that knows the name may use native block-scaled matmuls) whose
decomposition widens the scales to the operands, multiplies in bfloat16 and contracts with
``dot_general`` in ``preferred_element_type`` (bfloat16 by default). As in JAX it batches but
has no derivative.
"""

from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import batching
from minijax.interpreters.mlir import lower_traced
from minijax.lax.composite import composite
from minijax.lax.convert import convert_element_type
from minijax.lax.dot import dot_general
from minijax.lax.elementwise import mul
from minijax.lax.structural import broadcast_in_dim, expand_dims, full, reshape

__all__ = ["scaled_dot"]  # scaled_dot_p stays here: jax.lax does not export it


def _check_scale(side, operand, scale, contracting):
    for i, size in enumerate(operand.shape):
        if i in contracting:
            if size % scale.shape[i] != 0:
                raise TypeError(f"{side} contracting dim {i} of size {size} must be divisible by "
                                f"its scale's dim size {scale.shape[i]}.")
            if size // scale.shape[i] < 2:
                raise TypeError(f"The ratio of {side} contracting dim {i} to its scale's dim "
                                f"size ({size // scale.shape[i]}) must be at least 2.")
        elif scale.shape[i] != size:
            raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size "
                            f"{scale.shape[i]}.")


def _scaled_dot_rule(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                     preferred_element_type):
    """JAX's checks, in its words, then dot_general's shape: batch, lhs kept, rhs kept."""
    (lc, rc), (lb, rb) = dimension_numbers
    if len({lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}) != 1:
        raise TypeError(
            f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} rhs rank: "
            f"{rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: {rhs_scale.ndim}.")
    if len(lb) != len(rb):
        raise TypeError("LHS and RHS must have the same number of batch dimensions, got "
                        f"{len(lb)} and {len(rb)}.")
    if len(lc) != len(rc):
        raise TypeError("LHS and RHS must have the same number of contracting dimensions, got "
                        f"{len(lc)} and {len(rc)}.")
    for i, j in zip(lb, rb):
        if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) != 1:
            raise TypeError("All input tensors must have the same batch dimension size for "
                            f"batch dims ({i}, {j}).")
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise TypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match "
                            f"RHS contracting dim {j} of size {rhs.shape[j]}.")
    _check_scale("LHS", lhs, lhs_scale, lc)
    _check_scale("RHS", rhs, rhs_scale, rc)
    kept_l = [lhs.shape[i] for i in range(lhs.ndim) if i not in lc and i not in lb]
    kept_r = [rhs.shape[i] for i in range(rhs.ndim) if i not in rc and i not in rb]
    return ShapedArray((*(lhs.shape[i] for i in lb), *kept_l, *kept_r), preferred_element_type)


def _widen(scale, shape, contracting):
    """Each scale entry repeated over its block of the operand's contracting dims."""
    for i in contracting:
        s = get_aval(scale).shape
        if s[i] != shape[i]:
            reps = shape[i] // s[i]
            split = (*s[:i + 1], reps, *s[i + 1:])
            scale = broadcast_in_dim(expand_dims(scale, (i + 1,)), split,
                                     tuple(range(len(split))))
            scale = reshape(scale, (*s[:i], s[i] * reps, *s[i + 1:]))
    return scale


def _decomposition(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                   preferred_element_type):
    (lc, rc), _ = dimension_numbers
    bf16 = dtypes.bfloat16
    lhs_scale = _widen(lhs_scale, get_aval(lhs).shape, lc)  # JAX's order of ops
    lhs = mul(convert_element_type(lhs, bf16), convert_element_type(lhs_scale, bf16))
    rhs_scale = _widen(rhs_scale, get_aval(rhs).shape, rc)
    rhs = mul(convert_element_type(rhs, bf16), convert_element_type(rhs_scale, bf16))
    return dot_general(lhs, rhs, dimension_numbers,
                       preferred_element_type=preferred_element_type)


_as_composite = composite(_decomposition, "xla.scaled_dot")


def _scaled_dot_lowering(ctx, *args, **params):
    """The composite, traced on the operands' types and emitted in place (JAX's lower_fun)."""
    return lower_traced(ctx.module_ctx, lambda *xs: [_as_composite(*xs, **params)],
                        ctx.avals_in, args)[0]


scaled_dot_p = Primitive("scaled_dot")
scaled_dot_p.def_abstract_eval(_scaled_dot_rule)
scaled_dot_p.def_lowering(_scaled_dot_lowering)


def _scaled_dot_batching(args, dims, *, dimension_numbers, preferred_element_type):
    """Every operand's batch axis at the front, one more batch dimension of the contraction."""
    size = batching.axis_size(args, dims)
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    (lc, rc), (lb, rb) = dimension_numbers
    plus1 = lambda axes: tuple(a + 1 for a in axes)  # noqa: E731
    dn = ((plus1(lc), plus1(rc)), ((0, *plus1(lb)), (0, *plus1(rb))))
    return scaled_dot_p.bind(*args, dimension_numbers=dn,
                             preferred_element_type=preferred_element_type), 0


scaled_dot_p.def_batching(_scaled_dot_batching)


def _unit_scale(operand, contracting):
    """JAX's default scale: ones (float8_e8m0fnu), one per whole contracting dimension."""
    shape = [1 if i in contracting else n for i, n in enumerate(get_aval(operand).shape)]
    return convert_element_type(full(shape, 1, dtypes.bfloat16), dtypes.float8_e8m0fnu)


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """``(lhs * lhs_scale) @ (rhs * rhs_scale)`` in ``preferred_element_type`` (bfloat16 by
    default); the default dimension numbers contract the last axis of ``lhs`` with the
    second-to-last of ``rhs``, batching the leading ones."""
    if dimension_numbers is None:
        n = get_aval(lhs).ndim
        if n < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), _ = dimension_numbers
    if lhs_scale is None:
        lhs_scale = _unit_scale(lhs, lc)
    if rhs_scale is None:
        rhs_scale = _unit_scale(rhs, rc)
    dtype = dtypes.bfloat16 if preferred_element_type is None else preferred_element_type
    return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dimension_numbers,
                             preferred_element_type=dtypes.canonicalize_dtype(np.dtype(dtype)))
