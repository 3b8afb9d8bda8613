"""FP8 training and inference: the matmuls of a function in FP8 with delayed scaling.

``fp8.autocast(loss)`` runs each matmul (``dot_general``) of ``loss`` that reads a weight as an
FP8 matmul, the way NVIDIA's Transformer Engine does on Hopper:

- forward operands quantized to ``float8_e4m3fn``, the output's cotangent in the backward
  matmuls to ``float8_e5m2`` (more range, less precision: gradients);
- one scale per tensor, ``x ≈ q * scale``, with *delayed scaling*: each matmul operand keeps a
  history of its last ``history_length`` absolute maxima (amax); the scale a step uses was
  computed from that history by the previous step, ``scale = max(history) * 2**margin /
  fp8_max`` (values beyond ``fp8_max * scale`` saturate);
- the products accumulate in f32 from dequantized operands,
  ``dot(convert(x_q, t) * x_scale, convert(w_q, t) * w_scale)`` with ``t`` bf16 for a bf16
  matmul (its scales rounded to bf16 there) and f32 otherwise: XLA's GEMM rewriter turns exactly this
  into one cuBLASLt FP8 GEMM (``__cublas$lt$matmul$f8``) on Hopper that writes ``t`` itself,
  and the weight is laid out "NT" (both operands contract their minor axis, its fastest
  variant).
  Other platforms (the CPU) emulate the converts (and round the bf16 dequantizing products).

The scales are state the user carries like optimizer state::

    fp8_loss = fp8.autocast(loss)                  # loss(params, batch) -> scalar
    fp8_state = fp8_loss.init(params, batch)       # one entry per FP8 matmul
    def step(params, opt_state, fp8_state, batch):
        loss, (grads, fp8_state) = minijax.value_and_grad(fp8_loss, argnums=(0, 1))(
            params, fp8_state, batch)              # the state goes in second
        ...                                         # the optimizer, as before
        return params, opt_state, fp8_state, loss

The state's *gradient* is its updated value (each operand's history with this step's amax
pushed in front, its scale recomputed), as in Flax's ``fp8_ops``: the cotangents' maxima are
only known in the backward pass, so that is where the new state can come from. So
differentiate with respect to the state (never feed it to the optimizer); a state that is not
differentiated stays as it was, which is how inference runs: ``fp8_loss(params, fp8_state,
batch)`` (forward in FP8 at the scales training left).

Which matmuls. ``autocast`` traces ``loss`` at each call; a *site* is a ``dot_general`` of its
jaxpr's top level with float operands one of which is an input of ``loss`` (a parameter),
possibly through converts, transposes and reshapes; matmuls between two computed values (the
attention's ``q·kᵀ`` and ``p·v``) stay as written, and so do matmuls inside nested jaxprs
(``scan``/``cond`` bodies, ``jit``-ed or custom-derivative calls). The state is a list with one
``{"x": meta, "w": meta, "g": meta}`` per site, in program order, each ``meta``
``{"amax_history": f32[history_length], "scale": f32[]}`` (``x``/``w``: the matmul's two
operands, ``g``: its output's cotangent). A matmul whose output gets no gradient
(``stop_gradient``) gets its state back unchanged (if no FP8 matmul at all gets a gradient,
the whole state comes back zero: there is nothing to update).
"""

from __future__ import annotations

import functools

import numpy as np

from minijax import core, dtypes, lax
from minijax.core import Literal, WeakScalar
from minijax.custom_derivatives import custom_vjp
from minijax.interpreters import ad
from minijax.interpreters.partial_eval import dce_jaxpr
from minijax.lax.dot import canonicalize_precision
from minijax.transforms.api import trace

__all__ = ["E4M3", "E5M2", "Fp8Autocast", "autocast", "find_sites", "init_meta",
           "update_meta"]

E4M3 = dtypes.float8_e4m3fn  # forward operands
E5M2 = dtypes.float8_e5m2  # cotangents
_F32 = np.dtype(np.float32)
_BF16 = np.dtype(dtypes.bfloat16)
# how a weight may reach its matmul from an input: layout changes and casts only
_WEIGHT_PATH = ("convert_element_type", "transpose", "reshape", "broadcast_in_dim", "copy")


def _fp8_max(fmt):
    return float(dtypes.finfo(fmt).max)


def init_meta(history_length):
    """A fresh operand's scaling state: an empty history and scale 1."""
    return {"amax_history": np.zeros((history_length,), np.float32),
            "scale": np.ones((), np.float32)}


def update_meta(meta, amax, fmt, margin=0):
    """``meta`` with ``amax`` pushed in front of its history and the scale recomputed from the
    history's max (kept when that max is zero or not finite)."""
    hist = meta["amax_history"]
    hist = lax.concatenate([lax.reshape(amax.astype(_F32), (1,)), hist[:-1]], 0)
    top = lax.reduce_max(hist, (0,))
    new = top * np.float32(2.0 ** margin / _fp8_max(fmt))
    ok = lax.bitwise_and(lax.gt(top, np.float32(0)), lax.is_finite(top))
    return {"amax_history": hist, "scale": lax.select(ok, new, meta["scale"])}


@custom_vjp
def _held(state):
    """The state, unchanged; its gradient (the state's update) keeps a site's old state where
    no update came: a matmul whose output gets no gradient (``stop_gradient``) would otherwise
    get a zero state back, and a zero scale divides by zero next step. One hold for the whole
    state, so its backward runs whenever any site is differentiated. The guard sits on the
    gradient, not in the matmul: any computation on the scale there keeps XLA from making an
    FP8 GEMM of it."""
    return state


def _held_fwd(state):
    return state, state


def _held_bwd(old, new):
    def site(o, n):
        return {k: {name: lax.select(lax.gt(n[k]["scale"], np.float32(0)), n[k][name], o[k][name])
                    for name in n[k]} for k in n}

    return ([site(o, n) for o, n in zip(old, new)],)


_held.defvjp(_held_fwd, _held_bwd)


def _quantize(x, scale, fmt):
    """``(x / scale)`` saturated into ``fmt``'s range and cast, and ``max|x|`` (f32)."""
    x32 = x.astype(_F32)
    fmax = np.float32(_fp8_max(fmt))
    q = lax.clamp(-fmax, x32 / scale, fmax).astype(fmt)
    # XLA's GPU compiler, fusing the quantizing convert with the dequantizing one and the dot
    # (a Triton GEMM at small sizes), computes other numbers than the FP8 round trip (3% off
    # on an H100/H200, real JAX alike); the barrier keeps the FP8 values materialized, which
    # is also what the cuBLASLt FP8 GEMM reads.
    (q,) = lax.optimization_barrier((q,))
    amax = lax.reduce_max(lax.abs(x32), tuple(range(x32.ndim)))
    return q, amax


def _dequantize(q, scale, dtype):
    # a convert and a scalar multiply in f32 or bf16: the pattern XLA makes one FP8 GEMM of
    return q.astype(dtype) * scale.astype(dtype)


def _nt(dimension_numbers, rhs_ndim):
    """For an ``x @ w`` with a 2-D weight contracting its major axis: the dimension numbers
    once the weight is transposed to contract its minor axis ("NT"); else None."""
    (lc, rc), (lb, rb) = dimension_numbers
    if rhs_ndim != 2 or rb or tuple(rc) != (0,):
        return None
    return ((tuple(lc), (1,)), (tuple(lb), tuple(rb)))


@functools.lru_cache(maxsize=None)
def _fp8_dot(dimension_numbers, lhs_dtype, rhs_dtype, out_dtype, rhs_ndim, margin):
    """``f(lhs, rhs, meta) -> out``: one site's FP8 matmul with its custom VJP."""
    nt = _nt(dimension_numbers, rhs_ndim)
    # The GEMM writes the dtype its operands are dequantized in: cuBLASLt has no f32 x f32 ->
    # bf16 GEMM, so XLA makes an FP8 GEMM of f32-dequantized operands only with an f32 output
    # and a separate pass casting it. A bf16 matmul dequantizes in bf16 instead, so the GEMM
    # writes bf16 itself; it applies each scale rounded to bf16, within 2**-9 of the f32 one
    # the operand was quantized with (or the f32 one: XLA's GPU compiler may drop an f32 ->
    # bf16 -> f32 round trip, which also rules out quantizing at the rounded scale: on an H100
    # that quantized 1% of the elements at the f32 one anyway).
    deq = _BF16 if lhs_dtype == rhs_dtype == out_dtype == _BF16 else _F32

    def product(lq, sl, rq, sr):
        lhs, dims = _dequantize(lq, sl, deq), dimension_numbers
        if nt is not None:  # transposed in FP8 (one byte an element), then dequantized
            rq, dims = lax.transpose(rq, (1, 0)), nt
        out = lax.dot_general(lhs, _dequantize(rq, sr, deq), dims, preferred_element_type=deq)
        return out.astype(out_dtype)

    def forward(lhs, rhs, meta):
        sl, sr = meta["x"]["scale"], meta["w"]["scale"]
        lq, la = _quantize(lhs, sl, E4M3)
        rq, ra = _quantize(rhs, sr, E4M3)
        return product(lq, sl, rq, sr), (lq, sl, la, rq, sr, ra)

    @custom_vjp
    def fp8_dot(lhs, rhs, meta):
        return forward(lhs, rhs, meta)[0]

    def fwd(lhs, rhs, meta):
        out, (lq, sl, la, rq, sr, ra) = forward(lhs, rhs, meta)
        new = {"x": update_meta(meta["x"], la, E4M3, margin),
               "w": update_meta(meta["w"], ra, E4M3, margin)}
        return out, (lq, sl, rq, sr, new, meta["g"])

    def bwd(res, ct):
        lq, sl, rq, sr, new, meta_g = res
        sg = meta_g["scale"]
        gq, ga = _quantize(ct, sg, E5M2)
        g = _dequantize(gq, sg, deq)
        lhs, rhs = _dequantize(lq, sl, deq), _dequantize(rq, sr, deq)
        transpose = ad.primitive_transposes[lax.dot_general_p]
        # the forward's precision: the transpose rule takes it as given, unlike dot_general
        params = dict(dimension_numbers=dimension_numbers, preferred_element_type=deq,
                      precision=canonicalize_precision(None))
        d_lhs, _ = transpose(g, ad.UndefinedPrimal(core.get_aval(lhs)), rhs, **params)
        _, d_rhs = transpose(g, lhs, ad.UndefinedPrimal(core.get_aval(rhs)), **params)
        new = dict(new, g=update_meta(meta_g, ga, E5M2, margin))
        return d_lhs.astype(lhs_dtype), d_rhs.astype(rhs_dtype), new

    fp8_dot.defvjp(fwd, bwd)
    return fp8_dot


def _from_input(a, producers, invars):
    """Whether ``a`` is an input of the jaxpr, reached through layout changes and casts."""
    while type(a) is not Literal:
        if a in invars:
            return True
        eqn = producers.get(a)
        if eqn is None or eqn.primitive.name not in _WEIGHT_PATH:
            return False
        a = eqn.invars[0]
    return False


def _is_float(a):
    return dtypes.is_float(a.aval.dtype) and a.aval.dtype.itemsize >= 2


def find_sites(closed):
    """Indices of the equations of ``closed``'s top level that run in FP8 (see the module
    docstring)."""
    jaxpr = closed.jaxpr
    invars = set(jaxpr.invars)
    producers = {v: e for e in jaxpr.eqns for v in e.outvars}
    return [i for i, e in enumerate(jaxpr.eqns)
            if e.primitive.name == "dot_general" and all(_is_float(a) for a in e.invars)
            and _is_float(e.outvars[0])
            and any(_from_input(a, producers, invars) for a in e.invars)]


class Fp8Autocast:
    """``f`` with its weight matmuls in FP8; called as ``f`` with the FP8 state inserted at
    position ``state_argnum``. See the module docstring."""

    def __init__(self, f, history_length=16, margin=0, state_argnum=1):
        functools.update_wrapper(self, f, updated=())
        self.fun = f
        self.history_length = int(history_length)
        self.margin = margin
        self.state_argnum = state_argnum

    def _program(self, args, kwargs):
        """``f`` traced, without dead matmuls (no gradient would bring their new state)."""
        closed, leaves, out_tree = trace(self.fun, args, kwargs)
        return dce_jaxpr(closed), leaves, out_tree

    def init(self, *args, **kwargs):
        """A fresh FP8 state for ``f(*args, **kwargs)`` (the arguments without the state)."""
        closed, _, _ = self._program(args, kwargs)
        return [{k: init_meta(self.history_length) for k in ("x", "w", "g")}
                for _ in find_sites(closed)]

    def __call__(self, *args, **kwargs):
        args = list(args)
        state = args.pop(self.state_argnum)
        closed, leaves, out_tree = self._program(args, kwargs)
        sites = find_sites(closed)
        if not isinstance(state, (list, tuple)) or len(state) != len(sites):
            n = len(state) if isinstance(state, (list, tuple)) else type(state).__name__
            raise ValueError(f"fp8.autocast({getattr(self.fun, '__name__', 'f')}): the FP8 "
                             f"state has {n} entries, the function has {len(sites)} FP8 "
                             "matmuls; make the state with .init(...) at these arguments")
        state = _held(list(state))
        outs = _evaluate(closed, dict(zip(sites, state)), leaves, self.margin)
        return out_tree.unflatten(outs)


def _evaluate(closed, site_state, args, margin):
    """``closed`` run with ``bind`` under the current trace, equation ``i`` in
    ``site_state`` as the FP8 matmul with that state."""
    jaxpr = closed.jaxpr
    env = dict(zip(jaxpr.constvars, closed.consts))
    env.update(zip(jaxpr.invars, args))

    def read(v):
        if type(v) is Literal:  # weak literals stay weak, as in core.eval_jaxpr
            return WeakScalar(v.val, v.aval.dtype) if v.aval.weak_type else v.val
        return env[v]

    for i, eqn in enumerate(jaxpr.eqns):
        ins = [read(a) for a in eqn.invars]
        if i in site_state:
            lhs, rhs = eqn.invars
            fn = _fp8_dot(eqn.params["dimension_numbers"], lhs.aval.dtype, rhs.aval.dtype,
                          eqn.outvars[0].aval.dtype, rhs.aval.ndim, margin)
            outs = (fn(*ins, site_state[i]),)
        else:
            outs = eqn.primitive.bind(*ins, **eqn.params)
            if not eqn.primitive.multiple_results:
                outs = (outs,)
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


def autocast(f, *, history_length=16, margin=0, state_argnum=1):
    """``f`` with its weight matmuls in FP8 (e4m3 forward, e5m2 gradients, delayed per-tensor
    scaling); call it with the FP8 state at ``state_argnum``, make the state with
    ``.init(*args)``. See the module docstring."""
    return Fp8Autocast(f, history_length, margin, state_argnum)
