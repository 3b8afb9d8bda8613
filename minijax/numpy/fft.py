"""``jnp.fft``: NumPy's discrete Fourier transforms on ``lax.fft``.

NumPy's semantics: ``n``/``s`` crop or zero-pad the input along the transformed axes (for the
inverse real transforms they give the *output* length, default ``2 * (m - 1)``), ``axis``/
``axes`` pick the axes, and ``norm`` is "backward" (the default: the inverse scales by 1/n),
"ortho" (both by 1/sqrt(n)) or "forward" (the forward transform scales by 1/n). XLA's inverse
transforms already scale by 1/n, so norm only adds a factor where it differs.

The transformed axes are moved to the end (``lax.fft`` works on trailing axes) in groups of at
most three, XLA's limit; a transform over more axes is a sequence of transforms. Real inputs
become complex (x64 off: float32 / complex64); integer inputs become floating first.
"""

from __future__ import annotations

import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.lax.fft import FftType
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import to_inexact_dtype

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift",
    "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]


_NORMS = (None, "backward", "ortho", "forward")


def _jitted_lax_fft():
    # JAX's lax.fft is a jit named ``fft`` (static type and lengths): each transform is one
    # jit equation, a function call in partitioned programs. lax cannot hold a jit (layers),
    # so jnp.fft's calls of it go through this one.
    # It converts its input first, inside the jit, as JAX's: real for RFFT, complex for the
    # others (JAX's to_complex_dtype), and is that conversion alone without lengths.
    @eager_jit(static_argnames=("fft_type", "fft_lengths"), inline=False)
    def fft(x, fft_type, fft_lengths):
        x = lax.convert_element_type(x, _fft_input_dtype(x.dtype, fft_type))
        return lax.fft(x, fft_type, fft_lengths) if fft_lengths else x

    return fft


def _fft_input_dtype(dtype, fft_type):
    if fft_type == FftType.RFFT:
        return to_inexact_dtype(dtype)
    if dtypes.is_complex(dtype):
        return dtype
    # complex128 only from float64 or a 64-bit integer, so float16 and int32 stay complex64
    # under x64
    wide = to_inexact_dtype(dtype) == np.float64
    return dtypes.canonicalize_dtype(np.complex128 if wide else np.complex64)


lax_fft = _jitted_lax_fft()


def _check_norm(norm):
    if norm not in _NORMS:
        raise ValueError(f"Invalid norm value {norm!r}; should be 'backward', 'ortho' or "
                         "'forward'.")


def _checked_input(a, real):
    """``a`` as an array, refused in JAX's words where an RFFT cannot take it (the transform
    converts it)."""
    a = jnp.asarray(a)
    dtype = a.dtype
    if real:
        if dtypes.is_complex(dtype):
            raise ValueError("only real valued inputs supported for rfft")  # JAX's words
        if dtypes.issubdtype(dtype, np.floating) and dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {dtype}")  # JAX's words
    return a


def _resize(a, axis, n):
    """``a`` cropped or zero-padded to length ``n`` along ``axis``."""
    size = a.shape[axis]
    if n == size:
        return a
    if n < size:
        return _crop(a, axis, n)
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, n - size)
    return jnp.pad(a, widths)


def _crop(a, axis, n):
    return lax.slice_in_dim(a, 0, n, axis=axis)


def _canonical_axes(ndim, s, axes, name):
    if axes is None:
        axes = tuple(range(ndim - len(s), ndim)) if s is not None else tuple(range(ndim))
    else:
        axes = tuple(operator.index(a) for a in axes)
    norm_axes = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of bounds for an array of rank {ndim}")
        norm_axes.append(a % ndim)
    if len(set(norm_axes)) != len(norm_axes):
        raise ValueError(f"{name}: axes must be unique, got {axes}")
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if len(s) != len(norm_axes):
            raise ValueError(f"{name}: s {s} and axes {axes} must have the same length")
    return tuple(norm_axes), s


def _transform_last(a, fft_type, lengths):
    """``lax.fft`` over the trailing ``len(lengths)`` axes (at most three at a time; XLA's
    limit). Only complex transforms are ever split."""
    k = len(lengths)
    if k <= 3:
        return lax_fft(a, fft_type, lengths)
    # separable: transform the last three, then the others (moved to the end)
    a = lax_fft(a, fft_type, lengths[-3:])
    rest = k - 3
    src = list(range(a.ndim - k, a.ndim - 3))
    a = jnp.moveaxis(a, src, list(range(a.ndim - rest, a.ndim)))
    a = _transform_last(a, fft_type, lengths[:-3])
    return jnp.moveaxis(a, list(range(a.ndim - rest, a.ndim)), src)


def _fftn_core(a, s, axes, norm, fft_type, name):
    """The n-dimensional transform of ``fft_type`` over ``axes`` with sizes ``s``."""
    _check_norm(norm)
    real_in = fft_type == FftType.RFFT
    a = _checked_input(a, real_in)
    axes, s = _canonical_axes(a.ndim, s, axes, name)
    if not axes:
        return lax_fft(a, fft_type, ())
    if s is not None and any(n < 1 for n in s):
        raise ValueError("Shape should be positive.")  # JAX's words
    # without ``s`` the axes keep their lengths, zero included (an empty transform), as JAX
    in_sizes = list(s) if s is not None else [a.shape[ax] for ax in axes]
    sizes = list(in_sizes)
    if fft_type == FftType.IRFFT:
        if s is None:
            sizes[-1] = max(0, 2 * (in_sizes[-1] - 1))
        else:
            in_sizes[-1] = sizes[-1] // 2 + 1
    for ax, n in zip(axes, in_sizes):
        a = _resize(a, ax, n)
    k = len(axes)
    dst = list(range(a.ndim - k, a.ndim))
    a = jnp.moveaxis(a, list(axes), dst)
    if fft_type in (FftType.FFT, FftType.IFFT):
        out = _transform_last(a, fft_type, tuple(sizes))
    elif fft_type == FftType.RFFT:
        out = lax_fft(a, FftType.RFFT, (sizes[-1],))
        if k > 1:
            out = jnp.moveaxis(out, -1, 0)
            out = _transform_last(out, FftType.FFT, tuple(sizes[:-1]))
            out = jnp.moveaxis(out, 0, -1)
    else:
        out = a
        if k > 1:
            out = jnp.moveaxis(out, -1, 0)
            out = _transform_last(out, FftType.IFFT, tuple(sizes[:-1]))
            out = jnp.moveaxis(out, 0, -1)
        out = lax_fft(out, FftType.IRFFT, (sizes[-1],))
    if norm is not None:  # JAX's factor, computed from the sizes in the result's dtype
        inverse = fft_type in (FftType.IFFT, FftType.IRFFT)
        out = out * _norm_factor(jnp.array(sizes, dtype=out.dtype), norm, inverse)
    return jnp.moveaxis(out, dst, list(axes))


def _norm_factor(sizes, norm, inverse):
    """JAX's ``_fft_norm``: what multiplies XLA's (forward unscaled, inverse 1/n) transform."""
    if norm == "backward":
        return jnp.array(1)
    n = jnp.prod(sizes)
    if norm == "ortho":
        return jnp.sqrt(n) if inverse else 1 / jnp.sqrt(n)
    return n if inverse else 1 / n  # "forward"


def _one_axis(fft_type, name):
    def transform(a, n=None, axis=-1, norm=None):
        s = None if n is None else (n,)
        return _fftn_core(a, s, (axis,), norm, fft_type, name)

    transform.__name__ = name
    transform.__doc__ = f"NumPy's ``fft.{name}``: the 1-d transform along ``axis``."
    return transform


def _n_axes(fft_type, name, default_axes=None):
    def transform(a, s=None, axes=default_axes, norm=None):
        return _fftn_core(a, s, axes, norm, fft_type, name)

    transform.__name__ = name
    transform.__doc__ = f"NumPy's ``fft.{name}``."
    return transform


fft = _one_axis(FftType.FFT, "fft")
ifft = _one_axis(FftType.IFFT, "ifft")
rfft = _one_axis(FftType.RFFT, "rfft")
irfft = _one_axis(FftType.IRFFT, "irfft")
fftn = _n_axes(FftType.FFT, "fftn")
ifftn = _n_axes(FftType.IFFT, "ifftn")
rfftn = _n_axes(FftType.RFFT, "rfftn")
irfftn = _n_axes(FftType.IRFFT, "irfftn")
fft2 = _n_axes(FftType.FFT, "fft2", (-2, -1))
ifft2 = _n_axes(FftType.IFFT, "ifft2", (-2, -1))
rfft2 = _n_axes(FftType.RFFT, "rfft2", (-2, -1))
irfft2 = _n_axes(FftType.IRFFT, "irfft2", (-2, -1))


_SWAPPED_NORM = {None: "forward", "backward": "forward", "ortho": "ortho",
                 "forward": "backward"}


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a Hermitian-symmetric signal given by its first half: a real spectrum."""
    _check_norm(norm)
    return irfft(jnp.conj(lax_fft(a, FftType.FFT, ())), n, axis, _SWAPPED_NORM[norm])


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of ``hfft``: the first half of the spectrum of a real signal."""
    _check_norm(norm)
    return jnp.conj(rfft(a, n, axis, _SWAPPED_NORM[norm]))


def _freq_dtype(dtype):
    return dtypes.canonicalize_dtype(np.float64 if dtype is None else dtype)


def fftfreq(n, d=1.0, *, dtype=None):
    """Sample frequencies of an ``n``-point FFT with sample spacing ``d``."""
    n = operator.index(n)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return jnp.asarray(k, _freq_dtype(dtype)) / (n * d)


def rfftfreq(n, d=1.0, *, dtype=None):
    """Sample frequencies of an ``n``-point real FFT (the non-negative ones)."""
    n = operator.index(n)
    k = np.arange(0, n // 2 + 1)
    return jnp.asarray(k, _freq_dtype(dtype)) / (n * d)


def _shift(x, axes, sign):
    x = jnp.asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (operator.index(axes),)
    shifts = [sign * (x.shape[a] // 2) for a in axes]
    return jnp.roll(x, shifts, axes)


def fftshift(x, axes=None):
    """Moves the zero frequency to the centre (rolls each axis by ``n // 2``)."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift`` (rolls each axis by ``-(n // 2)``)."""
    return _shift(x, axes, -1)
