"""``checkpoint`` / ``remat``: trade memory for recomputation in reverse-mode differentiation.

``checkpoint(f)`` binds one ``checkpoint`` primitive holding ``f``'s jaxpr. Its rules:

- JVP: the JVP of the jaxpr, as another ``checkpoint`` equation (``differentiated`` kept).
- Partial evaluation (how ``linearize``, hence ``vjp``/``grad``, splits it): equations whose
  operands are all known run now, and the staged (tangent) part becomes a ``checkpoint``
  equation that takes as residuals only the checkpoint's known inputs and the outputs of
  equations the ``policy`` calls saveable. Every other known value the tangent part needs is
  *recomputed* inside it: those equations are copied into the staged jaxpr. A nested ``jit``
  is split the same way into a known ``jit`` and a staged ``jit`` (JAX's rule for jit), so
  each still runs as one compiled call and the policy sees into it.
- Transpose: the transposed jaxpr, itself wrapped in a ``checkpoint`` equation, so the
  backward pass shows (and XLA keeps) the recomputation as one unit.
- Lowering: inline; with ``prevent_cse`` the differentiated equation's operands go through an
  ``optimization_barrier``, so XLA cannot merge the recomputation with the forward pass's
  copy of the same values (which would keep them alive and undo the memory saving).

Policies are JAX's: ``policy(prim, *avals_in, **params)`` says whether an equation's outputs
may be saved (a bool, or ``Saveable`` / ``Recompute`` / ``Offloadable``). The default (None)
saves nothing but the inputs. ``checkpoint_name(x, name)`` binds the identity primitive
``name``, which the name-based policies look for.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import (
    ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Primitive, Var, WeakScalar, get_aval, jaxpr_as_fun)
from minijax.interpreters import ad
from minijax.interpreters.ad import UndefinedPrimal, Zero
from minijax.interpreters.batching import batch_jaxpr_dims, needs_axis_data
from minijax.interpreters.calls import eval_open, lower_open
from minijax.interpreters.partial_eval import (
    KnownStagedSplit,
    PartialEvalTrace,
    dce_eqns,
    dce_jaxpr,
    dce_jaxpr_used,
    dce_rules,
    hoist_consts,
    in_linearization,
    partial_eval_jaxpr,
    split_known_staged,
    trace_open,
    trace_to_jaxpr,
)
from minijax.caches import BoundedCache
from minijax.interpreters.structure import structure_key
from minijax.lax.control_flow.common import keep
from minijax.jitting.pjit import pjit_p
from minijax.lax.convert import reduce_precision_p
from minijax.lax.sharding_constraint import device_put_p
from minijax.lowering import backends
from minijax.source_info import wraps
from minijax.tree_util import _registry, tree_map
from minijax.lax import sharding_rules

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "remat"]


# ------------------------------------------------------------------------------------------------
# Policies


class RecomputeType:
    """A policy's answer: recompute this value in the backward pass."""


class SaveableType:
    """A policy's answer: save this value for the backward pass."""


Recompute = RecomputeType()
Saveable = SaveableType()


class Offloadable(typing.NamedTuple):
    """A policy's answer: save this value, moved from memory ``src`` to ``dst`` in between
    (``"device"`` / ``"pinned_host"``; checkpoint's partial evaluation stages the moves)."""
    src: str
    dst: str


def _saves(answer):
    """Whether a policy's answer (a bool, Recompute, Saveable or Offloadable) saves."""
    if isinstance(answer, (SaveableType, Offloadable)):
        return True
    if isinstance(answer, RecomputeType):
        return False
    return bool(answer)


def everything_saveable(*_, **__):
    return True


def nothing_saveable(*_, **__):
    return False


def dots_saveable(prim, *_, **__):
    return prim.name in ("dot_general", "conv_general_dilated")


def dots_with_no_batch_dims_saveable(prim, *_, **params):
    """Matrix products without batch dimensions (a useful heuristic for transformers: save
    the weight products, recompute the per-head attention products)."""
    if prim.name != "dot_general":
        return False
    (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
    return not lhs_batch and not rhs_batch


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """:func:`dots_with_no_batch_dims_saveable`, offloading the saved products."""
    def policy(prim, *avals, **params):
        if dots_with_no_batch_dims_saveable(prim, *avals, **params):
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_anything_except_these_names(*names_not_to_save):
    """Saves every value (JAX 0.10.2's policy ignores the names too)."""
    return everything_saveable


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    saveable_names: frozenset

    def __call__(self, prim, *_, **params):
        return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    names: frozenset

    def __call__(self, prim, *_, **params):
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names_which_can_be_saved):
    """Saves only values named (:func:`checkpoint_name`) with one of the names given."""
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save):
    """Saves only named values, except those with the names given."""
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst):
    """:func:`save_only_these_names`, offloading the values of the second list of names."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    intersection = saved & offloaded
    if intersection:
        raise ValueError(
            "The names should be exclusive and should not intersect in"
            " `names_which_can_be_saved` and `names_which_can_be_offloaded`. Got"
            f" names_which_can_be_saved={saved},"
            f" names_which_can_be_offloaded={offloaded} and the"
            f" intersection={intersection}")

    def policy(prim, *_, **params):
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1, policy_2):
    """A value is saved if either policy saves it (both must answer with bools)."""
    def policy(prim, *args, **params):
        out1 = policy_1(prim, *args, **params)
        out2 = policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(
                "The return value of the policies should be a boolean. Got:"
                f" {out1} and {out2}. Please write a custom policy function directly,"
                " rather than using this helper function.")
        return out1 or out2
    return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
)


# ------------------------------------------------------------------------------------------------
# checkpoint_name: an identity the policies see by its name


def checkpoint_name(x, name):
    """``x`` (a pytree of arrays) unchanged, each leaf named ``name`` for the policies."""
    return tree_map(functools.partial(name_p.bind, name=name), x)


name_p = Primitive("name")
name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda x, *, name: x)
name_p.def_lowering(lambda ctx, x, *, name: x)
name_p.def_batching(lambda args, dims, *, name: (name_p.bind(args[0], name=name), dims[0]))
ad.defjvp(name_p, lambda g, x, *, name: g)  # the tangent is not named


# ------------------------------------------------------------------------------------------------
# The user-facing function


def checkpoint(fun=None, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun`` whose intermediate values are recomputed, not stored, for its derivative.

    Usable as ``checkpoint(f, policy=...)``, ``@checkpoint`` or ``@partial(checkpoint, ...)``.
    ``static_argnums`` name arguments that are Python values fixed at trace time.
    """
    if fun is None:
        return functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy,
                                 static_argnums=static_argnums)
    if not callable(fun):
        raise TypeError(f"checkpoint expects a callable, got {fun!r}")
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @wraps(fun)
    def fun_remat(*args, **kwargs):
        # Traced even when called eagerly, as JAX: the function sees tracers for its
        # non-static arguments (flax's remat tests check which arguments are static so).
        n = len(args)
        nums = {i % n for i in static}
        dyn = [x for i, x in enumerate(args) if i not in nums]
        leaves, in_tree = _registry.flatten((dyn, kwargs))
        out_trees, py_bools = [], []

        def flat_fun(*xs):
            dyn_args, dyn_kwargs = in_tree.unflatten(xs)
            it = iter(dyn_args)
            full = [args[i] if i in nums else next(it) for i in range(n)]
            out_leaves, out_tree = _registry.flatten(fun(*full, **dyn_kwargs))
            out_trees.append(out_tree)
            py_bools[:] = [type(x) is bool for x in out_leaves]
            return out_leaves

        jaxpr, consts = trace_open(flat_fun, [get_aval(x) for x in leaves])
        outs = checkpoint_p.bind(*consts, *leaves, jaxpr=jaxpr, prevent_cse=prevent_cse,
                                 differentiated=False, policy=policy)
        # a Python scalar the function returned comes back a Python scalar carrying its dtype
        # (JAX's TypedFloat; a bool stays a bool), not the literal it was inside
        # A literal holding a TypedNdArray (zeros a differentiation made, as JAX's lax.full
        # makes them) comes back that TypedNdArray, weak type and all, as JAX's.
        return out_trees[0].unflatten([
            v.val if isinstance(o, (WeakScalar, np.ndarray)) and type(v) is Literal
            and type(v.val) is dtypes.TypedNdArray
            else dtypes.typed_scalar(o.val.item(), o.aval.dtype) if isinstance(o, WeakScalar)
            # a Python float or complex literal is staged unrounded: it carries its dtype too
            else dtypes.typed_scalar(o, get_aval(o).dtype) if type(o) in (float, complex)
            else o.item() if b and isinstance(o, np.ndarray) else o
            for o, b, v in zip(outs, py_bools, jaxpr.outvars)])

    return fun_remat


remat = checkpoint


# ------------------------------------------------------------------------------------------------
# The primitive and its rules

checkpoint_p = Primitive("remat2", multiple_results=True)  # JAX's name in jaxprs
checkpoint_p.def_abstract_eval(lambda *avals, jaxpr, **_: jaxpr.out_avals)
# Inside shard_map, as in JAX, a call keeps its operands' types (no pvary to a common set of
# axes, whose transpose would sum a replicated operand's cotangent over the devices) and its
# results have the types the body gives them.
checkpoint_p.own_vma = True
checkpoint_p.own_memory_space = True  # its results are its body's
# Eager, as JAX's remat_impl (core.eval_jaxpr), the values keep their own types: a strong
# tangent of a body traced with a Python float's weak one gives a strong result. JAX's bind
# canonicalizes the operands first, so an operand the body returns as is comes back a Python
# scalar carrying its dtype (TypedFloat; a bool stays a bool), or a NumPy value (a constant the
# body closed over) a TypedNdArray, not the plain one given.
# A literal result holding a TypedNdArray (zeros a differentiation made) is that TypedNdArray,
# as JAX's eval_jaxpr gives a literal's value: a checkpoint around this one, evaluating its body
# eagerly, returns it as is (JAX 0.10.2's remat(remat(grad(f))) of an unused float argument).
def _checkpoint_impl(*args, jaxpr, **_):
    outs = eval_open(jaxpr, [dtypes.canonical_value(x) for x in args])
    return [v.val if type(v) is Literal and type(v.val) is dtypes.TypedNdArray else o
            for o, v in zip(outs, jaxpr.outvars)]


checkpoint_p.def_impl(_checkpoint_impl)


def _checkpoint_dce(eqn, used_outputs):
    """JAX's DCE rule for remat: the body computes only the used outputs (its side effects
    stay), on the operands it reads."""
    body = eqn.params["jaxpr"]  # open: its constants are leading operands
    new, used_in = dce_jaxpr_used(ClosedJaxpr(body, []), used_outputs)
    if all(used_in) and all(used_outputs) and len(new.jaxpr.eqns) == len(body.eqns):
        return used_in, eqn
    body = Jaxpr([], keep(body.invars, used_in), new.jaxpr.outvars, new.jaxpr.eqns)
    return used_in, JaxprEqn(checkpoint_p, keep(eqn.invars, used_in),
                             keep(eqn.outvars, used_outputs), dict(eqn.params, jaxpr=body),
                             eqn.source_info)


_checkpoint_dce.runs_when_all_used = True  # as JAX's: operands the body ignores go too
dce_rules[checkpoint_p] = _checkpoint_dce


@checkpoint_p.def_lowering
def _checkpoint_lowering(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
    if prevent_cse and differentiated and args:
        args = hlo.OptimizationBarrierOp(list(args)).results
    return lower_open(ctx, jaxpr, args)


# The JVP, partial evaluation and transpose of a body depend only on its structure and on
# which operands are nonzero / unknown / linear: a model calling one checkpointed layer 64
# times derives each once (the body's own trace stays per call: it may close over values).
# The JVP is keyed by the body's structure, the later stages by the identity of the jaxpr the
# stage before produced (kept alive in its entry, so the identity stays unique).
_jvp_cache = BoundedCache()
_partial_eval_cache = BoundedCache()
_transpose_cache = BoundedCache()


def _unless_tracers(key, consts):
    """No caching when a rule captured a tracer of an outer trace (a custom rule closing over
    one): that value belongs to the trace running now."""
    return None if any(isinstance(c, core.Tracer) for c in consts) else key


def _checkpoint_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    tangents = ad.drop_integer_tangents(primals, tangents)  # as a jit's (JAX's remat types them so)
    nonzero = [type(t) is not Zero for t in tangents]
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    avals = [get_aval(x) for x in (*primals, *nz_tangents)]
    body = structure_key(jaxpr)
    # a custom_vjp's tangent in the body is staged differently inside a linearization
    key = None if body is None else (body, tuple(nonzero), tuple(avals),
                                     in_linearization(core.current_trace()))
    cached = _jvp_cache.get(key)
    if cached is None:
        jvp_closed, out_nonzero = ad.jvp_jaxpr(ClosedJaxpr(jaxpr, []), nonzero,
                                               [False] * len(jaxpr.outvars))
        jvp_jaxpr, consts = hoist_consts(jvp_closed)
        cached = _jvp_cache.put(_unless_tracers(key, consts), (jvp_jaxpr, consts, out_nonzero))
    jvp_jaxpr, consts, out_nonzero = cached
    # ``differentiated`` passes through as in JAX: only partial evaluation (the recomputed
    # tangent part) sets it, so a JVP alone lowers without the optimization barrier (which
    # would change what Shardy propagates to a forwarded tangent)
    outs = checkpoint_p.bind(*consts, *primals, *nz_tangents, jaxpr=jvp_jaxpr,
                             prevent_cse=prevent_cse, differentiated=differentiated,
                             policy=policy)
    n_out = len(jaxpr.outvars)
    return outs[:n_out], ad.with_zeros(outs[n_out:], out_nonzero, jaxpr.out_avals)


ad.primitive_jvps[checkpoint_p] = _checkpoint_jvp
# the rule binds checkpoint on the primals as given (its body's constants are traced already):
# one the body returns as is comes back canonicalized by the impl, as JAX's remat under jvp
ad.raw_primal_primitives.add(checkpoint_p)


def _partial_eval(trace, args, params):
    """Known equations run now; the rest is staged with recomputation (see module doc)."""
    jaxpr = params["jaxpr"]
    unknown_in = [trace.is_unknown(x) for x in args]
    key = (jaxpr, tuple(unknown_in), params["policy"])
    cached = _partial_eval_cache.get(key)
    if cached is None:
        cached = _partial_eval_cache.put(key, _split_known(jaxpr, unknown_in, params["policy"]))
    known_jaxpr, known_consts, staged_jaxpr, out_known, n_residuals = cached
    # canonicalized as the impl's operands: a known operand the body returns as is comes back
    # typed under linearize too, as JAX's
    known_args = [dtypes.canonical_scalar(x) for x, u in zip(args, unknown_in) if not u]
    with core.set_current_trace(trace.parent):
        known_vals = eval_open(known_jaxpr, known_consts + known_args)
    n_known_out = len(known_vals) - n_residuals
    res_vals = known_vals[n_known_out:]
    staged_args = res_vals + [x for x, u in zip(args, unknown_in) if u]
    staged = trace.stage(checkpoint_p, staged_args,
                         dict(params, jaxpr=staged_jaxpr, differentiated=True))
    known_it, staged_it = iter(known_vals[:n_known_out]), iter(staged)
    return [next(known_it) if k else next(staged_it) for k in out_known]


def _split_known(jaxpr, unknown_in, policy):
    """``(known_jaxpr, known_consts, staged_jaxpr, out_known, n_residuals)``: the equations
    computable from the known operands (their outputs, then the residuals the policy saves) and
    the staged rest (on the residuals, then the unknown operands)."""
    known, consts, staged, out_known, n_res = _split_saving(jaxpr, unknown_in, policy)
    known, staged = _offload(jaxpr, known, staged, n_res, policy)
    return _insert_reduce_precision(known, n_res), consts, staged, out_known, n_res


def _insert_reduce_precision(jaxpr, n_res):
    """JAX's ``_insert_reduce_precision`` (ad_checkpoint.py, jax PR 22244): each floating
    residual another known equation reads is rounded to its dtype right where it is computed
    (``reduce_precision(x, finfo.nexp, finfo.nmant)``), so XLA's excess precision (a bfloat16
    ``tanh`` computed in float32 and fused into its float32 reader) cannot make the saved value
    differ from the recomputed one (s30027-275). JAX also does it for complex residuals, where
    ``reduce_precision`` raises its dtype TypeError (FINDINGS 194): minijax skips those."""
    res_vars = jaxpr.outvars[len(jaxpr.outvars) - n_res:] if n_res else []
    used = {x for e in jaxpr.eqns for x in e.invars if type(x) is not Literal}
    eqns = list(jaxpr.eqns)
    changed = False
    for v in res_vars:
        dtype = getattr(v.aval, "dtype", None)
        if (type(v) is Literal or dtype is None or not dtypes.issubdtype(dtype, np.floating)
                or v not in used):
            continue
        fi = dtypes.finfo(dtype)
        params = dict(exponent_bits=fi.nexp, mantissa_bits=fi.nmant)
        # A known operand the staged part reads: JAX passes those to the staged remat as
        # operands, not residuals, so it rounds none of them.
        at = next((i for i, e in enumerate(eqns) if v in e.outvars), None)
        if at is None:
            continue
        eqn = eqns[at]
        if eqn.primitive is reduce_precision_p and eqn.params == params:
            continue
        new = Var(v.aval)
        eqns[at] = JaxprEqn(eqn.primitive, eqn.invars,
                            [new if o is v else o for o in eqn.outvars], eqn.params,
                            eqn.source_info)
        eqns.insert(at + 1, JaxprEqn(reduce_precision_p, [new], [v], params,
                                     eqn.source_info))
        changed = True
    if not changed:
        return jaxpr
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns)


def _offload(jaxpr, known, staged, n_res, policy):
    """``known`` and ``staged`` with each residual the policy answers ``Offloadable`` for
    moved to its ``dst`` memory after the known part computes it and back to ``src`` where the
    staged part starts, as JAX's: ``device_put`` equations to memory spaces, the residual's
    type in ``dst`` (``f32<host>[3]``)."""
    if policy is None:
        return known, staged
    moves = {}
    for e in jaxpr.eqns:
        answer = policy(e.primitive, *[v.aval for v in e.invars], **e.params)
        if isinstance(answer, Offloadable):
            moves.update((v, answer) for v in e.outvars)
    residuals = staged.invars[:n_res]
    if not any(r in moves for r in residuals):
        return known, staged
    n_known_out = len(known.outvars) - n_res
    known_outs, known_eqns = list(known.outvars), list(known.eqns)
    staged_ins, staged_eqns = list(staged.invars), []
    for i, r in enumerate(residuals):
        if r not in moves:
            continue
        src, dst = (core.mem_kind_to_space(k) for k in (moves[r].src, moves[r].dst))
        moved, saved = Var(r.aval.update(memory_space=dst)), known_outs[n_known_out + i]
        # right after the equation computing it, as JAX's
        at = next((j + 1 for j, e in enumerate(known_eqns) if saved in e.outvars), 0)
        known_eqns.insert(at, _copy_to(dst, saved, moved))
        known_outs[n_known_out + i] = moved
        staged_eqns.append(_copy_to(src, moved, r))  # the staged equations read it as before
        staged_ins[i] = moved
    known = Jaxpr(known.constvars, known.invars, known_outs, known_eqns)
    staged = Jaxpr(staged.constvars, staged_ins, staged.outvars, staged_eqns + staged.eqns)
    return known, staged


def _copy_to(space, x, out):
    """JAX's offloading equation: ``out = device_put x`` to memory ``space``, always a copy."""
    copy = backends._jax.ArrayCopySemantics.ALWAYS_COPY
    return JaxprEqn(device_put_p, [x], [out],
                    {"devices": (space,), "srcs": (None,), "copy_semantics": (copy,)}, None)


def _split_saving(jaxpr, unknown_in, policy):
    policy = policy or nothing_saveable

    def recompute(e):  # a known equation the policy does not save is recomputed
        return not _saves(policy(e.primitive, *[v.aval for v in e.invars], **e.params))

    split = _split_with_calls(jaxpr, unknown_in, recompute)
    residuals = split.residuals
    # The known part: its outputs and the saved residuals, computed on the parent trace.
    known_outs = [v for v, k in zip(jaxpr.outvars, split.out_known) if k]
    known_jaxpr = split.known_jaxpr(known_outs, residuals)
    if not any(e.primitive.partial_eval is not None for e in split.staged_eqns):
        return known_jaxpr, [], split.staged_jaxpr(residuals), split.out_known, len(residuals)
    # A staged loop (or another primitive with its own partial evaluation) computes primal
    # outputs beside its tangents: staged whole, those would leave linearize as staged values.
    # Its own rule (by tracing) says which outputs are known: the known part computes those
    # too; the staged part (and so the recomputation) stays as the policy split it.
    precise, _, out_unknown, _, _ = partial_eval_jaxpr(
        ClosedJaxpr(jaxpr, []), unknown_in, [False] * len(jaxpr.outvars))
    out_known = [not u for u in out_unknown]
    if out_known == split.out_known:
        return known_jaxpr, [], split.staged_jaxpr(residuals), split.out_known, len(residuals)
    n_split_known = len(known_outs)
    pj = precise.jaxpr  # its side effects run in ``known_jaxpr`` already: only once
    precise = ClosedJaxpr(Jaxpr(pj.constvars, pj.invars, pj.outvars,
                                dce_eqns(pj.eqns, pj.outvars)[0]), precise.consts)

    def known_fun(*known_args):
        by_split = eval_open(known_jaxpr, list(known_args))
        it_split = iter(by_split[:n_split_known])
        it_precise = iter(jaxpr_as_fun(precise)(*known_args))
        outs = []
        for k_split, k in zip(split.out_known, out_known):  # known by the split => known
            if k:
                by_rule = next(it_precise)
                outs.append(next(it_split) if k_split else by_rule)
        return outs + list(by_split[n_split_known:])

    both, consts = hoist_consts(dce_jaxpr(trace_to_jaxpr(
        known_fun, [v.aval for v in split.known_invars])))
    staged_outs = [v for v, k in zip(jaxpr.outvars, out_known) if not k]
    staged = Jaxpr([], list(residuals) + split.unknown_invars, staged_outs,
                   dce_eqns(split.staged_eqns, staged_outs, keep_effects=True)[0])
    return both, consts, staged, out_known, len(residuals)


def _split_with_calls(jaxpr, unknown_in, recompute):
    """``split_known_staged`` of ``jaxpr`` where each nested ``jit`` equation reading a known
    operand is itself split, as JAX's partial-eval-custom rule for jit does: a known ``jit``
    (its known outputs and the residuals the policy saves in its callee) and a staged ``jit``
    (the rest, recomputing what the policy does not save), so that each still runs as one
    compiled call and the policy sees into the callee."""
    if not any(e.primitive is pjit_p for e in jaxpr.eqns):
        return split_known_staged(jaxpr, unknown_in, recompute)
    known_eqns, staged_eqns, known = _split_eqns(jaxpr, unknown_in, recompute)
    out_known = [type(v) is Literal or v in known for v in jaxpr.outvars]
    staged_outs = [v for v, k in zip(jaxpr.outvars, out_known) if not k]
    live = dce_jaxpr(ClosedJaxpr(Jaxpr([], [], staged_outs, staged_eqns), [])).jaxpr.eqns
    # a recomputed side effect runs again (see split_known_staged)
    staged_eqns, free = dce_eqns(live, staged_outs, keep_effects=True)
    unknown_invars = [v for v, u in zip(jaxpr.invars, unknown_in) if u]
    known_invars = [v for v, u in zip(jaxpr.invars, unknown_in) if not u]
    unknown_set = set(unknown_invars)
    return KnownStagedSplit(known_eqns, staged_eqns, out_known, known_invars, unknown_invars,
                            staged_outs, [v for v in free if v not in unknown_set])


def _split_eqns(jaxpr, unknown_in, recompute):
    """``(known_eqns, staged_eqns, known_vars)``: the known equations, and the staged ones
    (unpruned) with copies of the known ones to recompute, nested jits split in two."""
    known = {v for v, u in zip(jaxpr.invars, unknown_in) if not u}
    known.update(jaxpr.constvars)
    known_eqns, staged_eqns = [], []
    for eqn in jaxpr.eqns:
        unknown = [type(v) is not Literal and v not in known for v in eqn.invars]
        if eqn.primitive is pjit_p and not all(unknown):
            known_eqn, staged_eqn = _split_call(eqn, unknown, recompute)
            known_eqns.append(known_eqn)
            known.update(known_eqn.outvars)
            if staged_eqn is not None:
                staged_eqns.append(staged_eqn)
        elif not any(unknown):
            known_eqns.append(eqn)
            known.update(eqn.outvars)
            if recompute(eqn):
                staged_eqns.append(eqn)
        else:
            staged_eqns.append(eqn)
    return known_eqns, staged_eqns, known


def _split_call(eqn, unknown, recompute):
    """A ``jit`` equation with known operands as ``(known_eqn, staged_eqn)``: the known call
    computes the known outputs and then the residuals; the staged call takes those residuals
    and every operand, and gives every output (the known ones recomputed or forwarded), which
    the caller's dead-code elimination prunes. ``staged_eqn`` is None when nothing is staged
    (every output is known and saved; the known call then drops the unknown operands, which its
    callee does not read)."""
    callee = eqn.params["jaxpr"]
    body = callee.jaxpr
    known_eqns, staged_eqns, known = _split_eqns(body, unknown, recompute)
    out_known = [type(v) is Literal or v in known for v in body.outvars]
    staged_eqns, free = dce_eqns(staged_eqns, body.outvars, keep_effects=True)
    if all(out_known) and not staged_eqns and not any(unknown):
        return eqn, None
    bound = set(body.invars) | set(body.constvars)
    residuals = [v for v in free if v not in bound]
    known_invars = [v for v, u in zip(body.invars, unknown) if not u]
    known_outs = [v for v, k in zip(body.outvars, out_known) if k] + residuals
    known_body = Jaxpr(body.constvars, known_invars, known_outs,
                       dce_eqns(known_eqns, known_outs, keep_effects=True)[0])
    res_vars = [Var(v.aval) for v in residuals]
    known_eqn = JaxprEqn(
        pjit_p, [v for v, u in zip(eqn.invars, unknown) if not u],
        [v for v, k in zip(eqn.outvars, out_known) if k] + res_vars,
        dict(eqn.params, jaxpr=ClosedJaxpr(known_body, callee.consts),
             donated_invars=(False,) * len(known_invars)),
        eqn.source_info)
    if all(out_known) and not staged_eqns:  # the unknown operands are dead in the callee
        return known_eqn, None
    staged_body = Jaxpr(body.constvars, residuals + list(body.invars), body.outvars,
                        staged_eqns)
    staged_eqn = JaxprEqn(
        pjit_p, res_vars + list(eqn.invars), eqn.outvars,
        dict(eqn.params, jaxpr=ClosedJaxpr(staged_body, callee.consts),
             donated_invars=(False,) * (len(residuals) + len(body.invars))),
        eqn.source_info)
    return known_eqn, staged_eqn


checkpoint_p.partial_eval = _partial_eval


def _body_weak(aval, body_aval):
    """``aval`` with the weak type the body declares for it (same dtype only)."""
    if (getattr(aval, "dtype", None) == getattr(body_aval, "dtype", None)
            and getattr(aval, "weak_type", None) is not None
            and aval.weak_type != body_aval.weak_type):
        return aval.update(weak_type=body_aval.weak_type)
    return aval


def _checkpoint_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    linear = [type(x) is UndefinedPrimal for x in args]
    res = [x for x in args if type(x) is not UndefinedPrimal]
    ct_nonzero = [type(c) is not Zero for c in cts]
    nz_cts = [c for c in cts if type(c) is not Zero]
    # The transposed body takes its cotangents at the body's output types (JAX's
    # ``_transpose_jaxpr``: ``to_ct_aval`` of the out avals, so a strong cotangent of a weak
    # output is weak inside). Eagerly the impl evaluates it equation by equation on the
    # values, so only equations typed by their own jaxpr (a nested jit) keep the weak type.
    ct_avals = [ad.tangent_aval(v.aval) for v, nz in zip(jaxpr.outvars, ct_nonzero) if nz]
    # Its residuals at the body's input types too (JAX's ``jaxpr.in_avals``): a strong NumPy
    # tangent the body was traced with as a Python float's weak one stays weak inside, so the
    # transposed body's cotangents are weak as JAX's (s30014-337).
    res_avals = [_body_weak(get_aval(x), v.aval)
                 for x, v, lin in zip(args, jaxpr.invars, linear) if not lin]
    avals = res_avals + ct_avals
    key = (jaxpr, tuple(linear), tuple(ct_nonzero), tuple(avals),
           tuple(x.aval for x in args if type(x) is UndefinedPrimal))
    cached = _transpose_cache.get(key)
    if cached is None:
        in_nonzero = []

        def transposed(*xs):
            it_res, it_ct = iter(xs[:len(res)]), iter(xs[len(res):])
            full_cts = [next(it_ct) if nz else Zero(v.aval)
                        for nz, v in zip(ct_nonzero, jaxpr.outvars)]
            # The body recomputes primal values (a loop's primal carry beside its tangent):
            # partial evaluation runs that part forward here, leaving a linear jaxpr to
            # transpose, as JAX's remat transpose does.
            lin_avals = [x.aval for x in args if type(x) is UndefinedPrimal]
            pe_trace = PartialEvalTrace(core.current_trace())
            lin_in = [pe_trace.new_arg(a) for a in lin_avals]
            it_lin = iter(lin_in)
            full = [next(it_lin) if lin else next(it_res) for lin in linear]
            try:
                with core.set_current_trace(pe_trace):
                    outs = eval_open(jaxpr, full)
                staged = [pe_trace.is_unknown(o) for o in outs]
                lin_jaxpr = dce_jaxpr(pe_trace.finish(
                    lin_in, [o for o, s in zip(outs, staged) if s]))
            finally:
                pe_trace.invalidate()
            lin_cts = ad.backward_pass(
                lin_jaxpr.jaxpr, lin_jaxpr.consts, [UndefinedPrimal(a) for a in lin_avals],
                [ct for ct, s in zip(full_cts, staged) if s])
            in_nonzero.extend(type(ct) is not Zero for ct in lin_cts)
            return [ct for ct in lin_cts if type(ct) is not Zero]

        t_jaxpr, consts = trace_open(transposed, avals)
        cached = _transpose_cache.put(_unless_tracers(key, consts), (t_jaxpr, consts, in_nonzero))
    t_jaxpr, consts, in_nonzero = cached
    outs = iter(checkpoint_p.bind(*consts, *res, *nz_cts, jaxpr=t_jaxpr,
                                  prevent_cse=prevent_cse, differentiated=True, policy=policy))
    nz = iter(in_nonzero)
    return [(next(outs) if next(nz) else None) if lin else None for lin in linear]


ad.primitive_transposes[checkpoint_p] = _checkpoint_transpose


@checkpoint_p.def_batching
@needs_axis_data
def _checkpoint_batching(axis_data, args, dims, *, jaxpr, prevent_cse, differentiated, policy):
    # as JAX's remat rule: the operands keep their batch axes (no transposes before the call,
    # which would change the program XLA compiles), the batched outputs leave at axis 0, and
    # outputs that do not depend on the batch stay unbatched (jacfwd's primal outputs); the
    # body is batched by the vmap's own axis, so a collective over it inside resolves
    batched, out_dims = batch_jaxpr_dims(ClosedJaxpr(jaxpr, []), axis_data, list(dims),
                                         outs_to_front=True)
    new_jaxpr, consts = hoist_consts(batched)
    outs = checkpoint_p.bind(*consts, *args, jaxpr=new_jaxpr, prevent_cse=prevent_cse,
                             differentiated=differentiated, policy=policy)
    return outs, out_dims


_checkpoint_batching.values_keep_weak_types = True  # eager, as the impl above

checkpoint_p.sharding_rule = sharding_rules.typed_by_body  # its results are its body's
