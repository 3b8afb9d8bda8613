"""Post-training quantization as passes over the program's constants.

``quantize(f, params, mode)`` stages ``lambda *args: f(params, *args)``: the parameters become
constants of the jaxpr. The pass finds every ``dot_general`` with a float constant of rank >= 2
as an operand (a matmul weight), stores that weight quantized with one scale per output
channel (per slice along its non-contracting dims) and replaces the equation by

    dot_general(x, convert(w_q, f32)) * scale      # the dequantization happens in the matmul

so the f32 weights drop out of the program (DCE) and only ``w_q`` (int8, or float8_e4m3fn)
and the scales are held by the executable. ``mode="int8_weight_only"``: symmetric int8,
``scale = max|w| / 127``; ``mode="fp8"``: e4m3fn, ``scale = max|w| / 448`` (its largest
finite value), rounded to nearest by the cast.

``calibrate(f, params, sample_batches)``, in the spirit of Glow's profile-guided quantization:
an instrumentation pass adds ``max(|x|)`` of each matmul's activation operand as extra outputs,
the instrumented program runs on the sample batches, and the returned function runs the
matmuls in int8 x int8 -> int32 with a per-tensor activation scale (``max|x| / 127``, values
beyond the calibrated range saturate) and per-channel weight scales.

Where the weights are. A weight is a float parameter of rank >= 2 reaching a ``dot_general``
directly, through a ``transpose`` (transposed on the host) or through a ``broadcast_in_dim``
that only adds batch axes (``x @ w`` with ``x`` of rank 3 is a batched dot against ``w``
broadcast: the broadcast stays in the program, applied to the quantized weight). The pass
walks loop and branch bodies, following each constant through the operands that carry it in:

- ``scan`` ``xs``: a stacked per-layer weight, sliced per iteration. It is quantized per layer
  per output channel (the scales keep the stacked axes); the quantized stack and its scales
  become ``xs`` of the scan in place of the f32 stack, and the body dequantizes in the matmul
  as at the top level. ``scan`` consts (weights closed over by the body) likewise become
  quantized consts. Nested scans recurse (a ``[L1, L2, ...]`` stack scanned twice keeps both
  leading axes in its scales).
- ``cond`` branches (operands) and ``while`` bodies (body consts): weight-only there.
- ``checkpoint`` bodies (its operands map one to one to its jaxpr's inputs): the quantized
  weights become extra operands; calibrated too (the maxima become extra outputs).
- ``custom_jvp``/``custom_vjp`` calls whose body holds a matmul are inlined first (their
  jaxpr's equations replace the call), so weights passed in are quantized like any other.
  The call's custom derivative rule is dropped with it: a quantized program is for inference,
  and differentiating one falls back to autodiff of those bodies. Calls without a matmul (the
  activations of ``minijax.nn``: relu, gelu, softplus ...) keep their rules.

Operands the rewritten body no longer reads (the f32 stacks) are pruned from the loop, and DCE
drops them from the program. Calibration covers the top level, scan and checkpoint bodies: the
instrumented scan stacks each body matmul's ``max|x|`` per iteration as an extra output and
takes its max, so each body matmul gets one per-tensor activation range, the max over the loop
(over layers). Matmuls in ``cond`` branches and ``while`` bodies of a calibrated program use
weight-only int8.

Weights are quantized once per parameter array (cached by identity and content), the first time
a signature is traced; ``weight_memory()`` reports their bytes before and after (a stacked
weight counts whole).
"""

from __future__ import annotations

import hashlib

import numpy as np

from minijax import dtypes, lax
from minijax.core import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    ShapedArray,
    Tracer,
    Var,
    eval_jaxpr,
    get_aval,
)
from minijax.interpreters.partial_eval import dce_jaxpr
from minijax.interpreters.walk import iter_eqns
from minijax.jitting import jit
from minijax.lax.families import const
from minijax.transforms.api import Transformed, run_pass, trace
from minijax.transforms.rewrite import _Builder, replace_eqn, trace_replacement

MODES = {"int8_weight_only": (np.dtype(np.int8), 127.0),
         "fp8": (dtypes.float8_e4m3fn, 448.0),
         "int8": (np.dtype(np.int8), 127.0)}


def _is_weight(aval):
    return aval.ndim >= 2 and dtypes.is_float(aval.dtype) and aval.dtype.itemsize >= 2


def quantize_array(w, qdtype, qmax, reduce_axes):
    """``(q, scale)`` with ``w ≈ q * scale``; ``scale`` keeps ``w``'s rank (size 1 along
    ``reduce_axes``)."""
    w = np.asarray(w, np.float32)
    amax = np.max(np.abs(w), axis=tuple(reduce_axes), keepdims=True)
    scale = np.where(amax > 0, amax / qmax, 1.0).astype(np.float32)
    if qdtype == np.int8:
        q = np.clip(np.rint(w / scale), -qmax, qmax).astype(np.int8)
    else:
        q = (w / scale).astype(qdtype)
    return q, scale


def _weight_dims(eqn, wi):
    """``(batch, free, contract)`` dims of the weight operand ``wi`` of a ``dot_general``."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    contract, batch = (lc, lb) if wi == 0 else (rc, rb)
    free = [d for d in range(eqn.invars[wi].aval.ndim) if d not in contract and d not in batch]
    return tuple(batch), tuple(free), tuple(contract)


def _out_dims(eqn, wi):
    """The dot's output dimensions that the weight's (batch, free) axes map to."""
    (lc, rc), _ = eqn.params["dimension_numbers"]
    batch, free, _ = _weight_dims(eqn, wi)
    nb = len(batch)
    other = eqn.invars[1 - wi].aval
    n_other_free = other.ndim - len(rc if wi == 0 else lc) - nb
    start = nb + (n_other_free if wi == 1 else 0)
    return (*range(nb), *range(start, start + len(free)))


def _scale_output(y, s, dims):
    s = s.astype(y.dtype)
    if any(n == 1 for n in s.shape):  # size 1 along the axes a weight broadcast added
        dims = [d for d, n in zip(dims, s.shape) if n != 1]
        s = s.reshape([n for n in s.shape if n != 1])
    return y * lax.broadcast_in_dim(s, y.shape, dims)


def _view(w, view):
    return w if view is None else lax.broadcast_in_dim(w, view[0], view[1])


class _Level:
    """One jaxpr being rewritten. ``known[v] = (array, route)``: ``v`` holds ``array`` indexed
    along ``route`` — one flag per loop between the jaxpr where ``array`` is a constant and
    this one, True where that loop (a scan's ``xs``) slices off the next leading axis per
    iteration, False where it passes the value whole (scan/while consts, cond operands).
    ``needs``: new inputs this jaxpr asks its parent for (quantized stacks, their scales)."""

    def __init__(self, closed, known):
        self.b = _Builder(closed.jaxpr, closed.consts)
        self.known = dict(known)
        for v, c in zip(closed.jaxpr.constvars, closed.consts):
            if not isinstance(c, Tracer):
                self.known[v] = (c, ())
        self.views = {}  # v -> (shape, dims): v is broadcast_in_dim(known value, shape, dims)
        self.needs = {}  # (id(array), route) -> (Var, array, route)
        self.extra = []  # instrumentation: scalar activation maxima, extra outputs
        self.changed = False

    def var_for(self, arr, route):
        """A variable of this jaxpr holding ``arr`` indexed along ``route``."""
        aval = get_aval(arr)
        aval = aval.update(shape=aval.shape[sum(route):])
        if not route:
            return self.b.const_var(arr, aval)
        key = (id(arr), route)
        if key not in self.needs:
            self.needs[key] = (Var(aval), arr, route)
        return self.needs[key][0]


def _used_vars(jaxpr):
    used = {a for e in jaxpr.eqns for a in e.invars if type(a) is Var}
    return used | {a for a in jaxpr.outvars if type(a) is Var}


class Quantized:
    """The quantized ``f(params, *args)``; call it like ``f`` without ``params``."""

    def __init__(self, f, params, mode="int8_weight_only", act_ranges=None):
        if mode not in MODES:
            raise ValueError(f"quantize: mode must be one of {sorted(MODES)}, got {mode!r}")
        self.mode = mode
        self.params = params
        self.act_ranges = act_ranges  # per calibrated matmul, in program order: calibrate()
        self._weights = {}  # (shape, dtype, reduce_axes, digest of w) -> (w, q, scale)
        self._by_id = {}  # (id(w), reduce_axes) -> the same records
        self._keep = []
        self._scales = {}  # (id(scale), lead, batch, free, contract) -> per-channel scales
        self._transposed = {}  # (id(w), permutation) -> (w, w transposed on the host)
        self._fn = Transformed([self.quantize_pass], lambda *args: f(params, *args))

    def __call__(self, *args):
        return self._fn(*args)

    def transformed_jaxpr(self, *args):
        return self._fn.transformed_jaxpr(*args)

    def _quantized_weight(self, w, reduce_axes):
        key = (id(w), tuple(reduce_axes))
        rec = self._by_id.get(key)
        if rec is None:
            # by content too: an array closed over by a loop body and also used outside it
            # can reach the program as two constants (a NumPy array and its device copy)
            a = np.ascontiguousarray(np.asarray(w))
            ckey = (a.shape, a.dtype.str, tuple(reduce_axes),
                    hashlib.blake2b(a.view(np.uint8).reshape(-1), digest_size=16).digest())
            rec = self._weights.get(ckey)
            if rec is None:
                qdtype, qmax = MODES[self.mode]
                q, scale = quantize_array(a, qdtype, qmax, reduce_axes)
                rec = self._weights[ckey] = (w, q, scale)
            self._by_id[key] = rec
            self._keep.append(w)  # ids stay valid while cached
        return rec[1], rec[2]

    def quantize_pass(self, closed):
        self._k = 0
        out, _ = self._walk(closed, {}, act=True, instrument=False)
        if self.act_ranges is not None and self._k != len(self.act_ranges):
            raise ValueError(f"calibrate: the program has {self._k} calibrated matmuls, "
                             f"{len(self.act_ranges)} were calibrated; call it as it was "
                             "calibrated")
        return out

    def instrument_pass(self, closed):
        """Adds ``max|x|`` of each calibrated matmul's activation operand as extra outputs
        (program order; in scan bodies the max over the iterations)."""
        out, _ = self._walk(closed, {}, act=True, instrument=True)
        return out

    def _walk(self, closed, known, act, instrument):
        """``(closed rewritten, its _Level)``. ``act``: matmuls here may use calibrated
        activation ranges (top level and scan bodies; not cond branches or while bodies)."""
        closed = _inline_custom_calls_with_matmuls(closed)
        lv = _Level(closed, known)
        b = lv.b
        for eqn in closed.jaxpr.eqns:
            eqn = JaxprEqn(eqn.primitive, [b.read(a) for a in eqn.invars], eqn.outvars,
                           eqn.params, eqn.source_info)
            name = eqn.primitive.name
            if name == "transpose":
                self._note_transpose(lv, eqn)
            elif name == "broadcast_in_dim":
                self._note_broadcast(lv, eqn)
            wi = self._weight_operand(lv, eqn)
            if wi is not None:
                self._matmul(lv, eqn, wi, act, instrument)
                continue
            new = eqn
            if name == "scan":
                new = self._scan(lv, eqn, act, instrument)
            elif name == "cond" and not instrument:
                new = self._cond(lv, eqn)
            elif name == "while" and not instrument:
                new = self._while(lv, eqn)
            elif name == "remat2":
                new = self._checkpoint(lv, eqn, act, instrument)
            lv.changed |= new is not eqn
            if new is not None:  # None: _scan emitted it
                b.eqns.append(new)
        out = b.finish(closed.jaxpr)
        if lv.extra:
            j = out.jaxpr
            out = ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars + lv.extra, j.eqns),
                              out.consts)

        return dce_jaxpr(out), lv  # the float weights are no longer used

    def _weight_operand(self, lv, eqn):
        """Index of the operand of a ``dot_general`` that is a (sliced) float constant."""
        if eqn.primitive.name != "dot_general":
            return None
        for i, a in enumerate(eqn.invars):
            if type(a) is Var and a in lv.known and _is_weight(a.aval):
                return i
        return None

    def _note_transpose(self, lv, eqn):
        """``w.T`` of a weight is a (host-transposed) constant too, so the matmul it feeds
        sees a constant weight; the f32 original and the transpose then drop out by DCE."""
        (x,) = eqn.invars
        if type(x) is not Var or x not in lv.known or x in lv.views:
            return
        w, route = lv.known[x]
        n = sum(route)
        perm = (*range(n), *(n + p for p in eqn.params["permutation"]))
        key = (id(w), perm)
        if key not in self._transposed:
            self._transposed[key] = (w, np.ascontiguousarray(np.transpose(np.asarray(w), perm)))
        lv.known[eqn.outvars[0]] = (self._transposed[key][1], route)

    def _note_broadcast(self, lv, eqn):
        """``x @ w`` with ``x`` of rank 3 is a batched ``dot_general`` against ``w``
        broadcast along the batch: the broadcast is kept in the program, applied to the
        quantized weight (a view of ``w``; its scales are ``w``'s)."""
        (x,) = eqn.invars
        if type(x) is not Var or x not in lv.known or x in lv.views:
            return
        shape, dims = tuple(eqn.params["shape"]), tuple(eqn.params["broadcast_dimensions"])
        if list(dims) != sorted(dims) or any(shape[d] != n for d, n in zip(dims, x.aval.shape)):
            return
        lv.known[eqn.outvars[0]] = lv.known[x]
        lv.views[eqn.outvars[0]] = (shape, dims)

    def _matmul(self, lv, eqn, wi, act, instrument):
        b = lv.b
        x = eqn.invars[1 - wi]
        if instrument:
            b.eqns.append(eqn)
            if act:
                amax = trace_replacement(
                    lambda x: lax.convert_element_type(_max_all(lax.abs(x)), np.float32),
                    [x.aval])
                lv.extra += b.inline(amax, [x], eqn.source_info)
                lv.changed = True
            return
        w, route = lv.known[eqn.invars[wi]]
        n = sum(route)
        batch, free, contract = _weight_dims(eqn, wi)
        view = lv.views.get(eqn.invars[wi])
        orig_contract = contract
        if view is not None:
            shape, bdims = view
            if not all(d in bdims for d in contract):  # contracting a broadcast axis
                b.eqns.append(eqn)
                return
            orig_contract = tuple(bdims.index(d) for d in contract)
        q, scale = self._quantized_weight(w, [n + d for d in orig_contract])
        key = (id(scale), n, batch, free, contract, view)
        if key not in self._scales:  # (*stacked axes, *batch, *free): the output's channels
            sc = scale
            if view is not None:  # size 1 along the axes the broadcast adds
                sc = scale.reshape([*scale.shape[:n], *(
                    scale.shape[n + view[1].index(d)] if d in view[1] else 1
                    for d in range(len(view[0])))])
            perm = [*range(n), *(n + d for d in (*batch, *free, *contract))]
            self._scales[key] = np.ascontiguousarray(np.transpose(sc, perm).reshape(
                [*sc.shape[:n], *(sc.shape[n + d] for d in (*batch, *free))]))
        s = self._scales[key]
        dims = _out_dims(eqn, wi)
        if self.act_ranges is not None and act:
            if self._k >= len(self.act_ranges):
                raise ValueError("calibrate: the program has more matmuls than were "
                                 "calibrated; call it as it was calibrated")
            fn = _int8_matmul(eqn, wi, dims, self.act_ranges[self._k], view)
            self._k += 1
        else:
            fn = _weight_only_matmul(eqn, wi, dims, view)
        replace_eqn(b, eqn, fn, [x, lv.var_for(q, route), lv.var_for(s, route)])
        lv.changed = True

    def _sub_known(self, lv, operands, invars, sliced):
        known = {}
        for a, v, sl in zip(operands, invars, sliced):
            if sl is not None and type(a) is Var and a in lv.known and a not in lv.views:
                arr, route = lv.known[a]
                known[v] = (arr, (*route, sl))
        return known

    def _stacked_max(self, lv, extra_ys, eqn):
        for m in extra_ys:
            amax = trace_replacement(_max_all, [m.aval])
            lv.extra += lv.b.inline(amax, [m], eqn.source_info)

    def _scan(self, lv, eqn, act, instrument):
        p = eqn.params
        nc, nk = p["num_consts"], p["num_carry"]
        body = p["jaxpr"]
        ops = eqn.invars
        sliced = [False] * nc + [None] * nk + [True] * (len(ops) - nc - nk)
        known = self._sub_known(lv, ops, body.jaxpr.invars, sliced)
        if not known and not instrument:
            return eqn
        new_body, sub = self._walk(body, known, act, instrument)
        if not sub.changed:
            return eqn
        bj = new_body.jaxpr
        needs = list(sub.needs.values())
        used = _used_vars(bj)
        consts = [(o, v) for o, v in zip(ops[:nc], bj.invars[:nc])]
        consts += [(lv.var_for(a, r[:-1]), v) for v, a, r in needs if not r[-1]]
        xs = [(o, v) for o, v in zip(ops[nc + nk:], bj.invars[nc + nk:])]
        xs += [(lv.var_for(a, r[:-1]), v) for v, a, r in needs if r[-1]]
        consts = [(o, v) for o, v in consts if v in used]
        xs = [(o, v) for o, v in xs if v in used]
        invars = [v for _, v in consts] + bj.invars[nc:nc + nk] + [v for _, v in xs]
        new_body = ClosedJaxpr(Jaxpr(bj.constvars, invars, bj.outvars, bj.eqns),
                               new_body.consts)
        extra_ys = [Var(ShapedArray((p["length"], *m.aval.shape), m.aval.dtype))
                    for m in sub.extra]
        new = JaxprEqn(eqn.primitive, [o for o, _ in consts] + ops[nc:nc + nk] +
                       [o for o, _ in xs], eqn.outvars + extra_ys,
                       dict(p, jaxpr=new_body, num_consts=len(consts)), eqn.source_info)
        if extra_ys:  # the activation maxima per iteration, stacked: their max
            lv.b.eqns.append(new)
            self._stacked_max(lv, extra_ys, eqn)
            return None
        return new

    def _while(self, lv, eqn):
        p = eqn.params
        ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
        body = p["body_jaxpr"]
        ops = eqn.invars
        bops = ops[ncc:]
        sliced = [False] * nbc + [None] * (len(bops) - nbc)
        known = self._sub_known(lv, bops, body.jaxpr.invars, sliced)
        if not known:
            return eqn
        new_body, sub = self._walk(body, known, act=False, instrument=False)
        if not sub.changed:
            return eqn
        bj = new_body.jaxpr
        used = _used_vars(bj)
        consts = list(zip(bops[:nbc], bj.invars[:nbc]))
        consts += [(lv.var_for(a, r[:-1]), v) for v, a, r in sub.needs.values()]
        consts = [(o, v) for o, v in consts if v in used]
        invars = [v for _, v in consts] + bj.invars[nbc:]
        new_body = ClosedJaxpr(Jaxpr(bj.constvars, invars, bj.outvars, bj.eqns),
                               new_body.consts)
        return JaxprEqn(eqn.primitive, ops[:ncc] + [o for o, _ in consts] + bops[nbc:],
                        eqn.outvars, dict(p, body_jaxpr=new_body, body_nconsts=len(consts)),
                        eqn.source_info)

    def _checkpoint(self, lv, eqn, act, instrument):
        """``checkpoint`` passes its operands to its open jaxpr one to one: quantized weights
        (and any constants the replacements bring) become extra operands; activation maxima
        become extra outputs."""
        body = ClosedJaxpr(eqn.params["jaxpr"], [])
        ops = eqn.invars
        known = self._sub_known(lv, ops, body.jaxpr.invars, [False] * len(ops))
        if not known:
            return eqn
        new_body, sub = self._walk(body, known, act, instrument)
        if not sub.changed:
            return eqn
        bj = new_body.jaxpr
        used = _used_vars(bj)
        pairs = list(zip(ops, bj.invars))
        pairs += [(lv.var_for(a, r[:-1]), v) for v, a, r in sub.needs.values()]
        pairs += [(lv.var_for(c, ()), v) for v, c in zip(bj.constvars, new_body.consts)]
        pairs = [(o, v) for o, v in pairs if v in used]
        n_out = len(eqn.outvars)
        extra = [Var(v.aval) for v in bj.outvars[n_out:]]
        new = JaxprEqn(eqn.primitive, [o for o, _ in pairs], eqn.outvars + extra,
                       dict(eqn.params, jaxpr=Jaxpr([], [v for _, v in pairs], bj.outvars,
                                                    bj.eqns)), eqn.source_info)
        if extra:
            lv.b.eqns.append(new)
            lv.extra += extra
            return None
        return new

    def _cond(self, lv, eqn):
        index, *ops = eqn.invars
        branches = eqn.params["branches"]
        walked = []
        for br in branches:
            known = self._sub_known(lv, ops, br.jaxpr.invars, [False] * len(ops))
            walked.append(self._walk(br, known, act=False, instrument=False) if known
                          else (br, None))
        if not any(sub is not None and sub.changed for _, sub in walked):
            return eqn
        keys = {}  # the union of the branches' needs, in first-seen order
        for _, sub in walked:
            for key, (v, a, r) in (sub.needs.items() if sub is not None else ()):
                keys.setdefault(key, (v.aval, a, r))
        used = set().union(*(_used_vars(br.jaxpr) for br, _ in walked))
        keep = [i for i in range(len(ops)) if any(br.jaxpr.invars[i] in used
                                                   for br, _ in walked)]
        new_branches = []
        for br, sub in walked:
            j = br.jaxpr
            needs = sub.needs if sub is not None else {}
            extra = [needs[k][0] if k in needs else Var(aval) for k, (aval, _, _) in keys.items()]
            new_branches.append(ClosedJaxpr(
                Jaxpr(j.constvars, [j.invars[i] for i in keep] + extra, j.outvars, j.eqns),
                br.consts))
        new_ops = [ops[i] for i in keep] + [lv.var_for(a, r[:-1]) for _, a, r in keys.values()]
        return JaxprEqn(eqn.primitive, [index, *new_ops], eqn.outvars,
                        dict(eqn.params, branches=tuple(new_branches)), eqn.source_info)

    def weight_memory(self):
        """Bytes of the quantized matmul weights before (their own dtype) and after (quantized
        values plus f32 scales); available once a signature has been traced (called). A
        stacked per-layer weight (scanned over) counts once, whole."""
        if not self._weights:
            raise RuntimeError("weight_memory(): call the quantized function once first")
        before = sum(np.asarray(w).nbytes for w, _, _ in self._weights.values())
        after = sum(q.nbytes + s.nbytes for _, q, s in self._weights.values())
        return {"mode": self.mode, "num_weights": len(self._weights),
                "bytes_before": before, "bytes_after": after, "ratio": after / before}


_CUSTOM_CALLS = ("custom_jvp_call", "custom_vjp_call")


def _inline_custom_calls_with_matmuls(closed):
    """``closed`` with each custom_jvp/custom_vjp call whose body has a matmul replaced by the
    body's equations (nested calls in the body are inlined when the walk reaches them)."""
    def inlined(eqn):
        return (eqn.primitive.name in _CUSTOM_CALLS
                and any(e.primitive.name == "dot_general"
                        for e in iter_eqns(eqn.params["call_jaxpr"])))

    if not any(inlined(eqn) for eqn in closed.jaxpr.eqns):
        return closed
    b = _Builder(closed.jaxpr, closed.consts)
    for eqn in closed.jaxpr.eqns:
        operands = [b.read(a) for a in eqn.invars]
        if inlined(eqn):
            outs = b.inline(ClosedJaxpr(eqn.params["call_jaxpr"], []), operands)
            b.env.update(zip(eqn.outvars, outs))
        else:
            b.eqns.append(JaxprEqn(eqn.primitive, operands, eqn.outvars, eqn.params,
                                   eqn.source_info))
    return b.finish(closed.jaxpr)


def _weight_only_matmul(eqn, wi, dims, view=None):
    params = eqn.params
    out_dtype = eqn.outvars[0].aval.dtype

    def dequantized_matmul(x, q, s):
        ops = [x, x]
        ops[wi] = _view(lax.convert_element_type(q, x.dtype), view)
        y = eqn.primitive.bind(*ops, **params)
        return _scale_output(y, s, dims).astype(out_dtype)

    return dequantized_matmul


def _max_all(x):
    return lax.reduce_max(x, tuple(range(x.ndim)))


def _to_int8(x, scale):
    """``round(x / scale)`` (half to even) clipped to [-127, 127], as int8; ``x`` meets the
    float32 ``scale`` with NumPy's promotion (a narrower float is widened first)."""
    dtype = dtypes.promote_types(x.dtype, np.float32)
    y = lax.div(lax.convert_element_type(x, dtype), np.asarray(scale, dtype))
    y = lax.round(y, lax.RoundingMethod.TO_NEAREST_EVEN)
    return lax.convert_element_type(lax.min(lax.max(y, const(y, -127)), const(y, 127)), np.int8)


def _int8_matmul(eqn, wi, dims, act_max, view=None):
    params = dict(eqn.params, preferred_element_type=np.dtype(np.int32))
    out_dtype = eqn.outvars[0].aval.dtype
    s_x = np.float32(act_max / 127.0 if act_max > 0 else 1.0)

    def int8_matmul(x, q, s):
        ops = [_view(q, view)] * 2
        ops[1 - wi] = _to_int8(x, s_x)
        acc = eqn.primitive.bind(*ops, **params)
        y = lax.convert_element_type(acc, np.float32)
        return _scale_output(y, s * s_x, dims).astype(out_dtype)

    return int8_matmul


def quantize(f, params, mode="int8_weight_only"):
    """``qf(*args)`` computing ``f(params, *args)`` with its matmul weights quantized."""
    if mode == "int8":
        raise ValueError("quantize: int8 activations need ranges: use calibrate()")
    return Quantized(f, params, mode)


def instrument_pass(closed):
    """Adds ``max(|x|)`` of each constant-weight matmul's activation operand as extra outputs
    (in program order; for a matmul in a scan body, the max over the iterations). Changes the
    signature, so it is run directly, not through ``apply``."""
    return Quantized(None, None, "int8").instrument_pass(closed)


def calibrate(f, params, sample_batches):
    """An int8 (activations and weights) version of ``f(params, *args)``; activation ranges
    come from running ``f`` on ``sample_batches`` (each a tuple of args, or one array)."""
    quant = Quantized(f, params, "int8")
    ranges, n_out = None, None
    for batch in sample_batches:
        args = batch if isinstance(batch, tuple) else (batch,)
        closed, leaves, out_tree = trace(lambda *a: f(params, *a), args)
        n_out = len(closed.out_avals)
        inst = run_pass(quant.instrument_pass, closed)
        run = jit(lambda consts, xs, j=inst.jaxpr: eval_jaxpr(j, consts, *xs))
        amax = [float(v) for v in run(inst.consts, list(leaves))[n_out:]]
        ranges = amax if ranges is None else [max(a, b) for a, b in zip(ranges, amax)]
    if ranges is None:
        raise ValueError("calibrate: sample_batches is empty")
    quant.act_ranges = ranges
    return quant


__all__ = ["Quantized", "calibrate", "instrument_pass", "quantize", "quantize_array"]
