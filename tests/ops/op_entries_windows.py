"""Op-table entries: ``reduce_window`` (sum/max/min primitives and generic computations,
single and variadic), with padding, strides, base and window dilation.

The NumPy reference builds the dilated, padded operand (holes and padding hold the init value,
negative padding crops), then reduces every window with a Python loop over output positions,
starting from the init value as XLA does.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from minijax import lax
from tests.ops.kinks import spread
from tests.ops.op_db import GradSpec, array, register, shapes

BF16 = np.dtype(ml_dtypes.bfloat16)


def _dilate_pad(x, init, padding, base_dilation):
    shape = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base_dilation)]
    out = np.full(shape, init, x.dtype)
    out[tuple(slice(None, None, b) for b in base_dilation)] = x
    for ax, (lo, hi) in enumerate(padding):
        widths = [(0, 0)] * x.ndim
        widths[ax] = (max(lo, 0), max(hi, 0))
        out = np.pad(out, widths, constant_values=init)
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(max(-lo, 0), out.shape[ax] - max(-hi, 0))
        out = out[tuple(idx)]
    return out


def window_reference(xs, inits, combine, window, strides, padding, base_dilation=None,
                     window_dilation=None):
    """``lax.reduce_window`` over operands ``xs`` (a list) in NumPy; returns a list."""
    ndim = xs[0].ndim
    base_dilation = base_dilation or (1,) * ndim
    window_dilation = window_dilation or (1,) * ndim
    if isinstance(padding, str):
        padding = lax.padtype_to_pads(xs[0].shape, window, strides, padding)
    padded = [_dilate_pad(x, i, padding, base_dilation) for x, i in zip(xs, inits)]
    eff = [(w - 1) * d + 1 for w, d in zip(window, window_dilation)]
    out_shape = [0 if p < w else (p - w) // s + 1
                 for p, w, s in zip(padded[0].shape, eff, strides)]
    outs = [np.empty(out_shape, x.dtype) for x in xs]
    for pos in itertools.product(*(range(n) for n in out_shape)):
        acc = [np.asarray(i, x.dtype) for i, x in zip(inits, xs)]
        for off in itertools.product(*(range(w) for w in window)):
            idx = tuple(p * s + o * d for p, s, o, d in zip(pos, strides, off, window_dilation))
            acc = [np.asarray(a, x.dtype) for a, x in zip(combine(acc, [p[idx] for p in padded]),
                                                          xs)]
        for o, a in zip(outs, acc):
            o[pos] = a
    return outs


def _operand(dtypes, n=1, with_init=False, lo=-10, hi=10):
    @st.composite
    def strat(draw):
        shape = draw(shapes(min_dims=2, max_dims=2, max_side=5))
        dtype = np.dtype(draw(st.sampled_from(dtypes)))
        xs = tuple(draw(array(shape, dtype, lo, hi)) for _ in range(n))
        if with_init:
            xs = xs + tuple(draw(array((), dtype, lo, hi)) for _ in range(n))
        return xs

    return strat()


CONFIGS = {
    "valid": dict(window_dimensions=(2, 2), window_strides=(1, 1), padding="VALID"),
    "same_strided": dict(window_dimensions=(3, 2), window_strides=(2, 1), padding="SAME"),
    "dilated": dict(window_dimensions=(2, 2), window_strides=(1, 2), padding=((1, 0), (2, -1)),
                    base_dilation=(2, 1), window_dilation=(1, 2)),
}

_MONOIDS = {
    "sum": (lambda dt: 0, lax.add, lambda a, b: [a[0] + b[0]],
            [np.float32, BF16, np.int32]),
    "max": (lambda dt: -np.inf if np.dtype(dt).kind == "f" or dt == BF16
            else np.iinfo(dt).min, lax.max, lambda a, b: [np.maximum(a[0], b[0])],
            [np.float32, BF16, np.int32]),
    "min": (lambda dt: np.inf if np.dtype(dt).kind == "f" or dt == BF16
            else np.iinfo(dt).max, lax.min, lambda a, b: [np.minimum(a[0], b[0])],
            [np.float32, np.uint8]),
}

for _kind, (_init, _lax_fn, _np_fn, _dtypes) in _MONOIDS.items():
    for _cfg_name, _cfg in CONFIGS.items():
        def _fn(x, init=_init, f=_lax_fn, cfg=_cfg):
            args = dict(cfg)
            return lax.reduce_window(x, np.asarray(init(x.dtype), x.dtype), f,
                                     args.pop("window_dimensions"), args.pop("window_strides"),
                                     args.pop("padding"), **args)

        def _ref(x, init=_init, f=_np_fn, cfg=_cfg):
            wide = x.astype(np.float32) if x.dtype == BF16 else x
            args = dict(cfg)
            out = window_reference([wide], [np.asarray(init(x.dtype), wide.dtype)], f,
                                   args.pop("window_dimensions"), args.pop("window_strides"),
                                   args.pop("padding"), **args)[0]
            return out.astype(x.dtype)

        # max/min: no ties in a window; second order on the valid windows only; with window
        # dilation forward mode only (the VJP raises JAX 0.10.2's NotImplementedError)
        _grad = (GradSpec() if _kind == "sum"
                 else GradSpec(post=spread(), order=2 if _cfg_name == "valid" else 1,
                               modes=("fwd",) if _cfg_name == "dilated" else ("fwd", "rev")))
        register(f"reduce_window_{_kind}_{_cfg_name}", _fn, _ref, _operand(_dtypes),
                 tol={"bfloat16": (2e-2, 5e-2)}, grad=_grad)


# Generic computations, with the init values as operands (traced under jit, mapped under vmap).
# XLA requires init values to be identities of the computation (it may apply them any number of
# times), so the strategies draw exactly the identity.


def _identities(values, lo=-2, hi=2):
    @st.composite
    def strat(draw):
        shape = draw(shapes(min_dims=2, max_dims=2, max_side=5))
        xs = tuple(draw(array(shape, np.float32, lo, hi)) for _ in values)
        return xs + tuple(np.asarray(v, np.float32) for v in values)

    return strat()


def _generic_mul(x, init):
    return lax.reduce_window(x, init, lax.mul, (2, 2), (1, 2), ((1, 0), (0, 1)))


register("reduce_window_generic_mul", _generic_mul,
         lambda x, init: window_reference([x], [init], lambda a, b: [a[0] * b[0]], (2, 2),
                                          (1, 2), ((1, 0), (0, 1)))[0],
         _identities([1.0]), tol={"float32": (1e-5, 1e-5)},
         grad=GradSpec(fixed=(1,)))  # the init values are identities (XLA requires it): fixed


def _variadic(x, y, ix, iy):
    return lax.reduce_window((x, y), (ix, iy), lambda a, b: (a[0] + b[0], a[1] * b[1]),
                             (2, 1), (1, 1), "SAME", window_dilation=(2, 1))


def _variadic_ref(x, y, ix, iy):
    return tuple(window_reference([x, y], [ix, iy], lambda a, b: [a[0] + b[0], a[1] * b[1]],
                                  (2, 1), (1, 1), "SAME", window_dilation=(2, 1)))


register("reduce_window_generic_variadic", _variadic, _variadic_ref, _identities([0.0, 1.0]),
         tol={"float32": (1e-5, 1e-5)}, grad=GradSpec(fixed=(2, 3)))
