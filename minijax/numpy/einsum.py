"""``einsum`` and ``einsum_path``: Einstein summation as a sequence of pairwise contractions.

1. Parse (``'ij,jk->ik'``, ``'...'`` ellipses, implicit output, or NumPy's interleaved
   ``einsum(a, [0, 1], b, [1, 2])`` form) into one label list per operand. Ellipsis axes become
   labels of their own, aligned from the right; a size-1 ellipsis axis facing a larger one is
   squeezed away, which is how broadcasting happens.
2. Per operand: a repeated label (``'ii->i'``) becomes a diagonal, and a label no other operand
   and not the output uses is summed away right there (``lax.reduce_sum``).
3. An order: ``'optimal'`` (and ``True``) searches every pairwise order for the fewest
   multiply-adds (dynamic programming over operand subsets, up to 8 operands); ``'greedy'`` (as
   opt_einsum's) repeatedly contracts the pair whose result is smallest (ties: the one that
   removes the most elements), preferring pairs that share a label over outer products;
   ``'auto'`` is optimal up to 4 operands, greedy above. Each pairwise contraction is ONE
   ``lax.dot_general``: labels in both operands and still needed later are batch dimensions,
   labels in both and needed nowhere else are contracting dimensions.
4. A final ``lax.transpose`` into the output order.

The path has NumPy's format (``['einsum_path', (0, 1), (0, 1)]``: positions in the current
operand list, the contracted result appended at the end), so a path from ``einsum_path`` (or
NumPy's) can be passed back as ``optimize=``.
"""

from __future__ import annotations

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
# Contraction order


def _greedy_path(inputs, out_labels, sizes):
    """Pairs (positions in the current list; the result appended at the end), NumPy's format."""
    current = [frozenset(lab) for lab in inputs]
    out = frozenset(out_labels)
    path = []

    def size(labels):
        return math.prod(sizes[lab] for lab in labels)

    while len(current) > 1:
        best = None
        for i in range(len(current)):
            for j in range(i + 1, len(current)):
                others = out.union(*(c for k, c in enumerate(current) if k not in (i, j)))
                kept = (current[i] | current[j]) & others
                shares = bool(current[i] & current[j])
                result = size(kept)
                removed = result - size(current[i]) - size(current[j])
                key = (not shares, result, removed, i, j)
                if best is None or key < best[0]:
                    best = (key, i, j, kept)
        _, i, j, kept = best
        path.append((i, j))
        current = [c for k, c in enumerate(current) if k not in (i, j)] + [kept]
    return path


def _left_to_right_path(n):
    return [(0, 1)] * (n - 1) if n > 1 else []


OPTIMAL_MAX_OPERANDS = 8  # exhaustive search is 3**n subset splits; above this, greedy


def _optimal_path(inputs, out_labels, sizes):
    """The pairwise order with the fewest multiply-adds, by dynamic programming over subsets of
    operands (opt_einsum's ``'optimal'``/``'dp'`` idea). Contracting two groups costs the
    product of the sizes of all labels they hold; a group keeps the labels still needed by
    the output or by operands outside it. ``O(3**n)``, so only for a few operands."""
    n = len(inputs)
    labels = [frozenset(lab) for lab in inputs]
    out = frozenset(out_labels)
    full = (1 << n) - 1

    def kept(mask):
        inside = frozenset().union(*(labels[k] for k in range(n) if mask >> k & 1))
        outside = out.union(*(labels[k] for k in range(n) if not mask >> k & 1))
        return inside & outside

    keep = {}
    best = {}  # mask -> (cost, split)
    for k in range(n):
        best[1 << k] = (0, None)
        keep[1 << k] = labels[k]
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
                        + math.prod(sizes[lab] for lab in keep[sub] | keep[rest]))
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


def path_cost(path, inputs, out_labels, sizes):
    """Multiply-adds of a pairwise path (the cost ``'optimal'`` minimizes)."""
    current = [frozenset(lab) for lab in inputs]
    out = frozenset(out_labels)
    total = 0
    for i, j in path:
        both = current[i] | current[j]
        total += math.prod(sizes[lab] for lab in both)
        rest = [c for k, c in enumerate(current) if k not in (i, j)]
        current = rest + [both & out.union(*rest)]
    return total


def _resolve_path(optimize, inputs, out_labels, sizes):
    """``optimize``: an explicit path; False/None/'none' (left to right); 'greedy'; 'optimal'
    (also True as in JAX, 'dp', 'branch-*': exhaustive up to OPTIMAL_MAX_OPERANDS operands,
    greedy above); 'auto' (optimal up to 4 operands, greedy above, as opt_einsum)."""
    n = len(inputs)
    if isinstance(optimize, (list, tuple)) and optimize and not isinstance(optimize, str):
        path = list(optimize)
        if path and path[0] == "einsum_path":
            path = path[1:]
        return [tuple(p) for p in path]
    if optimize is False or optimize is None or optimize == "none":
        return _left_to_right_path(n)
    if optimize == "greedy":
        return _greedy_path(inputs, out_labels, sizes)
    if optimize in (True, "optimal", "dp", "branch-2", "branch-all", "branch-1", "auto"):
        limit = 4 if optimize == "auto" else OPTIMAL_MAX_OPERANDS
        if n <= limit:
            return _optimal_path(inputs, out_labels, sizes)
        return _greedy_path(inputs, out_labels, sizes)
    raise ValueError(f"einsum: unknown optimize={optimize!r}")


# ------------------------------------------------------------------------------------------------
# Execution


def _diagonal(x, labels):
    """Repeated labels in one operand (``'ii'``): keep the diagonal, one axis per label. As
    JAX's, the entries where the axes' indices agree are summed over all but the last
    occurrence, so a size-1 occurrence beside a larger one keeps the last one's size
    (``'ii->i'`` of shape (1, 2) is ``[x[0, 0], 0]``)."""
    while len(set(labels)) != len(labels):
        lab = next(lab for lab in labels if labels.count(lab) > 1)
        i = labels.index(lab)
        j = labels.index(lab, i + 1)
        mask = lax.eq(lax.broadcasted_iota(np.int32, x.shape, i),
                      lax.broadcasted_iota(np.int32, x.shape, j))
        x = lax.select(mask, x, lax.full_like(x, 0))
        x = lax.reduce_sum(x, (i,)) if x.dtype != np.bool_ else lax.reduce_or(x, (i,))
        labels = labels[:i] + labels[i + 1:]
    return x, labels


def _sum_unused(x, labels, needed):
    axes = tuple(i for i, lab in enumerate(labels) if lab not in needed)
    if not axes:
        return x, labels
    x = lax.reduce_sum(x, axes) if x.dtype != np.bool_ else lax.reduce_or(x, axes)
    return x, [lab for i, lab in enumerate(labels) if i not in axes]


def _in_order(labels, out_labels):
    pos = [out_labels.index(lab) for lab in labels if lab in out_labels]
    return pos == sorted(pos)


def _contract_pair(a, la, b, lb, needed, precision, preferred, out_labels=(), last=False):
    """One ``dot_general``: shared labels still needed are batch dims, the others contract.
    The operands are swapped when that puts the result's axes in the output's order (so the
    final transpose disappears). The last contraction orders its operands as JAX does: (a, b)
    when that gives the output exactly, else (b, a), so XLA sees JAX's dots and transposes
    (on a GPU their layouts decide between cuBLAS and fused Triton GEMMs)."""
    free_a = [lab for lab in la if lab not in lb]
    free_b = [lab for lab in lb if lab not in la]
    if last:
        batch_a = [lab for lab in la if lab in lb and lab in needed]
        if batch_a + free_a + free_b != list(out_labels):
            a, la, b, lb = b, lb, a, la
    elif not _in_order(free_a + free_b, out_labels) and _in_order(free_b + free_a, out_labels):
        a, la, b, lb = b, lb, a, la
    a, la = _sum_unused(a, la, needed | set(lb))
    b, lb = _sum_unused(b, lb, needed | set(la))
    shared = [lab for lab in la if lab in lb]
    batch = [lab for lab in shared if lab in needed]
    contract = [lab for lab in shared if lab not in needed]
    dn = (([la.index(c) for c in contract], [lb.index(c) for c in contract]),
          ([la.index(c) for c in batch], [lb.index(c) for c in batch]))
    dn = tuple(tuple(tuple(x) for x in part) for part in dn)
    out = lax.dot_general(a, b, dn, precision=precision, preferred_element_type=preferred)
    labels = batch + [lab for lab in la if lab not in shared] + [lab for lab in lb
                                                                 if lab not in shared]
    return out, labels


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
    shapes = [tuple(x.shape) for x in operands]
    inputs, out_labels = _parse(subscripts, shapes)
    sizes = _label_sizes(inputs, shapes)
    path = _resolve_path(optimize, inputs, out_labels, sizes)

    dtype, weak = dtypes.result_type(*operands, return_weak_type_flag=True)
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(preferred_element_type)
    # only an operand of another dtype is converted (strongly): JAX's dot_general takes them
    # unpromoted, so a weak operand of the promoted dtype keeps its weak type, and its cotangent
    # is then strong when the other operand is (a weak-to-strong conversion's transpose would
    # make it weak again)
    ops = [_diagonal(x if x.dtype == dtype else convert(x, dtype), list(labels))
           for x, labels in zip(operands, inputs)]
    # a label's size once each operand's repeats are a diagonal (a repeat keeps its last size)
    sizes = _label_sizes([lab for _, lab in ops], [x.shape for x, _ in ops])
    for k, (x, labels) in enumerate(ops):
        # broadcasting: a size-1 axis facing a larger one leaves the operand
        drop = tuple(i for i, lab in enumerate(labels) if x.shape[i] == 1 and sizes[lab] != 1)
        if drop:
            ops[k] = (lax.squeeze(x, drop), [lab for i, lab in enumerate(labels) if i not in drop])

    out_set = set(out_labels)
    # labels used by one operand only (and not the output) are summed right away
    for k, (x, labels) in enumerate(ops):
        others = out_set.union(*(set(lab) for m, (_, lab) in enumerate(ops) if m != k))
        ops[k] = _sum_unused(x, labels, others)

    for step, contraction in enumerate(path):
        if len(contraction) == 1:
            # one operand's step (opt_einsum's path for a single operand): it moves last, its
            # own labels already reduced
            (k,) = contraction
            ops = [op for m, op in enumerate(ops) if m != k] + [ops[k]]
            continue
        i, j = contraction
        if i == j or not (0 <= i < len(ops) and 0 <= j < len(ops)):
            raise ValueError(f"einsum: invalid contraction {(i, j)} in path {path}")
        (a, la), (b, lb) = ops[min(i, j)], ops[max(i, j)]
        rest = [op for k, op in enumerate(ops) if k not in (i, j)]
        needed = out_set.union(*(set(lab) for _, lab in rest))
        # each dot_general's preferred type is the given one, else the promoted dtype (JAX's)
        ops = rest + [_contract_pair(a, la, b, lb, needed, precision,
                                     preferred_element_type or dtype, out_labels,
                                     last=step == len(path) - 1)]
    if len(ops) != 1:
        raise ValueError(f"einsum: the path {path} leaves {len(ops)} operands, not one")
    x, labels = ops[0]
    x, labels = _sum_unused(x, labels, out_set)
    perm = tuple(labels.index(lab) for lab in out_labels)
    if perm != tuple(range(len(perm))):
        x = lax.transpose(x, perm)
    # JAX converts the result last: weakly typed as the operands' promotion, strong when a
    # preferred type is given
    if preferred_element_type is None:
        x = convert(x, dtype, weak_type=weak)
    else:
        x = convert(x, preferred_element_type)
    return lay_out(x, out_sharding)


def einsum_path(subscripts, /, *operands, optimize="greedy"):
    """The contraction order ``einsum`` would use, and opt_einsum's report of it (a
    ``PathInfo``, as JAX returns opt_einsum's ``contract_path``)."""
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved_to_string((subscripts, *operands))
    shapes = [tuple(np.shape(x)) for x in operands]
    inputs, out_labels = _parse(subscripts, shapes)
    sizes = _label_sizes(inputs, shapes)
    if isinstance(optimize, (list, tuple)) or len(inputs) > 2:
        path = _resolve_path(optimize, inputs, out_labels, sizes)
    else:  # opt_einsum contracts one or two operands in one step, whatever the optimizer
        path = [tuple(range(len(inputs)))]
    return path, PathInfo(path, inputs, out_labels, sizes, shapes)


class PathInfo:
    """opt_einsum's report of a contraction path (its attributes and printed table), from the
    labels ``_parse`` gives. Ellipsis axes are named as opt_einsum names them: the last of the
    first (largest operand rank) letters no subscript uses, aligned from the right."""

    def __init__(self, path, inputs, out_labels, sizes, shapes):
        used = {lab for inp in inputs for lab in inp}
        free = [c for c in _LETTERS if c not in used][:max((len(sh) for sh in shapes), default=0)]
        n_ell = sum(lab.startswith(".") for lab in used)
        names = {f".{k}": free[len(free) - n_ell + k] for k in range(n_ell)}
        input_list = ["".join(names.get(lab, lab) for lab in inp) for inp in inputs]
        self.input_subscripts = ",".join(input_list)
        self.output_subscript = "".join(names.get(lab, lab) for lab in out_labels)
        self.indices = frozenset(self.input_subscripts.replace(",", ""))
        size_dict = {names.get(lab, lab): d for lab, d in sizes.items()}
        self.path = path
        self.shapes = [tuple(size_dict[k] for k in ks) for ks in input_list]
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
