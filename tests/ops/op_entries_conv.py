"""Op-table entries: ``conv_general_dilated`` in its configurations (layouts, strides, padding,
dilations, feature and batch groups, ``conv_transpose``), against a NumPy reference.

The reference is deliberately naive: move operands to (N, C, spatial...) / (O, I, spatial...),
dilate by inserting zeros, pad (negative pads crop), take every window with
``sliding_window_view`` and contract each group with ``einsum`` in float64.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from minijax import lax
from tests.ops.op_db import GradSpec, array, register

# ------------------------------------------------------------------------------------------------
# NumPy reference


def _dilate(x, dilation, first_axis):
    for i, d in enumerate(dilation):
        ax = first_axis + i
        if d == 1 or x.shape[ax] == 0:
            continue
        shape = list(x.shape)
        shape[ax] = (shape[ax] - 1) * d + 1
        out = np.zeros(shape, x.dtype)
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(None, None, d)
        out[tuple(idx)] = x
        x = out
    return x


def _pad(x, padding, first_axis):
    for i, (lo, hi) in enumerate(padding):
        ax = first_axis + i
        widths = [(0, 0)] * x.ndim
        widths[ax] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths)
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(max(-lo, 0), x.shape[ax] - max(-hi, 0))
        x = x[tuple(idx)]
    return x


def conv_reference(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                   dimension_numbers=None, feature_group_count=1, batch_group_count=1):
    """``lax.conv_general_dilated`` in NumPy (float64 accumulation, result in lhs's dtype)."""
    strides = window_strides
    dn = lax.conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    out_dtype = lhs.dtype
    x = np.transpose(lhs, dn.lhs_spec).astype(np.float64)
    k = np.transpose(rhs, dn.rhs_spec).astype(np.float64)
    nsp = x.ndim - 2
    lhs_dilation = lhs_dilation or (1,) * nsp
    rhs_dilation = rhs_dilation or (1,) * nsp
    if isinstance(padding, str):
        window = [(d - 1) * r + 1 for d, r in zip(k.shape[2:], rhs_dilation)]
        padding = lax.padtype_to_pads(x.shape[2:], window, window_strides, padding)
    x = _pad(_dilate(x, lhs_dilation, 2), padding, 2)
    k = _dilate(k, rhs_dilation, 2)
    n, c = x.shape[:2]
    o = k.shape[0]
    out_sp = [max(0, (p - w) // s + 1) if p >= w else 0
              for p, w, s in zip(x.shape[2:], k.shape[2:], strides)]
    out = np.zeros((n // batch_group_count, o, *out_sp))
    if all(out_sp) and n and c:
        win = np.lib.stride_tricks.sliding_window_view(x, k.shape[2:], axis=tuple(range(2,
                                                                                    2 + nsp)))
        win = win[(slice(None), slice(None), *(slice(None, None, s) for s in strides))]
        win = win[(slice(None), slice(None), *(slice(0, m) for m in out_sp))]
        sp = "".join(chr(ord("p") + i) for i in range(nsp))
        kk = "".join(chr(ord("h") + i) for i in range(nsp))
        spec = f"nc{sp}{kk},oc{kk}->no{sp}"
        fg, bg = feature_group_count, batch_group_count
        cg, og, ng = c // fg, o // (fg * bg), n // bg
        for g in range(fg * bg):
            fi, bi = (g, 0) if fg > 1 else (0, g)
            w = win[bi * ng:(bi + 1) * ng, fi * cg:(fi + 1) * cg]
            out[:, g * og:(g + 1) * og] = np.einsum(spec, w, k[g * og:(g + 1) * og])
    return np.transpose(out, np.argsort(dn.out_spec)).astype(out_dtype)


# ------------------------------------------------------------------------------------------------
# Strategies


def _conv_args(lhs_shape_fn, rhs_shape_fn, dtypes=(np.float32,)):
    @st.composite
    def strat(draw):
        sizes = draw(st.tuples(*[st.integers(1, 3)] * 3))  # batch, in features, out features
        spatial = draw(st.tuples(st.integers(1, 5), st.integers(1, 5)))
        kernel = draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
        dtype = np.dtype(draw(st.sampled_from(dtypes)))
        lhs = draw(array(lhs_shape_fn(sizes, spatial), dtype, -2, 2))
        rhs = draw(array(rhs_shape_fn(sizes, kernel), dtype, -2, 2))
        return lhs, rhs

    return strat()


def _nchw(sizes, sp):
    return (sizes[0], sizes[1], *sp)


def _oihw(sizes, k):
    return (sizes[2], sizes[1], *k)


def _nhwc(sizes, sp):
    return (sizes[0], *sp, sizes[1])


def _hwio(sizes, k):
    return (*k, sizes[1], sizes[2])


TOL = {"float32": (2e-5, 2e-5)}
# convolutions compile slowly on XLA CPU: gradients to second order only where the transposes
# are most intricate (dilations, strides, explicit padding: conv_nhwc_hwio_dilated); first
# order for the other configurations. All run eagerly (jit=False): each example reuses the
# conv executables of its shapes, where jitted checks compile new programs per example (CPU
# s of the seven entries' gradient checks here: 37 -> 21)
FIRST_ORDER = GradSpec(order=1, jit=False)


def _register_conv(name, lhs_shape_fn, rhs_shape_fn, grad=FIRST_ORDER, **params):
    def fn(lhs, rhs):
        return lax.conv_general_dilated(lhs, rhs, **params)

    def ref(lhs, rhs):
        return conv_reference(lhs, rhs, **params)

    register(name, fn, ref, _conv_args(lhs_shape_fn, rhs_shape_fn), tol=TOL, grad=grad)


_register_conv("conv_valid_nchw", _nchw, _oihw, window_strides=(1, 1), padding="VALID")
_register_conv("conv_nhwc_hwio_dilated", _nhwc, _hwio, window_strides=(1, 2),
               padding=((1, 2), (0, 1)), lhs_dilation=(2, 1), rhs_dilation=(1, 2),
               dimension_numbers=("NHWC", "HWIO", "NHWC"), grad=GradSpec(jit=False))
register("conv_same_strided", lambda x, k: lax.conv(x, k, (2, 1), "SAME"),
         lambda x, k: conv_reference(x, k, (2, 1), "SAME"), _conv_args(_nchw, _oihw), tol=TOL,
         grad=FIRST_ORDER)


def _grouped(fg, bg):
    """Feature groups ``fg`` (lhs features and rhs outputs scale) or batch groups ``bg``."""

    def lhs_shape(sizes, sp):
        return (sizes[0] * bg, sizes[1] * fg, *sp)

    def rhs_shape(sizes, k):
        return (sizes[2] * fg * bg, sizes[1], *k)

    return lhs_shape, rhs_shape


_register_conv("conv_feature_groups", *_grouped(2, 1), window_strides=(1, 1),
               padding="SAME", feature_group_count=2)
_register_conv("conv_batch_groups", *_grouped(1, 2), window_strides=(1, 1),
               padding="VALID", batch_group_count=2)


def _conv1d_args():
    @st.composite
    def strat(draw):
        n, c, o = draw(st.tuples(*[st.integers(1, 3)] * 3))
        w, k = draw(st.integers(1, 6)), draw(st.integers(1, 3))
        return (draw(array((n, c, w), np.float32, -2, 2)),
                draw(array((o, c, k), np.float32, -2, 2)))

    return strat()


register("conv_with_general_padding",
         lambda x, k: lax.conv_with_general_padding(x, k, (2,), ((2, -1),), (1,), (2,)),
         lambda x, k: conv_reference(x, k, (2,), ((2, -1),), (1,), (2,)), _conv1d_args(),
         tol=TOL, grad=FIRST_ORDER)


def _conv_transpose_ref(x, k, strides, padding):
    """conv_transpose (transpose_kernel=False): an lhs-dilated conv with JAX's padding."""
    pads = []
    for kk, s in zip(k.shape[:-2], strides):
        if padding == "SAME":
            total = kk + s - 2
            lo = kk - 1 if s > kk - 1 else -(-total // 2)
        else:
            total = kk + s - 2 + max(kk - s, 0)
            lo = kk - 1
        pads.append((lo, total - lo))
    return conv_reference(x, k, (1, 1), pads, lhs_dilation=strides,
                          dimension_numbers=("NHWC", "HWIO", "NHWC"))


register("conv_transpose_same", lambda x, k: lax.conv_transpose(x, k, (2, 1), "SAME"),
         lambda x, k: _conv_transpose_ref(x, k, (2, 1), "SAME"), _conv_args(_nhwc, _hwio),
         tol=TOL, grad=FIRST_ORDER)
