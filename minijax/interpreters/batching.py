"""vmap's interpreter: ``BatchTrace`` and the helpers batching rules are written with.

A ``BatchTracer`` stands for one example of a batch: it holds the whole batched value ``val``
(an array or a tracer of the parent trace) and ``batch_dim``, the axis of ``val`` that is
mapped, or ``not_mapped``. Its ``aval`` is the per-example type (``val``'s without that axis),
so user code sees the shapes it was written for. Any value that is not one of this trace's
tracers (constants, closed-over arrays, tracers of outer traces) is unbatched.

Batching rule API (``prim.def_batching(rule)``), as in JAX::

    rule(batched_args, batch_dims, **params) -> (out, out_dim)
    rule(batched_args, batch_dims, **params) -> (outs, out_dims)  # multiple_results: lists

``batched_args`` are the operands as values of the *parent* trace (arrays or parent tracers);
``batch_dims[i]`` is the mapped axis of ``batched_args[i]`` or ``not_mapped`` (None). A rule is
only called when at least one operand is mapped, so the batch size is always
``batched_args[i].shape[batch_dims[i]]`` for a mapped ``i`` (``axis_size(...)`` finds it). The
rule runs with the parent trace current, so it computes with ordinary ``lax`` calls; the
per-example operand types have already been checked by the primitive's abstract-eval rule.
``out_dim`` may be ``not_mapped`` when the result does not depend on the batch.

Rules that need the named axis itself (control flow, collectives) are marked with
``@needs_axis_data`` and called as ``rule(axis_data, batched_args, batch_dims, **params)``
with ``axis_data = AxisData(name, size, spmd_name)``. Collectives (``minijax/lax/parallel.py``)
are marked ``@axis_collective``: their rule is called even when no operand is mapped, since a
collective over the vmap's own axis acts on unbatched values too (``psum(1., 'i')`` is the
axis size) and ``axis_index`` has no operand.

Named axes: ``axis_size_of(name)`` is the size of the innermost axis called ``name`` bound
around the current trace — each trace on the chain from the current one to the bottom lists
the axes it binds in ``bound_axes`` (a vmap with an ``axis_name`` binds one) — or JAX's
NameError naming the unbound axis. A transformation that binds names without being a
trace (shard_map's manual region) can register them with ``extend_axis_env``.

``batch_jaxpr`` batches a whole jaxpr (the bodies of control flow), ``batch_open`` the open
jaxpr of a call-like primitive under an anonymous vmap (see ``partial_eval``'s docstring for
the convention on jaxprs).

Rules never loop over the batch: the batch axis becomes an axis of the primitive's operands
(a batch dimension of ``dot_general``, one more reduced-over or carried-along axis, ...).
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

import numpy as np

from minijax import core, dtypes
from minijax.core import ClosedJaxpr, Tracer, abstract_eval, escaped_tracer_error, get_aval
from minijax.interpreters import lax_ops
from minijax.interpreters.leaks import check_leaks
from minijax.interpreters.partial_eval import hoist_consts, trace_to_jaxpr
from minijax.interpreters.rule_views import RuleView, adapt_axis_batcher, adapt_fancy_batcher
from minijax.interpreters.walk import iter_eqns, sub_jaxprs
from minijax.source_info import note_user_line, user_frame, with_user_line

not_mapped = None


class AxisData(NamedTuple):
    name: object  # the vmap's axis_name (None when unnamed)
    size: int
    spmd_name: object  # spmd_axis_name, for the sharding issue


# JAX's registries, as views onto ``prim.batching`` (rule_views.py). A rule is called only
# when some operand is mapped; otherwise the primitive runs unbatched, as in JAX.
primitive_batchers = RuleView("batching", name="batching.primitive_batchers")
axis_primitive_batchers = RuleView("batching", adapt_axis_batcher,
                                   name="batching.axis_primitive_batchers")
fancy_primitive_batchers = RuleView("batching", adapt_fancy_batcher,
                                    name="batching.fancy_primitive_batchers")


def needs_axis_data(rule):
    rule.needs_axis_data = True
    return rule


def axis_collective(rule):
    """A collective's rule: needs the axis data and runs even when no operand is mapped."""
    rule.needs_axis_data = True
    rule.always_batch = True
    return rule


# ------------------------------------------------------------------------------------------------
# Named axes: which are bound here, and their sizes

_axis_env = []  # (name, size) pairs registered with extend_axis_env, innermost last


@contextlib.contextmanager
def extend_axis_env(names_sizes):
    """Binds ``(name, size)`` pairs while the block runs (for shard_map's mesh axes)."""
    names_sizes = list(names_sizes)
    _axis_env.extend(names_sizes)
    try:
        yield
    finally:
        del _axis_env[len(_axis_env) - len(names_sizes):]


def bound_axes():
    """``[(name, size)]`` of every named axis bound around the current trace, innermost
    first: the traces' ``bound_axes`` from the current one down, then ``extend_axis_env``."""
    found = []
    trace = core.current_trace()
    while trace is not None:
        found.extend(getattr(trace, "bound_axes", ()))
        trace = trace.parent
    found.extend(reversed(_axis_env))
    return found


def axis_size_of(name):
    """The size of the innermost axis called ``name``; JAX 0.10.2's NameError (its axis
    environment's words; the user's line as a note) if nothing binds it."""
    for n, size in bound_axes():
        if n == name:
            return size
    e = NameError(f"unbound axis name: {name}")
    note_user_line(e)
    raise e


# ------------------------------------------------------------------------------------------------
# The trace


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim", "_aval")

    def __init__(self, trace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim
        self._aval = None

    @property
    def aval(self):
        aval = self._aval
        if aval is None:  # computed once: user code reads .shape/.dtype often
            aval = get_aval(self.val)
            d = self.batch_dim
            if d is not not_mapped:
                aval = aval.drop_dim(d)
            self._aval = aval
        return aval

    def __repr__(self):  # JAX 0.10.2's: the example's type and the batched value's
        return f"VmapTracer(aval={self.aval}, batched={get_aval(self.val)})"


class BatchTrace(core.Trace):
    """One vmap: ``axis_size`` examples along the axis named ``axis_name``."""

    lifts_to_parent = True  # a constant is unbatched: the parent's value

    def __init__(self, parent, axis_size, axis_name=None, spmd_axis_name=None):
        super().__init__(parent)
        self.axis_data = AxisData(axis_name, axis_size, spmd_axis_name)
        self.source = user_frame()

    axis_name = property(lambda self: self.axis_data.name)
    axis_size = property(lambda self: self.axis_data.size)

    @property
    def bound_axes(self):
        name = self.axis_data.name
        return () if name is None else ((name, self.axis_data.size),)

    def to_batch_info(self, x):
        """``(value at the parent level, batch dim)`` of any operand."""
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.batch_dim
        if isinstance(x, Tracer) and not x._trace.valid:
            raise escaped_tracer_error(x)
        return x, not_mapped

    def process_primitive(self, prim, args, params):
        vals, dims = [], []
        for x in args:
            v, d = self.to_batch_info(x)
            vals.append(v)
            dims.append(d)
        prev = core.swap_current_trace(self.parent)  # rules (and unbatched ops) bind underneath
        try:
            rule = prim.batching
            if all(d is not_mapped for d in dims) and not getattr(rule, "always_batch", False):
                if self.axis_data.name is None or not _uses_axis(params, self.axis_data.name):
                    return prim.bind(*vals, **params)
                # A nested jaxpr (scan body, cond branch) has a collective over this axis:
                # unbatched operands or not, the rule must run to compute it.
                if not getattr(rule, "needs_axis_data", False):
                    # internal guard (no JAX 0.10.2 twin): public nested-jaxpr rules take axis data
                    raise NotImplementedError(with_user_line(
                        f"'{prim.name}' holds a collective over the vmap axis "
                        f"{self.axis_data.name!r}, which vmap cannot batch yet (its batching "
                        "rule does not carry the axis name)"))
            if rule is None:
                raise prim.missing_rule("Batching rule")
            # The per-example types must be valid for the primitive: checked here, so a shape
            # error names the shapes the user wrote, not the batched ones a rule builds.
            try:
                expected = abstract_eval(prim, [x.aval if isinstance(x, BatchTracer)
                                                and x._trace is self else get_aval(x)
                                                for x in args], params)
            except (TypeError, ValueError):
                lenient = getattr(rule, "accepts_invalid", None)
                if (self.axis_data.size != 0 and not _maps_empty_axis(vals)
                        and not (lenient and lenient(vals, dims))):
                    raise
                # No example exists (here or in an enclosing vmap), or the rule takes per-example types the primitive does
                # not (``rule.accepts_invalid(vals, dims)``): JAX checks only the batched
                # operation (an index into an empty axis gathers nothing), so the rule
                # decides; its result is unchecked.
                expected = None
            if getattr(rule, "needs_axis_data", False):
                out, out_dim = rule(self.axis_data, vals, dims, **params)
            else:
                out, out_dim = rule(vals, dims, **params)
        finally:
            core.swap_current_trace(prev)
        if prim.multiple_results:
            outs = [self.wrap(o, d) for o, d in zip(out, out_dim)]
            if expected is not None:
                _check_rule_result(prim, outs, expected)
            return outs
        out = self.wrap(out, out_dim)
        if expected is not None:
            _check_rule_result(prim, [out], [expected])
        return out

    def wrap(self, val, dim):
        return val if dim is not_mapped else BatchTracer(self, val, dim)


def _maps_empty_axis(vals):
    """Whether an enclosing vmap of size 0 maps one of ``vals`` (parent-level values): the
    batched operation then has no example, and JAX checks only its full, empty shapes."""
    for v in vals:
        while isinstance(v, BatchTracer):
            if v.batch_dim is not not_mapped and v._trace.axis_data.size == 0:
                return True
            v = v.val
    return False


def _uses_axis(params, name):
    """Whether a jaxpr among ``params`` (nested ones too) has a collective over ``name``;
    collective primitives say which names they use with ``prim.axis_names_of(params)``."""
    for _, sub in sub_jaxprs(params):
        for eqn in iter_eqns(sub):
            names_of = eqn.primitive.axis_names_of
            if names_of is not None and name in names_of(eqn.params):
                return True
    return False


def check_outer_axes(names, api):
    """For a collective's rule passing it through to an outer vmap: each of ``names`` must be
    bound around the rule. One that is not belongs to a vmap whose own rule is running (a
    custom_jvp/custom_vjp/checkpoint body re-batched by an anonymous vmap): not supported."""
    bound = {n for n, _ in bound_axes()}
    for n in names:
        if n not in bound:
            # internal guard (no JAX 0.10.2 twin): no public call found reaching it
            raise NotImplementedError(with_user_line(
                f"{api} over the vmap axis {n!r} inside a function that vmap re-batches "
                "without its axis name (custom_jvp, custom_vjp or checkpoint) is not "
                "supported yet"))


def _check_rule_result(prim, outs, expected):
    """A rule must give each example what the primitive gives it (shape, dtype, weak type):
    a cheap check that turns a rule bug into a clear error instead of a wrong program."""
    got = [get_aval(o) for o in outs]
    if getattr(prim.batching, "values_keep_weak_types", False):
        # the rule's results are weak as the values make them, not as the primitive's
        # abstract eval says, as in JAX: an eager impl (JAX's remat_impl evaluates the body;
        # add_any's impl is lax.add) or a batched-index cond's select_n over all branches.
        # A strong operand where the abstract eval says weak gives a strong result
        expected = [e.update(weak_type=g.weak_type) for e, g in zip(expected, got)]
    if got != list(expected):
        device = core.MemorySpace.Device
        if [a.update(memory_space=device) for a in got] == [
                a.update(memory_space=device) for a in expected]:
            # JAX's vmap checks no types, and memory spaces may differ: the memory rule types
            # an example (a scalar) of a batch in host memory in device memory (it skips rank
            # 0), while the batch's result stays where the batch is, as in JAX
            return
        if [a.update(vma=frozenset()) for a in got] == [
                a.update(vma=frozenset()) for a in expected]:
            if all(g.vma >= e.vma for g, e in zip(got, expected)):
                # Inside shard_map the batched results may vary over more manual axes than
                # the primitive types them with, as JAX's values do (its vmap checks no
                # types): a batched-index cond's select_n takes the index's axes, and so
                # does a jit, checkpoint or while_loop around it (s22022-124). A scan's
                # carry refuses it, in the scan's batching rule, as JAX's abstract eval.
                return
            raise ValueError(with_user_line(
                f"vmap of '{prim.name}' inside shard_map: the batched computation's results "
                f"have the varying manual axes {[sorted(a.vma) for a in got]} but the "
                f"primitive's results have {[sorted(a.vma) for a in expected]} (a batched "
                "operand varies over more axes than the others). Cast the operands with "
                "`lax.pcast(..., to='varying')` so they vary alike."))
        raise AssertionError(
            f"internal error: the batching rule of '{prim.name}' produced per-example types "
            f"{[a.str_short(True) for a in got]} (weak: {[a.weak_type for a in got]}) but the "
            f"primitive gives {[a.str_short(True) for a in expected]} (weak: "
            f"{[a.weak_type for a in expected]}). Please report this."
        )


# ------------------------------------------------------------------------------------------------
# Batching a function of flat values, and a whole jaxpr


def batch_flat(fun, args, dims, axis_data):
    """``fun`` (on flat lists of values) applied to a batch: ``args`` are mapped along ``dims``
    (``not_mapped`` for an unbatched one). Returns ``(outs, out_dims)`` at the level of the
    current trace, each output with its batch axis or ``not_mapped``. The interpreter's entry
    for code below the public ``vmap`` (which adds pytrees, ``in_axes``/``out_axes`` and its
    error messages)."""
    trace = BatchTrace(core.current_trace(), axis_data.size, axis_data.name,
                       axis_data.spmd_name)
    tracers = [x if d is not_mapped else BatchTracer(trace, x, d) for x, d in zip(args, dims)]
    try:
        with core.set_current_trace(trace):
            outs = fun(*tracers)
        infos = [trace.to_batch_info(o) for o in outs]
    finally:
        trace.invalidate()  # a tracer that escaped now raises UnexpectedTracerError
    del tracers, outs  # the leak check counts every tracer still referenced
    check_leaks(trace)
    return [v for v, _ in infos], [d for _, d in infos]



def batch_jaxpr(closed, axis_data, in_batched, force_out):
    """``closed`` on batched values: inputs marked in ``in_batched`` have the batch at axis 0,
    and outputs come out with the batch at axis 0 where batched (or forced by ``force_out``).
    Returns ``(batched_closed, out_batched)``; see ``partial_eval``'s docstring for the
    convention on consts."""
    size = axis_data.size
    in_avals = [a.update(shape=(size, *a.shape)) if b else a
                for a, b in zip(closed.in_avals, in_batched)]
    in_dims = [0 if b else not_mapped for b in in_batched]
    found = []

    def fn(*args):
        vals, dims = batch_flat(core.jaxpr_as_fun(closed), args, in_dims, axis_data)
        out_b = [d is not not_mapped or f for d, f in zip(dims, force_out)]
        found[:] = out_b
        return [bdim_to(v, d, 0, size) if b else v for v, d, b in zip(vals, dims, out_b)]

    return trace_to_jaxpr(fn, in_avals), list(found)


def batch_jaxpr_dims(closed, axis_data, in_dims, outs_to_front=False):
    """``closed`` on batched values with their batch at ``in_dims`` (an axis or ``not_mapped``
    each), the callee choosing where each output's batch lies, as JAX's ``batch_jaxpr2`` for
    jit: no transposes around the call, so a split operand keeps its layout inside (and
    Shardy's propagation sees JAX's program). With ``outs_to_front``, each batched output's
    batch is moved to axis 0 inside the jaxpr, as JAX's ``batch_jaxpr_axes`` with
    ``zero_if_mapped`` outputs (its remat rule). Returns ``(batched_closed, out_dims)``."""
    size = axis_data.size
    in_avals = [a if d is not_mapped else a.update(shape=(*a.shape[:d], size, *a.shape[d:]))
                for a, d in zip(closed.in_avals, in_dims)]
    found = []

    def fn(*args):
        vals, dims = batch_flat(core.jaxpr_as_fun(closed), args, in_dims, axis_data)
        if outs_to_front:
            vals = [v if d is not_mapped else moveaxis(v, d, 0) for v, d in zip(vals, dims)]
            dims = [d if d is not_mapped else 0 for d in dims]
        found[:] = dims
        return vals

    return trace_to_jaxpr(fn, in_avals), list(found)


def batch_open(jaxpr, args, dims, instantiate=True, axis_data=None):
    """For the batching rule of a primitive holding the open ``jaxpr``, by an anonymous vmap
    (or the vmap's own ``axis_data``, so collectives in the body over its axis resolve):
    ``(batched_jaxpr, consts, args, in_axes, out_dims)``, the batched jaxpr open (its consts are
    leading operands), the mapped ``args`` moved to axis 0 (``in_axes``: 0 or None per
    operand), and the outputs' batch dims: 0, or ``not_mapped`` for an output that does not
    depend on the batch unless ``instantiate`` (then it is broadcast and mapped too)."""
    if axis_data is None:
        axis_data = AxisData(None, axis_size(args, dims), None)
    args = [x if d is not_mapped else moveaxis(x, d, 0) for x, d in zip(args, dims)]
    in_batched = [d is not not_mapped for d in dims]
    batched, out_batched = batch_jaxpr(ClosedJaxpr(jaxpr, []), axis_data, in_batched,
                                       [instantiate] * len(jaxpr.outvars))
    new_jaxpr, consts = hoist_consts(batched)
    return (new_jaxpr, consts, args, tuple(0 if b else None for b in in_batched),
            [0 if b else not_mapped for b in out_batched])


# ------------------------------------------------------------------------------------------------
# Helpers for rules (lax's operations come through ``lax_ops``: lax imports this module).


def axis_size(args, dims):
    """The batch size, from any mapped operand."""
    for x, d in zip(args, dims):
        if d is not not_mapped:
            return get_aval(x).shape[d]
    raise AssertionError("a batching rule was called with no mapped operand")


def ndim(x):
    return get_aval(x).ndim


def moveaxis(x, src, dst):
    """``x`` with axis ``src`` moved to position ``dst`` (no equation when they agree)."""
    if src == dst:
        return x
    perm = [i for i in range(ndim(x)) if i != src]
    perm.insert(dst, src)
    return lax_ops.transpose(x, perm)


def fold_batch(bind, x, bdim, at, joins_next=False):
    """JAX's batching of a solve whose operator is unbatched: each column (or row) of the
    right-hand side ``x`` is solved alone, so the batch widens it and ``bind`` runs once. The
    batch axis moves to ``at`` and merges with the axis before it (after it when
    ``joins_next``); returns ``bind``'s result unfolded, and its batch axis ``at``."""
    x = moveaxis(x, bdim, at)
    lo = at if joins_next else at - 1
    shape = get_aval(x).shape
    out = bind(lax_ops.reshape(x, (*shape[:lo], shape[lo] * shape[lo + 1], *shape[lo + 2:])))
    return lax_ops.reshape(out, shape), at


def broadcast_batched(x, size, dim, np_dims=True):
    """An unbatched ``x`` with a new axis of ``size`` at ``dim`` (a ``broadcast_in_dim``).
    ``np_dims``: the kept axes as NumPy ints, as JAX's ``batching.broadcast`` (np.delete) gives
    them, so its jaxprs print ``broadcast_dimensions=(np.int64(1),)``; False for the rules JAX
    writes with ``lax.broadcast`` or Python ints (concatenate, stack, sort, pad)."""
    aval = get_aval(x)
    shape = list(aval.shape)
    shape.insert(dim, size)
    if aval.dtype == dtypes.float0:  # a symbolic-zero cotangent: no device array to broadcast
        return dtypes.float0_zeros(shape)
    kept = np.delete(np.arange(len(shape)), dim)
    return lax_ops.broadcast_in_dim(x, shape, tuple(kept if np_dims else kept.tolist()))


def bdim_to(x, bdim, dst, size, np_dims=True):
    """``x`` with its batch axis at ``dst``: moved there, or broadcast when not mapped."""
    if bdim is not_mapped:
        return broadcast_batched(x, size, dst, np_dims)
    return moveaxis(x, bdim, dst)


def bdim_at_front(x, bdim, size, np_dims=True):
    return bdim_to(x, bdim, 0, size, np_dims)


def to_val_axis(axis, bdim):
    """The axis of the batched value for per-example ``axis`` (it shifts past the batch axis)."""
    return axis + (axis >= bdim)


# ------------------------------------------------------------------------------------------------
# Rules shared by families


def elementwise_rule(prim, scalar_ok=None, size1_ok=True):
    """The rule for an elementwise primitive: operands of one shape (up to size-1 axes, which
    the primitive broadcasts), where some may be rank 0.

    Operands batched along one axis with one shape are bound as they are. Otherwise, as JAX's
    broadcast batcher, every batch axis moves to the front (XLA's rewrites then see JAX's
    layout: ``x * convert(mask)`` becomes a select only where the mask is not transposed);
    a batched per-example scalar is broadcast along it; an unbatched full-rank operand gets
    a size-1 batch axis that the primitive broadcasts (JAX's batcher: XLA then sees the
    broadcast inside the op, where ``x / broadcast(y)`` may become ``x * (1 / y)``), or, where
    the primitive wants equal shapes (``size1_ok`` False), is broadcast to the batched shape.
    An unbatched rank-0 operand stays as it is where the primitive broadcasts rank 0 itself:
    ``scalar_ok(i)`` says which operand positions do (default: all).
    """

    def rule(args, dims, **params):
        size = axis_size(args, dims)
        shapes = [get_aval(x).shape for x in args]
        ranks = [len(s) - (d is not not_mapped) for s, d in zip(shapes, dims)]
        rank = max(ranks)
        if any(0 < r < rank for r in ranks):
            return _pad_ranks_at_end(prim, args, dims, rank, params), 0
        out_dim, shape = next((d, s) for d, s in zip(dims, shapes) if d is not not_mapped)
        if all(
            (d == out_dim and s == shape) or (d is not_mapped and r == 0 and _ok(scalar_ok, i))
            for i, (d, r, s) in enumerate(zip(dims, ranks, shapes))
        ):  # the common case: nothing to move or broadcast
            return prim.bind(*args, **params), out_dim
        out_dim = 0
        pe_shape = _per_example_shape(args, dims, ranks, rank)
        out_shape = pe_shape[:out_dim] + (size,) + pe_shape[out_dim:]
        new = []
        for i, (x, d, r) in enumerate(zip(args, dims, ranks)):
            if d is not_mapped:
                if r == 0 and _ok(scalar_ok, i):
                    new.append(x)
                elif r == 0:
                    new.append(lax_ops.broadcast_in_dim(x, out_shape, ()))
                else:  # JAX's bdim_at_front: a new batch axis of 1 (of the batch's size)
                    new.append(broadcast_batched(x, 1 if size1_ok else size, out_dim))
            else:
                new.append(moveaxis(x, d, out_dim))
        # then, as JAX's _handle_scalar_broadcasting, a per-example scalar beside full-rank
        # operands gets size-1 axes after its batch axis for the primitive to broadcast
        for i, (d, r) in enumerate(zip(dims, ranks)):
            if d is not not_mapped and r < rank:
                new[i] = lax_ops.broadcast_in_dim(
                    new[i], (size,) + (1,) * rank if size1_ok else out_shape, (out_dim,))
        return prim.bind(*new, **params), out_dim

    rule.accepts_invalid = _jax_pads_ranks
    return rule


def _jax_pads_ranks(args, dims):
    """Whether per-example operands of different ranks are JAX's to compute: its broadcast
    batcher pads a batched lower-rank operand with trailing size-1 axes (so vmap takes
    ``max(f32[1,1], f32[3])`` per example, which lax refuses outside vmap). An unbatched
    lower-rank operand only gets the size-1 batch axis, and the bind one level up decides:
    lax refuses its rank, but an enclosing vmap that maps it pads it in turn (JAX computes
    ``vmap(vmap(rem, (None, 0)), (0, 0))`` of f32[2,3] and f32[2,4,1,3])."""
    ranks = [ndim(x) - (d is not not_mapped) for x, d in zip(args, dims)]
    return any(0 < r < max(ranks) for r in ranks)


def _pad_ranks_at_end(prim, args, dims, rank, params):
    """JAX's broadcast batcher: batch axes to the front (an unbatched operand gets a size-1
    axis there), batched lower-rank operands padded at the end; size-1 axes then broadcast. An
    unbatched lower-rank operand is not padded: the primitive refuses it, as JAX's does, even
    over an empty batch, unless an enclosing vmap maps it (it is then padded there)."""
    new = []
    for x, d in zip(args, dims):
        if ndim(x) == 0:
            new.append(x)
            continue
        x = lax_ops.reshape(x, (1, *get_aval(x).shape)) if d is not_mapped else moveaxis(x, d, 0)
        shape = get_aval(x).shape
        new.append(x if d is not_mapped or len(shape) == rank + 1 else
                   lax_ops.reshape(x, shape + (1,) * (rank + 1 - len(shape))))
    return prim.bind(*new, **params)


def _ok(scalar_ok, i):
    return scalar_ok is None or scalar_ok(i)


def _per_example_shape(args, dims, ranks, rank):
    """The per-example result shape: the full-rank operands' shapes (batch axis dropped)
    broadcast over their size-1 axes."""
    shapes = []
    for x, d, r in zip(args, dims, ranks):
        if r == rank:
            shape = get_aval(x).shape
            shapes.append(shape if d is not_mapped else shape[:d] + shape[d + 1 :])
    # A size-1 axis takes the other operands' size, 0 included (so not ``max``).
    return tuple(next((n for n in sizes if n != 1), 1) for sizes in zip(*shapes))


def reduction_rule(prim, param="axes"):
    """For one-operand primitives whose ``param`` lists axes that the result drops (squeeze;
    the reductions batch as JAX's ``defreducer``, lax/reductions.py): the batch axis is one
    more kept axis."""

    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        axes = tuple(to_val_axis(a, d) for a in params[param])
        params[param] = axes
        return prim.bind(x, **params), d - sum(a < d for a in axes)

    return rule


def axis_param_rule(prim, param="axis"):
    """For one-operand primitives whose ``param`` names per-example axes (an int or a tuple)
    and whose result keeps the operand's layout (cumulative ops, top_k, rev): the axes shift
    past the batch axis, which stays where it is."""

    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        axes = params[param]
        if isinstance(axes, tuple):
            params[param] = tuple(to_val_axis(a, d) for a in axes)
        else:
            params[param] = to_val_axis(axes, d)
        out = prim.bind(x, **params)
        return (out, [d] * len(out)) if prim.multiple_results else (out, d)

    return rule


def never_batched_rule(prim):
    """For primitives without operands (``iota``): vmap never calls a rule for them, since a
    primitive whose operands are all unbatched runs unbatched."""

    def rule(args, dims, **params):
        raise AssertionError(f"{prim.name} has no operands and cannot be batched")

    return rule
