"""``ragged_dot`` / ``ragged_dot_general``: dot products over groups of consecutive rows of a
ragged dimension, the group sizes given at run time.

As JAX's lowering off TPU and GPU kernels, the ragged operand is expanded to a dense stack of
one masked copy per group (rows outside a group zeroed) and contracted with one
``dot_general``, so jit, grad and vmap follow from the ops it is made of. The three modes are
JAX's: the lhs ragged dimension is non-contracting (``rhs`` has a group axis), contracting
(one result per group) or a batch dimension.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence


from minijax.core import get_aval
from minijax.lax.cumulative import cumsum
from minijax.lax.dot import dot_general
from minijax.lax.elementwise import bitwise_and, le, lt, select, sub
from minijax.lax.structural import broadcast, broadcast_in_dim, broadcasted_iota, full_like

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"]


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """The dot dimension numbers, the lhs ragged dimension and the rhs group dimension."""

    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, "dot_dimension_numbers",
                           tuple(tuple(map(tuple, t)) for t in dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


class _Mode(enum.Enum):
    NONCONTRACTING = 1  # [b,m,k], [g,b,k,n], [b,g] -> [b,m,n]
    CONTRACTING = 2  # [b,m,k], [b,k,n], [b,g] -> [g,b,m,n]
    BATCH = 3  # [b,m,k], [b,k,n], [g] -> [b,m,n]


def _remaining(rank, *used):
    taken = {d for dims in used for d in dims}
    return [d for d in range(rank) if d not in taken]


def _mode_and_dim(lhs_rank, dnums):
    if len(dnums.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension, got "
                        f"{dnums.lhs_ragged_dimensions}")
    ragged = dnums.lhs_ragged_dimensions[0]
    (contract, _), (batch, _) = dnums.dot_dimension_numbers
    noncontract = _remaining(lhs_rank, contract, batch)
    if ragged in noncontract:
        return _Mode.NONCONTRACTING, ragged
    if ragged in contract:
        return _Mode.CONTRACTING, ragged
    if ragged in batch:
        return _Mode.BATCH, ragged
    raise TypeError(f"lhs_ragged_dim {ragged} not found in lhs_noncontracting {noncontract}, "
                    f"lhs_contracting {list(contract)}, or lhs_batch {list(batch)}.")


def _prefix_dims(mode, rank, ragged, batch, contract):
    """The operand axes the group sizes are given per (before their group axis)."""
    batch, contract = list(batch), list(contract)
    if mode is _Mode.NONCONTRACTING:
        noncontract = _remaining(rank, contract, batch)
        return batch + noncontract[:noncontract.index(ragged)]
    if mode is _Mode.CONTRACTING:
        return batch + contract[:contract.index(ragged)]
    return batch[:batch.index(ragged)]


def _expand(x, dim, group_sizes, prefix):
    """``[g, *x.shape]``: copy j of ``x`` keeps the rows of group j along ``dim`` (the groups
    are consecutive, of ``group_sizes[..., j]`` rows, per position of the ``prefix`` axes)."""
    shape = tuple(get_aval(group_sizes).shape[-1:]) + tuple(get_aval(x).shape)
    ends = cumsum(group_sizes, axis=get_aval(group_sizes).ndim - 1)
    starts = sub(ends, group_sizes)
    gs_dims = tuple(a + 1 for a in prefix) + (0,)
    iota = broadcasted_iota(get_aval(group_sizes).dtype, shape, dim + 1)
    mask = bitwise_and(le(broadcast_in_dim(starts, shape, gs_dims), iota),
                       lt(iota, broadcast_in_dim(ends, shape, gs_dims)))
    wide = broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    return select(mask, wide, full_like(wide, 0))


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """A ``dot_general`` whose lhs ragged dimension is split into consecutive groups of
    ``group_sizes`` rows (see the module docstring for the three modes)."""
    if group_offset is not None:
        # JAX 0.10.2's implementation off TPU refuses it in these words (its public call
        # fails before, hashing the array as a parameter: a TypeError)
        raise NotImplementedError("Unimplemented group_offset support.")
    dnums = ragged_dot_dimension_numbers
    lhs_aval, rhs_aval = get_aval(lhs), get_aval(rhs)
    mode, ragged = _mode_and_dim(lhs_aval.ndim, dnums)
    (l_contract, r_contract), (l_batch, r_batch) = dnums.dot_dimension_numbers
    l_prefix = _prefix_dims(mode, lhs_aval.ndim, ragged, l_batch, l_contract)
    if get_aval(group_sizes).ndim == 1:
        group_sizes = broadcast(group_sizes, [lhs_aval.shape[i] for i in l_prefix])
    incr = lambda dims: [d + 1 for d in dims]
    kw = dict(precision=precision, preferred_element_type=preferred_element_type,
              out_sharding=out_sharding)
    if mode is _Mode.NONCONTRACTING:
        if len(dnums.rhs_group_dimensions) != 1:
            raise TypeError("ragged_dot_general expects exactly one rhs group dimension, got "
                            f"{dnums.rhs_group_dimensions}")
        return dot_general(
            _expand(lhs, ragged, group_sizes, l_prefix), rhs,
            ((incr(l_contract) + [0], list(r_contract) + [dnums.rhs_group_dimensions[0]]),
             (incr(l_batch), list(r_batch))), **kw)
    if mode is _Mode.CONTRACTING:
        rhs_ragged = r_contract[l_contract.index(ragged)]
        r_prefix = _prefix_dims(mode, rhs_aval.ndim, rhs_ragged, r_batch, r_contract)
        return dot_general(
            _expand(lhs, ragged, group_sizes, l_prefix),
            _expand(rhs, rhs_ragged, group_sizes, r_prefix),
            ((incr(l_contract), incr(r_contract)), ([0] + incr(l_batch), [0] + incr(r_batch))),
            **kw)
    return dot_general(lhs, rhs, dnums.dot_dimension_numbers, **kw)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """``lhs [m, k]`` times ``rhs [g, k, n]``: rows of group j (``group_sizes[j]`` consecutive
    rows of lhs) are multiplied by ``rhs[j]``; rows past the groups give zeros."""
    dnums = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))
    return ragged_dot_general(lhs, rhs, group_sizes, dnums, precision=precision,
                              preferred_element_type=preferred_element_type,
                              group_offset=group_offset, out_sharding=out_sharding)
