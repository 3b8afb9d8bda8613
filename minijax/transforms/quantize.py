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

Only matmuls at the top level of the program are quantized (not inside loop bodies). Weights are
quantized once per parameter array (cached by identity), the first time a signature is traced;
``weight_memory()`` reports their bytes before and after.
"""

from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.core import ClosedJaxpr, Jaxpr, Tracer, Var
from minijax.transforms.api import Transformed, run_pass, trace
from minijax.transforms.rewrite import _Builder, replace_eqn, trace_replacement

MODES = {"int8_weight_only": (np.dtype(np.int8), 127.0),
         "fp8": (dtypes.float8_e4m3fn, 448.0),
         "int8": (np.dtype(np.int8), 127.0)}


def _weight_operand(eqn, const_of):
    """Index of the operand of a ``dot_general`` that is a float constant of rank >= 2."""
    if eqn.primitive.name != "dot_general":
        return None
    for i, a in enumerate(eqn.invars):
        c = const_of.get(a) if type(a) is Var else None
        if (c is not None and not isinstance(c, Tracer) and a.aval.ndim >= 2
                and dtypes.is_float(a.aval.dtype) and a.aval.dtype.itemsize >= 2):
            return i
    return None


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


def _out_scale(scale, eqn, wi):
    """``(s, dims)``: the weight's per-channel scales as a vector-like array ``s`` and the
    output dimensions its axes map to (for ``broadcast_in_dim`` against the dot's output)."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    contract, batch = (lc, lb) if wi == 0 else (rc, rb)
    w_ndim = eqn.invars[wi].aval.ndim
    free = [d for d in range(w_ndim) if d not in contract and d not in batch]
    s = np.transpose(scale, [*batch, *free, *contract]).reshape(
        [scale.shape[d] for d in (*batch, *free)])
    nb = len(batch)
    other = eqn.invars[1 - wi].aval
    n_other_free = other.ndim - len(rc if wi == 0 else lc) - nb
    start = nb + (n_other_free if wi == 1 else 0)
    return s, (*range(nb), *range(start, start + len(free)))


def _scale_output(y, out_scale):
    from minijax import lax

    s, dims = out_scale
    return y * lax.broadcast_in_dim(s.astype(y.dtype), y.shape, dims)


class Quantized:
    """The quantized ``f(params, *args)``; call it like ``f`` without ``params``."""

    def __init__(self, f, params, mode="int8_weight_only", act_ranges=None):
        if mode not in MODES:
            raise ValueError(f"quantize: mode must be one of {sorted(MODES)}, got {mode!r}")
        self.mode = mode
        self.params = params
        self.act_ranges = act_ranges  # per quantized matmul, in program order: calibrate()
        self._weights = {}  # (id(w), reduce_axes) -> (w, q, scale)
        self._transposed = {}  # (id(w), permutation) -> (w, w transposed on the host)
        self._fn = Transformed([self.quantize_pass], lambda *args: f(params, *args))

    def __call__(self, *args):
        return self._fn(*args)

    def transformed_jaxpr(self, *args):
        return self._fn.transformed_jaxpr(*args)

    def _quantized_weight(self, w, reduce_axes):
        key = (id(w), tuple(reduce_axes))
        rec = self._weights.get(key)
        if rec is None:
            qdtype, qmax = MODES[self.mode]
            q, scale = quantize_array(w, qdtype, qmax, reduce_axes)
            rec = self._weights[key] = (w, q, scale)
        return rec[1], rec[2]

    def quantize_pass(self, closed):
        jaxpr = closed.jaxpr
        const_of = dict(zip(jaxpr.constvars, closed.consts))
        b = _Builder(jaxpr, closed.consts)
        k = 0
        for eqn in jaxpr.eqns:
            eqn = type(eqn)(eqn.primitive, [b.read(a) for a in eqn.invars], eqn.outvars,
                            eqn.params, eqn.source_info)
            if self._fold_transpose(b, eqn, const_of):
                continue
            wi = _weight_operand(eqn, const_of)
            if wi is None:
                b.eqns.append(eqn)
                continue
            (lc, rc), _ = eqn.params["dimension_numbers"]
            q, scale = self._quantized_weight(const_of[eqn.invars[wi]], (lc, rc)[wi])
            out_scale = _out_scale(scale, eqn, wi)
            if self.act_ranges is None:
                fn = _weight_only_matmul(eqn, wi, q, out_scale)
            else:
                if k >= len(self.act_ranges):
                    raise ValueError("calibrate: the program has more matmuls than were "
                                     "calibrated; call it as it was calibrated")
                fn = _int8_matmul(eqn, wi, q, out_scale, self.act_ranges[k])
            k += 1
            replace_eqn(b, eqn, fn)
        from minijax.interpreters.partial_eval import dce_jaxpr

        return dce_jaxpr(b.finish(jaxpr))  # the float weights are no longer used

    def _fold_transpose(self, b, eqn, const_of):
        """``w.T`` of a weight constant becomes a (host-transposed) constant itself, so the
        matmul it feeds sees a constant weight; the f32 original then drops out by DCE."""
        if eqn.primitive.name != "transpose":
            return False
        (x,) = eqn.invars
        w = const_of.get(x) if type(x) is Var else None
        if w is None or isinstance(w, Tracer) or x.aval.ndim < 2:
            return False
        perm = tuple(eqn.params["permutation"])
        key = (id(w), perm)
        if key not in self._transposed:
            self._transposed[key] = (w, np.ascontiguousarray(np.transpose(np.asarray(w), perm)))
        const_of[eqn.outvars[0]] = self._transposed[key][1]
        b.constvars.append(eqn.outvars[0])  # defined as a constant now; DCE drops it if unused
        b.consts.append(self._transposed[key][1])
        return True

    def weight_memory(self):
        """Bytes of the quantized matmul weights before (their own dtype) and after (quantized
        values plus f32 scales); available once a signature has been traced (called)."""
        if not self._weights:
            raise RuntimeError("weight_memory(): call the quantized function once first")
        before = sum(np.asarray(w).nbytes for w, _, _ in self._weights.values())
        after = sum(q.nbytes + s.nbytes for _, q, s in self._weights.values())
        return {"mode": self.mode, "num_weights": len(self._weights),
                "bytes_before": before, "bytes_after": after, "ratio": after / before}


def _weight_only_matmul(eqn, wi, q, out_scale):
    from minijax import lax

    params = eqn.params
    out_dtype = eqn.outvars[0].aval.dtype

    def dequantized_matmul(*ops):
        ops = list(ops)
        ops[wi] = lax.convert_element_type(q, ops[1 - wi].dtype)
        y = eqn.primitive.bind(*ops, **params)
        return _scale_output(y, out_scale).astype(out_dtype)

    return dequantized_matmul


def _int8_matmul(eqn, wi, q, out_scale, act_max):
    import minijax.numpy as jnp
    from minijax import lax

    params = dict(eqn.params, preferred_element_type=np.dtype(np.int32))
    out_dtype = eqn.outvars[0].aval.dtype
    s_x = np.float32(act_max / 127.0 if act_max > 0 else 1.0)

    def int8_matmul(*ops):
        ops = list(ops)
        x = ops[1 - wi]
        ops[1 - wi] = jnp.clip(jnp.round(x / s_x), -127, 127).astype(jnp.int8)
        ops[wi] = q
        acc = eqn.primitive.bind(*ops, **params)
        y = lax.convert_element_type(acc, np.float32)
        return _scale_output(y, (out_scale[0] * s_x, out_scale[1])).astype(out_dtype)

    return int8_matmul


def quantize(f, params, mode="int8_weight_only"):
    """``qf(*args)`` computing ``f(params, *args)`` with its matmul weights quantized."""
    if mode == "int8":
        raise ValueError("quantize: int8 activations need ranges: use calibrate()")
    return Quantized(f, params, mode)


def instrument_pass(closed):
    """Adds ``max(|x|)`` of each constant-weight matmul's activation operand as extra outputs
    (in program order). Changes the signature, so it is run directly, not through ``apply``."""
    import minijax.numpy as jnp

    jaxpr = closed.jaxpr
    const_of = dict(zip(jaxpr.constvars, closed.consts))
    b = _Builder(jaxpr, closed.consts)
    b.eqns = list(jaxpr.eqns)
    extra = []
    for eqn in jaxpr.eqns:
        wi = _weight_operand(eqn, const_of)
        if wi is not None:
            x = eqn.invars[1 - wi]
            amax = trace_replacement(lambda x: jnp.max(jnp.abs(x)).astype(np.float32), [x.aval])
            extra += b.inline(amax, [x], eqn.source_info)
    new = b.finish(jaxpr)
    out = Jaxpr(new.jaxpr.constvars, new.jaxpr.invars, new.jaxpr.outvars + extra, new.jaxpr.eqns)
    return ClosedJaxpr(out, new.consts)


def calibrate(f, params, sample_batches):
    """An int8 (activations and weights) version of ``f(params, *args)``; activation ranges
    come from running ``f`` on ``sample_batches`` (each a tuple of args, or one array)."""
    from minijax.core import eval_jaxpr
    from minijax.jitting import jit

    ranges, n_out = None, None
    for batch in sample_batches:
        args = batch if isinstance(batch, tuple) else (batch,)
        closed, leaves, out_tree = trace(lambda *a: f(params, *a), args)
        n_out = len(closed.out_avals)
        inst = run_pass(instrument_pass, closed)
        run = jit(lambda consts, xs, j=inst.jaxpr: eval_jaxpr(j, consts, *xs))
        amax = [float(v) for v in run(inst.consts, list(leaves))[n_out:]]
        ranges = amax if ranges is None else [max(a, b) for a, b in zip(ranges, amax)]
    if ranges is None:
        raise ValueError("calibrate: sample_batches is empty")
    return Quantized(f, params, "int8", act_ranges=ranges)


__all__ = ["Quantized", "calibrate", "instrument_pass", "quantize", "quantize_array"]
