"""Sharding rules: how a primitive types its result when an operand is split over ``Explicit``
mesh axes (JAX's ``sharding_rule``s; ``core._with_sharding`` calls them).

A rule takes the operands' avals and the primitive's params and returns the result's
partitions: one entry per result dimension, each None, a mesh axis name or a tuple of names
(``aval.parts()`` reads an operand's); the leading ones only where the rest are whole. For
several results: a list, one per result, or a ``Prefix`` for all; None where the abstract
eval typed the results itself (``typed_by_body``). A rule refuses what JAX refuses with
JAX's ``ShardingTypeError`` text. Each primitive names its rule where it is defined
(``p.sharding_rule = ...``); the shared shapes of rule are here.
"""

from __future__ import annotations

import math

from minijax.core import ShardingTypeError


def _axes(part):
    return () if part is None else (part,) if isinstance(part, str) else tuple(part)


def _part_size(mesh, part):
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    return math.prod(sizes[n] for n in _axes(part))


def _spec_str(parts):
    return "(" + ", ".join(map(repr, parts)) + ("," if len(parts) == 1 else "") + ")"


def broadcasting(name):
    """Elementwise operands: per dimension, the one split agreed by every operand not of size
    1 there (JAX's ``broadcasting_sharding_rule``)."""

    def rule(*avals, **params):
        specs = [a.parts() for a in avals if a.shape]
        shapes = [a.shape for a in avals if a.shape]
        if not specs:
            return ()
        out = []
        for ss, ds in zip(zip(*specs), zip(*shapes)):
            if all(s == ss[0] for s in ss[1:]):
                out.append(ss[0])
                continue
            nontrivial = [s for s, d in zip(ss, ds) if not (d == 1 and s is None)]
            if not nontrivial:
                out.append(None)
            elif all(s == nontrivial[0] for s in nontrivial[1:]):
                out.append(nontrivial[0])
            else:
                picked = None
                for s in ss:
                    if picked is None:
                        picked = s
                    elif s is not None and s != picked:
                        raise ShardingTypeError(
                            f"{name} got incompatible shardings for broadcasting: "
                            f"{', '.join(map(_spec_str, specs))}.")
                out.append(picked)
        return tuple(out)

    return rule


def operand(i=0):
    """The result is split as operand ``i`` (same shape): conversions, rev, clamp."""
    return lambda *avals, **params: avals[i].parts()


def each_operand(*avals, **params):
    """One result per operand, each split as it is (optimization barrier, copies)."""
    return [a.parts() for a in avals]


def drop_axes(key="axes"):
    """A reduction over the dimensions named by param ``key``: their entries go (or the
    result is split as its ``out_sharding`` param says)."""

    def rule(x, *rest, **params):
        out_sharding = params.get("out_sharding")
        axes = params[key]
        if out_sharding is not None:
            return _given(out_sharding, x.ndim - len(axes))
        axes = {axes} if isinstance(axes, int) else set(axes)
        return tuple(p for i, p in enumerate(x.parts()) if i not in axes)

    return rule


def transpose(x, *, permutation, **params):
    parts = x.parts()
    return tuple(parts[i] for i in permutation)


def broadcast_in_dim(x, *rest, shape, broadcast_dimensions, sharding=None, **params):
    if sharding is not None:
        return _given(sharding, len(shape))
    it = iter(x.parts())
    dims = set(broadcast_dimensions)
    return tuple(next(it) if i in dims else None for i in range(len(shape)))


def squeeze(x, *, dimensions, **params):
    dims = set(dimensions)
    return tuple(p for i, p in enumerate(x.parts()) if i not in dims)


def _given(sharding, ndim):
    spec = tuple(sharding.spec)
    return spec + (None,) * (ndim - len(spec))


def _reshape_error(x, new_sizes):
    raise ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via the "
        f"`out_sharding` argument of jax.lax.reshape. Got operand shape: {x.shape}, new "
        f"sizes: {tuple(new_sizes)} and operand spec: {_spec_str(x.parts())}")


def reshape(x, *rest, new_sizes, dimensions=None, sharding=None, **params):
    """JAX's reshape rule: size-1 dimensions come and go freely; otherwise one dimension
    splits into consecutive ones, or consecutive ones merge into one, and the mesh axes of a
    split dimension must divide its new major sizes."""
    if sharding is not None:
        return _given(sharding, len(new_sizes))
    parts = x.parts()
    if all(p is None for p in parts):
        return (None,) * len(new_sizes)
    mesh = x.explicit[0]
    old = [d for d in x.shape if d != 1]
    new = [d for d in new_sizes if d != 1]
    if old == new:
        it = iter(p for d, p in zip(x.shape, parts) if d != 1)
        return tuple(None if d == 1 else next(it) for d in new_sizes)
    groups = _reshape_groups(x.shape, new_sizes)
    if groups is None or dimensions is not None:
        _reshape_error(x, new_sizes)
    out = []
    for olds, news in groups:
        tup = [n for i in olds for n in _axes(parts[i])]
        if not tup:
            out.extend([None] * len(news))
            continue
        if len(olds) > 1:  # a merge: every split dimension's axes, none after an unsplit one
            seen_none = False
            for i in olds:
                if parts[i] is None:
                    seen_none = True
                elif seen_none:
                    _reshape_error(x, new_sizes)
        sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
        it = iter(tup)
        pending = next(it, None)
        for size in (new_sizes[j] for j in news):
            names = []
            while size > 1 and pending is not None:
                size, rem = divmod(size, sizes[pending])
                if rem:
                    _reshape_error(x, new_sizes)
                names.append(pending)
                pending = next(it, None)
            out.append(None if not names else names[0] if len(names) == 1 else tuple(names))
        if pending is not None:
            _reshape_error(x, new_sizes)
    return tuple(out)


def _reshape_groups(shape, new_sizes):
    """Pairs (old dims, new dims) of equal products where one side is a single dimension
    (a split or a merge), ignoring nothing; None if the reshape is not of that form."""
    groups, i, j = [], 0, 0
    n, m = len(shape), len(new_sizes)
    while i < n or j < m:
        if i < n and j < m and shape[i] == new_sizes[j]:
            groups.append(([i], [j]))
            i += 1
            j += 1
            continue
        olds, news = [i] if i < n else [], [j] if j < m else []
        if not olds or not news:
            return None
        po, pn = shape[i], new_sizes[j]
        while po != pn:
            if po < pn:
                i += 1
                if i >= n:
                    return None
                olds.append(i)
                po *= shape[i]
            else:
                j += 1
                if j >= m:
                    return None
                news.append(j)
                pn *= new_sizes[j]
        if len(olds) > 1 and len(news) > 1:
            return None
        groups.append((olds, news))
        i += 1
        j += 1
    return groups


def dot_general(lhs, rhs, *, dimension_numbers, out_sharding=None, **params):
    (lc, rc), (lb, rb) = dimension_numbers
    if out_sharding is not None:
        return _given(out_sharding, lhs.ndim + rhs.ndim - len(lc) - len(rc) - len(lb))
    lp, rp = lhs.parts(), rhs.parts()
    lcs, rcs = tuple(lp[i] for i in lc), tuple(rp[i] for i in rc)
    lbs, rbs = tuple(lp[i] for i in lb), tuple(rp[i] for i in rb)
    for a, b in zip(lbs, rbs):
        if a is not None and b is not None and a != b:
            raise ShardingTypeError(
                "dot_general requires lhs batch dimensions and rhs batch dimensions to have "
                f"the consistent sharding, got {lbs} and {rbs}.")
    for a, b in zip(lcs, rcs):
        if a is not None and b is not None and a != b:
            raise ShardingTypeError(
                "dot_general requires contracting dimensions to have consistent sharding, "
                f"got {lcs} and {rcs}.")
    for a, b in zip(lcs, rcs):
        if a is not None and b is not None:
            raise ShardingTypeError(
                "Contracting dimensions are sharded and it is ambiguous how the output "
                "should be sharded. Please specify the output sharding via the `out_sharding` "
                f"parameter. Got lhs_contracting_spec={lcs} and rhs_contracting_spec={rcs}")
    lfree = tuple(p for i, p in enumerate(lp) if i not in set(lc) | set(lb))
    rfree = tuple(p for i, p in enumerate(rp) if i not in set(rc) | set(rb))
    return lbs + lfree + rfree


def concatenate(*avals, **params):
    first = avals[0].parts()
    if any(a.parts() != first for a in avals[1:]):
        raise ShardingTypeError(
            "All operands should have the same sharding. Got shardings "
            + ", ".join(str(a.sharding) for a in avals))
    return first


def select_n(which, *cases):
    first = cases[0].parts()
    if any(c.parts() != first for c in cases[1:]):
        raise ShardingTypeError("select cases must have the same shardings, got [{}].".format(
            ", ".join(str(c.sharding) for c in cases)))
    if which.shape and which.parts() != first:
        raise ShardingTypeError(
            "select `which` must be scalar or have the same sharding as cases, got `which` "
            f"sharding {which.sharding} but case sharding {cases[0].sharding}.")
    return first


def cumulative(x, *, axis, **params):
    """A cumulative reduction: the operand's split, which must leave ``axis`` whole."""
    if x.parts()[axis] is not None:
        raise ShardingTypeError("Input should be unsharded over the axis being reduced. Got "
                                f"input type={x} and axis={axis}")
    return x.parts()


def sort(*avals, dimension, **params):
    """Each result split as its operand, none of which may be split along ``dimension``."""
    for a in avals:
        if a.parts()[dimension] is not None:
            raise ShardingTypeError(
                "Arguments to sort must be unsharded over the sorting dimension. Got arg "
                f"sharding={a.sharding} and sorting dimension={dimension}")
    return [a.parts() for a in avals]


def varying_shape(name, abstract_eval):
    """Results whose shapes may differ from the operand's (slices, pads, splits): each split
    as the operand, where a split dimension's new size still divides over its mesh axes."""

    def rule(x, *rest, **params):
        outs = abstract_eval(x, *rest, **params)
        for out in outs if isinstance(outs, (list, tuple)) else [outs]:
            _check_divisible(name, x, out.shape)
        return [x.parts()] * len(outs) if isinstance(outs, (list, tuple)) else x.parts()

    return rule


def dynamic_update_slice(operand, update, *starts, **params):
    if operand.parts() != update.parts():
        raise ShardingTypeError(
            "dynamic_update_slice operand sharding must be equal to update sharding, got "
            f"operand sharding {operand.str_short(True)} and update sharding "
            f"{update.str_short(True)}.")
    return operand.parts()


def gather(operand, indices, *, dimension_numbers, slice_sizes, **params):
    """JAX's gather rule: batching dimensions agree between operand and indices, indexed
    operand dimensions are whole or unsplit, and the indices are split only along batching
    dimensions; else the result's split is ambiguous."""
    dn = dimension_numbers
    op, ix = operand.parts(), list(indices.parts())
    if all(p is None for p in op) and all(p is None for p in ix):
        return (None,) * (len(dn.offset_dims) + indices.ndim - 1)
    full_or_unsplit = all(slice_sizes[i] == operand.shape[i] or op[i] is None
                          for i in dn.start_index_map)
    batch_ok = all(ix[j] == op[i] or op[i] is None or ix[j] is None
                   for i, j in zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    rest_unsplit = all(s is None for j, s in enumerate(ix)
                       if j not in dn.start_indices_batching_dims)
    if not (full_or_unsplit and batch_ok and rest_unsplit):
        raise ShardingTypeError(
            "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
            "indexing as out sharding could not be resolved unambiguously (or would require "
            f"collectives on inputs). Got {operand=}, {indices=}")  # (JAX's: the avals' reprs)
    for i, j in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        ix[j] = ix[j] or op[i]
    offsets = iter(op[i] for i in range(operand.ndim)
                   if i not in dn.collapsed_slice_dims and i not in dn.operand_batching_dims)
    from_indices = iter(ix)
    return tuple(next(offsets) if i in dn.offset_dims else next(from_indices)
                 for i in range(len(dn.offset_dims) + indices.ndim - 1))


def stack(*avals, axis):
    first = concatenate(*avals)
    return first[:axis] + (None,) + first[axis:]


def unstack(x, *, axis):
    parts = x.parts()
    if parts[axis] is not None:
        raise ShardingTypeError(f"unstack operand cannot be sharded on the unstacking axis "
                                f"{axis}. Got operand type={x.str_short(True)}")
    return [parts[:axis] + parts[axis + 1:]] * x.shape[axis]


def typed_by_body(*avals, **params):
    """A primitive running a body (jit, cond, loops, custom rules): its abstract eval typed
    the results as the body's, sharding included."""
    return None


def linalg(name, ranks):
    """A linear-algebra primitive over batches of matrices: input i's last ``ranks[i]``
    dimensions must be whole, every input has one batch split, and each result is split along
    its batch dimensions only (JAX's ``linalg_sharding_rule``). Returns the batch prefix
    (``core`` fills the result's other dimensions with None)."""

    def rule(*avals, **params):
        batch_specs = []
        for i, (rank, a) in enumerate(zip(ranks, avals)):
            parts = a.parts()
            batch, rest = parts[:len(parts) - rank], parts[len(parts) - rank:]
            if any(p is not None for p in rest):
                raise ShardingTypeError(f"Input {i} to {name} must be unsharded on non-batch "
                                        f"dimensions, but got {a.sharding.spec}.")
            batch_specs.append(batch)
        if any(b != batch_specs[0] for b in batch_specs[1:]):
            raise ShardingTypeError(f"All inputs to {name} must have the same batch sharding, "
                                    f"but got {batch_specs}.")
        return Prefix(batch_specs[0])

    return rule


class Prefix(tuple):
    """A rule's result for every result of a primitive: these leading partitions, the other
    dimensions whole."""


def conv(abstract_eval):
    """A convolution: the kernel whole and the input's feature dimension whole; the result
    split as the input (JAX's rule), or as ``out_sharding``."""

    def rule(lhs, rhs, *, dimension_numbers, out_sharding=None, **params):
        if out_sharding is not None:
            return _given(out_sharding, lhs.ndim)
        if all(p is None for p in rhs.parts()) and lhs.parts()[dimension_numbers.lhs_spec[1]] is None:
            out = abstract_eval(lhs, rhs, dimension_numbers=dimension_numbers,
                                out_sharding=out_sharding, **params)
            _check_divisible("conv_general_dilated", lhs, out.shape)
            return lhs.parts()
        raise ShardingTypeError("Please specify the output sharding via `out_sharding` "
                                "parameter of `conv_general_dilated`")

    return rule


def _check_divisible(name, x, out_shape):
    mesh = x.explicit[0]
    for d_in, d_out, p in zip(x.shape, out_shape, x.parts()):
        if d_in != d_out and p is not None and d_out % _part_size(mesh, p):
            raise ShardingTypeError(
                f"{name} on sharded dims where out dim ({d_out}) is not divisible by mesh axes "
                f"({_part_size(mesh, p)}) with spec ({p}) is not implemented. Got input "
                f"type={x.str_short(True)} and output shape={tuple(out_shape)}")


def tile(x, *, reps):
    parts = x.parts()
    for i, (p, r) in enumerate(zip(parts, reps)):
        if p is not None and r != 1:
            raise ShardingTypeError(
                f"Operand cannot be sharded on dimension {i} when the tiling is non-trivial. "
                f"Got input type: {x} with reps: {tuple(reps)}")
    return parts


def bitcast_convert_type(x, *, new_dtype):
    """The operand's split; a narrower dtype's new trailing dimension is whole, a wider one
    drops the trailing dimension (JAX's rule)."""
    old, new = x.dtype.itemsize, new_dtype.itemsize
    parts = x.parts()
    return parts if old == new else parts + (None,) if old > new else parts[:-1]


def top_k(x, *, k, axis, **params):
    if x.parts()[axis] is not None:
        raise ShardingTypeError("The input should be unsharded over the axis along which to "
                                f"compute the top_k values. Got input type={x} and axis={axis}")
    return [x.parts()] * 2


def select_and_gather_add(tangents, operand, **params):
    if tangents.parts() != operand.parts():
        raise ShardingTypeError(
            "select_and_gather_add tangents and operand shardings must match, got "
            f"{tangents.sharding} and {operand.sharding}.")
    return operand.parts()


def scatter(operand, indices, updates, *, dimension_numbers, **params):
    """JAX's scatter rule (its gather rule in reverse): batching dimensions agree among
    operand, indices and updates; updated operand windows are whole or unsplit on both sides;
    indices and updates are split only along batching dimensions; else ambiguous."""
    dn = dimension_numbers
    op, ix, up = operand.parts(), indices.parts(), updates.parts()
    if all(p is None for p in op + ix + up):
        return op
    index_vector_dim = indices.ndim - 1
    in_updates = list(range(index_vector_dim))
    for i in dn.update_window_dims:
        in_updates.insert(i, None)
    up_batch = tuple(in_updates.index(i) for i in dn.scatter_indices_batching_dims)
    op_window = [i for i in range(operand.ndim)
                 if i not in dn.inserted_window_dims and i not in dn.operand_batching_dims]

    def resolvable(*names):
        return len({n for n in names if n is not None}) <= 1

    ok = (all(resolvable(op[o], ix[i], up[u]) for o, i, u in
              zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims, up_batch))
          and all((updates.shape[u] == operand.shape[o] and up[u] == op[o])
                  or (up[u] is None and op[o] is None)
                  for u, o in zip(dn.update_window_dims, op_window))
          and all(op[i] is None for i in dn.inserted_window_dims)
          and all(s is None for i, s in enumerate(up)
                  if i not in up_batch and i not in dn.update_window_dims)
          and all(s is None for i, s in enumerate(ix[:index_vector_dim])
                  if i not in dn.scatter_indices_batching_dims)
          and ix[index_vector_dim] is None)
    if not ok:
        raise ShardingTypeError(
            "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for "
            "the scatter update as out sharding could not be resolved unambiguously (or would "
            f"require collectives on inputs). Got {operand=}, {indices=}, {updates=}")
    out = list(op)
    for o, i, u in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims, up_batch):
        if out[o] is None:
            out[o] = ix[i] or up[u]
    for u, o in zip(dn.update_window_dims, op_window):
        if out[o] is None:
            out[o] = up[u]
    return tuple(out)
