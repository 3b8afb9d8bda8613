"""Loops: ``while_p`` and ``scan_p``, and ``while_loop``, ``fori_loop``, ``scan``, ``map``.

``while_p.bind(*cond_consts, *body_consts, *init, cond_jaxpr, body_jaxpr, cond_nconsts,
body_nconsts)`` lowers to ``stablehlo.while`` (consts ride along in the loop state, as XLA's
while wants a closed body). It is forward-differentiable only: the trip count is unknown, so
there is nowhere to keep residuals for a backward pass.

``scan_p.bind(*consts, *init, *xs, jaxpr, num_consts, num_carry, length, reverse, unroll)``:
``jaxpr`` maps (consts, carry, x slices) to (carry, y slices). It lowers to one
``stablehlo.while`` whose state holds a counter, the carry, the xs and the ys buffers
(``dynamic_slice`` in, ``dynamic_update_slice`` out), so compile time does not grow with the
length. Reverse mode: partial evaluation splits the body into a known scan (the primal, which
also stacks the residuals as extra ys) and an unknown, linear scan, whose transpose is a scan
running the other way over the residuals.

Beyond JAX: ``while_loop(..., max_steps=N)`` is a scan of N steps whose body is a ``cond``
that skips the work once the predicate is false, so it is reverse-differentiable.
"""

from __future__ import annotations

import operator

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import (
    ClosedJaxpr, Jaxpr, JaxprEqn, Primitive, ShapedArray, Tracer, get_aval,
    is_eval_trace_current, jaxpr_as_fun, set_current_trace,
)
from minijax.interpreters import ad, batching, lax_ops
from minijax.interpreters.batching import not_mapped
from minijax.interpreters.partial_eval import (
    dce_jaxpr_used, dce_rules, partial_eval_jaxpr, trace_to_jaxpr,
)
from minijax.lax.control_flow import common, ref_writes
from minijax.lax.control_flow.conditionals import _lower_closed, cond, ordered_effects_of
from minijax.lax.convert import convert_element_type
from minijax.lax.elementwise import add, lt
from minijax.lax.reductions import reduce_or
from minijax.lax.structural import broadcast_in_dim, concatenate, reshape, slice_in_dim
from minijax.lowering.array import device_put_value
from minijax.lowering.stablehlo import (dense_i64, full_like_aval, ir_constant, region_named,
                                       tensor_type)
from minijax.source_info import with_user_line
from minijax.tree_util import _registry
from minijax.lax import sharding_rules

__all__ = ["fori_loop", "map", "scan", "scan_p", "while_loop", "while_p"]

# ------------------------------------------------------------------------------------------------
# Varying manual axes (inside shard_map): as in JAX, a loop keeps each operand's own type (no
# pvary to a common set of axes, whose transpose would sum a replicated carry's cotangent over
# the devices a second time) and its carries' results have the carries' types.


def _cast_up(args, avals):
    """Each operand pvary'd to the manual axes its jaxpr input varies over and it does not (a
    derived loop's zeros or accumulators); a user's loop has its operands' types already."""
    out = []
    for x, a in zip(args, avals):
        more = _vma(a) - _vma(get_aval(x))
        out.append(lax_ops.pvary(x, tuple(sorted(more, key=str))) if more else x)
    return out


def _carry_result_avals(init, *carry_outs):
    """The carries' result types: the initial carries' types, varying also where the body's
    carry outputs do (only minijax's own loops may make a carry vary more; JAX's refuse)."""
    return [a.update(vma=_vma(a).union(*(_vma(o) for o in outs)))
            if any(_vma(o) - _vma(a) for o in outs) else a
            for a, *outs in zip(init, *carry_outs)]


def _weak_as(avals, carry_outs):
    """As JAX's loops, whose results have the body's carry output types: a strong carry the
    body makes weak (a Python scalar) comes out weak."""
    return [a.update(weak_type=o.weak_type) for a, o in zip(avals, carry_outs)]


def _vma(aval):
    return getattr(aval, "vma", frozenset())


class _LoopPrimitive(Primitive):
    """A loop primitive whose ``bind`` casts its operands up to its jaxprs' input types."""

    def bind(self, *args, **params):
        avals = self.in_avals_of(params)
        if any(_vma(a) for a in avals):
            args = _cast_up(args, avals)
        return super().bind(*args, **params)


class _WhilePrimitive(_LoopPrimitive):
    @staticmethod
    def in_avals_of(params):
        cj, bj = params["cond_jaxpr"], params["body_jaxpr"]
        nc, nb = params["cond_nconsts"], params["body_nconsts"]
        carry = _carry_result_avals(bj.in_avals[nb:], cj.in_avals[nc:])
        return cj.in_avals[:nc] + bj.in_avals[:nb] + carry


class _ScanPrimitive(_LoopPrimitive):
    @staticmethod
    def in_avals_of(params):
        jaxpr, length = params["jaxpr"], params["length"]
        n = params["num_consts"] + params["num_carry"]
        return jaxpr.in_avals[:n] + [a.add_dim(0, length)
                                     for a in jaxpr.in_avals[n:]]


# ------------------------------------------------------------------------------------------------
# while_p

while_p = _WhilePrimitive("while", multiple_results=True)
while_p.own_vma = True
while_p.own_memory_space = True  # its results are its body's


@while_p.def_abstract_eval
def _while_abstract_eval(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cconsts, bconsts, init = common.split(args, [cond_nconsts, body_nconsts,
                                                 len(args) - cond_nconsts - body_nconsts])
    common.check_operand_types("while_loop", cond_jaxpr.in_avals, cconsts + init, "cond_fun")
    common.check_operand_types("while_loop", body_jaxpr.in_avals, bconsts + init, "body_fun")
    pred = cond_jaxpr.out_avals
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype != np.bool_:
        raise TypeError(f"while_loop: cond_fun must return a boolean scalar, got "
                        f"{common.type_str(pred)}")
    if not common.same_types(body_jaxpr.out_avals, init):
        raise TypeError("while_loop: body_fun output and input must have identical types, got "
                        f"input {common.type_str(init)} and output "
                        f"{common.type_str(body_jaxpr.out_avals)}")
    return _weak_as(_carry_result_avals(init, body_jaxpr.out_avals), body_jaxpr.out_avals)


@while_p.def_lowering
def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    mctx = ctx.module_ctx
    # the ordered effects' tokens are carried first, as in JAX
    effects = ordered_effects_of([cond_jaxpr, body_jaxpr])
    tokens, k = mctx.region_tokens(effects), len(effects)
    types = [t.type for t in tokens] + [tensor_type(a) for a in ctx.avals_in]
    loop = hlo.WhileOp(types, tokens + list(args))
    nc, nb = cond_nconsts, body_nconsts
    block = loop.cond.blocks.append(*types)
    with ir.InsertionPoint(block), region_named(mctx, ctx.eqn, "cond"):
        vals = list(block.arguments)[k:]
        (pred,) = _lower_closed(mctx, cond_jaxpr, vals[:nc] + vals[nc + nb:])
        hlo.return_([pred])
    block = loop.body.blocks.append(*types)
    with ir.InsertionPoint(block), region_named(mctx, ctx.eqn, "body"):
        threaded = dict(zip(effects, block.arguments))
        vals = list(block.arguments)[k:]
        new = _lower_closed(mctx, body_jaxpr, vals[nc:nc + nb] + vals[nc + nb:], threaded)
        hlo.return_([threaded[e] for e in effects] + vals[:nc + nb] + list(new))
    results = list(loop.results)
    mctx.tokens.update(zip(effects, results))
    return results[k + nc + nb:]


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    n_carry = len(primals) - nc - nb
    cconsts, bconsts, init = common.split(primals, [nc, nb, n_carry])
    _, bdots, idots = common.split(tangents, [nc, nb, n_carry])
    avals = [get_aval(x) for x in primals]
    b_nz = common.differentiable(avals[nc:nc + nb], [type(t) is not ad.Zero for t in bdots])
    c_nz = common.differentiable(avals[nc + nb:], [type(t) is not ad.Zero for t in idots])
    while True:  # the carries with nonzero tangents: a fixed point
        jvp, out_nz = ad.jvp_jaxpr(body_jaxpr, b_nz + c_nz, c_nz)
        if out_nz == c_nz:
            break
        c_nz = [a or b for a, b in zip(c_nz, out_nz)]
    nbt, nct = sum(b_nz), sum(c_nz)
    # jvp inputs: (bconsts, carry, bconst dots, carry dots) -> (bconsts, bdots, carry, cdots)
    body = common.permute_invars(jvp, common.interleave_order([(nb, nbt), (n_carry, nct)]))
    cj = cond_jaxpr.jaxpr
    dot_avals = [ad.tangent_aval(a) for a, nz in zip(avals[nc + nb:], c_nz) if nz]
    cond_aug = trace_to_jaxpr(
        lambda *a: jaxpr_as_fun(cond_jaxpr)(*a[:len(cj.invars)]),
        cond_jaxpr.in_avals + dot_avals)
    bd = [t for t, nz in zip(bdots, b_nz) if nz]
    cd = [ad.instantiate_zeros(t) for t, nz in zip(idots, c_nz) if nz]
    outs = while_p.bind(*cconsts, *bconsts, *bd, *init, *cd, cond_jaxpr=cond_aug,
                        body_jaxpr=body, cond_nconsts=nc, body_nconsts=nb + nbt)
    primal_out, it = outs[:n_carry], iter(outs[n_carry:])
    tangent_out = [next(it) if nz else ad.Zero(ad.tangent_aval(get_aval(p)))
                   for p, nz in zip(primal_out, c_nz)]
    return primal_out, tangent_out


ad.primitive_jvps[while_p] = _while_jvp


def _while_partial_eval(trace, args, params):
    """JAX's rule: the carries that stay known (and a known predicate) run now in a loop of
    their own; the unknown carries come from the whole loop, staged (it recomputes the known
    part). So linearize's primal outputs of a loop are values, not staged tracers."""
    cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    unknowns = [trace.is_unknown(x) for x in args]
    cc_uk, bc_uk, carry_uk = common.split(unknowns, [nc, nb, len(args) - nc - nb])
    while True:  # the carries that stay known: a fixed point
        body_split = partial_eval_jaxpr(body_jaxpr, bc_uk + carry_uk, carry_uk)
        if body_split[2] == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, body_split[2])]
    cond_split = partial_eval_jaxpr(cond_jaxpr, cc_uk + carry_uk, [False])
    if all(carry_uk) or cond_split[2][0]:
        return trace.stage(while_p, args, params)
    n_known = len(carry_uk) - sum(carry_uk)
    # the known parts without their residuals: (known consts, known carries) -> known outputs
    k_cond = common.permute_outvars(cond_split[0], [0])
    k_body = common.permute_outvars(body_split[0], list(range(n_known)))
    cconsts, bconsts, init = common.split(args, [nc, nb, len(carry_uk)])
    known = lambda xs, uk: [x for x, u in zip(xs, uk) if not u]  # noqa: E731
    k_cc, k_bc = known(cconsts, cc_uk), known(bconsts, bc_uk)
    with set_current_trace(trace.parent):  # the known loop runs now
        kouts = while_p.bind(*k_cc, *k_bc, *known(init, carry_uk), cond_jaxpr=k_cond,
                             body_jaxpr=k_body, cond_nconsts=len(k_cc),
                             body_nconsts=len(k_bc))
    uouts = trace.stage(while_p, args, params)
    ik = iter(kouts)
    return [u_out if u else next(ik) for u_out, u in zip(uouts, carry_uk)]


while_p.partial_eval = _while_partial_eval


def _while_transpose(cts, *args, **params):
    # JAX's refusal, type and words; the last sentence names minijax's bounded extension
    raise ValueError(with_user_line(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop. (Beyond JAX, minijax's while_loop(..., max_steps=N) bounds the "
        "iterations and is reverse-differentiable.)"))


ad.primitive_transposes[while_p] = _while_transpose


@batching.needs_axis_data
def _while_batching(axis_data, args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts,
                    body_nconsts):
    size = axis_data.size
    nc, nb = cond_nconsts, body_nconsts
    n_carry = len(args) - nc - nb
    b = [d is not not_mapped for d in dims]
    cb, bb, carry_b = common.split(b, [nc, nb, n_carry])
    while True:
        _, pred_b = batching.batch_jaxpr(cond_jaxpr, axis_data, cb + carry_b, [False])
        if pred_b[0]:
            carry_b = [True] * n_carry  # each example stops at its own time: all carry batched
        _, out_b = batching.batch_jaxpr(body_jaxpr, axis_data, bb + carry_b, carry_b)
        if out_b == carry_b:
            break
        carry_b = [x or y for x, y in zip(carry_b, out_b)]
    args = [common.to_batched(x, d, w, size) for x, d, w in zip(args, dims, cb + bb + carry_b)]
    cond_b, _ = batching.batch_jaxpr(cond_jaxpr, axis_data, cb + carry_b, [pred_b[0]])
    body_b, _ = batching.batch_jaxpr(body_jaxpr, axis_data, bb + carry_b, carry_b)
    if not pred_b[0]:
        outs = while_p.bind(*args, cond_jaxpr=cond_b, body_jaxpr=body_b, cond_nconsts=nc,
                            body_nconsts=nb)
        return outs, [0 if x else not_mapped for x in carry_b]
    # A batched predicate: loop while any example goes on; finished examples keep their carry.
    cconsts, bconsts, init = common.split(args, [nc, nb, n_carry])
    cavals = [get_aval(x) for x in cconsts]
    bavals = [get_aval(x) for x in bconsts]
    carry_avals = [get_aval(x) for x in init]

    def any_cond(*a):
        return [reduce_or(jaxpr_as_fun(cond_b)(*a)[0], (0,))]

    def masked_body(*a):
        cc, bc, carry = common.split(a, [nc, nb, n_carry])
        (pred,) = jaxpr_as_fun(cond_b)(*cc, *carry)
        new = jaxpr_as_fun(body_b)(*bc, *carry)
        out = []
        for n, o in zip(new, carry):
            shape = get_aval(o).shape
            which = broadcast_in_dim(pred, shape, (0,)) if len(shape) > 1 else pred
            out.append(_carry_select_p.bind(which, o, n))
        return out

    cond_any = trace_to_jaxpr(any_cond, cavals + carry_avals)
    body_m = trace_to_jaxpr(masked_body, cavals + bavals + carry_avals)
    outs = while_p.bind(*cconsts, *cconsts, *bconsts, *init, cond_jaxpr=cond_any,
                        body_jaxpr=body_m, cond_nconsts=nc, body_nconsts=nc + nb)
    return outs, [0] * n_carry


while_p.def_batching(_while_batching)


# The per-example choice of a carry under a batched predicate: ``new`` where ``which``, else
# ``old``. JAX selects so in the while's lowering, so the carry keeps its type: the
# predicate's varying manual axes (it may vary where the carry does not) do not enter it, as
# they would a select_n's.
_carry_select_p = Primitive("while_carry_select")
_carry_select_p.own_vma = True


@_carry_select_p.def_abstract_eval
def _carry_select_abstract_eval(which, old, new):
    assert which.shape == old.shape == new.shape, (which, old, new)
    return old.update(weak_type=old.weak_type and new.weak_type, vma=_vma(old) | _vma(new))


_carry_select_p.def_lowering(lambda ctx, which, old, new: hlo.select(which, new, old))


@batching.needs_axis_data
def _carry_select_batching(axis_data, args, dims):
    args = [common.to_batched(x, d, True, axis_data.size) for x, d in zip(args, dims)]
    return _carry_select_p.bind(*args), 0


_carry_select_p.def_batching(_carry_select_batching)


def _carry_select_transpose(ct, which, old, new):
    zeros = ad.full_like(ct, 0)
    return [None,
            _carry_select_p.bind(which, ct, zeros) if ad.is_undefined_primal(old) else None,
            _carry_select_p.bind(which, zeros, ct) if ad.is_undefined_primal(new) else None]


ad.deflinear(_carry_select_p, _carry_select_transpose)  # linear in old and new


# ------------------------------------------------------------------------------------------------
# scan_p

scan_p = _ScanPrimitive("scan", multiple_results=True)
scan_p.own_vma = True
scan_p.own_memory_space = True  # its results are its body's


@scan_p.def_abstract_eval
def _scan_abstract_eval(*args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    consts, init, xs = common.split(args, [num_consts, num_carry,
                                           len(args) - num_consts - num_carry])
    for x in xs:
        if not x.shape or x.shape[0] != length:
            raise TypeError(f"scan: xs must have leading axis {length}, got {x.str_short(True)}")
    x_avals = [x.drop_dim(0) for x in xs]
    common.check_operand_types("scan", jaxpr.in_avals, consts + init + x_avals, "operand")
    carry_out = jaxpr.out_avals[:num_carry]
    if not common.same_types(carry_out, init):
        raise TypeError("scan: the body's carry output must have the same types as its carry "
                        f"input, got input {common.type_str(init)} and output "
                        f"{common.type_str(carry_out)}")
    ys = [y.add_dim(0, length) for y in jaxpr.out_avals[num_carry:]]
    return _weak_as(_carry_result_avals(init, carry_out), carry_out) + ys


@scan_p.def_lowering
def _scan_lowering(ctx, *args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    mctx = ctx.module_ctx
    nc, nk = num_consts, num_carry
    n_xs = len(args) - nc - nk
    y_avals = ctx.avals_out[nk:]
    i32 = tensor_type(ShapedArray((), np.int32))
    ys_init = [full_like_aval(0, a) for a in y_avals]
    # the ordered effects' tokens are carried first, as in JAX
    effects = ordered_effects_of([jaxpr])
    tokens, nt = mctx.region_tokens(effects), len(effects)
    state = tokens + [ir_constant(np.int32(0))] + list(args) + ys_init
    types = ([t.type for t in tokens] + [i32] + [tensor_type(a) for a in ctx.avals_in]
             + [tensor_type(a) for a in y_avals])
    k = length if unroll is True else max(1, min(int(unroll), max(length, 1)))
    n_main = length - length % k

    def step(vals):
        """One iteration on the state values; returns the new state."""
        toks, i, consts, carry, xs, ys = common.split(vals, [nt, 1, nc, nk, n_xs, len(y_avals)])
        threaded = dict(zip(effects, toks))
        i = i[0]
        idx = hlo.subtract(ir_constant(np.int32(length - 1)), i) if reverse else i
        zero = ir_constant(np.int32(0))
        x_slices = []
        for x, a in zip(xs, ctx.avals_in[nc + nk:]):
            sl = hlo.dynamic_slice(x, [idx] + [zero] * (a.ndim - 1), dense_i64((1,) + a.shape[1:]))
            x_slices.append(hlo.reshape(tensor_type(a.update(shape=a.shape[1:])), sl))
        outs = _lower_closed(mctx, jaxpr, consts + carry + x_slices, threaded)
        new_ys = []
        for buf, y, a in zip(ys, outs[nk:], y_avals):
            upd = hlo.reshape(tensor_type(a.update(shape=(1,) + a.shape[1:])), y)
            new_ys.append(hlo.dynamic_update_slice(buf, upd, [idx] + [zero] * (a.ndim - 1)))
        i = hlo.add(i, ir_constant(np.int32(1)))
        return [threaded[e] for e in effects] + [i] + consts + list(outs[:nk]) + xs + new_ys

    if n_main:
        loop = hlo.WhileOp(types, state)
        block = loop.cond.blocks.append(*types)
        with ir.InsertionPoint(block):
            lt = hlo.compare(block.arguments[nt], ir_constant(np.int32(n_main)),
                             hlo.ComparisonDirectionAttr.get("LT"),
                             compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))
            hlo.return_([lt])
        block = loop.body.blocks.append(*types)
        with ir.InsertionPoint(block):
            vals = list(block.arguments)
            for _ in range(k):  # unroll: k body copies per trip
                vals = step(vals)
            hlo.return_(vals)
        state = list(loop.results)
    for _ in range(length - n_main):  # the remainder of an unrolled scan
        state = step(state)
    mctx.tokens.update(zip(effects, state))
    _, _, _, carry, _, ys = common.split(state, [nt, 1, nc, nk, n_xs, len(y_avals)])
    return carry + ys


def _scan_split(args, num_consts, num_carry):
    return common.split(args, [num_consts, num_carry, len(args) - num_consts - num_carry])


def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length, reverse, unroll):
    nc, nk = num_consts, num_carry
    n_xs = len(primals) - nc - nk
    avals = [get_aval(x) for x in primals]
    nz = common.differentiable(avals, [type(t) is not ad.Zero for t in tangents])
    const_nz, carry_nz, xs_nz = _scan_split(nz, nc, nk)
    n_ys = len(jaxpr.out_avals) - nk
    lin = ad.linearizing_rule()  # a linearization's scan linearizes its body (_scan_linearize)
    while True:
        jvp, out_nz = ad.jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                                       carry_nz + [False] * n_ys, lin)
        if out_nz[:nk] == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, out_nz[:nk])]
    ys_nz = out_nz[nk:]
    groups = [(nc, sum(const_nz)), (nk, sum(carry_nz)), (n_xs, sum(xs_nz))]
    body = common.permute_invars(jvp, common.interleave_order(groups))
    body = common.permute_outvars(body, common.interleave_order([(nk, sum(carry_nz)),
                                                                 (n_ys, sum(ys_nz))]))
    consts, init, xs = _scan_split(primals, nc, nk)
    cdots, idots, xdots = _scan_split(tangents, nc, nk)
    if is_eval_trace_current():  # JAX checks when the scan runs (staged, the tangent is dead)
        _check_integer_carry_tangents(jaxpr, nc, idots, carry_nz)
    pick = lambda ts, flags: [ad.instantiate_zeros(t) for t, f in zip(ts, flags) if f]  # noqa
    _check_jvp_carry_vma(init, idots, carry_nz, body.out_avals[:nk + sum(carry_nz)])
    outs = scan_p.bind(*consts, *pick(cdots, const_nz), *init, *pick(idots, carry_nz), *xs,
                       *pick(xdots, xs_nz), jaxpr=body, num_consts=nc + sum(const_nz),
                       num_carry=nk + sum(carry_nz), length=length, reverse=reverse,
                       unroll=unroll)
    nkt = sum(carry_nz)
    carry, carry_dots, ys, ys_dots = common.split(outs, [nk, nkt, n_ys, sum(ys_nz)])
    primal_out = carry + ys
    it = iter(carry_dots + ys_dots)
    tangent_out = [next(it) if f else ad.Zero(ad.tangent_aval(get_aval(p)))
                   for p, f in zip(primal_out, carry_nz + ys_nz)]
    return primal_out, tangent_out


ad.primitive_jvps[scan_p] = _scan_jvp


def _check_integer_carry_tangents(jaxpr, nc, init_dots, carry_nz):
    """JAX traces the JVP body with float0 tangents for integer carries, so an integer tangent
    (a dot's with an integer preferred_element_type) given to a carry the body does not
    forward meets the carry check of the while loop JAX runs the scan as: its TypeError, the
    carry named by its place among the JVP scan's carries (primals, then nonzero tangents)."""
    nk = len(init_dots)
    outs, ins = jaxpr.jaxpr.outvars[:nk], jaxpr.jaxpr.invars[nc:nc + nk]
    bad, k = [], nk
    for t, nz, out, in_ in zip(init_dots, carry_nz, outs, ins):
        integer = type(t) is not ad.Zero and not nz
        if integer and out is not in_:
            a = get_aval(t)
            bad.append(f"the input carry component while_carry[1][{k}] has type {a} but the "
                       f"corresponding output carry component has type {ad.tangent_aval(a)}, "
                       "so the dtypes do not match")
        k += nz or integer
    if bad:
        raise common.user_error(
            "while_loop body function carry input and carry output must have equal types, but "
            f"they differ:\n\n{common._carry_list(bad)}\nRevise the function so that all "
            "output types match the corresponding input types.")


def _check_jvp_carry_vma(init, init_dots, carry_nz, out_carry_avals):
    """JAX's scan abstract eval refuses carries whose varying manual axes differ from the body's
    carry outputs; under jvp a user's tangent of another type than its primal's (a NumPy
    tangent of a varying carry inside shard_map) meets a body traced with the primal's tangent
    type, and JAX 0.10.2 raises this ValueError (asking for a bug report). A symbolic zero
    counts with its primal's tangent type, the type JAX instantiates it with."""
    dots = [t for t, f in zip(init_dots, carry_nz) if f]
    in_avals = [get_aval(x) for x in init] + [
        ad.tangent_aval(get_aval(x)) if type(t) is ad.Zero else get_aval(t)
        for x, t in zip([x for x, f in zip(init, carry_nz) if f], dots)]
    if [_vma(a) for a in in_avals] == [_vma(a) for a in out_carry_avals]:
        return
    raise ValueError(
        "Scan carry input and output got mismatched varying manual axes "
        f"{in_avals} and {list(out_carry_avals)}. Please open an issue at "
        "https://github.com/jax-ml/jax/issues, and as a temporary workaround pass the "
        "check_vma=False argument to `jax.shard_map`")


def _scan_partial_eval(trace, args, params):
    jaxpr, nc, nk = params["jaxpr"], params["num_consts"], params["num_carry"]
    n_ys = len(jaxpr.out_avals) - nk
    unknowns = [trace.is_unknown(x) for x in args]
    const_uk, carry_uk, xs_uk = _scan_split(unknowns, nc, nk)
    while True:
        split = partial_eval_jaxpr(jaxpr, const_uk + carry_uk + xs_uk,
                                          carry_uk + [False] * n_ys)
        out_uk = split[2]
        if out_uk[:nk] == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, out_uk[:nk])]
    known, unknown, out_uk, res_avals, fwd = split
    consts, init, xs = _scan_split(args, nc, nk)
    k_consts = [x for x, u in zip(consts, const_uk) if not u]
    k_init = [x for x, u in zip(init, carry_uk) if not u]
    k_xs = [x for x, u in zip(xs, xs_uk) if not u]
    n_kc, n_kk = len(k_consts), len(k_init)
    # Residuals that are just a known const (a weight matrix) or a known x slice are passed to
    # the unknown scan as they are, instead of being stacked once per iteration.
    res_kind = []
    for f in fwd:
        if f is not None and f < n_kc:
            res_kind.append(("const", f))
        elif f is not None and f >= n_kc + n_kk:
            res_kind.append(("xs", f - n_kc - n_kk))
        else:
            res_kind.append(("stacked", None))
    n_known_out = len(known.out_avals) - len(res_avals)
    stacked = [i for i, (kind, _) in enumerate(res_kind) if kind == "stacked"]
    keep = list(range(n_known_out)) + [n_known_out + i for i in stacked]
    known_body = common.permute_outvars(known, keep)
    # JAX's hoisting retraces the known body with the known consts' values, so a const whose
    # weak type differs from its binder's (a strong tangent given to a body traced with a weak
    # one) types the known scan and its residuals as the value does (s23045-85).
    const_avals = [a.update(weak_type=get_aval(c).weak_type)
                   for a, c in zip(known_body.in_avals, k_consts)]
    if const_avals != known_body.in_avals[:n_kc]:
        known_body = trace_to_jaxpr(jaxpr_as_fun(known_body),
                                    const_avals + known_body.in_avals[n_kc:])
    # As JAX's, what only known consts feed is hoisted out of the known scan and runs once:
    # residuals made there become consts of the unknown scan, not stacks, so differentiating
    # them again happens outside the loop (a zero cotangent summed over the iterations meets
    # an infinite derivative once, after the sum, not as 0 * inf in each iteration).
    hoist, known_loop, varies, _, _ = partial_eval_jaxpr(
        known_body, [False] * n_kc + [True] * (n_kk + len(k_xs)),
        [True] * n_known_out + [False] * len(stacked))
    n_hoisted = varies.count(False)
    for j, i in enumerate(stacked):
        if not varies[n_known_out + j]:
            res_kind[i] = ("hoisted", None)
    stacked = [i for i in stacked if res_kind[i][0] == "stacked"]
    with set_current_trace(trace.parent):  # the invariant part and the known scan run now
        hoisted = jaxpr_as_fun(hoist)(*k_consts)
        loop_consts = hoisted[n_hoisted:]
        kouts = scan_p.bind(*loop_consts, *k_init, *k_xs,
                            **dict(params, jaxpr=known_loop, num_consts=len(loop_consts),
                                   num_carry=n_kk))
    n_k_carry = n_kk
    k_carry, k_ys, stacked_res = common.split(
        kouts, [n_k_carry, n_known_out - n_k_carry, len(stacked)])
    # The unknown scan: consts (const residuals, unknown consts), carry (unknown carries), xs
    # (stacked and forwarded-xs residuals, unknown xs). unknown's inputs: residuals, unknowns.
    const_res = [i for i, (kind, _) in enumerate(res_kind) if kind in ("const", "hoisted")]
    xs_res = [i for i, (kind, _) in enumerate(res_kind) if kind not in ("const", "hoisted")]
    n_res = len(res_avals)
    u_const = sum(const_uk)
    u_carry = sum(carry_uk)
    u_xs = sum(xs_uk)
    order = (const_res + [n_res + j for j in range(u_const)]
             + [n_res + u_const + j for j in range(u_carry)]
             + xs_res + [n_res + u_const + u_carry + j for j in range(u_xs)])
    unknown_body = common.permute_invars(unknown, order)
    stacked_it = iter(stacked_res)
    xs_res_vals = [next(stacked_it) if res_kind[i][0] == "stacked" else k_xs[res_kind[i][1]]
                   for i in xs_res]
    hoisted_it = iter(hoisted[:n_hoisted])
    const_res_vals = [next(hoisted_it) if res_kind[i][0] == "hoisted" else k_consts[res_kind[i][1]]
                      for i in const_res]
    u_args = (const_res_vals + [x for x, u in zip(consts, const_uk) if u]
              + [x for x, u in zip(init, carry_uk) if u]
              + xs_res_vals + [x for x, u in zip(xs, xs_uk) if u])
    uparams = dict(params, jaxpr=unknown_body, num_consts=len(const_res) + u_const,
                   num_carry=u_carry)
    uouts = trace.stage(scan_p, u_args, uparams)
    ik, iu = iter(k_carry + k_ys), iter(uouts)
    return [next(iu) if u else next(ik) for u in out_uk]


scan_p.partial_eval = _scan_partial_eval


def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    nc, nk = num_consts, num_carry
    consts, init, xs = _scan_split(args, nc, nk)
    c_lin = [ad.is_undefined_primal(x) for x in consts]
    x_lin = [ad.is_undefined_primal(x) for x in xs]
    # A carry whose initial value is a known constant (zeros instantiated by the JVP) is still
    # a carry of the linear body: transpose it as linear and drop its cotangent, as JAX does.
    init_lin = [ad.is_undefined_primal(x) for x in init]
    init = [x if lin else ad.UndefinedPrimal(get_aval(x)) for x, lin in zip(init, init_lin)]
    ct_carry, ct_ys = cts[:nk], cts[nk:]
    ys_present = [type(ct) is not ad.Zero for ct in ct_ys]
    res_c = [x for x, lin in zip(consts, c_lin) if not lin]
    res_x = [x for x, lin in zip(xs, x_lin) if not lin]
    lin_c_avals = [x.aval for x in consts if ad.is_undefined_primal(x)]
    lin_x_avals = [x.aval.drop_dim(0) for x in xs
                   if ad.is_undefined_primal(x)]
    n_lc = len(lin_c_avals)
    # Carries whose cotangent stays a symbolic zero through every iteration (an output the
    # loss does not use, feeding no other carry) are left out of the backward scan: a zero
    # cotangent carried as zeros would meet the body's infinities (0 * inf = NaN) where JAX,
    # which drops such carries, gives the other cotangents.
    carry_ct = [type(ct) is not ad.Zero for ct in ct_carry]
    # JAX traces the body's transpose at the cotangents' own types and types its carry binders
    # as the carry cotangents, an xs binder as its accumulator outside: a weak carry made
    # strong then has a strong cotangent, while one made weak through a weak intermediate
    # stays weak.
    ct_weak = [(ct.aval if type(ct) is ad.Zero else get_aval(ct)).weak_type for ct in cts]
    out_cts = [ad.tangent_aval(a).update(weak_type=w) for a, w in zip(jaxpr.out_avals, ct_weak)]
    lin_types = ([None] * nc
                 + [a.update(weak_type=w) for a, w in zip(jaxpr.in_avals[nc:nc + nk], ct_weak)]
                 + [a.update(weak_type=x.aval.weak_type) if lin else None
                    for a, x, lin in zip(jaxpr.in_avals[nc + nk:], xs, x_lin)])
    # A linear const's cotangent sums into the running accumulator given to the body (JAX's
    # ValAccum made with it), so each iteration adds its terms to it in JAX's order: adding
    # the body's own sum to it afterwards rounds otherwise (s22053-101).
    while True:
        body_t, in_nz = ad.transpose_jaxpr(
            jaxpr, c_lin + [True] * nk + x_lin, carry_ct + ys_present,
            [a for a, p in zip(out_cts, carry_ct + ys_present) if p], lin_types=lin_types,
            seeded=c_lin)
        grown = [a or b for a, b in zip(carry_ct, in_nz[n_lc:n_lc + nk])]
        if grown == carry_ct:
            break
        carry_ct = grown
    # As JAX's accumulators, a carry's cotangent has the incoming cotangent's type: a carry
    # the body makes weak has a weak cotangent, zeros included.
    ct_carry = [ad.instantiate_zeros(ct) for ct, c in zip(ct_carry, carry_ct) if c]
    carry_avals = [x.aval.update(weak_type=get_aval(ct).weak_type)
                   for x, ct in zip([x for x, c in zip(init, carry_ct) if c], ct_carry)]
    carry_nz = [nz for nz, c in zip(in_nz[n_lc:n_lc + nk], carry_ct) if c]
    n_ct = len(carry_avals)
    n_rc, n_rx = len(res_c), len(res_x)
    y_avals = [a for a, p in zip(out_cts[nk:], ys_present) if p]

    # body of the transposed scan: consts res_c; carry (ct of linear consts, ct of the carries
    # that have one); xs (res_x, ct_ys) -> new carry; ys = ct of linear xs
    def tbody(*a):
        rc, acc, ctc, rx, cty = common.split(a, [n_rc, n_lc, n_ct, n_rx, len(y_avals)])
        # body_t inputs: non-linear inputs (res consts, res xs in order), then cts (carry, ys),
        # then the linear consts' accumulators, which it returns with this iteration's terms
        # added (add_any, as JAX's accumulators: the sum keeps the accumulator's weak type)
        outs = jaxpr_as_fun(body_t)(*rc, *rx, *ctc, *cty, *acc)
        d_c, d_carry, d_x = common.split(outs, [n_lc, nk, len(lin_x_avals)])
        d_carry = [d if nz else ad.zeros_like_aval(a) for d, nz, a in
                   zip([d for d, c in zip(d_carry, carry_ct) if c], carry_nz, carry_avals)]
        return d_c + d_carry + d_x

    rx_avals = [get_aval(x).drop_dim(0) for x in res_x]
    tj = trace_to_jaxpr(tbody, [get_aval(x) for x in res_c] + lin_c_avals + carry_avals
                           + rx_avals + y_avals)
    acc0 = [ad.zeros_like_aval(a) for a in lin_c_avals]
    outs = scan_p.bind(*res_c, *acc0, *ct_carry, *res_x,
                       *[ct for ct, p in zip(ct_ys, ys_present) if p],
                       jaxpr=tj, num_consts=n_rc, num_carry=n_lc + n_ct,
                       length=length, reverse=not reverse, unroll=unroll)
    d_c, d_init, d_xs = common.split(outs, [n_lc, n_ct, len(lin_x_avals)])
    ii = iter(d_init)
    d_init = [next(ii) if c else None for c in carry_ct]
    # A linear const or xs no cotangent reaches (dead in the body) gets a symbolic zero, not the
    # accumulated zeros: JAX's DCE drops it, so 0 * inf upstream stays out of its gradient.
    d_c = [d if reached else ad.Zero(get_aval(d))
           for d, reached in zip(d_c, in_nz[:n_lc])]
    d_xs = [d if reached else ad.Zero(get_aval(d))
            for d, reached in zip(d_xs, in_nz[n_lc + nk:])]
    ic, ix = iter(d_c), iter(d_xs)
    return ([next(ic) if lin else None for lin in c_lin]
            + [d if lin else None for d, lin in zip(d_init, init_lin)]
            + [next(ix) if lin else None for lin in x_lin])


ad.primitive_transposes[scan_p] = _scan_transpose


@batching.needs_axis_data
def _scan_batching(axis_data, args, dims, *, jaxpr, num_consts, num_carry, length, reverse,
                   unroll):
    size = axis_data.size
    nc, nk = num_consts, num_carry
    b = [d is not not_mapped for d in dims]
    cb, carry_b, xb = _scan_split(b, nc, nk)
    n_ys = len(jaxpr.out_avals) - nk
    while True:
        _, out_b = batching.batch_jaxpr(jaxpr, axis_data, cb + carry_b + xb,
                                      carry_b + [False] * n_ys)
        if out_b[:nk] == carry_b:
            break
        carry_b = [x or y for x, y in zip(carry_b, out_b[:nk])]
    body, out_b = batching.batch_jaxpr(jaxpr, axis_data, cb + carry_b + xb,
                                     carry_b + [False] * n_ys)
    consts, init, xs = _scan_split(args, nc, nk)
    cd, kd, xd = _scan_split(dims, nc, nk)
    consts = [common.to_batched(x, d, w, size) for x, d, w in zip(consts, cd, cb)]
    init = [common.to_batched(x, d, w, size) for x, d, w in zip(init, kd, carry_b)]
    xs = [common.to_batched(x, d, w, size, dst=1) for x, d, w in zip(xs, xd, xb)]
    _check_batched_carry_vma(init, body.out_avals[:nk])
    outs = scan_p.bind(*consts, *init, *xs, jaxpr=body, num_consts=nc, num_carry=nk,
                       length=length, reverse=reverse, unroll=unroll)
    out_dims = [0 if w else not_mapped for w in carry_b]
    out_dims += [1 if w else not_mapped for w in out_b[nk:]]
    return outs, out_dims


scan_p.def_batching(_scan_batching)


def _check_batched_carry_vma(init, out_carry_avals):
    """Inside shard_map a batched body can make a carry vary more than its initial value (a
    cond whose batched predicate varies: its select_n takes the predicate's axes); JAX 0.10.2's
    scan abstract eval then refuses the batched scan, in these words."""
    in_avals = [get_aval(x) for x in init]
    if [_vma(a) for a in in_avals] != [_vma(a) for a in out_carry_avals]:
        raise ValueError(
            "Scan carry input and output got mismatched varying manual axes "
            f"{in_avals} and {list(out_carry_avals)}. Please open an issue at "
            "https://github.com/jax-ml/jax/issues, and as a temporary workaround pass the "
            "check_vma=False argument to `jax.shard_map`")


# ------------------------------------------------------------------------------------------------
# Dead-code elimination of scan carries (JAX's _scan_dce_rule): a carry that no used output
# needs, directly or through another used carry, goes with what computes it, so an invalid
# derivative in a dead carry (a custom_vjp's forward tangent) is never lowered. As in JAX
# 0.10.2, ``while`` has no such rule: a used while equation is kept whole.


def _live_carries(body, n_before, used_carry, used_rest):
    """Fixed point: the carries ``used_carry`` or some live carry needs through ``body``
    (whose invars are (n_before operands, carries, ...) and outvars (carries, rest))."""
    nk = len(used_carry)
    while True:
        new_body, used_in = dce_jaxpr_used(body, list(used_carry) + list(used_rest))
        grown = [u or i for u, i in zip(used_carry, used_in[n_before:n_before + nk])]
        if grown == used_carry:
            return used_carry, new_body, used_in
        used_carry = grown


def _scan_dce(eqn, used_outputs):
    p = eqn.params
    nc, nk, body = p["num_consts"], p["num_carry"], p["jaxpr"]
    if common.effectful(body):
        return [True] * len(eqn.invars), eqn
    used_carry, new_body, used_in = _live_carries(body, nc, used_outputs[:nk], used_outputs[nk:])
    used_in = used_in[:nc] + used_carry + used_in[nc + nk:]  # a live carry stays an input
    used_out = used_carry + list(used_outputs[nk:])
    params = dict(p, jaxpr=common.pruned(new_body, used_in), num_consts=sum(used_in[:nc]),
                  num_carry=sum(used_carry))
    return used_in, JaxprEqn(eqn.primitive, common.keep(eqn.invars, used_in),
                             common.keep(eqn.outvars, used_out), params, eqn.source_info)


dce_rules[scan_p] = _scan_dce


# ------------------------------------------------------------------------------------------------
# The user-facing functions


def _carry_mismatch(what, in_tree, in_avals, out_tree, out_avals):
    return common.user_error(
        f"{what} function carry input and carry output must have the same pytree structure and "
        f"types, but the carry input has type {_describe(in_tree, in_avals)} and the carry "
        f"output has type {_describe(out_tree, out_avals)}")


def _describe(tree, avals):
    try:
        return str(tree.unflatten([a.str_short(True) for a in avals])).replace("'", "")
    except Exception:  # noqa: BLE001 - a mismatched count: show the flat list
        return common.type_str(avals)


def _promote_weak_init(init_leaves, init_avals, out_avals):
    """A weakly typed initial carry (a Python scalar) the body turns into another dtype takes
    the body's dtype, as in JAX, and the body is traced again. One the body only makes strong
    is passed unconverted (JAX's typematch ignores weak types): a convert there would make its
    cotangent weak again, where JAX's is the strong carry cotangent."""
    changed = False
    new = []
    for x, a, o in zip(init_leaves, init_avals, out_avals):
        if a.weak_type and a.shape == o.shape and a.dtype != o.dtype:
            x = convert_element_type(x, o.dtype)
            changed = True
        new.append(x)
    return new, changed


def _carry_avals(leaves):
    # Weak types are kept: a Python-scalar carry must not promote bfloat16 values it meets
    # in the body (JAX traces the body with the weak type too).
    return [get_aval(x) for x in leaves]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``; returns the final carry
    and the stacked ys. Compiles to one XLA while loop, whatever the length.

    ``_split_transpose`` is JAX's experimental request to split the transposed loop in two (a
    memory layout choice, the same values); minijax's transpose is one loop either way."""
    if not callable(f):
        raise TypeError("scan: f must be callable")
    xs_leaves, xs_tree = _registry.flatten(xs)
    lengths = {get_aval(x).shape[0] if get_aval(x).shape else None for x in xs_leaves}
    if None in lengths:
        raise common.user_error("scan got a value with no leading axis to scan over: "
                                + ", ".join(get_aval(x).str_short(True) for x in xs_leaves))
    if length is not None:
        length = operator.index(length)
        if lengths and lengths != {length}:
            raise ValueError(with_user_line(
                f"scan got `length` argument of {length} which disagrees with leading axis "
                f"sizes {sorted(lengths)}."))
    elif len(lengths) > 1:
        raise ValueError(with_user_line(
            f"scan got values with different leading axis sizes: {sorted(lengths)}."))
    elif not lengths:
        raise ValueError(with_user_line("scan got no values to scan over and `length` not "
                                        "provided."))
    else:
        (length,) = lengths
    if isinstance(unroll, bool):
        unroll = length if unroll else 1
    unroll = max(1, int(unroll))
    init_leaves, init_tree = _registry.flatten(init)
    # a slice of a weak xs is weak in the body, as JAX's (so are the ys it passes on)
    x_avals = [get_aval(x).drop_dim(0) for x in xs_leaves]
    for x in xs_leaves:  # a scan slices xs whole: none may be split along its leading axis
        aval = get_aval(x)
        if aval.explicit is not None and aval.explicit[1][0] is not None:
            raise ValueError(f"0th dimension of all xs should be replicated. Got "
                             f"{aval.sharding.spec}")
    in_tree = _registry.flatten((init, xs))[1]
    nk = len(init_leaves)
    for _ in range(2):
        carry_avals = _carry_avals(init_leaves)
        in_tree = _registry.flatten((init_tree.unflatten(init_leaves), xs))[1]
        with ref_writes.watch() as watched:
            body, consts, out_tree = common.trace_user_fun(f, in_tree, carry_avals + x_avals)
        if watched.written:
            return _scan_with_refs(f, init, xs, watched.refs, length, reverse, unroll)
        out_leaves_tree = out_tree.children() if out_tree.num_nodes > 1 else None
        if out_leaves_tree is None or len(out_leaves_tree) != 2:
            raise common.user_error(
                "scan body output must be a pair (carry, y), got a tree "
                f"{out_tree}")
        c_tree = out_leaves_tree[0]
        out_carry = body.out_avals[:c_tree.num_leaves]
        init_leaves, changed = _promote_weak_init(init_leaves, carry_avals, out_carry)
        if not changed:
            break
    if c_tree != init_tree or not common.same_types(out_carry, carry_avals):
        raise _carry_mismatch("scan body", init_tree, carry_avals, c_tree, out_carry)
    common.check_carry_types("scan body", f, init_tree, carry_avals, out_carry)
    # As JAX's scan: a carry the body returns unchanged is read-only, a constant whose final
    # value is its init (vmap, jvp and shard_map's carry checks then never see it), and a y
    # that is the x slice itself is the xs leaf, with no copy through the loop.
    b = body.jaxpr
    nc = len(consts)
    moved = [out is v for out, v in zip(b.outvars, b.invars[nc:nc + nk])]
    x_binders = {id(v): i for i, v in enumerate(b.invars[nc + nk:])}
    ys_fwd = [x_binders.get(id(v)) for v in b.outvars[nk:]]
    body = _moved_to_consts(body, nc, moved, [i is None for i in ys_fwd])
    kept = [x for x, m in zip(init_leaves, moved) if not m]
    consts = [*(x for x, m in zip(init_leaves, moved) if m), *consts]
    outs = iter(scan_p.bind(*consts, *kept, *xs_leaves, jaxpr=body, num_consts=len(consts),
                            num_carry=len(kept), length=length, reverse=bool(reverse),
                            unroll=unroll))
    carry = init_tree.unflatten([x if m else next(outs) for x, m in zip(init_leaves, moved)])
    ys = out_leaves_tree[1].unflatten(
        [next(outs) if i is None else _as_array(xs_leaves[i]) for i in ys_fwd])
    return carry, ys


def _moved_to_consts(closed, n_consts, moved, keep_rest):
    """JAX's ``move_to_const``: the carry binders flagged in ``moved`` (ones the body returns
    unchanged) go in front of the constants and their outputs are pruned, as are the outputs
    after the carries that ``keep_rest`` does not keep."""
    if not any(moved) and all(keep_rest):
        return closed
    b = closed.jaxpr
    n = len(moved)
    carries = b.invars[n_consts:n_consts + n]
    hoisted = [v for v, m in zip(carries, moved) if m]
    unmoved = lambda xs: [x for x, m in zip(xs, moved) if not m]  # noqa: E731
    rest_outs = [v for v, k in zip(b.outvars[n:], keep_rest) if k]
    return ClosedJaxpr(Jaxpr(b.constvars, [*hoisted, *b.invars[:n_consts], *unmoved(carries),
                                           *b.invars[n_consts + n:]],
                             [*unmoved(b.outvars[:n]), *rest_outs], b.eqns), closed.consts)


def _as_array(x):
    # JAX's _maybe_put: an xs leaf returned as a y is an Array, not the caller's NumPy array
    return device_put_value(x) if isinstance(x, np.ndarray) else x


def _scan_with_refs(f, init, xs, refs, length, reverse, unroll):
    """``scan`` of ``f``, which writes the outer ``refs``: their values join the carry."""
    def step(carry, x):
        c, vals = carry
        ref_writes.adopt(refs, vals)
        c, y = f(c, x)
        return (c, [r[...] for r in refs]), y

    (carry, vals), ys = scan(step, (init, [r[...] for r in refs]), xs, length=length,
                             reverse=reverse, unroll=unroll)
    ref_writes.write_back(refs, vals)
    return carry, ys


def while_loop(cond_fun, body_fun, init_val, max_steps=None):
    """``while cond_fun(val): val = body_fun(val)`` as one XLA while loop.

    With ``max_steps=N`` (beyond JAX) it runs at most N iterations, as a scan whose steps do
    no work once the predicate is false, and is then reverse-differentiable.
    """
    if max_steps is not None:
        return _bounded_while(cond_fun, body_fun, init_val, operator.index(max_steps))
    leaves, tree = _registry.flatten(init_val)
    arg_tree = _registry.flatten((init_val,))[1]  # the functions take one argument
    for _ in range(2):
        avals = _carry_avals(leaves)
        with ref_writes.watch() as watched:
            body, bconsts, out_tree = common.trace_user_fun(body_fun, arg_tree, avals)
        if watched.written:
            return _while_with_refs(cond_fun, body_fun, init_val, watched.refs)
        leaves, changed = _promote_weak_init(leaves, avals, body.out_avals)
        if not changed:
            break
    cond_j, cconsts, c_tree = common.trace_user_fun(cond_fun, arg_tree, avals)
    pred = cond_j.out_avals
    if c_tree.num_leaves != 1 or pred[0].shape != () or pred[0].dtype != np.bool_:
        raise common.user_error(
            f"while_loop: cond_fun must return a boolean scalar, but got output type(s) "
            f"{common.type_str(pred)}.")
    if out_tree != tree or not common.same_types(body.out_avals, avals):
        raise _carry_mismatch("while_loop body", tree, avals, out_tree, body.out_avals)
    common.check_carry_types("while_loop body", body_fun, tree, avals, body.out_avals)
    cond_j, body, moved = _hoist_forwarded(cond_j, len(cconsts), body, len(bconsts))
    kept = [x for x, m in zip(leaves, moved) if not m]
    bconsts = [*(x for x, m in zip(leaves, moved) if m), *bconsts]
    outs = iter(while_p.bind(*cconsts, *bconsts, *kept, cond_jaxpr=cond_j, body_jaxpr=body,
                             cond_nconsts=len(cconsts), body_nconsts=len(bconsts)))
    return tree.unflatten([x if m else next(outs) for x, m in zip(leaves, moved)])


def _hoist_forwarded(cond_j, n_cconsts, body, n_bconsts):
    """As JAX's while_loop: a carry the body returns unchanged and the predicate does not read
    becomes a body constant, its initial value the loop's output. ``(cond, body, moved)``,
    ``moved`` flagging those carries. A constant is no loop state: vmap does not batch it
    with the predicate, and reverse mode needs no transpose of the loop for it (grad of a
    value the loop only passes through works, as in JAX)."""
    b, c = body.jaxpr, cond_j.jaxpr
    carries, c_carries = b.invars[n_bconsts:], c.invars[n_cconsts:]
    read = {id(v) for e in c.eqns for v in e.invars} | {id(v) for v in c.outvars}
    moved = [out is v and id(cv) not in read
             for out, v, cv in zip(b.outvars, carries, c_carries)]
    if not any(moved):
        return cond_j, body, moved
    keep = lambda xs: [x for x, m in zip(xs, moved) if not m]  # noqa: E731
    body = _moved_to_consts(body, n_bconsts, moved, [])
    cond_j = ClosedJaxpr(Jaxpr(c.constvars, [*c.invars[:n_cconsts], *keep(c_carries)],
                               c.outvars, c.eqns), cond_j.consts)
    return cond_j, body, moved


def _while_with_refs(cond_fun, body_fun, init_val, refs):
    """``while_loop`` whose body writes the outer ``refs``: their values join the carry."""
    def wcond(carry):
        val, vals = carry
        ref_writes.adopt(refs, vals)
        return cond_fun(val)

    def wbody(carry):
        val, vals = carry
        ref_writes.adopt(refs, vals)
        val = body_fun(val)
        return val, [r[...] for r in refs]

    with ref_writes.watch():  # cond_fun's trace leaves the refs as they were
        val, vals = while_loop(wcond, wbody, (init_val, [r[...] for r in refs]))
    ref_writes.write_back(refs, vals)
    return val


def _bounded_while(cond_fun, body_fun, init_val, max_steps):
    def step(val, _):
        return cond(cond_fun(val), body_fun, lambda v: v, val), None

    return scan(step, init_val, None, length=max_steps)[0]


def _is_static(x):
    """A concrete scalar bound: JAX's fori_loop then runs ``range(int(lower), int(upper))``
    as a scan (a float bound is truncated)."""
    return not isinstance(x, Tracer) and np.ndim(x) == 0 and (
        isinstance(x, (int, float, np.integer, np.floating)) or np.asarray(x).dtype.kind in "iuf")


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``for i in range(lower, upper): val = body_fun(i, val)``. With static bounds it is a
    scan (reverse-differentiable); with traced bounds a while loop."""
    if _is_static(lower) and _is_static(upper):
        lo, hi = int(np.asarray(lower)), int(np.asarray(upper))

        def step(loop_carry, _):
            i, val = loop_carry
            return (i + 1, body_fun(i, val)), None

        step.__wrapped__ = body_fun  # the user's loop: scan checks its carry types, as JAX's
        # The index starts as the Python int ``lo``, as JAX's: a weak int32 whatever the bounds'
        # dtype, so ``x + i`` keeps an int8 carry int8.
        (_, val), _ = scan(step, (lo, init_val), None, length=max(hi - lo, 0),
                           unroll=1 if unroll is None else unroll)
        return val
    # traced bounds keep their (common) dtype, as JAX's: float bounds count in floats; a bound
    # already of that dtype is not converted (a weak one stays weak, as JAX's)
    lower_dtype, upper_dtype = get_aval(lower).dtype, get_aval(upper).dtype
    dtype = np.result_type(lower_dtype, upper_dtype)
    if lower_dtype != dtype:
        lower = convert_element_type(lower, dtype)
    if upper_dtype != dtype:
        upper = convert_element_type(upper, dtype)
    one = np.ones((), dtype)

    def wcond(c):
        return lt(c[0], c[1])

    # JAX's carry layout and name, which its type errors show
    def wbody(loop_carry):
        i, hi, val = loop_carry
        return add(i, one), hi, body_fun(i, val)

    wbody.__wrapped__ = body_fun  # the user's loop: while_loop checks its carry types
    return while_loop(wcond, wbody, (lower, upper, init_val))[2]


def _vmap(f, xs):
    """``_vmap(f, xs)``: ``f`` on each slice of the pytree ``xs`` along axis 0, batched."""
    leaves, tree = _registry.flatten(xs)
    size = get_aval(leaves[0]).shape[0]
    out_trees = []

    def flat(*slices):
        out_leaves, out_tree = _registry.flatten(f(tree.unflatten(slices)))
        out_trees.append(out_tree)
        return out_leaves

    outs, dims = batching.batch_flat(flat, leaves, [0] * len(leaves),
                                     batching.AxisData(None, size, None))
    return out_trees[0].unflatten([batching.bdim_to(v, d, 0, size) for v, d in zip(outs, dims)])


def map(f, xs, *, batch_size=None):  # noqa: A001 - JAX's name
    """``f`` applied to each slice of ``xs`` along the leading axis (a scan); with
    ``batch_size``, ``batch_size`` slices at a time under vmap."""
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    leaves, tree = _registry.flatten(xs)
    n = get_aval(leaves[0]).shape[0]
    n_main = n - n % batch_size
    outs = []
    if n_main:
        grouped = [reshape(slice_in_dim(x, 0, n_main), (n_main // batch_size,
                                                                batch_size,
                                                                *get_aval(x).shape[1:]))
                   for x in leaves]
        ys = scan(lambda _, x: ((), _vmap(f, x)), (), tree.unflatten(grouped))[1]
        outs.append(_tree_map(lambda y: reshape(y, (n_main, *get_aval(y).shape[2:])), ys))
    if n_main < n:
        rest = [slice_in_dim(x, n_main, n) for x in leaves]
        outs.append(_vmap(f, tree.unflatten(rest)))
    if len(outs) == 1:
        return outs[0]
    a, a_tree = _registry.flatten(outs[0])
    b, _ = _registry.flatten(outs[1])
    return a_tree.unflatten([concatenate([p, q], 0) for p, q in zip(a, b)])


def _tree_map(fn, tree):
    leaves, t = _registry.flatten(tree)
    return t.unflatten([fn(x) for x in leaves])

while_p.sharding_rule = sharding_rules.typed_by_body  # its results are its body's
scan_p.sharding_rule = sharding_rules.typed_by_body  # its results are its body's
