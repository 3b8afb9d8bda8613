"""``jax.scipy.fft``: the type-II discrete cosine transform and its inverse, 1-D and N-d.

Both are one complex FFT of the same length (Makhoul, "A fast cosine transform in one and
two dimensions", IEEE TASSP 28(1), 1980): reordering x into its even samples followed by its
odd samples reversed, v = [x0, x2, x4, ..., x5, x3, x1], turns the cosine sum into
DCT(x)_k = 2 Re(exp(-i pi k / 2N) FFT(v)_k); the inverse rebuilds FFT(v) from X_k and
X_(N-k) and undoes the reordering. As in JAX, only type 2 and the norms None/'backward'
(SciPy's unnormalized convention) and 'ortho' exist.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import partial

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.jitting import jit
from minijax.numpy._util import canonicalize_axis, promote_dtypes_inexact

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name, type, norm):
    if type != 2:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("ortho", "backward"):
        raise ValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")


def _resize(x, n, axis):
    """``x`` cut or zero-padded to length ``n`` along ``axis``, as SciPy's ``n`` argument."""
    size = x.shape[axis]
    if n == size:
        return x
    if n < size:
        return lax.slice_in_dim(x, 0, n, axis=axis)
    pads = [(0, 0)] * x.ndim
    pads[axis] = (0, n - size)
    return jnp.pad(x, pads)


def _ortho_scale(n, axis, ndim, dtype):
    """SciPy's orthonormal factors, shaped to broadcast along ``axis``: sqrt(1 / 4N) for
    k = 0 and sqrt(1 / 2N) otherwise."""
    f = np.full(n, np.sqrt(1 / (2 * n)))
    f[0] = np.sqrt(1 / (4 * n))
    shape = [1] * ndim
    shape[axis] = n
    return jnp.asarray(f.reshape(shape), dtype=dtype)


def _twiddle(n, axis, ndim, sign, dtype):
    k = np.arange(n)
    w = np.exp(sign * 1j * np.pi * k / (2 * n))
    shape = [1] * ndim
    shape[axis] = n
    return jnp.asarray(w.reshape(shape), dtype=dtype)


def _dct_real(x, axis, norm):
    n = x.shape[axis]
    evens = lax.slice_in_dim(x, 0, None, stride=2, axis=axis)
    odds = jnp.flip(lax.slice_in_dim(x, 1, None, stride=2, axis=axis), axis=axis)
    spectrum = jnp.fft.fft(jnp.concatenate([evens, odds], axis=axis), axis=axis)
    out = 2 * jnp.real(spectrum * _twiddle(n, axis, x.ndim, -1, spectrum.dtype))
    if norm == "ortho":
        out = out * _ortho_scale(n, axis, x.ndim, out.dtype)
    return out


def _idct_real(y, axis, norm):
    n = y.shape[axis]
    if norm == "ortho":
        y = y / _ortho_scale(n, axis, y.ndim, y.dtype)
    # FFT(v)_k = exp(i pi k / 2N) (X_k - i X_(N-k)) / 2, with X_N = 0.
    tail = jnp.flip(lax.slice_in_dim(y, 1, None, axis=axis), axis=axis)
    zero = jnp.zeros_like(lax.slice_in_dim(y, 0, 1, axis=axis))
    shifted = jnp.concatenate([zero, tail], axis=axis)
    spectrum = lax.complex(y, -shifted)
    spectrum = spectrum * _twiddle(n, axis, y.ndim, 1, spectrum.dtype) / 2
    v = jnp.real(jnp.fft.ifft(spectrum, axis=axis))
    # v = [x0, x2, ..., x5, x3, x1]: interleave its first ceil(N/2) entries with the rest
    # reversed.
    half = (n + 1) // 2
    evens = lax.slice_in_dim(v, 0, half, axis=axis)
    odds = jnp.flip(lax.slice_in_dim(v, half, None, axis=axis), axis=axis)
    idx = np.empty(n, np.int64)
    idx[0::2] = np.arange(half)
    idx[1::2] = half + np.arange(n - half)
    return jnp.take(jnp.concatenate([evens, odds], axis=axis), idx, axis=axis)


def _apply(transform, x, axis, norm):
    if jnp.iscomplexobj(x):  # the transform is real-linear: real and imaginary parts apart
        return lax.complex(transform(jnp.real(x), axis, norm), transform(jnp.imag(x), axis, norm))
    return transform(x, axis, norm)


def _prepare(x):
    (x,) = promote_dtypes_inexact(jnp.asarray(x))
    if x.dtype in (np.float16, dtypes.bfloat16):
        x = x.astype(np.float32)  # the FFT computes in single precision at least
    return x


def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The type-II DCT of ``x`` along ``axis`` (cut or zero-padded to ``n``): y_k =
    2 sum_j x_j cos(pi k (2j + 1) / 2N), orthonormally scaled with ``norm='ortho'``."""
    _check("dct", type, norm)
    return _one_axis(_dct_real, x, None if n is None else operator.index(n), axis, norm)


def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of :func:`dct` (a scaled type-III DCT) along ``axis``, after cutting or
    zero-padding the input to ``n``."""
    _check("idct", type, norm)
    return _one_axis(_idct_real, x, None if n is None else operator.index(n), axis, norm)


@partial(jit, static_argnums=(0, 2, 3, 4))
def _one_axis(transform, x, n, axis, norm):
    x = _prepare(x)
    axis = canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _resize(x, n, axis)
    return _apply(transform, x, axis, norm)


def _axes_and_sizes(x, s, axes):
    if s is not None:
        s = tuple(operator.index(i) for i in s)
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - (len(s) if s is not None else x.ndim), x.ndim))
    else:
        axes = tuple(canonicalize_axis(operator.index(a), x.ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis: {axes}")
    if s is not None and len(s) != len(axes):
        raise ValueError(f"s and axes must have the same length, got {s=} and {axes=}")
    return axes, s


def _nd(name, transform, x, type, s, axes, norm):
    _check(name, type, norm)
    s = None if s is None else tuple(s)
    axes = None if axes is None else tuple(axes)
    return _nd_jit(transform, x, s, axes, norm)


@partial(jit, static_argnums=(0, 2, 3, 4))
def _nd_jit(transform, x, s, axes, norm):
    x = _prepare(x)
    axes, s = _axes_and_sizes(x, s, axes)
    for i, axis in enumerate(axes):
        if s is not None:
            x = _resize(x, s[i], axis)
        x = _apply(transform, x, axis, norm)
    return x


def dctn(x, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None):
    """The type-II DCT over several ``axes`` (default: the last len(s), or all), each cut or
    zero-padded to the matching size in ``s``."""
    return _nd("dctn", _dct_real, x, type, s, axes, norm)


def idctn(x, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None):
    """The inverse of :func:`dctn`."""
    return _nd("idctn", _idct_real, x, type, s, axes, norm)
