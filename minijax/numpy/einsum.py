"""``einsum`` and ``einsum_path``: Einstein summation as a sequence of pairwise contractions,
JAX's way (its ``_einsum`` over opt_einsum's ``contract_path``).

1. Parse (``'ij,jk->ik'``, ``'...'`` ellipses, implicit output, or NumPy's interleaved
   ``einsum(a, [0, 1], b, [1, 2])`` form) into one label list per operand, then name them as
   opt_einsum does (ellipsis axes get unused letters), since the labels' letter order decides
   the order of summed axes.
2. A path: opt_einsum's optimizers, their search order and tie breaks included: ``'auto'``
   (JAX's default: optimal up to 4 operands, branch-and-bound up to 14, greedy above),
   ``'optimal'`` (also ``True``), ``'branch-all'/'branch-2'/'branch-1'``, ``'greedy'``
   (memory removed), ``False`` (left to right), or an explicit path. One or two operands are
   one step whatever the optimizer.
3. opt_einsum's contraction list (``PathInfo``: each step's operands, summed labels and
   ``'ab,bc->ac'`` string, intermediates in tensordot order) is run as JAX's ``_einsum`` runs
   it: per step, labels one operand holds alone are summed, repeated labels become diagonals
   (a uint32 iota delta), a pair is ONE ``lax.dot_general`` (operands ordered so that no
   transpose is needed if possible, (rhs, lhs) first), then a transpose into the step's order.

The path has NumPy's format (positions in the current operand list, each result appended at the
end), so a path from ``einsum_path`` (or NumPy's, with its leading ``'einsum_path'``) can be
passed back as ``optimize=``.
"""

from __future__ import annotations

import collections
import functools
import heapq
import itertools
import math
import operator
from decimal import Decimal

import numpy as np

from minijax import dtypes, lax
from minijax.lax.sharding_constraint import explicit_out_sharding, lay_out
from minijax.sharding import auto_axes
from minijax.numpy._util import check_arraylike, convert
from minijax.numpy.creation import to_array

__all__ = ["einsum", "einsum_path"]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


# ------------------------------------------------------------------------------------------------
# Parsing


def _interleaved_to_string(args):
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])`` → (``'ab,bc->ac'``, [a, b])."""
    args = list(args)
    operands, subs = args[0::2], args[1::2]
    out = None
    if len(operands) > len(subs):
        out = operands.pop()  # an odd count: the last item is the output sublist

    def letters(sub):
        return "".join("..." if s is Ellipsis else _LETTERS[operator.index(s)] for s in sub)

    spec = ",".join(letters(s) for s in subs)
    if out is not None:
        spec += "->" + letters(out)
    return spec, operands


def _split_labels(term):
    """``'a...b'`` → ['a', '...', 'b']."""
    labels, i = [], 0
    while i < len(term):
        if term.startswith("...", i):
            labels.append("...")
            i += 3
        elif term[i].isalnum():  # JAX (opt_einsum) also takes digits as labels
            labels.append(term[i])
            i += 1
        else:
            raise ValueError(f"einsum: invalid subscript {term[i]!r} in {term!r}")
    if labels.count("...") > 1:
        raise ValueError(f"einsum: more than one ellipsis in {term!r}")
    return labels


def _parse(subscripts, shapes):
    """One label list per operand and for the output; ellipsis axes named '.0', '.1', ..."""
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        ins, out = spec.split("->")
        explicit = True
    else:
        ins, out, explicit = spec, "", False
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"Number of einsum subscripts, {len(terms)}, must be equal to the "
                         f"number of operands, {len(shapes)}.")  # opt_einsum's, as JAX's
    n_ell = 0
    parsed = []
    for term, shape in zip(terms, shapes):
        labels = _split_labels(term)
        named = len(labels) - ("..." in labels)
        if "..." in labels:
            k = len(shape) - named
            if k < 0:
                raise ValueError(f"einsum: operand of shape {shape} has fewer axes than {term!r}")
            n_ell = max(n_ell, k)
        elif named != len(shape):
            raise ValueError(f"einsum: subscripts {term!r} name {named} axes but the operand "
                             f"has shape {shape}")
        parsed.append(labels)
    ell = [f".{i}" for i in range(n_ell)]

    def expand(labels, ndim):
        if "..." not in labels:
            return labels
        k = ndim - (len(labels) - 1)
        at = labels.index("...")
        return labels[:at] + ell[n_ell - k:] + labels[at + 1:]

    inputs = [expand(lab, len(s)) for lab, s in zip(parsed, shapes)]
    if explicit:
        out_labels = _split_labels(out)
        if "..." in out_labels:
            at = out_labels.index("...")
            out_labels = out_labels[:at] + ell + out_labels[at + 1:]
        elif n_ell and any(any(lab.startswith(".") for lab in inp) for inp in inputs):
            pass  # ellipsis axes not in the output are summed, as NumPy
    else:
        counts = {}
        for inp in inputs:
            for lab in inp:
                counts[lab] = counts.get(lab, 0) + 1
        out_labels = ell + sorted(lab for lab, c in counts.items()
                                  if c == 1 and not lab.startswith("."))
    if len(set(out_labels)) != len(out_labels):
        raise ValueError(f"einsum: output subscript {out!r} repeats a label")
    used = {lab for inp in inputs for lab in inp}
    for lab in out_labels:
        if lab not in used:
            raise ValueError(f"einsum: output label {lab!r} does not appear in an input")
    return inputs, out_labels


def _label_sizes(inputs, shapes):
    sizes = {}
    for labels, shape in zip(inputs, shapes):
        for lab, d in zip(labels, shape):
            old = sizes.get(lab)
            if old is None or old == 1:
                sizes[lab] = d
            elif d != 1 and d != old:
                # a size-1 axis broadcasts against any size, for named labels too (as JAX)
                raise ValueError(f"einsum: label {lab!r} has sizes {old} and {d}")
    return sizes


# ------------------------------------------------------------------------------------------------
# Contraction order: opt_einsum's path optimizers, as JAX calls them. Each takes the operands'
# label sets, the output's label set and each label's size, and gives a path in NumPy's format.
# Their orders of search and tie breaks are opt_einsum's (Python set iteration included), so the
# path - and so the jaxpr - is JAX's.


def _size(labels, sizes):
    return math.prod(sizes[lab] for lab in labels)


def _ssa_to_linear(ssa_path, n):
    """Steps naming tensors by creation number (inputs 0..n-1, then one per step) → positions
    in the current list, each step's result appended at the end."""
    alive = list(range(n))
    path = []
    for step in ssa_path:
        positions = sorted(alive.index(t) for t in step)
        for k in reversed(positions):
            del alive[k]
        alive.append(n + len(path))
        path.append(tuple(positions))
    return path


def _greedy_path(inputs, output, sizes):
    """opt_einsum's ``'greedy'``: identical label sets are multiplied first (Hadamard); then,
    repeatedly, the pair sharing a label whose result removes the most memory (result size
    minus both operands' sizes; ties: the pair created last-but-first, i.e. smallest (later id,
    earlier id)); then what is left, as outer products from the smallest. A label every operand
    holds counts as an output label (it cannot go before the end). Candidates are computed when
    they enter the queue and kept as they were."""
    n = len(inputs)
    if n == 1:
        return [(0,)]
    output = output | frozenset.intersection(*inputs)
    ids = {}  # label set -> the id of the live tensor holding it
    new_id = itertools.count(n)
    ssa = []
    for k, key in enumerate(inputs):
        if key in ids:  # the same label set twice: multiplied at once
            ssa.append((ids[key], k))
            ids[key] = next(new_id)
        else:
            ids[key] = k
    holders = collections.defaultdict(set)  # contractable label -> the live sets holding it
    for key in ids:
        for lab in key - output:
            holders[lab].add(key)
    in_two = {lab for lab, keys in holders.items() if len(keys) >= 2}
    in_three = {lab for lab, keys in holders.items() if len(keys) >= 3}
    footprint = {key: _size(key, sizes) for key in ids}

    def candidate(k1, k2):
        both = k1 & k2
        k12 = ((k1 | k2) & output) | (both & in_three) | ((k1 ^ k2) & in_two)
        cost = _size(k12, sizes) - footprint[k1] - footprint[k2]
        if ids[k1] > ids[k2]:
            k1, k2 = k2, k1
        return (cost, ids[k2], ids[k1]), k1, k2, k12

    queue = []
    for keys in holders.values():
        ordered = sorted(keys, key=ids.__getitem__)
        for m, k1 in enumerate(ordered[:-1]):
            heapq.heappush(queue, min(candidate(k1, k2) for k2 in ordered[m + 1:]))
    while queue:
        _, k1, k2, k12 = heapq.heappop(queue)
        if k1 not in ids or k2 not in ids:
            continue  # one of them was contracted since
        ssa.append((ids.pop(k1), ids.pop(k2)))
        for key in (k1, k2):
            for lab in key - output:
                holders[lab].discard(key)
        if k12 in ids:  # the result repeats a live label set: multiplied at once
            ssa.append((ids[k12], next(new_id)))
        else:
            for lab in k12 - output:
                holders[lab].add(k12)
        ids[k12] = next(new_id)
        for lab in k1 | (k2 - output):
            count = len(holders[lab])
            (in_two.add if count >= 2 else in_two.discard)(lab)
            (in_three.add if count >= 3 else in_three.discard)(lab)
        footprint[k12] = _size(k12, sizes)
        partners = {key for lab in k12 for key in holders[lab]} - {k12}
        if partners:
            heapq.heappush(queue, min(candidate(k12, k2) for k2 in partners))
    # no shared labels left: outer products, smallest (output part) first
    rest = [(_size(key & output, sizes), i, key) for key, i in ids.items()]
    heapq.heapify(rest)
    _, i1, k1 = heapq.heappop(rest)
    while rest:
        _, i2, k2 = heapq.heappop(rest)
        ssa.append((min(i1, i2), max(i1, i2)))
        k12 = (k1 | k2) & output
        _, i1, k1 = heapq.heappushpop(rest, (_size(k12, sizes), next(new_id), k12))
    return _ssa_to_linear(ssa, n)


def _pair_result(tensors, output, remaining, i, j, sizes):
    """A pair's result labels and opt_einsum's flop count (twice the size of all labels when a
    shared one is summed)."""
    k1, k2 = tensors[i], tensors[j]
    keep = output.union(*(tensors[k] for k in remaining - {i, j}))
    either = k1 | k2
    return either & keep, _size(either, sizes) * (1 + bool((k1 & k2) - keep))


def _optimal_path(inputs, output, sizes):
    """opt_einsum's ``'optimal'``: depth-first over every pairwise order, pruning a branch once
    its flops reach the best found; the first best found wins. As opt_einsum, a pair's result is
    cached by the two label sets alone."""
    best = {"flops": math.inf, "ssa": (tuple(range(len(inputs))),)}
    cache = {}

    def visit(ssa, tensors, remaining, flops):
        if len(remaining) == 1:
            best["flops"], best["ssa"] = flops, ssa
            return
        for i, j in itertools.combinations(remaining, 2):  # the set's own order, as opt_einsum
            i, j = min(i, j), max(i, j)
            key = (tensors[i], tensors[j])
            if key not in cache:
                cache[key] = _pair_result(tensors, output, remaining, i, j, sizes)
            k12, pair_flops = cache[key]
            if flops + pair_flops >= best["flops"]:
                continue
            visit(ssa + ((i, j),), tensors + (k12,), remaining - {i, j} | {len(tensors)},
                  flops + pair_flops)

    visit((), tuple(inputs), set(range(len(inputs))), 0)
    return _ssa_to_linear(best["ssa"], len(inputs))


def _branch_path(inputs, output, sizes, nbranch=None):
    """opt_einsum's ``'branch-all'``/``'branch-2'``/``'branch-1'``: depth-first like
    ``'optimal'``, but at each step only the ``nbranch`` most promising pairs (by memory removed,
    then flops; outer products only when no pair shares a label), dropping a branch that is not
    better in (flops, largest intermediate) than the best found, or whose flops exceed 4 times
    the best seen at the same depth."""
    best = {"flops": math.inf, "size": math.inf, "ssa": None}
    progress = collections.defaultdict(lambda: math.inf)
    size_of = {key: _size(key, sizes) for key in inputs}
    cache = {}

    def visit(ssa, tensors, remaining, flops, largest):
        if len(remaining) == 1:
            best.update(flops=flops, size=largest, ssa=ssa)
            return

        def assess(i, j):
            key = (tensors[i], tensors[j])
            if key not in cache:
                cache[key] = _pair_result(tensors, output, remaining, i, j, sizes)
            k12, pair_flops = cache[key]
            if k12 not in size_of:
                size_of[k12] = _size(k12, sizes)
            new_flops, new_size = flops + pair_flops, max(largest, size_of[k12])
            if not (new_flops, new_size) < (best["flops"], best["size"]):
                return None
            if new_flops < progress[len(tensors)]:
                progress[len(tensors)] = new_flops
            elif new_flops > 4 * progress[len(tensors)]:
                return None
            removed = size_of[k12] - size_of[tensors[i]] - size_of[tensors[j]]
            return removed, pair_flops, new_flops, new_size, (i, j), k12

        candidates = []
        for outer in (False, True):
            for i, j in itertools.combinations(remaining, 2):
                i, j = min(i, j), max(i, j)
                if not outer and tensors[i].isdisjoint(tensors[j]):
                    continue
                found = assess(i, j)
                if found:
                    heapq.heappush(candidates, found)
            if candidates:
                break
        for _ in range(len(candidates) if nbranch is None else min(nbranch, len(candidates))):
            _, _, new_flops, new_size, (i, j), k12 = heapq.heappop(candidates)
            visit(ssa + ((i, j),), tensors + (k12,), remaining - {i, j} | {len(tensors)},
                  new_flops, new_size)

    visit((), tuple(inputs), set(range(len(inputs))), 0, 0)
    return _ssa_to_linear(best["ssa"], len(inputs))


def _dp_path(inputs, output, sizes):
    """``'dp'``: the pairwise order with the fewest multiply-adds, by dynamic programming over
    subsets of operands (opt_einsum's ``'dp'`` idea; among equally cheap orders its choice may
    differ). Contracting two groups costs the product of the sizes of all labels they hold; a
    group keeps the labels still needed by the output or by operands outside it. ``O(3**n)``."""
    n = len(inputs)
    full = (1 << n) - 1

    def kept(mask):
        inside = frozenset().union(*(inputs[k] for k in range(n) if mask >> k & 1))
        outside = output.union(*(inputs[k] for k in range(n) if not mask >> k & 1))
        return inside & outside

    keep = {}
    best = {}  # mask -> (cost, split)
    for k in range(n):
        best[1 << k] = (0, None)
        keep[1 << k] = inputs[k]
    for mask in sorted(range(1, full + 1), key=lambda m: bin(m).count("1")):
        if mask in best:
            continue
        keep[mask] = kept(mask)
        low = mask & -mask  # the lowest operand stays in `sub`: each split is seen once
        choice = None
        sub = (mask - 1) & mask
        while sub:
            if sub & low:
                rest = mask ^ sub
                cost = (best[sub][0] + best[rest][0]
                        + _size(keep[sub] | keep[rest], sizes))
                if choice is None or cost < choice[0]:
                    choice = (cost, (sub, rest))
            sub = (sub - 1) & mask
        best[mask] = choice

    # the tree, post-order, as NumPy-format positions in the current operand list
    current = [1 << k for k in range(n)]
    path = []

    def emit(mask):
        split = best[mask][1]
        if split is None:
            return
        emit(split[0])
        emit(split[1])
        i, j = sorted((current.index(split[0]), current.index(split[1])))
        path.append((i, j))
        del current[j], current[i]
        current.append(mask)

    emit(full)
    return path


def _auto_path(inputs, output, sizes):
    """opt_einsum's ``'auto'`` (JAX's default): optimal up to 4 operands, branch-all up to 6,
    branch-2 up to 8, branch-1 up to 14, greedy above."""
    n = len(inputs)
    if n <= 4:
        return _optimal_path(inputs, output, sizes)
    if n <= 14:
        return _branch_path(inputs, output, sizes, None if n <= 6 else 2 if n <= 8 else 1)
    return _greedy_path(inputs, output, sizes)


_OPTIMIZERS = {
    "auto": _auto_path,
    "optimal": _optimal_path,
    "branch-all": _branch_path,
    "branch-2": lambda *args: _branch_path(*args, nbranch=2),
    "branch-1": lambda *args: _branch_path(*args, nbranch=1),
    "greedy": _greedy_path,
    "eager": _greedy_path,
    "opportunistic": _greedy_path,
    "dp": _dp_path,
    "dynamic-programming": _dp_path,
}


def path_cost(path, inputs, out_labels, sizes):
    """Multiply-adds of a pairwise path (the cost ``'dp'`` minimizes)."""
    current = [frozenset(lab) for lab in inputs]
    out = frozenset(out_labels)
    total = 0
    for i, j in path:
        both = current[i] | current[j]
        total += math.prod(sizes[lab] for lab in both)
        rest = [c for k, c in enumerate(current) if k not in (i, j)]
        current = rest + [both & out.union(*rest)]
    return total


def _resolve_path(optimize, inputs, output, sizes):
    """The path for ``optimize`` as JAX's einsum/einsum_path give it to opt_einsum: an explicit
    path as is (NumPy's leading ``'einsum_path'`` allowed); one or two operands in one step,
    whatever the optimizer; False left to right; True 'optimal'; None 'auto'."""
    if isinstance(optimize, (list, tuple)):
        path = list(optimize)
        if path and path[0] == "einsum_path":
            path = path[1:]
        return [tuple(p) for p in path]
    n = len(inputs)
    name = "optimal" if optimize is True else "auto" if optimize is None else optimize
    if isinstance(name, str) and name.lower() not in _OPTIMIZERS:
        raise KeyError(f"Path optimizer '{name.lower()}' not found, valid options are "
                       f"{set(_OPTIMIZERS)}.")  # opt_einsum's
    if n <= 2:
        return [tuple(range(n))]
    if optimize is False:
        return [(0, 1)] * (n - 1)
    inputs = [frozenset(x) for x in inputs]
    return _OPTIMIZERS[name.lower()](inputs, frozenset(output), sizes)


# ------------------------------------------------------------------------------------------------
# Execution: JAX's, one step of opt_einsum's contraction list at a time


def _reduce_sum(x, axes, dtype):
    """JAX's einsum ``sum``: in the result dtype when that is wider; ``or`` for booleans."""
    if dtypes.result_type(x, dtype) != x.dtype:
        x = convert(x, dtype)
    return lax.reduce_sum(x, axes) if x.dtype != np.bool_ else lax.reduce_or(x, axes)


def _sum_uniques(x, names, uniques, dtype):
    if uniques:
        x = _reduce_sum(x, [names.index(lab) for lab in uniques], dtype)
        names = "".join(lab for lab in names if lab not in uniques)
    return x, names


def _delta(shape, axes):
    """JAX's ``lax._delta``: True where the indices along ``axes`` agree (uint32 iotas)."""
    base = tuple(shape[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, base, k) for k in range(len(base))]
    eye = functools.reduce(lax.bitwise_and, [lax.eq(a, b) for a, b in zip(iotas[:-1], iotas[1:])])
    if base == tuple(shape):  # JAX's tracing forwards an identity broadcast_in_dim
        return eye
    return lax.broadcast_in_dim(eye, shape, tuple(axes))


def _sum_repeats(x, names, counts, keep, dtype):
    """A label repeated in one operand: its diagonal (the other entries zeroed), summed over
    all its axes, or all but the last when it is still needed."""
    for lab, count in counts.items():
        if count > 1:
            axes = [k for k, name in enumerate(names) if name == lab]
            x = lax.select(_delta(x.shape, axes), x, lax.full_like(x, 0))
            if lab not in keep:
                x = _reduce_sum(x, axes, dtype)
                names = names.replace(lab, "")
            else:
                x = _reduce_sum(x, axes[:-1], dtype)
                names = names.replace(lab, "", count - 1)
    return x, names


def _drop_broadcast_ones(x, names, other_shape, other_names):
    """Size-1 axes whose label faces a larger axis of the other operand are squeezed away."""
    drop = [k for k, lab in enumerate(names)
            if x.shape[k] == 1 and lab in other_names and other_shape[other_names.find(lab)] != 1]
    return lax.squeeze(x, drop), "".join(lab for k, lab in enumerate(names) if k not in drop)


def _contract(operands, contractions, precision, dtype, dot_general):
    """JAX's ``_einsum`` loop: per step, sums of labels one operand holds alone, diagonals, one
    ``dot_general`` for a pair (operands in the order that needs no transpose, trying
    (rhs, lhs) first), then a transpose into the step's result order."""
    operands = list(operands)
    for positions, removed, einstr in contractions:
        removed = sorted(removed)
        input_str, result = einstr.split("->")
        input_names = input_str.split(",")
        if len(positions) == 1:
            x = operands.pop(positions[0])
            (names,) = input_names
            counts = collections.Counter(names)
            x, names = _sum_uniques(x, names, [lab for lab in removed if counts[lab] == 1], dtype)
            x, names = _sum_repeats(x, names, counts, result, dtype)
        elif len(positions) == 2:
            lhs, rhs = operands.pop(positions[0]), operands.pop(positions[1])
            lhs_names, rhs_names = input_names
            lhs, lhs_names = _drop_broadcast_ones(lhs, lhs_names, rhs.shape, rhs_names)
            rhs, rhs_names = _drop_broadcast_ones(rhs, rhs_names, lhs.shape, lhs_names)
            lhs_counts = collections.Counter(lhs_names)
            rhs_counts = collections.Counter(rhs_names)
            lhs, lhs_names = _sum_uniques(lhs, lhs_names, [
                lab for lab in removed if lhs_counts[lab] == 1 and rhs_counts[lab] == 0], dtype)
            rhs, rhs_names = _sum_uniques(rhs, rhs_names, [
                lab for lab in removed if rhs_counts[lab] == 1 and lhs_counts[lab] == 0], dtype)
            lhs, lhs_names = _sum_repeats(lhs, lhs_names, lhs_counts, result + rhs_names, dtype)
            rhs, rhs_names = _sum_repeats(rhs, rhs_names, rhs_counts, result + lhs_names, dtype)
            contracted = [lab for lab in removed if lab in lhs_names or lab in rhs_names]
            batch = "".join(lab for lab in result if lab in lhs_names and lab in rhs_names)
            lhs_batch = tuple(lhs_names.find(lab) for lab in batch)
            rhs_batch = tuple(rhs_names.find(lab) for lab in batch)
            lhs_cont = tuple(lhs_names.index(lab) for lab in contracted)
            rhs_cont = tuple(rhs_names.index(lab) for lab in contracted)
            gone = set(batch) | set(contracted)
            lhs_free = "".join(lab for lab in lhs_names if lab not in gone)
            rhs_free = "".join(lab for lab in rhs_names if lab not in gone)
            names = batch + rhs_free + lhs_free
            if names == result:
                x = dot_general(rhs, lhs, ((rhs_cont, lhs_cont), (rhs_batch, lhs_batch)),
                                precision, preferred_element_type=dtype)
            else:
                names = batch + lhs_free + rhs_free
                x = dot_general(lhs, rhs, ((lhs_cont, rhs_cont), (lhs_batch, rhs_batch)),
                                precision, preferred_element_type=dtype)
        else:  # a path contracting 3 or more at once: JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(
                "jax.numpy.einsum does not support simultaneous contraction of 3 or more"
                " operands. Typically this means you've passed an unsupported path to"
                " the einsum optimize parameter.")
        if names != result:
            x = lax.transpose(x, tuple(names.index(lab) for lab in result))
        operands.append(x)
    return operands[0]


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _use_xeinsum=False, _dot_general=None,
           out_sharding=None):
    """Einstein summation (NumPy's API and JAX's ``precision``/``preferred_element_type``);
    the result is laid out as ``out_sharding`` when one is given (``lay_out``)."""
    if out is not None:  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved_to_string((subscripts, *operands))
    if explicit_out_sharding(out_sharding) is not None:
        # over Explicit mesh axes: computed in Auto mode, then typed as ``out_sharding`` (JAX
        # gives its last contraction that type: the same result and type, fewer equations)
        return auto_axes(lambda *xs: einsum(subscripts, *xs, optimize=optimize,
                                            precision=precision,
                                            preferred_element_type=preferred_element_type),
                         out_sharding=out_sharding)(*operands)
    check_arraylike("einsum", *operands)
    operands = [to_array(x) for x in operands]
    info = _path_info(subscripts, [tuple(x.shape) for x in operands], optimize)
    contractions = [(positions, removed, einstr)
                    for positions, removed, einstr, _, _ in info.contraction_list]
    if preferred_element_type is None:
        dtype, weak = dtypes.result_type(*operands, return_weak_type_flag=True)
    else:
        dtype, weak = dtypes.canonicalize_dtype(preferred_element_type), False
    # operands enter dot_general unconverted (JAX's); the result is converted last, weakly
    # typed as the operands' promotion unless a preferred type is given
    x = _contract(operands, contractions, precision, dtype, _dot_general or lax.dot_general)
    return lay_out(convert(x, dtype, weak_type=weak), out_sharding)


def _path_info(subscripts, shapes, optimize):
    inputs, out_labels = _parse(subscripts, shapes)
    input_list, output, names = _opt_einsum_names(inputs, out_labels, shapes)
    sizes = {names.get(lab, lab): d for lab, d in _label_sizes(inputs, shapes).items()}
    path = _resolve_path(optimize, input_list, output, sizes)
    return PathInfo(path, input_list, output, sizes, shapes)


def _opt_einsum_names(inputs, out_labels, shapes):
    """The subscripts as opt_einsum writes them: ellipsis axes named by the last of the first
    (largest operand rank) letters no subscript uses, aligned from the right."""
    used = {lab for inp in inputs for lab in inp}
    free = [c for c in _LETTERS if c not in used][:max((len(sh) for sh in shapes), default=0)]
    n_ell = sum(lab.startswith(".") for lab in used)
    names = {f".{k}": free[len(free) - n_ell + k] for k in range(n_ell)}
    input_list = ["".join(names.get(lab, lab) for lab in inp) for inp in inputs]
    return input_list, "".join(names.get(lab, lab) for lab in out_labels), names


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction order ``einsum`` would use, and opt_einsum's report of it (a
    ``PathInfo``, as JAX returns opt_einsum's ``contract_path``)."""
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved_to_string((subscripts, *operands))
    info = _path_info(subscripts, [tuple(np.shape(x)) for x in operands], optimize)
    return info.path, info


class PathInfo:
    """opt_einsum's report of a contraction path (its attributes and printed table), from the
    subscripts as opt_einsum names them; ``contraction_list`` is also what ``einsum`` runs."""

    def __init__(self, path, input_list, output, size_dict, shapes):
        input_list = list(input_list)
        self.input_subscripts = ",".join(input_list)
        self.output_subscript = output
        self.indices = frozenset(self.input_subscripts.replace(",", ""))
        self.path = path
        self.shapes = [tuple(sh) for sh in shapes]
        self.eq = f"{self.input_subscripts}->{self.output_subscript}"

        def size(labels):
            return math.prod(size_dict[c] for c in labels)

        def flops(labels, inner, n_terms):  # opt_einsum's flop_count
            return size(labels) * (max(1, n_terms - 1) + bool(inner))

        input_sets = [frozenset(x) for x in input_list]
        inner = sum(len(x) for x in input_sets) > len(self.indices)
        naive_cost = flops(self.indices, inner, len(input_list))
        output_set = frozenset(self.output_subscript)
        input_shapes = list(self.shapes)
        self.contraction_list, self.scale_list, self.size_list, cost = [], [], [], 0
        for n, positions in enumerate(path):
            positions = tuple(sorted(positions, reverse=True))
            contracted = frozenset().union(*(input_sets[i] for i in positions))
            input_sets = [x for i, x in enumerate(input_sets) if i not in positions]
            result = contracted & output_set.union(*input_sets)
            removed = contracted - result
            input_sets.append(result)
            cost += flops(contracted, removed, len(positions))
            self.scale_list.append(len(contracted))
            self.size_list.append(size(result))
            terms = [input_list.pop(i) for i in positions]
            term_shapes = [input_shapes.pop(i) for i in positions]
            blas = _can_blas(terms, result, removed, term_shapes)
            if n == len(path) - 1:
                out = self.output_subscript
            else:  # tensordot's order
                out = "".join(sorted(result, key="".join(terms).find))
            input_list.append(out)
            input_shapes.append(tuple(
                max(sh[t.find(c)] for t, sh in zip(terms, term_shapes) if c in t) for c in out))
            remaining = tuple(input_list) if len(input_list) <= 20 else None
            self.contraction_list.append(
                (positions, removed, ",".join(terms) + "->" + out, remaining, blas))
        self.naive_cost = Decimal(naive_cost)
        self.opt_cost = Decimal(cost)
        self.speedup = self.naive_cost / max(self.opt_cost, Decimal(1))
        self.size_dict = size_dict
        self.largest_intermediate = Decimal(max(self.size_list, default=1))

    def __repr__(self):
        lines = [
            f"  Complete contraction:  {self.eq}\n",
            f"         Naive scaling:  {len(self.indices)}\n",
            f"     Optimized scaling:  {max(self.scale_list, default=0)}\n",
            f"      Naive FLOP count:  {self.naive_cost:.3e}\n",
            f"  Optimized FLOP count:  {self.opt_cost:.3e}\n",
            f"   Theoretical speedup:  {self.speedup:.3e}\n",
            f"  Largest intermediate:  {self.largest_intermediate:.3e} elements\n",
            "-" * 80 + "\n",
            "{:>6} {:>11} {:>22} {:>37}\n".format("scaling", "BLAS", "current", "remaining"),
            "-" * 80,
        ]
        for scale, (_, _, current, remaining, blas) in zip(self.scale_list,
                                                           self.contraction_list):
            rest = "..." if remaining is None else ",".join(remaining) + "->" + \
                self.output_subscript
            width = max(0, 56 - max(22, len(current)))
            lines.append("\n{:>4} {:>14} {:>22}    {:>{}}".format(scale, blas, current, rest,
                                                                 width))
        return "".join(lines)


def _can_blas(terms, result, removed, shapes):
    """opt_einsum's name for the BLAS call a pairwise contraction maps to (False: none)."""
    if len(terms) != 2:
        return False
    left, right = terms
    for c in set(left + right):
        nl, nr = left.count(c), right.count(c)
        if nl > 1 or nr > 1 or nl + nr > 2 or nl + nr - 1 == int(c in result):
            return False
    if any(shapes[0][left.find(c)] != shapes[1][right.find(c)] for c in removed):
        return False
    if not removed:
        return "OUTER/EINSUM"
    k = len(removed)
    if left == right:
        return "DOT"
    if set(left) == set(right):
        return "DOT/EINSUM"
    if left[-k:] == right[:k] or left[:k] == right[-k:] or left[-k:] == right[-k:] or \
            left[:k] == right[:k]:
        return "GEMM"
    if not set(left) - removed or not set(right) - removed:
        return "GEMV/EINSUM"
    return "TDOT"
