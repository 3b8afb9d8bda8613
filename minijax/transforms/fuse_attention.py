"""Automatic attention fusion: attention written by hand becomes the fused (cuDNN) kernel.

jit runs ``fuse_for_jit`` (registered in ``jitting.function.PROGRAM_PASSES``) on the program
it traced, before lowering it, when the program runs on one device, a fused kernel is
registered for its platform (``nn/cudnn_attention.py`` registers cuDNN's for "gpu") and
``minijax_fuse_attention`` is on (the default). Each level of the program is searched, nested
jaxprs (``scan``/``while``/``cond`` bodies, custom-derivative and remat calls) included, for

    logits = dot_general(q, k)    one contracting axis (H), one free axis each (T of q, S of
                                  k), any batch axes in any order (B and N in a BTNH or BNTH
                                  layout, vmap's axes): einsum, ``@`` and dot_general give this
    x = ops(logits)               any sequence of: float-to-float converts, multiplication or
                                  division by a positive scalar constant (also of q or k before
                                  the product), ``where(mask, x, very negative)`` (select_n), and
                                  ``x + bias``
    p = softmax(x) over S         exp(x - max) / sum(exp(x - max)), stop_gradient'ed max or not
                                  (jax.nn.softmax and hand-written code), or without the max;
                                  optionally converted
    out = dot_general(p, v)       contracting S, batch axes paired with the logits'

and the match becomes one kernel call: scales are folded into the kernel's scale, a constant
causal mask (checked element by element) becomes its CAUSAL mask type, other masks and biases
its additive bias; batch axes are grouped into the kernel's (B, N) without moving memory where
the layout allows (BTNH is taken as is, BNTH as (B*N, T, 1, H)).

Differentiation. ``jit(grad(f))`` traces a program that already holds the forward pattern and,
further on, once the output's cotangent ``g`` is computed, its backward: the transposes of the
two products and of the softmax, reading the forward's intermediates. Rewriting ``f`` before
differentiation is impossible (jit receives ``grad(f)``), and a hand-written pattern for that
backward would silently break with any change of a JVP or transpose rule. So the pass derives
it: it differentiates the matched forward subgraph itself (minijax's own ``vjp`` traced on the
same operand types) and unifies the derived backward with the program, equation by equation,
from the derived gradients of q, k and v down to q, k, v and one program value ``g``. Both come
from the same rules, so a program that differentiates the attention matches exactly, in any
layout and under vmap; a program that does anything else with an intermediate (returns the
probabilities, differentiates a learned bias) fails the check that every
intermediate is used only inside the matched forward and backward, and is left as written. The
forward then becomes the training kernel (output and softmax statistics) where the forward
ended, the backward the backward kernel right after ``g`` is computed; the unmatched program
values in between are untouched.

Not covered: a ``checkpoint`` (remat) body under grad (it recomputes the probabilities without
the product with v, so there is no forward to match); a backward split from its forward across
jaxprs (``grad`` of a ``scan`` whose body holds attention: the probabilities cross the loop as
residuals; the scan body's forward alone is fused when nothing else reads its intermediates,
as under ``jit`` without ``grad``); keys with fewer heads than queries (GQA written with
repeat); logits laid out (..., S, T). A row whose every key is masked with ``-inf`` gives NaN
as written and the mean of v fused (the kernel's masked bias is finite).

``nn.dot_product_attention(..., implementation="xla")`` is never fused: it traces inside the
name scope ``XLA_SCOPE``, and a match with an equation in that scope is refused (the default
``implementation=None`` stays fusable).

With ``jax_log_compiles`` on, each rewrite and each refused candidate (a softmax feeding a
product) is logged with its source line and the reason.
"""

from __future__ import annotations

import functools
import logging
from collections import defaultdict
from typing import Any, Callable, NamedTuple

import numpy as np

from minijax import dtypes, lax
from minijax.autodiff import vjp
from minijax.config import config
from minijax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.interpreters.walk import map_sub_jaxprs
from minijax.jitting import function as jit_function
from minijax.jitting.pjit import inline_calls
from minijax.transforms.rewrite import _Builder, trace_replacement
from minijax.transforms.simplify import has_side_effects

__all__ = ["Kernel", "XLA_SCOPE", "fuse_attention_pass", "fuse_for_jit", "register_kernel"]

logger = logging.getLogger("minijax")


class Kernel(NamedTuple):
    """A fused attention kernel as the pass calls it: two primitives with the cuDNN ones'
    operands and params (see ``nn/cudnn_attention.py``), the device's ``(capability,
    library version)``, the additive bias of a masked logit per dtype, and the dtypes taken."""

    fwd: Any  # (q, k, v[, bias]) BTNH -> [out(, stats)]; params as cudnn_fmha_fwd
    bwd: Any  # (q, k, v, stats, d_out[, bias], out) -> [dq, dk, dv(, dbias)]
    capability: Callable[[], tuple]
    masked_bias: dict
    dtypes: tuple


_KERNELS: dict[str, Kernel] = {}


def register_kernel(platform, kernel):
    """Makes jit fuse attention into ``kernel`` for programs compiled for ``platform``."""
    _KERNELS[platform] = kernel


# ``nn.dot_product_attention(..., implementation="xla")`` traces its computation inside this
# name scope: the user asked for XLA's attention, so candidates in it are refused
XLA_SCOPE = "dot_product_attention_xla"


class _Refused(Exception):
    """A candidate that cannot be fused; the message says why."""


_MAX_HEAD_DIM = {True: 256, False: 128}  # compute capability >= 9.0, below
_SOFTMAX_CHAIN = ("broadcast_in_dim", "reshape", "stop_gradient")
_SUM_CHAIN = _SOFTMAX_CHAIN + ("convert_element_type",)  # jnp.sum of bf16 adds in f32
_LOGIT_OPS = ("convert_element_type", "mul", "div", "select_n", "add")
_VERY_NEGATIVE = -1e4  # a masked logit's fill must be at most this


# ------------------------------------------------------------------------------------------------
# One level of a program: producers, uses, constants


class _Level:
    def __init__(self, closed, known):
        jaxpr = closed.jaxpr
        self.jaxpr = jaxpr
        self.consts = {**known, **dict(zip(jaxpr.constvars, closed.consts))}
        self.prod = {}
        self.uses = defaultdict(list)
        for i, e in enumerate(jaxpr.eqns):
            for v in e.outvars:
                self.prod[v] = (i, e)
            for a in e.invars:
                if type(a) is Var:
                    self.uses[a].append(i)
        self.live = _live(jaxpr)
        self.outvars = {v for v in jaxpr.outvars if type(v) is Var}

    def eqn(self, a, names):
        """The equation producing ``a`` when its primitive is one of ``names``, else None."""
        hit = self.prod.get(a) if type(a) is Var else None
        if hit is None or hit[1].primitive.name not in names:
            return None
        return hit[1]

    def index(self, eqn):
        return self.prod[eqn.outvars[0]][0]

    def through(self, a, names, seen):
        """Follows ``a`` back through equations of ``names``, adding them to ``seen``."""
        while (e := self.eqn(a, names)) is not None:
            seen.append(e)
            a = e.invars[0]
        return a

    def scalar(self, a):
        """The value of a scalar constant (a literal, a broadcast or convert of one, a
        one-element constant), else None."""
        while (e := self.eqn(a, ("broadcast_in_dim", "reshape", "convert_element_type"))):
            a = e.invars[0]
        if type(a) is Literal:
            value = a.val
        elif a in self.consts:
            value = self.consts[a]
        else:
            return None
        value = np.asarray(value)
        return float(value.reshape(())) if value.size == 1 else None

    def concrete(self, a):
        """``a``'s value when it is a constant of the program, else None."""
        while (e := self.eqn(a, ("broadcast_in_dim", "convert_element_type"))) is not None:
            if e.primitive.name == "broadcast_in_dim":
                inner = self.concrete(e.invars[0])
                if inner is None:
                    return None
                return _broadcast_in_dim(inner, e.params)
            a = e.invars[0]
        if type(a) is Literal:
            return np.asarray(a.val)
        return np.asarray(self.consts[a]) if a in self.consts else None


def _broadcast_in_dim(x, params):
    shape = params["shape"]
    dims = params["broadcast_dimensions"]
    expanded = np.reshape(x, [x.shape[dims.index(d)] if d in dims else 1
                              for d in range(len(shape))])
    return np.broadcast_to(expanded, shape)


def _live(jaxpr):
    live_vars = {v for v in jaxpr.outvars if type(v) is Var}
    live = set()
    for i in range(len(jaxpr.eqns) - 1, -1, -1):
        e = jaxpr.eqns[i]
        if has_side_effects(e.primitive) or any(v in live_vars for v in e.outvars):
            live.add(i)
            live_vars.update(a for a in e.invars if type(a) is Var)
    return live


# ------------------------------------------------------------------------------------------------
# The forward pattern


class _Match(NamedTuple):
    eqns: list          # the forward's equations (pre-scales, q·kᵀ, ..., p·v)
    q: Any
    k: Any
    v: Any
    out: Var
    scale: float
    causal: bool
    bias_terms: list    # (atom, factor): additive biases in logits layout (or broadcastable)
    masks: list         # (predicate atom, kept_when) other than the causal one
    layout: "_Layout"
    dtype: np.dtype


class _Layout(NamedTuple):
    """How the kernel's (B', T, N', H) operands relate to the program's arrays."""

    perm_q: list
    perm_k: list
    perm_v: list
    b_group: list       # logits batch axes merged into B' (in q's memory order)
    n_group: list       # ... into N'
    sizes: list         # logits batch axis sizes
    T: int
    S: int
    H: int
    out_perm: list      # kernel output, unflattened, -> p·v's output order

    def kernel_shape(self, length):
        """(B', length, N', H)."""
        b = int(np.prod([self.sizes[i] for i in self.b_group]))
        n = int(np.prod([self.sizes[i] for i in self.n_group]))
        return (b, length, n, self.H)


def _softmax(lv, p, seen):
    """``(x, axis, the division)`` when ``p`` is ``softmax(x, axis)`` as traced code writes it,
    else None."""
    p = lv.through(p, ("convert_element_type",), seen)
    div = lv.eqn(p, ("div",))
    if div is None:
        return None
    num, den = div.invars
    exp = lv.eqn(num, ("exp",))
    chain = []
    red = lv.eqn(lv.through(den, _SUM_CHAIN, chain), ("reduce_sum",))
    if exp is None or red is None or len(red.params["axes"]) != 1 or \
            lv.through(red.invars[0], ("convert_element_type",), []) is not num or \
            not _broadcasts_back(chain, red.params["axes"][0], num.aval.shape):
        return None
    seen += [div, exp]
    lv.through(den, _SUM_CHAIN, seen)
    seen_softmax = div
    seen.append(red)
    lv.through(red.invars[0], ("convert_element_type",), seen)
    axis = red.params["axes"][0]
    x = exp.invars[0]
    sub = lv.eqn(x, ("sub",))
    if sub is not None:
        y, m = sub.invars
        chain = []
        top = lv.through(m, _SOFTMAX_CHAIN, chain)
        # jax.nn.softmax's max has initial=-inf: max(-inf, reduce_max(x))
        initial = lv.eqn(top, ("max",))
        if initial is not None and lv.scalar(initial.invars[0]) == -np.inf:
            top = initial.invars[1]
        else:
            initial = None
        rmax = lv.eqn(top, ("reduce_max",))
        if rmax is not None and rmax.params["axes"] == (axis,) and \
                lv.through(rmax.invars[0], ("stop_gradient",), []) is y and \
                _broadcasts_back(chain, axis, y.aval.shape):
            seen.append(sub)
            lv.through(m, _SOFTMAX_CHAIN, seen)
            seen += [initial, rmax] if initial is not None else [rmax]
            lv.through(rmax.invars[0], ("stop_gradient",), seen)
            x = y
    return x, axis, seen_softmax


def _broadcasts_back(chain, axis, shape):
    """Whether ``chain`` (equations from the last back to the first) takes a reduction over
    ``axis`` of an array of ``shape`` to an array that broadcasts against it, every kept axis
    in its place: the value is constant along ``axis`` only."""
    labels = [i for i in range(len(shape)) if i != axis]  # the logits axis of each dim
    for e in reversed(chain):
        name, (a,), (out,) = e.primitive.name, e.invars, e.outvars
        if name == "reshape":
            kept = [lab for lab, n in zip(labels, a.aval.shape) if n != 1]
            if [n for n in a.aval.shape if n != 1] != [n for n in out.aval.shape if n != 1]:
                return False
            it = iter(kept)
            labels = [next(it) if n != 1 else None for n in out.aval.shape]
        elif name == "broadcast_in_dim":
            new = [None] * out.aval.ndim
            for j, d in enumerate(e.params["broadcast_dimensions"]):
                if a.aval.shape[j] == out.aval.shape[d]:
                    new[d] = labels[j]
            labels = new
    final = chain[0].outvars[0].aval.shape if chain else ()
    if len(final) != len(shape):
        return False
    return all(labels[i] == i or final[i] == 1 == shape[i] for i in range(len(shape))
               if i != axis) and final[axis] in (1, shape[axis])


def _logit_ops(lv, x, seen):
    """``(dot_general equation, ops from the logits outward)`` for the softmax input ``x``."""
    ops = []
    while True:
        e = lv.eqn(x, _LOGIT_OPS + ("dot_general",))
        if e is None:
            what = lv.prod[x][1].primitive.name if x in lv.prod else "an input of the program"
            raise _Refused(f"the softmax input comes from {what}, not from q·kᵀ through "
                           "scaling, masking and converts")
        name = e.primitive.name
        if name == "dot_general":
            seen.append(e)
            ops.reverse()
            return e, ops
        seen.append(e)
        if name == "convert_element_type":
            if not dtypes.is_float(e.invars[0].aval.dtype):
                raise _Refused("a convert from a non-float dtype between q·kᵀ and the softmax")
            x = e.invars[0]
        elif name in ("mul", "div"):
            a, b = e.invars
            c = lv.scalar(b)
            if c is None and name == "mul":
                c, a = lv.scalar(a), b
            if c is None:
                raise _Refused(f"`{name}` by a non-constant between q·kᵀ and the softmax")
            ops.append(("scale", c if name == "mul" else 1.0 / c))
            x = a
        elif name == "select_n":
            pred, on_false, on_true = e.invars
            fill_false, fill_true = lv.scalar(on_false), lv.scalar(on_true)
            if fill_false is not None and fill_false <= _VERY_NEGATIVE:
                ops.append(("mask", pred, True))
                x = on_true
            elif fill_true is not None and fill_true <= _VERY_NEGATIVE:
                ops.append(("mask", pred, False))
                x = on_false
            else:
                raise _Refused("a `where` between q·kᵀ and the softmax whose other value is "
                               f"not a constant <= {_VERY_NEGATIVE:g}")
        else:  # add: the operand that leads back to q·kᵀ continues, the other is a bias
            a, b = e.invars
            if _reaches_product(lv, b) and not _reaches_product(lv, a):
                a, b = b, a
            ops.append(("bias", b))
            x = a


def _reaches_product(lv, x, depth=8):
    e = lv.eqn(x, _LOGIT_OPS + ("dot_general",))
    if e is None or depth == 0:
        return False
    return e.primitive.name == "dot_general" or any(
        _reaches_product(lv, a, depth - 1) for a in e.invars if type(a) is Var)


def _pre_scale(lv, a, seen):
    """``(operand, factor)``: a q or k scaled by a constant only for the product loses it."""
    e = lv.eqn(a, ("mul", "div"))
    if e is None or len(lv.uses[a]) != 1 or a in lv.outvars:
        return a, 1.0
    x, c = e.invars
    value = lv.scalar(c)
    if value is None and e.primitive.name == "mul":
        value, x = lv.scalar(x), c
    if value is None:
        return a, 1.0
    seen.append(e)
    return x, (value if e.primitive.name == "mul" else 1.0 / value)


def _match(lv, dot2, tried):
    """A ``_Match`` when ``dot2`` is ``softmax(...)·v``; None when it is no candidate at all
    or its softmax was a candidate already (the backward's product with the probabilities);
    raises ``_Refused`` for a candidate that cannot be fused."""
    seen = [dot2]
    for p_pos in (0, 1):
        attempt = []
        found = _softmax(lv, dot2.invars[p_pos], attempt)
        if found is not None:
            seen += attempt
            break
    else:
        return None
    x, s_axis, softmax = found
    if softmax in tried:
        return None
    tried.add(softmax)
    dot1, ops = _logit_ops(lv, x, seen)
    (lc, rc), (lb, rb) = dot1.params["dimension_numbers"]
    lhs, rhs = dot1.invars
    nb = len(lb)
    if len(lc) != 1 or lhs.aval.ndim != nb + 2 or rhs.aval.ndim != nb + 2:
        raise _Refused("q·kᵀ must contract one axis and keep one free axis of each operand")
    if s_axis != nb + 1:
        raise _Refused("the softmax is not over the keys' axis of logits laid out (..., T, S)")
    free = lambda nd, c, b: [d for d in range(nd) if d not in c and d not in b][0]  # noqa: E731
    q_t, k_s = free(nb + 2, lc, lb), free(nb + 2, rc, rb)
    (pc, vc), (pb, vb) = dot2.params["dimension_numbers"]
    if p_pos == 1:
        (vc, pc), (vb, pb) = (pc, vc), (pb, vb)
    v = dot2.invars[1 - p_pos]
    if tuple(pc) != (nb + 1,):  # not ·v: the backward's product of the probabilities and dO
        return None
    if sorted(pb) != list(range(nb)) or v.aval.ndim != nb + 2:
        raise _Refused("the product with v does not contract the keys' axis over the logits' "
                       "batch axes")
    v_s, v_h = vc[0], free(nb + 2, vc, vb)
    v_batch = {pb[j]: vb[j] for j in range(nb)}

    q, q_scale = _pre_scale(lv, lhs, seen)
    k, k_scale = _pre_scale(lv, rhs, seen)
    b_group = sorted((i for i in range(nb) if lb[i] < q_t), key=lambda i: lb[i])
    n_group = sorted((i for i in range(nb) if lb[i] > q_t), key=lambda i: lb[i])
    sizes = [lhs.aval.shape[lb[i]] for i in range(nb)]
    src = [("b", i) for i in b_group] + ["T"] + [("b", i) for i in n_group] + ["H"]
    tgt = [("b", i) for i in pb] + (["T", "H"] if p_pos == 0 else ["H", "T"])
    layout = _Layout(
        perm_q=[lb[i] for i in b_group] + [q_t] + [lb[i] for i in n_group] + [lc[0]],
        perm_k=[rb[i] for i in b_group] + [k_s] + [rb[i] for i in n_group] + [rc[0]],
        perm_v=[v_batch[i] for i in b_group] + [v_s] + [v_batch[i] for i in n_group] + [v_h],
        b_group=b_group, n_group=n_group, sizes=sizes, T=lhs.aval.shape[q_t],
        S=rhs.aval.shape[k_s], H=lhs.aval.shape[lc[0]],
        out_perm=[src.index(t) for t in tgt])

    scale, causal, bias_terms, masks = q_scale * k_scale, False, [], []
    for op in ops:
        if op[0] == "scale":
            if op[1] <= 0:
                raise _Refused(f"a scale {op[1]:g} <= 0 of the logits")
            scale *= op[1]
            bias_terms = [(b, f * op[1]) for b, f in bias_terms]
        elif op[0] == "bias":
            bias_terms.append((op[1], 1.0))
        elif not causal and _is_causal(lv, op[1], op[2], x.aval.shape, layout):
            causal = True
        else:
            masks.append((op[1], op[2]))

    dtype = np.dtype(q.aval.dtype)
    out = dot2.outvars[0]
    if not (dtype == k.aval.dtype == v.aval.dtype == out.aval.dtype):
        raise _Refused(f"q, k, v and the output differ in dtype ({q.aval.dtype}, "
                       f"{k.aval.dtype}, {v.aval.dtype}, {out.aval.dtype})")
    if v.aval.shape[v_h] != layout.H:
        raise _Refused(f"v's head dim {v.aval.shape[v_h]} differs from q's {layout.H}")
    return _Match(_forward_eqns(lv, seen, dot1, dot2), q, k, v, out, scale, causal,
                  bias_terms, masks, layout, dtype)


def _forward_eqns(lv, seen, dot1, dot2):
    """The equations on paths from q·kᵀ to p·v (plus the absorbed scales), in program order;
    refused when one of them is not part of the pattern matched."""
    i1, i2 = lv.index(dot1), lv.index(dot2)
    eqns = lv.jaxpr.eqns
    reach = set(dot1.outvars)
    on_path = set()
    for i in range(i1 + 1, i2 + 1):
        if any(a in reach for a in eqns[i].invars if type(a) is Var):
            reach.update(eqns[i].outvars)
            on_path.add(i)
    back = {a for a in eqns[i2].invars if type(a) is Var}
    keep = {i1, i2}
    for i in range(i2 - 1, i1, -1):
        if i in on_path and any(v in back for v in eqns[i].outvars):
            keep.add(i)
            back.update(a for a in eqns[i].invars if type(a) is Var)
    matched = {lv.index(e) for e in seen}
    extra = keep - matched
    if extra:
        raise _Refused(f"`{eqns[min(extra)].primitive.name}` on the path from q·kᵀ to p·v is "
                       "not part of an attention pattern")
    return [eqns[i] for i in sorted(matched)]


def _is_causal(lv, pred, kept_when, logits_shape, layout):
    value = lv.concrete(pred)
    if value is None:
        return False
    kept = np.broadcast_to(value, logits_shape)
    # one batch entry stands for every entry the mask is broadcast over (stride 0)
    kept = kept[tuple(slice(0, 1) if stride == 0 and i < kept.ndim - 2 else slice(None)
                      for i, stride in enumerate(kept.strides))].astype(bool)
    return bool(np.all((kept if kept_when else ~kept) == _causal(layout.T, layout.S)))


@functools.lru_cache(maxsize=8)
def _causal(T, S):
    return np.tril(np.ones((T, S), bool))


# ------------------------------------------------------------------------------------------------
# The backward: derived from the matched forward, unified with the program


def _forward_inputs(m):
    """The forward subgraph's operands: q, k, v, then every other value it reads."""
    produced = {v for e in m.eqns for v in e.outvars}
    inputs = [m.q, m.k, m.v]
    for e in m.eqns:
        for a in e.invars:
            if type(a) is Var and a not in produced and a not in inputs:
                inputs.append(a)
    return inputs


def _derive_backward(m, inputs):
    """``(jaxpr, dq, dk, dv vars)``: the vjp of the forward subgraph, traced on its operands'
    types and a cotangent ``g`` (its last invar)."""
    forward = Jaxpr([], inputs, [m.out], m.eqns)

    def fn(q, k, v, *rest):
        others, g = rest[:-1], rest[-1]
        out, pullback = vjp(lambda q, k, v: eval_jaxpr(forward, [], q, k, v, *others)[0],
                            q, k, v)
        return [out, *pullback(g)]

    closed = trace_to_jaxpr(fn, [a.aval for a in inputs] + [m.out.aval])
    if closed.consts:
        raise _Refused("the derived backward holds constants")
    return closed.jaxpr


class _Unifier:
    """Maps the derived backward's values onto the program's, equation by equation."""

    def __init__(self, lv, derived, dprod, inputs):
        self.lv = lv
        self.dprod = dprod
        self.roles = dict(zip(derived.invars[:-1], inputs))
        self.g_var = derived.invars[-1]
        self.g = None
        self.pairs = {}
        self.eqns = set()  # indices of the program's equations matched

    def unify(self, d, p):
        if type(d) is Literal:
            return type(p) is Literal and d.aval == p.aval and np.array_equal(d.val, p.val)
        if type(p) is not Var:
            return False
        if d is self.g_var:
            if self.g is None and p not in self.roles.values():
                self.g = p
            return self.g is p
        if d in self.roles:
            return _equivalent(self.lv, self.roles[d], p, {})
        key = (d, p)
        if key in self.pairs:
            return self.pairs[key]
        splat = _splat(self.dprod, d)
        if splat is not None:  # vmap broadcasts a constant in steps of its own
            return d.aval == p.aval and splat == _splat(None, p, self.lv)
        self.pairs[key] = False
        de = self.dprod[d]
        hit = self.lv.prod.get(p)
        if hit is None:
            return False
        i, pe = hit
        ok = (pe.primitive is de.primitive and len(pe.invars) == len(de.invars)
              and de.outvars.index(d) == pe.outvars.index(p) and _same_params(de, pe)
              and all(self.unify(a, b) for a, b in zip(de.invars, pe.invars)))
        if ok:
            self.eqns.add(i)
        self.pairs[key] = ok
        return ok


def _splat(prod, a, lv=None):
    """The scalar that ``a`` is a broadcast of (a literal through broadcasts, reshapes and
    converts), else None; ``lv`` looks producers up in the program instead of ``prod``."""
    names = ("broadcast_in_dim", "reshape", "convert_element_type")
    while type(a) is Var:
        e = lv.eqn(a, names) if lv is not None else prod.get(a)
        if e is None or e.primitive.name not in names:
            return None
        a = e.invars[0]
    return float(np.asarray(a.val)) if np.ndim(a.val) == 0 else None


def _equivalent(lv, a, b, memo, depth=6):
    """Whether program values ``a`` and ``b`` are the same computation of the same values (vmap
    of grad broadcasts a mask once for the forward, again for the backward)."""
    if a is b:
        return True
    if type(a) is Literal or type(b) is Literal:
        return (type(a) is type(b) and a.aval == b.aval and np.array_equal(a.val, b.val))
    if depth == 0 or a not in lv.prod or b not in lv.prod:
        return False
    if (a, b) not in memo:
        (_, ea), (_, eb) = lv.prod[a], lv.prod[b]
        memo[(a, b)] = (ea.primitive is eb.primitive and len(ea.invars) == len(eb.invars)
                        and ea.outvars.index(a) == eb.outvars.index(b) and _same_params(ea, eb)
                        and all(_equivalent(lv, x, y, memo, depth - 1)
                                for x, y in zip(ea.invars, eb.invars)))
    return memo[(a, b)]


def _same_params(a, b):
    if a.params.keys() != b.params.keys():
        return False
    for k, x in a.params.items():
        y = b.params[k]
        if x is y:
            continue
        try:
            same = x == y
            same = same if isinstance(same, bool) else bool(np.all(same))
        except Exception:  # incomparable (nested jaxprs): equal only when identical
            return False
        if not same or type(x) is not type(y):
            return False
    return True


def _match_backward(lv, m):
    """``(g, [dq, dk, dv], backward equation indices)`` for the program's backward of ``m``."""
    inputs = _forward_inputs(m)
    derived = _derive_backward(m, inputs)
    d_grads = derived.outvars[1:]
    first = lv.index(m.eqns[-1])
    found = []
    dprod = {v: e for e in derived.eqns for v in e.outvars}
    for d in d_grads:
        de = dprod.get(d) if type(d) is Var else None
        if de is None:
            raise _Refused("the derived gradient of q, k or v is not computed")
        hit = None
        for i in range(first + 1, len(lv.jaxpr.eqns)):
            pe = lv.jaxpr.eqns[i]
            if pe.primitive is not de.primitive or i not in lv.live:
                continue
            p = pe.outvars[de.outvars.index(d)]
            if p.aval != d.aval:
                continue
            u = _Unifier(lv, derived, dprod, inputs)
            if found:
                u.g = found[0][0]
            if u.unify(d, p) and u.g is not None:
                hit = (u.g, p, u.eqns)
                break
        if hit is None:
            raise _Refused("its intermediates are read by something other than the gradient "
                           "of q, k and v as minijax derives it")
        found.append(hit)
    g = found[0][0]
    forward = {lv.index(e) for e in m.eqns}
    backward = set().union(*(eqns for _, _, eqns in found)) - forward
    return g, [p for _, p, _ in found], backward


def _check_closed(lv, m, keep, drop):
    """Every value of the dropped equations but ``keep`` is read only by dropped ones."""
    for i in drop:
        for v in lv.jaxpr.eqns[i].outvars:
            if v in keep:
                continue
            if v in lv.outvars or any(u not in drop and u in lv.live for u in lv.uses[v]):
                return False
    return True


# ------------------------------------------------------------------------------------------------
# The replacement


def _bias_and_masks(m, kernel, operands):
    """The kernel's additive bias (B', N', T, S) in the operands' dtype, or None."""
    lay = m.layout
    logits_shape = tuple(lay.sizes) + (lay.T, lay.S)
    bias = None
    it = iter(operands)
    for _, factor in m.bias_terms:
        b = next(it)
        b = lax.broadcast_in_dim(b, logits_shape, _trailing_dims(b.ndim, len(logits_shape))) \
            if b.shape != logits_shape else b
        b = lax.convert_element_type(b, np.float32)
        if factor != 1.0:
            b = lax.mul(b, lax.full(logits_shape, factor, np.float32))
        bias = b if bias is None else lax.add(bias, b)
    for _, kept_when in m.masks:
        pred = next(it)
        pred = lax.broadcast_in_dim(pred, logits_shape, _trailing_dims(pred.ndim,
                                                                        len(logits_shape))) \
            if pred.shape != logits_shape else pred
        fill = lax.full(logits_shape, kernel.masked_bias[m.dtype], np.float32)
        zero = lax.full(logits_shape, 0.0, np.float32)
        b = lax.select_n(pred, fill, zero) if kept_when else lax.select_n(pred, zero, fill)
        bias = b if bias is None else lax.add(bias, b)
    if bias is None:
        return None
    order = lay.b_group + lay.n_group + [len(lay.sizes), len(lay.sizes) + 1]
    bias = lax.transpose(lax.convert_element_type(bias, m.dtype), order)
    B, _, N, _ = lay.kernel_shape(lay.T)
    return lax.reshape(bias, (B, N, lay.T, lay.S))


def _trailing_dims(ndim, rank):
    return tuple(range(rank - ndim, rank))


def _to_kernel(x, perm, lay, length):
    x = lax.transpose(x, perm)
    return lax.reshape(x, lay.kernel_shape(length))


def _from_kernel(x, perm, lay, length):
    shape = ([lay.sizes[i] for i in lay.b_group] + [length]
             + [lay.sizes[i] for i in lay.n_group] + [lay.H])
    return lax.transpose(lax.reshape(x, tuple(shape)), tuple(np.argsort(perm)))


def _kernel_params(m):
    mask_type = "CAUSAL" if m.causal else "NO_MASK"
    return dict(scale=float(m.scale), mask_type=mask_type, sliding_window=0,
                has_bias=bool(m.bias_terms or m.masks))


def _forward_fn(m, kernel, training):
    lay = m.layout

    def fwd(q, k, v, *mask_operands):
        qk = _to_kernel(q, lay.perm_q, lay, lay.T)
        kk = _to_kernel(k, lay.perm_k, lay, lay.S)
        vk = _to_kernel(v, lay.perm_v, lay, lay.S)
        bias = _bias_and_masks(m, kernel, mask_operands)
        operands = [qk, kk, vk] + ([bias] if bias is not None else [])
        outs = kernel.fwd.bind(*operands, **_kernel_params(m), is_training=training)
        shape = ([lay.sizes[i] for i in lay.b_group] + [lay.T]
                 + [lay.sizes[i] for i in lay.n_group] + [lay.H])
        out = lax.transpose(lax.reshape(outs[0], tuple(shape)), tuple(lay.out_perm))
        if not training:
            return [out]
        return [out, *operands, outs[1], outs[0]]

    return fwd


def _backward_fn(m, kernel):
    lay = m.layout
    inverse_out = tuple(np.argsort(lay.out_perm))

    def bwd(qk, kk, vk, *rest):
        *bias, stats, out, g = rest
        shape = lay.kernel_shape(lay.T)
        gk = lax.reshape(lax.transpose(g, inverse_out), shape)
        operands = [qk, kk, vk, stats, gk] + list(bias) + [out]
        params = _kernel_params(m)
        grads = kernel.bwd.bind(*operands, **params)
        return [_from_kernel(grads[0], lay.perm_q, lay, lay.T),
                _from_kernel(grads[1], lay.perm_k, lay, lay.S),
                _from_kernel(grads[2], lay.perm_v, lay, lay.S)]

    return bwd


# ------------------------------------------------------------------------------------------------
# The pass


def _where(eqn):
    return f" at {eqn.source_info}" if eqn.source_info else ""


def _log(msg):
    if config.jax_log_compiles:
        logger.warning("fuse_attention: %s", msg)


def _check_kernel(m, kernel, capability, training):
    cap, _ = capability
    if m.dtype not in kernel.dtypes:
        raise _Refused(f"dtype {m.dtype}: the kernel takes "
                       f"{', '.join(str(np.dtype(d)) for d in kernel.dtypes)}")
    if cap < (8, 0):
        raise _Refused(f"compute capability {cap} < 8.0")
    h_max = _MAX_HEAD_DIM[cap >= (9, 0)]
    if not (m.layout.H <= h_max and m.layout.H % 8 == 0):
        raise _Refused(f"head dim {m.layout.H}: the kernel takes multiples of 8 up to {h_max}")
    if training and (m.bias_terms or m.masks) and (m.layout.T % 2 or m.layout.S % 2):
        raise _Refused(f"odd sequence lengths ({m.layout.T}, {m.layout.S}) with a bias or "
                       "mask: the backward kernel needs even ones")


def _plan(lv, dot2, kernel, capability, tried):
    """The rewrite of one candidate: ``(match, drop, {index: [(replacement, operands,
    results, source)]}, what)``, the replacements traced (so that any failure refuses)."""
    m = _match(lv, dot2, tried)
    if m is None:
        return None
    if any(XLA_SCOPE in (e.source_info.name_stack if e.source_info else ()) for e in m.eqns):
        raise _Refused("nn.dot_product_attention(..., implementation='xla') asked for XLA")
    fwd_idx = {lv.index(e) for e in m.eqns}
    mask_operands = [b for b, _ in m.bias_terms] + [p for p, _ in m.masks]
    inputs = [m.q, m.k, m.v] + mask_operands
    if _check_closed(lv, m, {m.out}, fwd_idx):
        _check_kernel(m, kernel, capability, training=False)
        fwd = trace_replacement(_forward_fn(m, kernel, False), [a.aval for a in inputs])
        emit = {lv.index(m.eqns[-1]): [(fwd, inputs, [m.out], dot2.source_info)]}
        return m, fwd_idx, emit, "forward"
    if any(v in lv.outvars for e in m.eqns for v in e.outvars if v is not m.out):
        raise _Refused("its intermediates are outputs of this jaxpr (returned, or residuals of "
                       "a loop body whose backward is another jaxpr)")
    g, grads, bwd_idx = _match_backward(lv, m)
    drop = fwd_idx | bwd_idx
    if not _check_closed(lv, m, {m.out, *grads}, drop):
        raise _Refused("an intermediate is read outside its forward and backward")
    _check_kernel(m, kernel, capability, training=True)
    g_at = lv.prod[g][0] if g in lv.prod else -1
    last_fwd = lv.index(m.eqns[-1])
    if g_at <= last_fwd:
        raise _Refused("the output's cotangent is computed before the attention")
    fwd = trace_replacement(_forward_fn(m, kernel, True), [a.aval for a in inputs])
    res = [Var(a) for a in fwd.out_avals[1:]]  # what the backward kernel reads
    bwd = trace_replacement(_backward_fn(m, kernel), [v.aval for v in res] + [g.aval])
    emit = {last_fwd: [(fwd, inputs, [m.out] + res, dot2.source_info)],
            g_at: [(bwd, res + [g], grads, dot2.source_info)]}
    return m, drop, emit, "forward and backward"


def _rewrite_level(closed, kernel, capability, known=None):
    """``known``: values of invars that are constants of an enclosing level."""
    # each level sees through its nested jits: the attention's pieces may sit in them
    # (jnp.where's _where masks it)
    closed = inline_calls(closed)
    consts = {**(known or {}), **dict(zip(closed.jaxpr.constvars, closed.consts))}
    closed = _rewrite_nested(closed, kernel, capability, consts)
    jaxpr = closed.jaxpr
    if not any(e.primitive.name == "exp" for e in jaxpr.eqns):
        return closed
    lv = _Level(closed, known or {})
    drop, emit, tried = set(), {}, set()
    for i, e in enumerate(jaxpr.eqns):
        if e.primitive.name != "dot_general" or i not in lv.live or i in drop:
            continue
        try:
            plan = _plan(lv, e, kernel, capability(), tried)
        except _Refused as err:
            _log(f"attention{_where(e)} not fused: {err}")
            continue
        except Exception as err:  # noqa: BLE001 - an optimization must not break the program
            _log(f"attention{_where(e)} not fused: the pass failed ({type(err).__name__}: "
                 f"{err})")
            continue
        if plan is None:
            continue
        m, dropped, emitted, what = plan
        if dropped & drop:
            continue
        drop |= dropped
        for at, items in emitted.items():
            emit.setdefault(at, []).extend(items)
        _log(f"attention{_where(e)} fused ({what}): {m.dtype} T={m.layout.T} S={m.layout.S} "
             f"H={m.layout.H}, scale {m.scale:g}, "
             f"{'causal' if m.causal else 'no causal mask'}"
             f"{', bias' if m.bias_terms or m.masks else ''}")
    if not emit:
        return closed
    b = _Builder(jaxpr, closed.consts)
    for i, e in enumerate(jaxpr.eqns):
        if i not in drop and i in lv.live:
            b.eqns.append(JaxprEqn(e.primitive, [b.read(a) for a in e.invars], e.outvars,
                                   e.params, e.source_info))
        for replacement, operands, results, source in emit.get(i, ()):
            outs = b.inline(replacement, [b.read(a) for a in operands], source)
            for r, o in zip(results, outs):
                b.env[r] = o
    return _pruned(b.finish(jaxpr))


def _pruned(closed):
    """``closed`` without what only the replaced equations read: the equations that fed them
    alone (a mask's broadcast), then the constants (the mask)."""
    jaxpr = closed.jaxpr
    live = _live(jaxpr)
    eqns = [e for i, e in enumerate(jaxpr.eqns) if i in live]
    used = {a for e in eqns for a in e.invars if type(a) is Var}
    used.update(v for v in jaxpr.outvars if type(v) is Var)
    kept = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in used]
    return ClosedJaxpr(Jaxpr([v for v, _ in kept], jaxpr.invars, jaxpr.outvars, eqns),
                       [c for _, c in kept])


def _rewrite_nested(closed, kernel, capability, consts):
    jaxpr = closed.jaxpr
    eqns, changed = [], False
    for e in jaxpr.eqns:
        known = {}
        if e.primitive.name == "scan":  # a scan's first operands are its body's constants
            body = e.params["jaxpr"].jaxpr
            known = {v: consts[a] for v, a in zip(body.invars[:e.params["num_consts"]],
                                                  e.invars) if type(a) is Var and a in consts}
        try:
            params = map_sub_jaxprs(
                e.params, lambda c, known=known: _rewrite_level(c, kernel, capability, known))
        except NotImplementedError:  # a call's open jaxpr cannot take the constants
            params = e.params
        if params is not e.params:
            changed = True
            e = JaxprEqn(e.primitive, e.invars, e.outvars, params, e.source_info)
        eqns.append(e)
    if not changed:
        return closed
    return ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns), closed.consts)


def fuse_attention_pass(kernel):
    """A pass (``ClosedJaxpr -> ClosedJaxpr``) replacing the attention it finds by ``kernel``."""
    cache = []

    def capability():
        if not cache:
            cache.append(kernel.capability())
        return cache[0]

    def fuse_attention(closed):
        return _rewrite_level(closed, kernel, capability)

    return fuse_attention


def fuse_for_jit(closed, devices):
    """jit's hook: ``closed`` with its attention fused when ``minijax_fuse_attention`` is on,
    the program runs on one device (XLA's partitioner has no rule for the kernels' custom
    calls) and a kernel is registered for its platform."""
    kernel = _KERNELS.get(devices[0].platform)
    if kernel is None or len(devices) != 1 or not config.minijax_fuse_attention:
        return closed
    return fuse_attention_pass(kernel)(closed)


jit_function.PROGRAM_PASSES.append(fuse_for_jit)
