"""``associative_scan``: a parallel prefix scan of an associative ``fn`` (no new primitive).

The recursive odd/even scheme (Blelloch / Ladner-Fischer style, as JAX): combine adjacent
pairs, scan the half-length result recursively, then fix up the even positions and
interleave. O(log n) depth of ordinary lax ops, so it differentiates and batches like them.
"""

from __future__ import annotations

import numpy as np

from minijax.core import get_aval
from minijax.lax.elementwise import add, bitwise_or
from minijax.lax.structural import concatenate, pad, rev, slice_in_dim
from minijax.tree_util import _registry

__all__ = ["associative_scan"]


def _interleave(a, b, axis):
    """[a0, b0, a1, b1, ...] along ``axis`` (len(a) == len(b) or len(b) + 1), by padding each
    with interior zeros and adding (or-ing, for booleans)."""
    na, nb = get_aval(a).shape[axis], get_aval(b).shape[axis]
    ndim = get_aval(a).ndim
    cfg_a = [(0, 0, 0)] * ndim
    cfg_b = [(0, 0, 0)] * ndim
    cfg_a[axis] = (0, 1 if na == nb else 0, 1)
    cfg_b[axis] = (1, 0 if na == nb else 1, 1)
    zero = np.zeros((), get_aval(a).dtype)
    pa, pb = pad(a, zero, cfg_a), pad(b, zero, cfg_b)
    return bitwise_or(pa, pb) if get_aval(a).dtype == np.bool_ else add(pa, pb)


def associative_scan(fn, elems, reverse=False, axis=0):
    """All prefix combinations ``fn(... fn(fn(e0, e1), e2) ..., ei)`` along ``axis`` of the
    pytree ``elems`` (``fn`` takes and returns pytrees of the same structure)."""
    leaves, tree = _registry.flatten(elems)
    if not leaves:
        return elems
    ndim = get_aval(leaves[0]).ndim
    axis = axis + ndim if axis < 0 else axis
    sizes = {get_aval(x).shape[axis] for x in leaves}
    if len(sizes) != 1:
        raise ValueError(f"associative_scan: array inputs must have the same size along axis "
                         f"{axis}, got {sorted(sizes)}")
    if reverse:
        leaves = [rev(x, (axis,)) for x in leaves]

    def combine(a, b):
        out = fn(tree.unflatten(a), tree.unflatten(b))
        return _registry.flatten(out)[0]

    def sl(x, start, stop=None, stride=1):
        n = get_aval(x).shape[axis]
        stop = n if stop is None else (stop if stop >= 0 else n + stop)
        return slice_in_dim(x, start, stop, stride, axis)

    def rec(xs):
        n = get_aval(xs[0]).shape[axis]
        if n < 2:
            return xs
        reduced = combine([sl(x, 0, -1, 2) for x in xs], [sl(x, 1, None, 2) for x in xs])
        odd = rec(reduced)
        if n % 2 == 0:
            even = combine([sl(x, 0, -1) for x in odd], [sl(x, 2, None, 2) for x in xs])
        else:
            even = combine(odd, [sl(x, 2, None, 2) for x in xs])
        even = [concatenate([sl(x, 0, 1), e], axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = rec(leaves)
    if reverse:
        out = [rev(x, (axis,)) for x in out]
    return tree.unflatten(out)
