"""The combining scatters ``scatter_sub``, ``scatter_mul``, ``scatter_min`` and
``scatter_max``: like ``scatter_add`` (same dimension numbers, modes and batching, from
``lax.indexing``), but each update window is subtracted from / multiplied into / min'd / max'd
with what is there, repeated indices included.

Derivatives follow JAX:

- ``scatter_sub`` is linear in (operand, updates), as ``scatter_add``, the updates' cotangent
  negated.
- ``scatter_mul`` is linear in the operand (the updates scatter-multiplied into the operand's
  tangent, and so into its cotangent); in the updates only with ``unique_indices`` (each update then
  multiplies exactly one operand element, so its tangent is scaled by that element).
- ``scatter_min`` / ``scatter_max`` pass the tangent of whichever of operand and updates won
  each position, averaged over ties (as ``reduce_max`` does).
"""

from __future__ import annotations

import functools

from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import get_aval
from minijax.interpreters import ad
from minijax.lax.elementwise import add, div, eq, mul, neg, select, sub
from minijax.lax.elementwise import max as lax_max
from minijax.lax.elementwise import min as lax_min
from minijax.lax.families import ANY, NUMBER, const, minmax_values
from minijax.lax.indexing import (
    _gather_of_scatter,
    _scatter_add_transpose,
    _scatter_args,
    _scatter_prim,
    gather,
    scatter_add,
    scatter_add_p,
)
from minijax.lax.structural import full, full_like
from minijax.source_info import with_user_line

__all__ = ["scatter_max", "scatter_max_p", "scatter_min", "scatter_min_p", "scatter_mul",
           "scatter_mul_p", "scatter_sub", "scatter_sub_p"]

scatter_sub_p = _scatter_prim("scatter-sub", lambda old, new, dtype: hlo.subtract(old, new),
                              NUMBER, sub)
scatter_mul_p = _scatter_prim("scatter-mul", lambda old, new, dtype: hlo.multiply(old, new),
                              NUMBER, mul)
# bool too, as lax.min; complex numbers compare lexicographically, as lax.min/max
scatter_min_p = _scatter_prim("scatter-min", functools.partial(minmax_values, hlo.minimum, "LT"),
                              ANY, lax_min)
scatter_max_p = _scatter_prim("scatter-max", functools.partial(minmax_values, hlo.maximum, "GT"),
                              ANY, lax_max)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """Like ``scatter``, but each window is subtracted from ``operand`` (repeated indices
    subtract each)."""
    return scatter_sub_p.bind(operand, scatter_indices, updates, **_scatter_args(
        dimension_numbers, indices_are_sorted, unique_indices, mode))


def scatter_mul(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """Like ``scatter``, but each window multiplies ``operand`` (repeated indices multiply)."""
    return scatter_mul_p.bind(operand, scatter_indices, updates, **_scatter_args(
        dimension_numbers, indices_are_sorted, unique_indices, mode))


def scatter_min(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """Like ``scatter``, but each position keeps the minimum of the operand and its updates."""
    return scatter_min_p.bind(operand, scatter_indices, updates, **_scatter_args(
        dimension_numbers, indices_are_sorted, unique_indices, mode))


def scatter_max(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """Like ``scatter``, but each position keeps the maximum of the operand and its updates."""
    return scatter_max_p.bind(operand, scatter_indices, updates, **_scatter_args(
        dimension_numbers, indices_are_sorted, unique_indices, mode))


# ------------------------------------------------------------------------------------------------
# Derivatives


def _zeros(x):
    return full(tuple(get_aval(x).shape), 0, get_aval(x).dtype)


def _index_kw(params, **overrides):
    kw = dict(indices_are_sorted=params["indices_are_sorted"],
              unique_indices=params["unique_indices"], mode=params["mode"])
    kw.update(overrides)
    return kw


def _minmax_jvp(prim):
    """JAX's rule, step for step: each position's tangent is the average of the tangents of
    the values that tie for its result. As in JAX, the read-backs are in-bounds-promised
    gathers and the counts are scatter-adds that drop out-of-bounds indices, so with
    ``mode="clip"`` an out-of-bounds index divides by a zero count (JAX's NaN tangent)."""

    def jvp(primals, tangents, **params):
        op, idx, upd = primals
        out = prim.bind(op, idx, upd, **params)
        t_op, _, t_upd = tangents
        if type(t_op) is ad.Zero and type(t_upd) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        t_op, t_upd = ad.instantiate_zeros(t_op), ad.instantiate_zeros(t_upd)
        dn = params["dimension_numbers"]
        gdn, sizes = _gather_of_scatter(dn, tuple(get_aval(op).shape),
                                        tuple(get_aval(upd).shape))
        read = lambda x: gather(x, idx, gdn, sizes, mode="promise_in_bounds")
        count = lambda u: read(scatter_add(_zeros(op), idx, u, dn, mode="drop"))
        upd_won = eq(upd, read(out))
        op_kept = eq(read(op), read(out))
        num_updates = count(select(upd_won, full_like(upd, 1), _zeros(upd)))
        num_refs = count(full_like(upd, 1))
        one = const(num_updates, 1)
        shared = div(one, add(num_updates, one))
        upd_coef = select(upd_won, select(op_kept, shared, div(one, num_updates)), _zeros(upd))
        op_coef = div(add(const(one, -1), select(op_kept, shared, _zeros(num_updates))), num_refs)
        t_updates = add(mul(read(t_op), op_coef), mul(t_upd, upd_coef))
        return out, scatter_add(t_op, idx, t_updates, dn, **_index_kw(params))

    return jvp


def _mul_jvp(primals, tangents, **params):
    op, idx, upd = primals
    out = scatter_mul_p.bind(op, idx, upd, **params)
    t_op, _, t_upd = tangents
    if type(t_op) is ad.Zero and type(t_upd) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    dn = params["dimension_numbers"]
    t_out = ad.Zero.from_primal_value(out)
    if type(t_op) is not ad.Zero:
        # JAX's rule: the updates multiplied into the operand's tangent, in the primal's order
        # (``(t * u1) * u2`` for repeated indices), typed as the tangent (weak under a weak
        # cotangent); linear in the tangent, transposed by ``_mul_transpose``
        t_out = scatter_mul_p.bind(t_op, idx, upd, **params)
    if type(t_upd) is not ad.Zero:
        if not params["unique_indices"]:
            # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(with_user_line(
                "scatter_mul gradients are only implemented if `unique_indices=True`"))
        # JAX's rule: the operand times the updates' tangents scattered into zeros, so an
        # infinite or NaN operand element makes a NaN tangent even where no update lands
        t_out = ad.add_tangents(t_out, mul(op, scatter_add_p.bind(
            _zeros(op), idx, t_upd, dimension_numbers=dn, **_index_kw(params))))
    return out, t_out


def _mul_transpose(ct, operand, indices, updates, **params):
    """JAX's rule: the operand's cotangent is the cotangent multiplied by the updates that land
    on each position; the updates' (only where linear_transpose makes them the linear input)
    the cotangent times the operand read back at their windows, for unique indices only."""
    ct_operand = ct_updates = None
    if ad.is_undefined_primal(operand):
        ct_operand = scatter_mul_p.bind(ct, indices, updates, **params)
    if ad.is_undefined_primal(updates):
        if not params["unique_indices"]:
            # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(with_user_line(
                "scatter_mul gradients are only implemented if `unique_indices=True`"))
        gdn, sizes = _gather_of_scatter(params["dimension_numbers"], tuple(get_aval(ct).shape),
                                        tuple(updates.aval.shape))
        ct_updates = gather(mul(ct, operand), indices, gdn, sizes, mode=params["mode"],
                            fill_value=0)
    return [ct_operand, None, ct_updates]


def _sub_transpose(ct, operand, indices, updates, **params):
    ct_operand, _, ct_updates = _scatter_add_transpose(ct, operand, indices, updates, **params)
    return [ct_operand, None, None if ct_updates is None else neg(ct_updates)]


ad.deflinear(scatter_sub_p, _sub_transpose)
ad.primitive_jvps[scatter_mul_p] = _mul_jvp
ad.primitive_transposes[scatter_mul_p] = _mul_transpose
ad.primitive_jvps[scatter_min_p] = _minmax_jvp(scatter_min_p)
ad.primitive_jvps[scatter_max_p] = _minmax_jvp(scatter_max_p)
