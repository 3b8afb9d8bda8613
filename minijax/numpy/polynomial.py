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
from minijax.numpy._eager import eager_jit
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


@eager_jit(static_argnames=("mode", "op", "precision", "preferred_element_type"), inline=False)
def _conv(x, y, mode, op, precision, preferred_element_type):
    """JAX's ``_conv``: one ``conv_general_dilated`` (a cross-correlation) padded for ``mode``,
    so "valid" and "same" never compute the products outside their window (an inf there would
    make NaNs in the derivative)."""
    check_arraylike(op, x, y)
    x, y = to_array(x), to_array(y)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    x, y = promote_dtypes(x, y)
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
        y = jnp.flip(y)
    m = y.shape[0]
    if mode == "valid":
        padding = (0, 0)
    elif mode == "same":
        padding = (m // 2, m - m // 2 - 1)
    elif mode == "full":
        padding = (m - 1, m - 1)
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    # ``out[k] = sum_j xp[k + j] * y[j]`` with ``xp`` the zero-padded ``x``, as JAX writes it:
    # x[None, None, :] (expand_dims), then result[0, 0, ::-1] (rev, squeeze) or result[0, 0]
    out = lax.conv_general_dilated(
        lax.expand_dims(x, (0, 1)), lax.expand_dims(y, (0, 1)), (1,), [padding],
        precision=precision, preferred_element_type=preferred_element_type)
    if reverse_out:
        out = lax.rev(out, (2,))
    return lax.squeeze(out, (0, 1))


@eager_jit(static_argnames=("mode", "precision", "preferred_element_type"), inline=False)
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    return _conv(a, v, mode, "convolve", precision, preferred_element_type)


@eager_jit(static_argnames=("mode", "precision", "preferred_element_type"), inline=False)
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """``c[k] = sum_n a[n + k] * conj(v[n])``."""
    return _conv(a, v, mode, "correlate", precision, preferred_element_type)


# ------------------------------------------------------------------------------------------------
# Polynomials


@eager_jit(static_argnames=("unroll",), inline=False)
def polyval(p, x, *, unroll=16):
    """Horner's scheme in a ``scan`` over the coefficients (``p``'s further axes broadcast
    against ``x``), as JAX."""
    check_arraylike("polyval", p, x)
    p, x = (to_array(t) for t in promote_dtypes(p, x))
    shape = tuple(np.broadcast_shapes(p.shape[1:], x.shape))
    y = lax.full_like(x, 0, shape=shape)
    return lax.scan(lambda y, c: (y * x + c, None), y, p, unroll=unroll)[0]


@eager_jit(inline=False)
def polyadd(a1, a2):
    """The shorter added into the end of the longer, as JAX."""
    check_arraylike("polyadd", a1, a2)
    a1, a2 = (to_array(x) for x in promote_dtypes(a1, a2))
    if a2.shape[0] <= a1.shape[0]:
        return a1.at[-a2.shape[0]:].add(a2)
    return a2.at[-a1.shape[0]:].add(a1)


@eager_jit(inline=False)
def polysub(a1, a2):
    check_arraylike("polysub", a1, a2)
    a1, a2 = (to_array(x) for x in promote_dtypes(a1, a2))
    return polyadd(a1, -a2)


def polymul(a1, a2, *, trim_leading_zeros=False):
    check_arraylike("polymul", a1, a2)
    a1, a2 = (to_array(x) for x in promote_dtypes_inexact(a1, a2))
    if trim_leading_zeros and (a1.shape[0] > 1 or a2.shape[0] > 1):
        a1, a2 = jnp.trim_zeros(a1, trim="f"), jnp.trim_zeros(a2, trim="f")
    if a1.shape[0] == 0:
        a1 = jnp.zeros((1,), a2.dtype)
    if a2.shape[0] == 0:
        a2 = jnp.zeros((1,), a1.dtype)
    return convolve(a1, a2, mode="full")


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


@eager_jit(static_argnames=("m",), inline=False)
def polyder(p, m=1):
    """JAX's: the coefficients times the falling factorials of their powers, at once."""
    check_arraylike("polyder", p)
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyder")
    (p,) = promote_dtypes_inexact(to_array(p))
    p = to_array(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    coeff = jnp.prod(jnp.arange(m, p.shape[0], dtype=p.dtype)[None]
                     - jnp.arange(m, dtype=p.dtype)[:, None], axis=0)
    return p[:-m] * coeff[::-1]


@eager_jit(static_argnames=("m",), inline=False)
def polyint(p, m=1, k=None):
    """JAX's: the coefficients (and the constants ``k``) over the rising products of their
    powers, at once; ``k`` is traced."""
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    p, k = (to_array(x) for x in promote_dtypes_inexact(p, k))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = jnp.atleast_1d(k)
    if k.shape[0] == 1:
        k = jnp.full((m,), k[0])
    if k.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    grid = (jnp.arange(p.shape[0] + m, dtype=p.dtype)[None]
            - jnp.arange(m, dtype=p.dtype)[:, None])
    coeff = jnp.prod(jnp.maximum(1, grid), axis=0)[::-1]
    return jnp.true_divide(jnp.concatenate((p, k)), coeff)


@eager_jit(static_argnames=("deg", "rcond", "full", "cov"), inline=False)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares fit of a degree-``deg`` polynomial (columns scaled, as NumPy)."""
    check_arraylike("polyfit", x, y)
    x, y = to_array(x), to_array(y)
    if rcond is None:
        # x's own eps, as JAX's (so integer x without an rcond fails in finfo, as JAX's)
        rcond = x.shape[0] * float(dtypes.finfo(x.dtype).eps)
    dt = np.result_type(dtypes.canonicalize_dtype(x.dtype), dtypes.canonicalize_dtype(y.dtype),
                        np.float32)
    x, y = convert(x, dt), convert(y, dt)
    deg = operator.index(deg)
    order = deg + 1
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


@eager_jit(inline=False)
def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots (1-D input, or a square
    matrix: its characteristic polynomial)."""
    check_arraylike("poly", seq_of_zeros)
    (z,) = promote_dtypes_inexact(to_array(seq_of_zeros))
    z = jnp.atleast_1d(z)
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        z = jnp.linalg.eigvals(z)  # complex coefficients
    if z.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = z.dtype
    if z.shape[0] == 0:
        return jnp.ones((), dt)
    a = jnp.ones((1,), dt)
    for i in range(z.shape[0]):
        a = convolve(a, jnp.stack([jnp.ones((), dt), -z[i]]), mode="full")
    return a


@eager_jit(inline=False)
def _roots_no_zeros(p):
    """Eigenvalues of the companion matrix of ``p`` (p[0] != 0): the roots of the polynomial."""
    cdtype = np.result_type(p.dtype, np.complex64)
    if p.shape[0] < 2:
        return jnp.zeros((0,), cdtype)
    a = jnp.diag(jnp.ones((p.shape[0] - 2,), p.dtype), -1)
    a = a.at[0, :].set(-p[1:] / p[0])
    return jnp.linalg.eigvals(a)


@eager_jit(inline=False)
def _roots_with_zeros(p, num_leading_zeros):
    """Fixed shapes: the leading zeros rolled to the end (a polynomial with that many zero
    roots), the zero roots moved last and one per leading zero marked NaN, as JAX."""
    n = p.shape[0]
    p = jnp.where(n == num_leading_zeros, 1.0, p)  # all zeros: no LAPACK failure
    r = _roots_no_zeros(jnp.roll(p, -num_leading_zeros))
    r = lax.sort_key_val(r == 0, r)[1]
    return jnp.where(jnp.arange(r.shape[0]) < r.shape[0] - num_leading_zeros, r,
                     complex(np.nan, np.nan))


def roots(p, *, strip_zeros: bool = True):
    """The roots of the polynomial with coefficients ``p`` (highest power first), as the
    eigenvalues of its companion matrix (as JAX and NumPy): always complex, in no particular
    order. ``strip_zeros`` drops leading zero coefficients, which needs a concrete ``p``; with
    ``strip_zeros=False`` (jit-compatible) each leading zero gives a NaN root instead."""
    check_arraylike("roots", p)
    (p,) = promote_dtypes_inexact(to_array(p))
    p = jnp.atleast_1d(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p.shape[0] < 2:
        return jnp.zeros((0,), np.result_type(p.dtype, np.complex64))
    leading = jnp.where(jnp.all(p == 0), p.shape[0], jnp.argmin(p == 0))
    if strip_zeros:
        k = core.concrete_or_error(
            int, leading, "jnp.roots(strip_zeros=True) drops leading zeros, so its output "
            "shape depends on p's values; under jit pass strip_zeros=False (leading zeros "
            "then give NaN roots)")
        return _roots_no_zeros(p[k:])
    return _roots_with_zeros(p, leading)
