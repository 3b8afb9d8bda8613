"""Collectives over named axes: ``psum``, ``pmean``, ``pmax``, ``pmin``, ``all_gather``,
``psum_scatter``, ``ppermute``, ``pshuffle``, ``all_to_all``, ``axis_index``, ``axis_size``.

A named axis is bound by an enclosing ``vmap(..., axis_name=...)`` or by ``shard_map``'s mesh
axes. ``batching.axis_size_of`` finds its size by walking the traces around the current one;
a name nothing binds is a ``NameError`` at trace time, raised by the public functions below in
JAX 0.10.2's words: where JAX looks the size up (a constant's psum, all_gather, psum_scatter,
all_to_all, axis_size) its "unbound axis name: a", where JAX's rule types the equation (psum,
pmax, pmin of a traced value, axis_index, ppermute, pbroadcast) ``check_bound``'s "Found an
unbound axis name: a. ...".

The size of every axis a collective ranges over is resolved when the user calls it and kept in
the equation's params (``axis_size``), as JAX does for ``all_gather``: abstract evaluation then
needs no environment, so it works the same in any interpreter (a batching rule runs with its
own vmap no longer current, a staged jaxpr is re-evaluated later by ``eval_jaxpr``).

``psum``/``pmax``/``pmin`` also take positional axes (ints, axes of the operand, reduced as by
``reduce_sum``/``reduce_max``/``reduce_min``) among their names, as JAX's: ``psum(x, (0,
'i'))``. Under ``vmap`` they stay collectives with the vmap's own axis made positional, as JAX's
(``psum[axes=(0,)]``); the other collectives over the vmap's own axis are *computed* by the
batching rule over the batch dimension (``all_gather`` makes the batch axis an ordinary axis,
``axis_index`` is an ``iota`` ...). A collective over another (outer) name passes through, its
operand batched like any other. The rules are marked ``batching.axis_collective``: vmap calls
them even when the operand is unbatched (``psum(1.0, 'i')`` is ``size * 1.0``; ``axis_index``
has no operand at all).

Differentiation follows JAX's convention for collectives: ``psum`` is its own transpose (a
replicated cotangent is summed over the axis again), ``all_gather`` and ``psum_scatter``
transpose to each other, ``ppermute`` to the inverse permutation and ``all_to_all`` to the
``all_to_all`` with ``split_axis`` and ``concat_axis`` swapped. So ``vmap(grad(f))`` equals
``grad`` of the sum over the batch of ``vmap(f)``. ``pmax``/``pmin`` (which JAX does not
differentiate) get the tangent of the chosen elements, ties sharing it evenly, as ``reduce_max``.

Lowering: inside ``shard_map`` (``minijax/shard_map.py``) a collective over its mesh axes
becomes the real ``stablehlo.all_reduce``/``all_gather``/``reduce_scatter``/
``collective_permute``/``all_to_all``/``partition_id`` arithmetic
(``minijax/lowering/collectives.py``); positional axes are reduced in place first. A named axis
cannot reach lowering anywhere else — batching binds a vmap-bound one over positional axes only
and an unbound one is a NameError at trace time — so reaching it there is a NameError too.
"""

from __future__ import annotations

import operator

import numpy as np

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray, Tracer, get_aval
from minijax.interpreters import ad, batching, lax_ops
from minijax.interpreters import partial_eval as pe
from minijax.interpreters.batching import axis_size_of, not_mapped
from minijax.lax.convert import convert_element_type
from minijax.lax.elementwise import add, div, eq, mul, select
from minijax.lax.families import const
from minijax.lax.indexing import GatherDimensionNumbers, gather
from minijax.lax.reductions import (_check_axes, _reduce_sum_transpose, _reduced_shape,
                                    reduce_max, reduce_max_p, reduce_min, reduce_min_p,
                                    reduce_sum, reduce_sum_p)
from minijax.lax.structural import expand_dims, full_like, iota, reshape, squeeze, transpose
from minijax.lowering import collectives
from minijax.lowering.stablehlo import LoweringRuleContext
from minijax.source_info import note_user_line, with_user_line
from minijax.tree_util import tree_flatten, tree_map, tree_map_internal, tree_unflatten

__all__ = [
    "all_gather", "all_gather_p", "all_to_all", "all_to_all_p", "axis_index", "axis_index_p",
    "axis_size", "pbroadcast", "pcast", "pmax", "pmax_p", "pmean", "pmin", "pmin_p", "ppermute",
    "ppermute_p",
    "pshuffle", "pswapaxes", "psum", "psum_invariant_p", "psum_p", "psum_scatter",
    "psum_scatter_p", "pvary_p",
]


# ------------------------------------------------------------------------------------------------
# Axis names


def _names(axis_name):
    """``axis_name`` (one name or a tuple/list of names) as a tuple of names."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    for n in names:
        try:
            hash(n)
        except TypeError:
            raise TypeError(with_user_line(f"axis names must be hashable, got {n!r}")) from None
    return names


def check_bound(names, api):
    """JAX's check of a collective's names when it types the equation (its
    ``_check_axis_names``; psum, pmax and pmin all say "psum", pbroadcast "ppermute")."""
    bound = {n for n, _ in batching.bound_axes()}
    for n in names:
        if n not in bound and not isinstance(n, int):  # an int is a positional axis
            e = NameError(f"Found an unbound axis name: {n}. To fix this, please call {api} "
                          "under `jax.shard_map`.")
            note_user_line(e)
            raise e


def _vma_api(api):
    """The API whose check meets an unbound name first: with check_vma JAX's psum, pmax and
    pmin cast their operand by ``pvary`` before binding."""
    return "pvary" if core.vma_axes() else api


def _no_eval_rule(prim, names):
    """JAX 0.10.2's ppermute and pbroadcast have no evaluation rule. Called eagerly, or with
    an unbound name under transformations that run it on their values (grad's JVP and known
    primal, a vmap of another axis) and no staging trace (jit, make_jaxpr: its abstract
    evaluation meets the name first, ``check_bound``), they reach evaluation and fail there,
    before their names are looked at."""
    trace = core.current_trace()
    if trace is not core.eval_trace:
        bound = {n for n, _ in batching.bound_axes()}
        if all(n in bound for n in names):
            return
        while trace is not None:
            if type(trace) is not pe.PartialEvalTrace and isinstance(trace,
                                                                     pe.DynamicJaxprTrace):
                return
            trace = trace.parent
    # JAX 0.10.2 refuses it too, in these words (no impl registered for the primitive)
    raise NotImplementedError(f"Evaluation rule for '{prim.name}' not implemented")


def _group_size(names, axis_index_groups, api):
    """The number of participants: the product of the axes' sizes (NameError if unbound), or
    the size of one group of ``axis_index_groups``."""
    size = 1
    for n in names:
        size *= axis_size_of(n)
    if axis_index_groups is None:
        return size
    if any(len(g) != len(axis_index_groups[0]) for g in axis_index_groups):
        raise ValueError(with_user_line(f"{api}: axis_index_groups must all be the same size"))
    if sorted(i for g in axis_index_groups for i in g) != list(range(size)):
        raise ValueError(with_user_line(
            f"{api}: axis_index_groups must cover all indices of the axis exactly once, got "
            f"{axis_index_groups} for an axis of size {size}"))
    return len(axis_index_groups[0])


def _canonical_groups(axis_index_groups):
    if axis_index_groups is None:
        return None
    return tuple(tuple(operator.index(i) for i in g) for g in axis_index_groups)


_GROUPS_REFUSED = "axis_index_groups not supported in vmap"  # JAX's all_gather, psum_scatter
_FEATURE_REQUEST = "Please open a feature request!"


def _no_groups(axis_index_groups, message):
    """Refuses axis_index_groups over the vmap axis, in the words JAX's rule for the API uses."""
    if axis_index_groups is not None:
        # JAX 0.10.2 refuses it too: NotImplementedError(message), each batcher its own words
        # (the user's line a note, as a rule's error)
        e = NotImplementedError(message)
        note_user_line(e)
        raise e


def _single_own_name(names):
    if len(names) > 1:
        # JAX 0.10.2 refuses it too: NotImplementedError("Please open a feature request!")
        e = NotImplementedError(_FEATURE_REQUEST)
        note_user_line(e)
        raise e


def _unbound_lowering(api, param, real=None):
    """The lowering rule: inside a shard_map whose mesh has the axes, ``real`` (from
    ``minijax/lowering/collectives.py``) emits the collective; anywhere else the axis is bound
    by nothing in this program, a NameError."""

    def rule(ctx, *args, **params):
        names = params[param]
        names = names if isinstance(names, tuple) else (names,)
        if real is not None:
            mesh = collectives.manual_mesh_for(ctx, names)
            if mesh is not None:
                return real(ctx, *args, mesh, **params)
        raise NameError(with_user_line(
            f"{api} over the axis name(s) {names!r} reached compilation, but no enclosing "
            "vmap(axis_name=...) or shard_map binds them in this program. Call it inside a "
            "function transformed by vmap(..., axis_name=...) (or shard_map).",
            getattr(ctx.eqn, "source_info", None)))

    return rule


def _real(name):
    """The real lowering ``name`` of ``minijax/lowering/collectives.py``."""

    def rule(ctx, *args, **params):
        return getattr(collectives, name)(ctx, *args, **params)

    return rule


def _real_all_reduce(kind):
    def rule(ctx, x, mesh, *, axes, axis_index_groups=None):  # (psum_invariant has no groups)
        return collectives.lower_all_reduce(ctx, x, mesh, kind, axes, axis_index_groups)

    return rule


def _axis_name_param(params):
    """The names a collective uses (``prim.axis_names_of``: vmap looks for them in nested
    jaxprs)."""
    return params["axis_name"]


def _bind_leaves(bind, x):
    return tree_map(bind, x)


# ------------------------------------------------------------------------------------------------
# psum / pmax / pmin [axes axis_index_groups]; psum_invariant [axes], as JAX's


def _positional(axes):
    """The positional axes among a psum/pmax/pmin's ``axes``: JAX's ints (axes of the operand,
    reduced as by ``reduce_sum``), the rest being axis names."""
    return tuple(a for a in axes if isinstance(a, int))


def _named(axes):
    return tuple(a for a in axes if not isinstance(a, int))


def _allreduce_abstract_eval(x, *, axes, axis_index_groups=None):
    pos = _positional(axes)
    if pos:
        if axis_index_groups is not None:
            raise ValueError("axis_index_groups can only be used with reductions over named "
                             f"axes, but got: {axes}")
        _check_axes(x, pos)  # reduce_sum's shape rule, in its words (JAX's too)
        x = x.update(shape=_reduced_shape(x.shape, pos))
    # the result is the same along the axes (JAX 0.10 types a pmax/pmin/psum over them so)
    return x.update(vma=x.vma - set(axes)) if x.vma else x


def _allreduce_impl(reduce):
    """Eagerly only positional axes reach the primitive (a name is bound by a vmap or
    shard_map trace, or refused by the public function): JAX's impl reduces them."""

    def impl(x, *, axes, axis_index_groups=None):
        named = _named(axes)
        if named:  # a direct bind of an unbound name: JAX's words
            check_bound(named, "psum")
        return reduce(x, axes)

    return impl


def _allreduce_lowering(kind, reducer_p):
    """The positional axes reduced in place (the reducer's own lowering), then the named ones
    all-reduced: JAX's lowering."""
    named_rule = _unbound_lowering(kind, "axes", _real_all_reduce(kind))

    def rule(ctx, x, *, axes, **groups):
        pos = _positional(axes)
        if pos:
            aval = ctx.avals_in[0]
            reduced = aval.update(shape=_reduced_shape(aval.shape, pos))
            x = reducer_p.lowering(LoweringRuleContext([aval], [reduced], ctx.module_ctx,
                                                       ctx.eqn), x, axes=pos)
            axes = _named(axes)
            ctx = LoweringRuleContext([reduced], ctx.avals_out, ctx.module_ctx, ctx.eqn)
        if not axes:  # (a transpose's psum over no names, as JAX's)
            return x
        return named_rule(ctx, x, axes=axes, **groups)

    return rule


def _to_front(x, d):
    """JAX's ``_moveaxis(d, 0, x)``: a transpose unless ``d`` is already 0."""
    if d == 0:
        return x
    return transpose(x, (d,) + tuple(i for i in range(get_aval(x).ndim) if i != d))


def _allreduce_batching(prim, if_unmapped):
    """JAX's rule (``_batched_reduction_collective``): the collective stays, with the batch
    axis made positional (moved to the front) when it reduces over the vmap's own name; a
    positional axis of the example shifts past the batch axis. A negative one does not shift,
    as in JAX, so its error names the batched shape."""

    @batching.axis_collective
    def rule(axis_data, args, dims, *, axes, **groups):  # groups: axis_index_groups, if any
        (x,), (d,) = args, dims
        own = axis_data.name
        if own not in axes:
            batching.check_outer_axes(_named(axes), prim.name)
            if d is not_mapped or not _positional(axes):
                return prim.bind(x, axes=axes, **groups), d
            axes = tuple(a + (a >= 0) if isinstance(a, int) else a for a in axes)
            return prim.bind(_to_front(x, d), axes=axes, **groups), 0
        _no_groups(groups.get("axis_index_groups"),
                   f"{_GROUPS_REFUSED} collectives. {_FEATURE_REQUEST}")
        if d is not_mapped:  # the same on every member: the rest of the axes, then the size
            rest = tuple(a for a in axes if a != own)
            if rest:
                x = prim.bind(x, axes=rest, **groups)
            return if_unmapped(x, axis_data.size), not_mapped
        axes = tuple(0 if a == own else a + (a >= 0) if isinstance(a, int) else a
                     for a in axes)
        return prim.bind(_to_front(x, d), axes=axes, **groups), not_mapped

    # JAX checks only the batched collective: a bad positional axis is its error in the
    # batched operand's terms
    rule.accepts_invalid = lambda vals, dims: True
    return rule


def _allreduce(name, if_unmapped, reducer_p, reduce):
    p = Primitive(name)
    p.def_abstract_eval(_allreduce_abstract_eval)
    p.def_impl(_allreduce_impl(reduce))
    p.def_lowering(_allreduce_lowering(name, reducer_p))
    p.def_batching(_allreduce_batching(p, if_unmapped))
    p.axis_names_of = lambda params: params["axes"]
    p.own_vma = True
    return p


def _times_size(x, n):
    return mul(const(x, n), x)  # JAX's operand order (``axis_size * v``)


psum_p = _allreduce("psum", _times_size, reduce_sum_p, reduce_sum)
pmax_p = _allreduce("pmax", lambda x, n: x, reduce_max_p, reduce_max)
pmin_p = _allreduce("pmin", lambda x, n: x, reduce_min_p, reduce_min)


def _psum_transpose(ct, x, *, axes, axis_index_groups):
    # JAX's convention: psum is psum followed by a broadcast, so its transpose sums the
    # (replicated) cotangent over the named axes again; over positional axes it is
    # reduce_sum's (a broadcast). JAX binds the named psum even with no names left
    # (``psum[axes=()]`` in its jaxprs).
    pos = _positional(axes)
    if pos:
        ct, = _reduce_sum_transpose(ct, x, axes=pos, out_sharding=None)
    return [psum_p.bind(ct, axes=_named(axes), axis_index_groups=axis_index_groups)]


ad.deflinear(psum_p, _psum_transpose)


# ------------------------------------------------------------------------------------------------
# Varying manual axes (shard_map with check_vma): pvary [axes], psum_invariant [axes
# axis_index_groups]
#
# Inside a shard_map body traced with check_vma (core.check_vma), a value's type names the manual
# axes it varies over. pvary marks a value the same on every device as varying (its value is
# unchanged); it is inserted where a replicated value meets a varying one. Its transpose sums
# the varying cotangent over the axes: the gradient w.r.t. a replicated input arrives summed,
# as in JAX. psum there is psum_invariant (varying in, replicated out): its transpose is pvary.


def _pvary_abstract_eval(x, *, axes):
    return x.update(vma=x.vma | set(axes))


pvary_p = Primitive("pvary")
pvary_p.def_abstract_eval(_pvary_abstract_eval)
pvary_p.def_impl(lambda x, *, axes: x)
pvary_p.def_lowering(lambda ctx, x, *, axes: x)
pvary_p.def_batching(lambda args, dims, *, axes: (pvary_p.bind(args[0], axes=axes), dims[0]))
pvary_p.own_vma = True
ad.deflinear(pvary_p, lambda ct, x, *, axes: [
    psum_invariant_p.bind(ct, axes=axes)])

psum_invariant_p = _allreduce("psum_invariant", _times_size, reduce_sum_p, reduce_sum)
psum_invariant_p.def_lowering(_unbound_lowering("psum", "axes", _real_all_reduce("psum")))
ad.deflinear(psum_invariant_p, lambda ct, x, *, axes: [
    pvary_p.bind(ct, axes=axes)])


def _typed(names):
    """Whether ``names`` are manual axes typed with vma here (not a vmap axis; check_vma)."""
    typed = core.vma_axes()
    return bool(typed) and set(names) <= typed


def _varying(v, names):
    """``v`` as an operand of a collective over ``names``: where they are typed, cast to
    varying over those it does not vary over yet (as JAX does)."""
    if not _typed(names):
        return v
    missing = tuple(n for n in names if n not in get_aval(v).vma)
    return pvary_p.bind(v, axes=missing) if missing else v


def _insert_pvary(args):
    avals = [get_aval(x) for x in args]
    vma = frozenset().union(*(a.vma for a in avals))
    if not vma or all(a.vma == vma for a in avals):
        return args
    return tuple(x if a.vma == vma else
                 pvary_p.bind(x, axes=tuple(sorted(vma - a.vma, key=str)))
                 for x, a in zip(args, avals))


core.insert_pvary = _insert_pvary
lax_ops.pvary = lambda x, axes: pvary_p.bind(x, axes=axes)


def pcast(x, axis_name, *, to):
    """Casts ``x`` (a pytree) inside ``shard_map`` to ``to`` along ``axis_name`` (a name or a
    tuple of names): ``to="varying"`` types a value that is the same on every device as one
    that may differ (a no-op on its values; its transpose sums the cotangents)."""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"axis_name={axis_name} must be a tuple or a str. Got {axis_name}")
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axis_name:
        return x
    allowed = {"unreduced", "reduced", "varying"}
    if to not in allowed:
        raise ValueError(f"Got unexpected `to` value. Allowed `to` values are: {allowed}")
    for n in axes:
        axis_size_of(n)

    def bind(leaf):
        vma = get_aval(leaf).vma
        states = {"varying" if a in vma else "invarying" for a in axes}
        if len(states) > 1:
            raise ValueError(with_user_line(
                "jax.lax.pcast can only accept axis_name which corresponds to one of varying, "
                f"unreduced, reduced or invarying state of the input. Got {axes}"))
        from_ = states.pop()
        if (from_, to) != ("invarying", "varying"):
            # minijax types no reduced/unreduced values (JAX's other casts start from those or
            # make them)
            raise ValueError(with_user_line(f"Unsupported pcast from={from_}, to={to!r}"))
        return pvary_p.bind(leaf, axes=axes)

    # the internal registry: a typed key array's varying axes are those of its uint32 data
    return tree_map_internal(bind, x)


def _chooser_jvp(prim):
    def jvp(primals, tangents, *, axes, axis_index_groups):
        (x,), (t,) = primals, tangents
        ans = prim.bind(x, axes=axes, axis_index_groups=axis_index_groups)
        if type(t) is ad.Zero:
            return ans, ad.Zero.from_primal_value(ans)
        pos = _positional(axes)
        # compared at the operand's rank where positional axes were reduced (as reduce_max's)
        kept = reshape(ans, [1 if i in pos else n for i, n in enumerate(get_aval(x).shape)]
                       ) if pos else ans
        chosen = convert_element_type(eq(x, kept), get_aval(t).dtype)
        params = dict(axes=axes, axis_index_groups=axis_index_groups)
        num = psum_p.bind(mul(t, chosen), **params)
        return ans, div(num, psum_p.bind(chosen, **params))

    return jvp


ad.primitive_jvps[pmax_p] = _chooser_jvp(pmax_p)
ad.primitive_jvps[pmin_p] = _chooser_jvp(pmin_p)


def _no_positional_groups(names, groups):
    if groups is not None and _positional(names):
        # JAX 0.10.2 refuses it too, in these words
        raise ValueError("axis_index_groups only supported for sums over just named axes")


def _sum_positional(v, pos):
    """A constant's positional axes summed, each normalized as JAX's ``canonicalize_axis``
    (so a negative one works here, unlike in the traced primitive, as in JAX)."""
    if not pos:
        return v
    ndim = np.ndim(v)
    for a in pos:
        if not -ndim <= a < ndim:  # JAX 0.10.2's words (canonicalize_axis)
            raise ValueError(f"axis {a} is out of bounds for array of dimension {ndim}")
    return reduce_sum(v, [a % ndim for a in pos])


def psum(x, axis_name, *, axis_index_groups=None):
    """All-reduce sum of ``x`` (a pytree) over the named axis (or tuple of axes)
    ``axis_name``. Boolean inputs are summed as int32."""
    names = _names(axis_name)
    if not names:
        return x
    groups = _canonical_groups(axis_index_groups)
    _no_positional_groups(names, groups)
    leaves, tree = tree_flatten(x)
    leaves = [convert_element_type(v, np.int32) if get_aval(v).dtype == np.bool_ else v
              for v in leaves]
    traced = any(isinstance(v, Tracer) for v in leaves)
    if traced:  # JAX types psum's equation; a constant's sum looks the size up
        check_bound(names, _vma_api("psum"))
    size = _group_size(_named(names), groups, "psum")
    if not traced:
        # A constant is the same on every member of the axis: the sum is size * x (JAX's
        # constant case; so axis_size stays a Python int), its positional axes summed.
        pos = _positional(names)
        outs = [_sum_positional(v, pos) for v in leaves]
        outs = [type(v)(size) * v if dtypes.is_python_scalar(v) else mul(v, const(v, size))
                for v in outs]
    elif groups is None and _typed(names):
        outs = [psum_invariant_p.bind(_varying(v, names), axes=names) for v in leaves]
    else:
        outs = [psum_p.bind(v, axes=names, axis_index_groups=groups) for v in leaves]
    return tree_unflatten(tree, outs)


def pmean(x, axis_name, *, axis_index_groups=None):
    """All-reduce mean of ``x`` (a pytree) over ``axis_name``."""
    x = psum(x, axis_name, axis_index_groups=axis_index_groups)
    names = _names(axis_name)
    n = _group_size(_named(names), _canonical_groups(axis_index_groups), "pmean")
    # JAX counts the members by psum(1, axis_name): a positional axis fails on the scalar
    _sum_positional(1, _positional(names))
    return tree_map(lambda v: v / n, x)


def _pminmax(prim, api):
    def fun(x, axis_name, *, axis_index_groups=None):
        names = _names(axis_name)
        groups = _canonical_groups(axis_index_groups)
        _no_positional_groups(names, groups)
        check_bound(names, _vma_api("psum"))  # JAX's pmax/pmin type theirs as psum's
        _group_size(_named(names), groups, api)
        return _bind_leaves(lambda v: prim.bind(v, axes=names, axis_index_groups=groups), x)

    fun.__name__ = api
    fun.__doc__ = f"All-reduce {api[1:]} of ``x`` (a pytree) over ``axis_name``."
    return fun


pmax = _pminmax(pmax_p, "pmax")
pmin = _pminmax(pmin_p, "pmin")


# ------------------------------------------------------------------------------------------------
# all_gather [all_gather_dimension axis_name axis_index_groups axis_size tiled]


def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_name, axis_index_groups,
                              axis_size, tiled):
    shape = list(x.shape)
    dim = all_gather_dimension
    if tiled:
        if not 0 <= dim < x.ndim:
            raise ValueError(f"all_gather: axis {dim} is out of bounds for tiled gather of "
                             f"{x.str_short(True)}")
        shape[dim] *= axis_size
    else:
        if not 0 <= dim <= x.ndim:
            raise ValueError(f"all_gather: axis {dim} is out of bounds for {x.str_short(True)}")
        shape.insert(dim, axis_size)
    return x.update(shape=tuple(shape))


def _per_batch_element(prim, what, dim_param, x, d, dim, params, untiled_shift):
    """``prim`` (all_gather / psum_scatter) batched over an axis it does not name: it applies
    to each batch element. Its dimension moves past a batch axis before it; a batch axis after
    it moves by ``untiled_shift`` when the untiled op adds or removes a dimension."""
    batching.check_outer_axes(params["axis_name"], what)
    if d is not_mapped:
        return prim.bind(x, **{dim_param: dim}, **params), not_mapped
    if d <= dim:
        dim += 1
    elif not params["tiled"]:
        d += untiled_shift
    return prim.bind(x, **{dim_param: dim}, **params), d


@batching.axis_collective
def _all_gather_batching(axis_data, args, dims, *, all_gather_dimension, axis_name,
                         axis_index_groups, axis_size, tiled):
    (x,), (d,) = args, dims
    dim = all_gather_dimension
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:
        # untiled, the stacked axis it adds comes before a later batch axis
        return _per_batch_element(all_gather_p, "all_gather", "all_gather_dimension", x, d, dim,
                                  params, untiled_shift=+1)
    _no_groups(axis_index_groups, _GROUPS_REFUSED)
    _single_own_name(axis_name)
    n = axis_data.size
    y = batching.bdim_to(x, d, dim, n)  # the batch axis is the gathered axis
    if tiled:
        shape = get_aval(y).shape
        y = reshape(y, shape[:dim] + (n * shape[dim + 1],) + shape[dim + 2:])
    return y, not_mapped


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_name, axis_index_groups,
                          axis_size, tiled):
    return [psum_scatter_p.bind(ct, scatter_dimension=all_gather_dimension,
                                axis_name=axis_name, axis_index_groups=axis_index_groups,
                                axis_size=axis_size, tiled=tiled)]


all_gather_p = Primitive("all_gather")
all_gather_p.def_abstract_eval(_all_gather_abstract_eval)
all_gather_p.def_lowering(_unbound_lowering("all_gather", "axis_name", _real("lower_all_gather")))
all_gather_p.def_batching(_all_gather_batching)
ad.deflinear(all_gather_p, _all_gather_transpose)
all_gather_p.axis_names_of = _axis_name_param


def _canonical_axis(axis, ndim, api):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(with_user_line(f"{api}: axis {axis} is out of bounds for rank {ndim}"))
    return axis % ndim


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Gathers ``x`` (a pytree) from every member of ``axis_name``: stacked along a new axis
    ``axis`` of the result, or concatenated along ``axis`` when ``tiled``."""
    names = _names(axis_name)
    if not names:
        return x
    groups = _canonical_groups(axis_index_groups)
    size = _group_size(names, groups, "all_gather")

    def bind(v):
        v = _varying(v, names)
        ndim = get_aval(v).ndim
        dim = _canonical_axis(axis, ndim if tiled else ndim + 1, "all_gather")
        return all_gather_p.bind(v, all_gather_dimension=dim, axis_name=names,
                                 axis_index_groups=groups, axis_size=size, tiled=bool(tiled))

    return _bind_leaves(bind, x)


# ------------------------------------------------------------------------------------------------
# psum_scatter (JAX's reduce_scatter) [scatter_dimension axis_name axis_index_groups axis_size
# tiled]


def _psum_scatter_abstract_eval(x, *, scatter_dimension, axis_name, axis_index_groups,
                                axis_size, tiled):
    dim = scatter_dimension
    if not 0 <= dim < x.ndim:
        raise ValueError(f"psum_scatter: scatter_dimension {dim} is out of bounds for "
                         f"{x.str_short(True)}")
    shape = list(x.shape)
    if tiled:
        if shape[dim] % axis_size:
            raise ValueError(f"psum_scatter: tiled operand scatter dimension size {shape[dim]} "
                             f"must be divisible by the axis size {axis_size}")
        shape[dim] //= axis_size
    else:
        if shape[dim] != axis_size:
            raise ValueError(f"psum_scatter: operand scatter dimension size {shape[dim]} must "
                             f"match the axis size {axis_size}")
        del shape[dim]
    return x.update(shape=tuple(shape))


@batching.axis_collective
def _psum_scatter_batching(axis_data, args, dims, *, scatter_dimension, axis_name,
                           axis_index_groups, axis_size, tiled):
    (x,), (d,) = args, dims
    dim = scatter_dimension
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:
        # untiled, the scattered axis before a later batch axis is gone
        return _per_batch_element(psum_scatter_p, "psum_scatter", "scatter_dimension", x, d, dim,
                                  params, untiled_shift=-1)
    _no_groups(axis_index_groups, _GROUPS_REFUSED)
    _single_own_name(axis_name)
    n = axis_data.size
    y = mul(x, const(x, n)) if d is not_mapped else reduce_sum(x, (d,))
    if tiled:  # example k keeps chunk k of the scattered axis
        shape = get_aval(y).shape
        y = reshape(y, shape[:dim] + (n, shape[dim] // n) + shape[dim + 1:])
    return y, dim  # ... and untiled, element k: the scattered axis becomes the batch axis


def _psum_scatter_transpose(ct, x, *, scatter_dimension, axis_name, axis_index_groups,
                            axis_size, tiled):
    return [all_gather_p.bind(ct, all_gather_dimension=scatter_dimension, axis_name=axis_name,
                              axis_index_groups=axis_index_groups, axis_size=axis_size,
                              tiled=tiled)]


psum_scatter_p = Primitive("reduce_scatter")  # JAX's name in jaxprs
psum_scatter_p.def_abstract_eval(_psum_scatter_abstract_eval)
psum_scatter_p.def_lowering(
    _unbound_lowering("psum_scatter", "axis_name", _real("lower_psum_scatter")))
psum_scatter_p.def_batching(_psum_scatter_batching)
ad.deflinear(psum_scatter_p, _psum_scatter_transpose)
psum_scatter_p.axis_names_of = _axis_name_param


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """Like ``psum(x, axis_name)``, but member ``i`` keeps only element (``tiled``: chunk)
    ``i`` of the sum along ``scatter_dimension``."""
    names = _names(axis_name)
    if not names:
        return x
    groups = _canonical_groups(axis_index_groups)
    size = _group_size(names, groups, "psum_scatter")

    def bind(v):
        v = _varying(v, names)
        dim = _canonical_axis(scatter_dimension, get_aval(v).ndim, "psum_scatter")
        return psum_scatter_p.bind(v, scatter_dimension=dim, axis_name=names,
                                   axis_index_groups=groups, axis_size=size, tiled=bool(tiled))

    return _bind_leaves(bind, x)


# ------------------------------------------------------------------------------------------------
# ppermute [axis_name perm]


def _ppermute_abstract_eval(x, *, axis_name, perm):
    return x


@batching.axis_collective
def _ppermute_batching(axis_data, args, dims, *, axis_name, perm):
    (x,), (d,) = args, dims
    if axis_data.name not in axis_name:
        batching.check_outer_axes(axis_name, "ppermute")
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    rest = tuple(a for a in axis_name if a != axis_data.name)
    if rest:  # as JAX's rule: the permutation goes on over the other names alone
        return ppermute_p.bind(x, axis_name=rest, perm=perm), d
    n = axis_data.size
    src_of = np.full(n, n, np.int32)  # n: out of bounds, so filled with zeros
    for src, dst in perm:
        src_of[dst] = src
    if d is not_mapped and (src_of < n).all():
        return x, not_mapped  # every member sends the same value
    x = batching.bdim_to(x, d, 0, n) if d is not_mapped else x
    d = 0 if d is not_mapped else d
    shape = get_aval(x).shape
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(i for i in range(len(shape)) if i != d),
        collapsed_slice_dims=(d,), start_index_map=(d,))
    sizes = shape[:d] + (1,) + shape[d + 1:]
    out = gather(x, src_of[:, None], dnums, sizes, mode="fill", fill_value=0)
    return out, d


def _ppermute_transpose(ct, x, *, axis_name, perm):
    return [ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))]


ppermute_p = Primitive("ppermute")
ppermute_p.def_abstract_eval(_ppermute_abstract_eval)
ppermute_p.def_lowering(_unbound_lowering("ppermute", "axis_name", _real("lower_ppermute")))
ppermute_p.def_batching(_ppermute_batching)
ad.deflinear(ppermute_p, _ppermute_transpose)
ppermute_p.axis_names_of = _axis_name_param


def ppermute(x, axis_name, perm):
    """Collective permutation: member ``dst`` receives the ``x`` (a pytree) of member ``src``
    for each pair ``(src, dst)`` of ``perm``; members that receive nothing get zeros."""
    names = _names(axis_name)
    _no_eval_rule(ppermute_p, names)
    check_bound(names, "ppermute")
    size = _group_size(names, None, "ppermute")
    perm = tuple((operator.index(s), operator.index(d)) for s, d in perm)
    srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(with_user_line(
            f"ppermute sources and destinations must be unique, got perm={perm}"))
    if not all(0 <= i < size for i in srcs + dsts):
        raise ValueError(with_user_line(
            f"ppermute perm={perm} has indices out of range for the axis {names} of size "
            f"{size}"))
    return _bind_leaves(
        lambda v: ppermute_p.bind(_varying(v, names), axis_name=names, perm=perm), x)


def pshuffle(x, axis_name, perm):
    """``ppermute`` with ``perm[i]`` the member whose value member ``i`` receives."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(with_user_line(f"`perm` does not represent a permutation: {perm}"))
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ------------------------------------------------------------------------------------------------
# pbroadcast [axis_name source]: every member gets the value of member ``source``. Under vmap
# that is a take; XLA's collective-broadcast has no CPU implementation, so a shard_map on CPU
# refuses it when lowered, as JAX 0.10.2 does (which registers its lowering for GPU only).


@batching.axis_collective
def _pbroadcast_batching(axis_data, args, dims, *, axis_name, source):
    (x,), (d,) = args, dims
    if axis_data.name not in axis_name:
        batching.check_outer_axes(axis_name, "pbroadcast")
        return pbroadcast_p.bind(x, axis_name=axis_name, source=source), d
    if len(axis_name) > 1:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("pbroadcast batcher only supports a single axis")
    if d is not_mapped:
        return x, d
    shape = get_aval(x).shape
    dnums = GatherDimensionNumbers(offset_dims=tuple(i for i in range(len(shape)) if i != d),
                                   collapsed_slice_dims=(d,), start_index_map=(d,))
    idx = np.full((axis_data.size, 1), source, np.int32)
    return gather(x, idx, dnums, shape[:d] + (1,) + shape[d + 1:]), d


def _pbroadcast_transpose(ct, x, *, axis_name, source):
    # the source's cotangent is the sum of everyone's; the others' is zero
    total = psum_p.bind(ct, axes=axis_name, axis_index_groups=None)
    return [select(eq(axis_index(axis_name), np.int32(source)), total, full_like(ct, 0))]


def _pbroadcast_lowering(ctx, x, *, axis_name, source):
    if collectives.manual_mesh_for(ctx, axis_name) is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("MLIR translation rule for primitive 'pbroadcast' not found "
                                  f"for platform {ctx.module_ctx.platform}")
    return _unbound_lowering("pbroadcast", "axis_name")(ctx, x, axis_name=axis_name,
                                                         source=source)


pbroadcast_p = Primitive("pbroadcast")
pbroadcast_p.def_abstract_eval(lambda x, *, axis_name, source: x)
pbroadcast_p.def_lowering(_pbroadcast_lowering)
pbroadcast_p.def_batching(_pbroadcast_batching)
ad.deflinear(pbroadcast_p, _pbroadcast_transpose)
pbroadcast_p.axis_names_of = _axis_name_param


def pbroadcast(x, axis_name, source):
    """Every member along ``axis_name`` gets the ``x`` (a pytree) of member ``source``."""
    names = _names(axis_name)
    _no_eval_rule(pbroadcast_p, names)
    check_bound(names, "ppermute")  # JAX's pbroadcast types its equation as ppermute's
    size = _group_size(names, None, "pbroadcast")
    if not 0 <= operator.index(source) < size:
        raise ValueError(with_user_line(
            f"pbroadcast source {source} is out of range for the axis {names} of size {size}"))
    return _bind_leaves(
        lambda v: pbroadcast_p.bind(v, axis_name=names, source=operator.index(source)), x)


# ------------------------------------------------------------------------------------------------
# all_to_all [axis_name split_axis concat_axis axis_index_groups axis_size tiled]
#
# The primitive is rank-preserving (JAX's tiled form): split_axis is cut into axis_size
# chunks, chunk k goes to member k, which concatenates what it receives along concat_axis in
# member order. The untiled public function adds and removes the unit axes around it.


def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                              axis_size, tiled):
    shape = list(x.shape)
    if not (0 <= split_axis < x.ndim and 0 <= concat_axis < x.ndim):
        raise ValueError(f"all_to_all: split_axis {split_axis} or concat_axis {concat_axis} "
                         f"out of bounds for {x.str_short(True)}")
    if shape[split_axis] % axis_size:
        raise ValueError(f"all_to_all: the size of split_axis ({shape[split_axis]}) must be "
                         f"divisible by the size of the named axis {axis_name} ({axis_size})")
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return x.update(shape=tuple(shape))


@batching.axis_collective
def _all_to_all_batching(axis_data, args, dims, *, axis_name, split_axis, concat_axis,
                         axis_index_groups, axis_size, tiled):
    (x,), (d,) = args, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:
        batching.check_outer_axes(axis_name, "all_to_all")
        if d is not_mapped:
            return all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis,
                                     **params), not_mapped
        return all_to_all_p.bind(x, split_axis=split_axis + (d <= split_axis),
                                 concat_axis=concat_axis + (d <= concat_axis), **params), d
    _no_groups(axis_index_groups, _FEATURE_REQUEST)
    n = axis_data.size
    x = batching.bdim_at_front(x, d, n)  # axis 0: the sending member p
    if len(axis_name) > 1:
        return _all_to_all_several_names(axis_data.name, x, axis_name, split_axis, concat_axis)
    pe = get_aval(x).shape[1:]
    r, s, c = len(pe), split_axis, concat_axis
    chunk = pe[s] // n
    x = reshape(x, (n,) + pe[:s] + (n, chunk) + pe[s + 1:])  # split axis -> (k, chunk)
    labels = ["P"] + [lab for i in range(r) for lab in (["K", i] if i == s else [i])]
    target = ["K"] + [lab for i in range(r) for lab in (["P", i] if i == c else [i])]
    x = transpose(x, [labels.index(lab) for lab in target])
    sizes = [chunk if i == s else pe[i] for i in range(r)]
    out_shape = (n,) + tuple(n * sizes[i] if i == c else sizes[i] for i in range(r))
    return reshape(x, out_shape), 0  # axis 0: the receiving member k


def _all_to_all_several_names(own, x, names, split_axis, concat_axis):
    """JAX's rule for an all_to_all over the vmap axis ``own`` and other names (``x``: batch
    axis in front): the names before ``own`` (major) and after it (minor) exchange their chunks
    through all_to_all over them alone, this axis's chunks move by reshapes, and the received
    chunks, stacked [major, own, minor] (the combined axis's order), fold into concat_axis."""
    n = get_aval(x).shape[0]
    pos = names.index(own)
    major, minor = names[:pos], names[pos + 1:]

    def split(axis, v):  # axis -> (n, size // n)
        shape = get_aval(v).shape
        return reshape(v, shape[:axis] + (n, shape[axis] // n) + shape[axis + 1:])

    def fold(axis, v):  # axes (axis, axis + 1) -> one
        shape = get_aval(v).shape
        return reshape(v, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])

    def exchange(v, sub, s, c):
        size = int(np.prod([axis_size_of(m) for m in sub]))
        return all_to_all_p.bind(v, axis_name=sub, split_axis=s, concat_axis=c,
                                 axis_index_groups=None, axis_size=size, tiled=True)

    x = expand_dims(x, (0, 2))  # [major chunks, sending member, minor chunks, ...]
    s, c = split_axis + 3, concat_axis + 3
    if major:
        x = exchange(x, major, s, 0)
    x = split(s, x)  # axis s: the receiving member
    new_d = s
    c += s <= c
    s += 1
    if minor:
        x = exchange(x, minor, s, 2)
    x = fold(0, fold(0, x))
    c, new_d = c - 2, new_d - 2
    x = fold(c - 1, batching.moveaxis(x, 0, c - 1))
    return x, new_d - 1


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                          axis_size, tiled):
    return [all_to_all_p.bind(ct, axis_name=axis_name, split_axis=concat_axis,
                              concat_axis=split_axis, axis_index_groups=axis_index_groups,
                              axis_size=axis_size, tiled=tiled)]


all_to_all_p = Primitive("all_to_all")
all_to_all_p.def_abstract_eval(_all_to_all_abstract_eval)
all_to_all_p.def_lowering(
    _unbound_lowering("all_to_all", "axis_name", _real("lower_all_to_all")))
all_to_all_p.def_batching(_all_to_all_batching)
ad.deflinear(all_to_all_p, _all_to_all_transpose)
all_to_all_p.axis_names_of = _axis_name_param


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swaps the mapped axis ``axis_name`` with the unmapped axis ``axis`` of ``x`` (a
    pytree): ``all_to_all`` splitting and concatenating at ``axis``."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Splits ``split_axis`` of ``x`` (a pytree) into one chunk per member of ``axis_name``,
    sends chunk ``k`` to member ``k``, and concatenates (``tiled``) or stacks the received
    chunks along ``concat_axis`` in member order."""
    names = _names(axis_name)
    groups = _canonical_groups(axis_index_groups)
    size = _group_size(names, groups, "all_to_all")

    def bind(v):
        v = _varying(v, names)
        ndim = get_aval(v).ndim
        s = _canonical_axis(split_axis, ndim, "all_to_all")
        c = _canonical_axis(concat_axis, ndim, "all_to_all")
        shape = get_aval(v).shape
        if tiled:
            if shape[s] % size:
                raise ValueError(with_user_line(
                    f"The size of all_to_all split_axis ({shape[s]}) has to be divisible by "
                    f"the size of the named axis {axis_name} ({size})"))
        else:
            if shape[s] != size:
                raise ValueError(with_user_line(
                    "all_to_all requires the size of the mapped axis axis_name to equal "
                    f"x.shape[split_axis], but they are {size} and {shape[s]} respectively."))
            if s < c:
                c += 1  # concat_axis is a position after split_axis is removed
                v = expand_dims(v, (c,))
            elif s > c:
                v = expand_dims(v, (c,))
                s += 1
        out = all_to_all_p.bind(v, axis_name=names, split_axis=s, concat_axis=c,
                                axis_index_groups=groups, axis_size=size, tiled=bool(tiled))
        if not tiled and s != c:
            out = squeeze(out, (s,))
        return out

    return _bind_leaves(bind, x)


# ------------------------------------------------------------------------------------------------
# axis_index [axis_name], axis_size


def _axis_index_abstract_eval(*, axis_name):
    # differs along its axis (when check_vma types that axis)
    return ShapedArray((), np.int32, vma={axis_name} & core.vma_axes())


@batching.axis_collective
def _axis_index_batching(axis_data, args, dims, *, axis_name):
    if axis_data.name != axis_name:
        batching.check_outer_axes((axis_name,), "axis_index")
        return axis_index_p.bind(axis_name=axis_name), not_mapped
    return iota(np.int32, axis_data.size), 0


axis_index_p = Primitive("axis_index")
axis_index_p.def_abstract_eval(_axis_index_abstract_eval)
axis_index_p.def_lowering(
    _unbound_lowering("axis_index", "axis_name", _real("lower_axis_index")))
axis_index_p.def_batching(_axis_index_batching)
ad.defjvp_zero(axis_index_p)
axis_index_p.axis_names_of = lambda params: (params["axis_name"],)
axis_index_p.own_vma = True


def axis_index(axis_name):
    """This member's index along ``axis_name`` (int32); for a tuple of names, the index in
    their row-major product."""
    names = _names(axis_name)
    check_bound(names, "axis_index")
    if not isinstance(axis_name, (tuple, list)):
        return axis_index_p.bind(axis_name=axis_name)
    index, inner = np.int32(0), 1
    for name in reversed(names):
        index = add(index, mul(axis_index(name), np.int32(inner)))
        inner *= axis_size_of(name)
    return index


def axis_size(axis_name):
    """The size of the named axis (the product of the sizes for a tuple of names), a Python
    int: it is known while tracing."""
    return _group_size(_names(axis_name), None, "axis_size")
