"""``vmap``: a function of one example, applied to a batch as one batched program.

This module holds the user-facing part: matching ``in_axes``/``out_axes`` (pytree prefixes, as
in JAX) against the arguments and results, finding the batch size, and the error messages.
The interpreter itself (``BatchTrace``, run on flat values by ``batch_flat``) and the batching
rules' helpers live in ``minijax.interpreters.batching``.

As in JAX, keyword arguments are always mapped over their axis 0 (``in_axes`` covers only the
positional arguments), and an ``in_axes`` given as a list is read as a tuple.
"""

from __future__ import annotations

import operator

import numpy as np

from minijax import core
from minijax.core import abstract_token, get_aval
from minijax.interpreters import batching
from minijax.interpreters.batching import not_mapped
from minijax.refs import Ref
from minijax.source_info import with_user_line, wraps
from minijax.tree_util import (
    _registry,
    keystr,
    tree_flatten_with_path_internal,
    tree_map,
    tree_map_internal,
)

__all__ = ["vmap"]


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """Vectorizes ``fun`` over an axis of its arguments.

    ``in_axes``: an int, None, or a tuple with one entry per positional argument, each entry a
    pytree prefix of that argument whose leaves are ints (the mapped axis; negative counts from
    the end) or None (not mapped). ``out_axes``: the same for the result; None is allowed only
    for outputs that do not depend on the mapped axis. ``axis_size`` is needed when no argument
    is mapped. ``axis_name`` names the mapped axis for collectives; ``spmd_axis_name`` is kept
    for sharding.
    """
    if not callable(fun):
        raise TypeError(f"vmap expects a callable as its first argument, got {fun!r}")
    if isinstance(in_axes, list):  # a list can never be a prefix of the positional args tuple
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, got {in_axes!r}."
        )
    in_axes = _check_axis_leaves("in_axes", in_axes)
    out_axes = _check_axis_leaves("out_axes", out_axes)
    if axis_size is not None:
        axis_size = core.concrete_or_error(operator.index, axis_size, "vmap axis_size")

    @wraps(fun)
    def vmap_f(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(with_user_line(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                f"positional arguments passed to the function, but got len(in_axes)="
                f"{len(in_axes)}, len(args)={len(args)}."
            ))
        arg_leaves, arg_tree = _registry.flatten(args)
        kw_leaves, kw_tree = _registry.flatten(kwargs)
        dims = flatten_axes("vmap in_axes", arg_tree, in_axes) + [0] * len(kw_leaves)
        leaves = arg_leaves + kw_leaves
        dims = [_canonical_in_dim(x, d, i, args, kwargs) for i, (x, d) in enumerate(zip(leaves,
                                                                                      dims))]
        size = _batch_size(leaves, dims, axis_size, args, kwargs)
        _check_mapped_splits(leaves, dims, spmd_axis_name)
        n_args, out_trees = len(arg_leaves), []

        def flat_fun(*xs):
            out = fun(*arg_tree.unflatten(xs[:n_args]), **kw_tree.unflatten(xs[n_args:]))
            out_leaves, out_tree = _registry.flatten(out)
            out_trees.append(out_tree)  # not ``out``: the leak check counts held tracers
            return out_leaves

        # the Ref bookkeeping only where a leaf is a Ref: most calls have none
        ref_at = [i for i, (x, d) in enumerate(zip(leaves, dims))
                  if type(x) is Ref and d is not not_mapped] if Ref in map(type, leaves) else ()
        if ref_at:
            flat_fun, refs = _with_ref_cells(flat_fun, leaves, ref_at)
        vals, bdims = batching.batch_flat(flat_fun, leaves, dims,
                                          batching.AxisData(axis_name, size, spmd_axis_name))
        if ref_at:
            n_out = len(vals) - len(refs)
            for r, i, v, bd in zip(refs, ref_at, vals[n_out:], bdims[n_out:]):
                r[...] = batching.bdim_to(v, bd, dims[i], size)
            vals, bdims = vals[:n_out], bdims[:n_out]
        out_tree = out_trees[0]
        out_dims = flatten_axes("vmap out_axes", out_tree, out_axes)
        return out_tree.unflatten([_output(v, bd, d, i, out_tree, size) for i, (v, bd, d)
                                   in enumerate(zip(vals, bdims, out_dims))])

    return vmap_f


def _check_mapped_splits(leaves, dims, spmd_axis_name):
    """JAX's checks of values split over Explicit mesh axes: every mapped axis is split alike
    (the results' batch axis takes that split) and ``spmd_axis_name``, if given, names it."""
    splits = [getattr(getattr(x, "aval", None), "explicit", None) for x in leaves]
    if not any(s is not None for s in splits):
        return
    spec, seen = None, False
    for s, d in zip(splits, dims):
        if d is not_mapped:
            continue
        part = None if s is None else s[1][d]
        if seen and part != spec:
            raise ValueError(with_user_line(
                "Mapped away dimension of inputs passed to vmap should be sharded the same. "
                f"Got inconsistent axis specs: {spec} vs {part}"))
        spec, seen = part, True
    if spec is None or spmd_axis_name is None:
        return
    names = spec if isinstance(spec, tuple) else (spec,)
    given = spmd_axis_name if isinstance(spmd_axis_name, tuple) else (spmd_axis_name,)
    if given != names:
        raise ValueError(with_user_line(
            "Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis type is "
            f"allowed. Got spmd_axis_name={given} and arrays sharded on "
            f"explicit_mesh_axis={names}"))


def _with_ref_cells(flat_fun, leaves, ref_at):
    """A mapped Ref (a split stateful_rng's counters) goes in as its value: ``leaves[i]``
    becomes the value of the Ref there, for each ``i`` in ``ref_at``. Returns ``flat_fun``
    seeing a Ref cell over that value's batch tracer and returning the cells' final values after
    its outputs (to be stored back in the Refs, as JAX batches refs), and the Refs."""
    refs = [leaves[i] for i in ref_at]
    for i, r in zip(ref_at, refs):
        leaves[i] = r[...]

    def with_cells(*xs):
        xs = list(xs)
        cells = [Ref(xs[i], r.aval.memory_space, r.aval.kind) for i, r in zip(ref_at, refs)]
        for i, cell in zip(ref_at, cells):
            xs[i] = cell
        return flat_fun(*xs) + [cell[...] for cell in cells]

    return with_cells, refs


# ------------------------------------------------------------------------------------------------
# in_axes / out_axes as one entry per leaf

_NONE = object()  # stands for a None axis while the spec is matched against the value tree
# The leaves of the placeholder value tree that flatten_axes builds; a pytree class that checks
# its fields lets it through, as JAX's StatefulPRNG does (JAX's api_util.SENTINEL).
SENTINEL = object()


def _check_axis_leaves(what, axes):
    """``axes`` with NumPy integer leaves as Python ints; other leaves than ints and None
    raise TypeError."""

    def check(a):
        if a is None or type(a) is int:
            return a
        if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
            return int(a)
        raise TypeError(
            f"vmap {what} must be an int, None, or a (nested) container with those types "
            f"as leaves, but got {a!r} of type {type(a).__name__} in {what}={axes!r}."
        )

    return tree_map(check, axes, is_leaf=lambda a: a is None)


def flatten_axes(what, treedef, axes):
    """One axis (int or None) per leaf of ``treedef``, broadcasting the prefix tree ``axes``."""
    if axes is None or type(axes) is int:
        return [axes] * treedef.num_leaves
    spec = tree_map_internal(lambda a: _NONE if a is None else a, axes,
                             is_leaf=lambda a: a is None)
    spec_leaves, spec_tree = _registry.flatten(spec)
    dummy = treedef.unflatten([SENTINEL] * treedef.num_leaves)
    try:
        subtrees = spec_tree.flatten_up_to(dummy)
    except ValueError as e:
        raise ValueError(with_user_line(
            f"{what} specification must be a tree prefix of the corresponding value, got "
            f"specification {axes!r} (structure {spec_tree}) for value tree {treedef}. "
            f"({e})"
        )) from None
    flat = []
    for a, sub in zip(spec_leaves, subtrees):
        flat.extend([None if a is _NONE else a] * _registry.flatten(sub)[1].num_leaves)
    return flat


def _leaf_paths(args, kwargs):
    """Readable names of every argument leaf (``args[0]['w']``, ``kwargs['x']``), for errors."""
    paths = ["args" + keystr(p) for p, _ in tree_flatten_with_path_internal(args)[0]]
    return paths + ["kwargs" + keystr(p) for p, _ in tree_flatten_with_path_internal(kwargs)[0]]


def _canonical_in_dim(x, d, i, args, kwargs):
    if d is None:
        return not_mapped
    try:
        aval = get_aval(x)
    except TypeError:
        raise TypeError(with_user_line(
            f"vmap was requested to map {_leaf_paths(args, kwargs)[i]} along axis {d}, but it "
            f"is a {type(x).__name__}, not an array; give it in_axes=None."
        )) from None
    if aval is abstract_token:  # JAX's words: it takes a token's NumPy shape, ()
        raise ValueError(with_user_line(
            f"vmap was requested to map its argument along axis {d}, which implies that its "
            f"rank should be at least {d + 1 if d >= 0 else -d}, but is only 0 (its shape is ())"
        ))
    if not -aval.ndim <= d < aval.ndim:
        raise ValueError(with_user_line(
            f"vmap was requested to map its argument {_leaf_paths(args, kwargs)[i]} along axis "
            f"{d}, which implies that its rank should be at least {d + 1 if d >= 0 else -d}, but "
            f"it is only {aval.ndim} (its type is {aval.str_short(True)})."
        ))
    return d % aval.ndim


def _batch_size(leaves, dims, axis_size, args, kwargs):
    sizes = [(i, get_aval(x).shape[d]) for i, (x, d) in enumerate(zip(leaves, dims))
             if d is not not_mapped]
    if not sizes:
        if axis_size is None:
            raise ValueError(with_user_line(
                "vmap must have at least one non-None value in in_axes (or a keyword argument) "
                "to find the batch size from, or axis_size must be given."
            ))
        return axis_size
    found = {s for _, s in sizes}
    if len(found) > 1 or (axis_size is not None and found != {axis_size}):
        paths = _leaf_paths(args, kwargs)
        lines = [f"  {paths[i]} of type {get_aval(leaves[i]).str_short(True)}: axis {dims[i]} has "
                 f"size {s}" for i, s in sizes]
        given = f" (axis_size={axis_size} was given)" if axis_size is not None else ""
        raise ValueError(with_user_line(
            f"vmap got inconsistent sizes for the array axes to be mapped{given}:\n"
            + "\n".join(lines)
        ))
    return sizes[0][1]


def _output_path(out_tree, i):
    placeholder = out_tree.unflatten([0] * out_tree.num_leaves)
    return "output" + keystr(tree_flatten_with_path_internal(placeholder)[0][i][0])


def _output(val, bdim, out_axis, i, out_tree, size):
    """One output leaf (``val`` at the parent level, batch axis ``bdim``) with its batch axis
    at ``out_axis``."""
    if out_axis is None:
        if bdim is not not_mapped:
            aval = get_aval(val)
            aval = aval.update(shape=aval.shape[:bdim] + aval.shape[bdim + 1:])
            path = _output_path(out_tree, i)
            raise ValueError(with_user_line(
                f"vmap has mapped output {path} (of per-example type {aval.str_short(True)}) but "
                "out_axes is None for it: out_axes=None is only allowed for outputs that do not "
                "depend on the mapped axis. Give an integer out_axes to return it batched."
            ))
        return val
    nd = get_aval(val).ndim + (bdim is not_mapped)
    if not -nd <= out_axis < nd:
        path = _output_path(out_tree, i)
        raise ValueError(with_user_line(
            f"vmap out_axes={out_axis} is out of bounds for {path}, whose batched result has "
            f"rank {nd}."
        ))
    out_axis %= nd
    return batching.bdim_to(val, bdim, out_axis, size)
