"""Polynomials (coefficients highest power first, as NumPy) and 1-D convolution: polyval,
polyadd, polysub, polymul, polydiv, polyder, polyint, polyfit, poly, roots, convolve,
correlate.

``convolve``/``correlate`` are one ``lax.conv_general_dilated`` each, padded per mode as JAX
pads them (complex operands: one sliding-window ``gather`` and one ``dot_general``).
"""

from __future__ import annotations

import operator

import numpy as np

import minijax.numpy as jnp
from minijax import core, dtypes, lax
from minijax.numpy._util import check_arraylike, convert, promote_dtypes, promote_dtypes_inexact
from minijax.numpy.creation import to_array

__all__ = [
    "polyval", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint", "polyfit",
    "poly", "roots", "convolve", "correlate",
]


def _1d(name, *xs):
    check_arraylike(name, *xs)
    xs = [to_array(x) for x in promote_dtypes(*xs)]
    for x in xs:
        if x.ndim != 1:
            raise ValueError(f"{name}: arguments must be one-dimensional, got shape {x.shape}")
    return xs


# ------------------------------------------------------------------------------------------------
# Convolution


def _conv(x, y, mode, op, precision, preferred_element_type):
    """JAX's ``_conv``: one ``conv_general_dilated`` (a cross-correlation) padded for ``mode``,
    so "valid" and "same" never compute the products outside their window (an inf there would
    make NaNs in the derivative)."""
    x, y = _1d(op, x, y)
    if preferred_element_type is None:  # NumPy's default for convolutions, as JAX
        x, y = promote_dtypes_inexact(x, y)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    reverse_out = False
    if op == "correlate":
        if dtypes.is_complex(np.dtype(x.dtype)):
            y = lax.conj(y)
        if x.shape[0] < y.shape[0]:
            x, y, reverse_out = y, x, True
    else:
        if x.shape[0] < y.shape[0]:  # NumPy swaps so the longer one slides
            x, y = y, x
        y = lax.rev(y, (0,))
    m = y.shape[0]
    if mode == "valid":
        padding = (0, 0)
    elif mode == "same":
        padding = (m // 2, m - m // 2 - 1)
    elif mode == "full":
        padding = (m - 1, m - 1)
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    out = _cross_correlate(x, y, padding, precision, preferred_element_type)
    return lax.rev(out, (0,)) if reverse_out else out


def _cross_correlate(x, y, padding, precision, preferred_element_type):
    """``out[k] = sum_j xp[k + j] * y[j]`` with ``xp`` the zero-padded ``x``."""
    n, m = x.shape[0], y.shape[0]
    if not dtypes.is_complex(np.dtype(x.dtype)):
        out = lax.conv_general_dilated(
            lax.reshape(x, (1, 1, n)), lax.reshape(y, (1, 1, m)), (1,), [padding],
            precision=precision, preferred_element_type=preferred_element_type)
        return lax.reshape(out, (out.shape[2],))
    # XLA's convolution takes no complex operands on every backend: a sliding-window gather
    # (an (out_len, m) matrix of windows) and one dot.
    out_len = n + padding[0] + padding[1] - m + 1
    padded = lax.pad(x, convert(0, x.dtype), [(padding[0], padding[1], 0)])
    starts = lax.expand_dims(lax.iota(np.int32, out_len), (1,))
    dnums = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(),
                                       start_index_map=(0,))
    windows = lax.gather(padded, starts, dnums, (m,), mode="clip", indices_are_sorted=True)
    return lax.dot_general(windows, y, (((1,), (0,)), ((), ())), precision=precision,
                           preferred_element_type=preferred_element_type)


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    return _conv(a, v, mode, "convolve", precision, preferred_element_type)


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """``c[k] = sum_n a[n + k] * conj(v[n])``."""
    return _conv(a, v, mode, "correlate", precision, preferred_element_type)


# ------------------------------------------------------------------------------------------------
# Polynomials


def polyval(p, x, *, unroll=16):
    """Horner's scheme, unrolled (the degree is static)."""
    check_arraylike("polyval", p, x)
    p, x = (to_array(t) for t in promote_dtypes(p, x))
    if p.ndim != 1:
        raise ValueError("polyval: p must be one-dimensional")
    y = jnp.zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def _pad_front(a, n):
    return jnp.pad(a, (n - a.shape[0], 0)) if a.shape[0] < n else a


def polyadd(a1, a2):
    a1, a2 = _1d("polyadd", a1, a2)
    n = max(a1.shape[0], a2.shape[0])
    return _pad_front(a1, n) + _pad_front(a2, n)


def polysub(a1, a2):
    a1, a2 = _1d("polysub", a1, a2)
    n = max(a1.shape[0], a2.shape[0])
    return _pad_front(a1, n) - _pad_front(a2, n)


def polymul(a1, a2, *, trim_leading_zeros=False):
    a1, a2 = (jnp.atleast_1d(x) for x in _1d_any("polymul", a1, a2))
    if a1.shape[0] == 0:
        a1 = jnp.zeros((1,), a1.dtype)
    if a2.shape[0] == 0:
        a2 = jnp.zeros((1,), a2.dtype)
    return convolve(a1, a2, mode="full")


def _1d_any(name, *xs):
    check_arraylike(name, *xs)
    return [to_array(x) for x in promote_dtypes(*xs)]


def polydiv(u, v, *, trim_leading_zeros=False):
    """Quotient and remainder of polynomial long division (static degrees)."""
    u, v = _1d("polydiv", u, v)
    dt = np.dtype(u.dtype)
    if not dtypes.is_inexact(dt):
        u, v = convert(u, dtypes.default_float_dtype()), convert(v, dtypes.default_float_dtype())
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    q = jnp.zeros((max(m - n + 1, 1),), u.dtype)
    r = u
    for k in range(0, m - n + 1):
        d = scale * r[k]
        q = jnp.concatenate([q[:k], d[None], q[k + 1:]])
        r = jnp.concatenate([r[:k], r[k:k + n + 1] - d * v, r[k + n + 1:]])
    return q, r


def polyder(p, m=1):
    check_arraylike("polyder", p)
    p = to_array(p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if not dtypes.is_inexact(np.dtype(p.dtype)):
        p = convert(p, dtypes.default_float_dtype()) if m else p
    for _ in range(m):
        n = p.shape[0]
        if n <= 1:
            return jnp.zeros((0,), p.dtype)
        p = p[:-1] * jnp.arange(n - 1, 0, -1, dtype=p.dtype)
    return p


def polyint(p, m=1, k=None):
    check_arraylike("polyint", p)
    p = to_array(p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if not dtypes.is_inexact(np.dtype(p.dtype)):
        p = convert(p, dtypes.default_float_dtype())
    ks = jnp.zeros((m,), p.dtype) if k is None else jnp.ravel(convert(to_array(k), p.dtype))
    if ks.shape[0] == 1 and m > 1:
        ks = jnp.broadcast_to(ks, (m,))
    for i in range(m):
        n = p.shape[0]
        p = jnp.concatenate([p / jnp.arange(n, 0, -1, dtype=p.dtype), ks[i:i + 1]])
    return p


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares fit of a degree-``deg`` polynomial (columns scaled, as NumPy)."""
    check_arraylike("polyfit", x, y)
    x, y = to_array(x), to_array(y)
    dt = np.result_type(dtypes.canonicalize_dtype(x.dtype), dtypes.canonicalize_dtype(y.dtype),
                        np.float32)
    x, y = convert(x, dt), convert(y, dt)
    deg = operator.index(deg)
    order = deg + 1
    if rcond is None:
        rcond = x.shape[0] * float(dtypes.finfo(dt).eps)
    lhs = jnp.vander(x, order)
    rhs = y
    if w is not None:
        w = convert(to_array(w), dt)
        lhs = lhs * w[:, None]
        rhs = rhs * (w if rhs.ndim == 1 else w[:, None])
    scale = jnp.sqrt(jnp.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, resids, rank, s = jnp.linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if full:
        return c, resids, rank, s, rcond
    if cov:
        # NumPy's covariance of the coefficients: inv(A^T A) unscaled, times the residual
        # variance unless cov="unscaled".
        vbase = jnp.linalg.inv(jnp.dot(lhs.T, lhs)) / jnp.outer(scale, scale)
        if cov == "unscaled":
            fac = jnp.array(1.0, dt)
        else:
            if x.shape[0] <= order:
                raise ValueError("the number of data points must exceed order to scale the "
                                 "covariance matrix")
            fac = resids / (x.shape[0] - order)
        fac = jnp.atleast_1d(fac)
        if y.ndim == 1:
            return c, vbase * fac[None]
        return c, vbase[:, :, None] * fac[None, None, :]
    return c


def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots (1-D input)."""
    check_arraylike("poly", seq_of_zeros)
    z = to_array(seq_of_zeros)
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] > 0:
        z = jnp.linalg.eigvals(z)  # the characteristic polynomial (complex coefficients)
    z = jnp.ravel(z)
    dt = dtypes.default_float_dtype() if not dtypes.is_inexact(np.dtype(z.dtype)) else z.dtype
    a = jnp.ones((1,), dt)
    for i in range(z.shape[0]):
        a = convolve(a, jnp.stack([jnp.ones((), dt), -convert(z[i], dt)]), mode="full")
    return a


def _companion_roots(p):
    """Eigenvalues of the companion matrix of ``p`` (p[0] != 0): the roots of the polynomial."""
    n = p.shape[0]
    cdtype = np.result_type(p.dtype, np.complex64)
    if n < 2:
        return jnp.zeros((0,), cdtype)
    a = jnp.eye(n - 1, k=-1, dtype=p.dtype)
    a = a.at[0, :].set(-p[1:] / p[0])
    return jnp.linalg.eigvals(a)


def roots(p, *, strip_zeros: bool = True):
    """The roots of the polynomial with coefficients ``p`` (highest power first), as the
    eigenvalues of its companion matrix (as JAX and NumPy): always complex, in no particular
    order. ``strip_zeros`` drops leading zero coefficients, which needs a concrete ``p``; with
    ``strip_zeros=False`` (jit-compatible) each leading zero gives a NaN root instead."""
    check_arraylike("roots", p)
    p = to_array(p)
    if not dtypes.is_inexact(np.dtype(p.dtype)):
        p = convert(p, dtypes.default_float_dtype())
    p = jnp.atleast_1d(p)
    if p.ndim != 1:
        raise ValueError("roots: input must be a rank-1 array")
    cdtype = np.result_type(p.dtype, np.complex64)
    if p.shape[0] < 2:
        return jnp.zeros((0,), cdtype)
    leading = jnp.where(jnp.all(p == 0), p.shape[0], jnp.argmin(p == 0))
    if strip_zeros:
        k = core.concrete_or_error(
            int, leading, "jnp.roots(strip_zeros=True) drops leading zeros, so its output "
            "shape depends on p's values; under jit pass strip_zeros=False (leading zeros "
            "then give NaN roots)")
        return _companion_roots(p[k:])
    # Fixed shapes: roll the leading zeros to the end (a polynomial with that many zero
    # roots), move the zero roots last and mark one per leading zero as NaN.
    n = p.shape[0]
    p = jnp.where(leading == n, jnp.ones_like(p), p)  # all zeros: no LAPACK failure
    rolled = lax.dynamic_slice(jnp.concatenate([p, p]), (leading.astype(np.int32),), (n,))
    r = _companion_roots(rolled)
    r = lax.sort_key_val(r == 0, r)[1]
    nan = jnp.asarray(complex(np.nan, np.nan), cdtype)
    return jnp.where(jnp.arange(n - 1) < n - 1 - leading, r, nan)
