"""``jnp.fft``: NumPy's discrete Fourier transforms on ``lax.fft``.

NumPy's semantics: ``n``/``s`` crop or zero-pad the input along the transformed axes (for the
inverse real transforms they give the *output* length, default ``2 * (m - 1)``), ``axis``/
``axes`` pick the axes, and ``norm`` is "backward" (the default: the inverse scales by 1/n),
"ortho" (both by 1/sqrt(n)) or "forward" (the forward transform scales by 1/n). XLA's inverse
transforms already scale by 1/n, so norm only adds a factor where it differs.

The steps are JAX's ``_fft_core``: axes given explicitly are moved to the end (and back),
``n``/``s`` crop by indexing and pad with ``jnp.pad`` (always), one ``lax.fft`` transforms up
to three trailing axes (XLA's limit; more go three, or for four two, at a time), and ``norm``
multiplies by JAX's ``_fft_norm``. Real inputs become complex (x64 off: float32 / complex64);
integer inputs become floating first.
"""

from __future__ import annotations

import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.lax.fft import FftType, install_jits
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import to_inexact_dtype

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift",
    "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]


def _jitted_lax_fft():
    # JAX's lax.fft is a jit named ``fft`` (static type and lengths): each transform is one
    # jit equation, a function call in partitioned programs. lax cannot hold a jit (layers),
    # so jnp.fft's calls of it go through this one (and lax.fft's transpose and batching
    # rules, through ``install_jits``).
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
install_jits(eager_jit, lax_fft)


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


def _fft_core(name, fft_type, a, s, axes, norm):
    """JAX's ``_fft_core``: given ``axes`` are moved to the end (and back); ``s`` crops by
    indexing and pads with ``jnp.pad`` (always, zero widths included); one ``lax.fft`` over up
    to three trailing axes (RFFT/IRFFT over several axes at once too); ``norm`` multiplies by
    ``_fft_norm`` of the sizes in the result's dtype."""
    full_name = f"jax.numpy.fft.{name}"
    arr = _checked_input(a, fft_type == FftType.RFFT)
    if s is not None:
        s = tuple(map(operator.index, s))
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")  # JAX's words
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")  # NumPy's, as JAX's
    orig_axes = axes
    if axes is None:
        axes = range(arr.ndim) if s is None else range(arr.ndim - len(s), arr.ndim)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if orig_axes is not None:
        axes = tuple(range(arr.ndim - len(axes), arr.ndim))
        arr = jnp.moveaxis(arr, orig_axes, axes)
    if s is not None:
        in_s = list(arr.shape)
        for axis, n in zip(axes, s):
            in_s[axis] = n
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(n) for n in in_s)]
        arr = jnp.pad(arr, [(0, n - m) for n, m in zip(in_s, arr.shape)])
    elif fft_type == FftType.IRFFT:
        s = [arr.shape[axis] for axis in axes[:-1]]
        if axes:
            s += [max(0, 2 * (arr.shape[axes[-1]] - 1))]
    else:
        s = [arr.shape[axis] for axis in axes]
    out = _fft_core_nd(arr, fft_type, s)
    if norm is not None:
        out = out * _fft_norm(jnp.array(s, dtype=out.dtype), name, norm)
    if orig_axes is not None:
        out = jnp.moveaxis(out, axes, orig_axes)
    return out


def _fft_core_nd(arr, fft_type, s):
    """XLA transforms at most three axes: more are done three (or, for four, two) at a time,
    the real transform's axes first (last for the inverse)."""
    if len(s) <= 3:
        return lax_fft(arr, fft_type, tuple(s))
    n = 2 if len(s) == 4 else 3
    src = tuple(range(arr.ndim - len(s), arr.ndim - n))
    dst = tuple(range(arr.ndim - len(s) + n, arr.ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax_fft(arr, fft_type, tuple(s)[-n:])
        arr = jnp.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        return jnp.moveaxis(arr, dst, src)
    arr = jnp.moveaxis(arr, src, dst)
    arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
    arr = jnp.moveaxis(arr, dst, src)
    return lax_fft(arr, fft_type, tuple(s)[-n:])


def _fft_norm(sizes, name, norm):
    """JAX's ``_fft_norm``: what multiplies XLA's (forward unscaled, inverse 1/n) transform;
    a name starting with 'i' counts as an inverse (so hfft is forward, ihfft inverse)."""
    if norm == "backward":
        return jnp.array(1)
    inverse = name.startswith("i")
    if norm == "ortho":
        return jnp.sqrt(jnp.prod(sizes)) if inverse else 1 / jnp.sqrt(jnp.prod(sizes))
    if norm == "forward":
        return jnp.prod(sizes) if inverse else 1 / jnp.prod(sizes)
    raise ValueError(f'Invalid norm value {norm}; should be "backward",'
                     '"ortho" or "forward".')  # JAX's words


def _axis_check_1d(name, axis):
    if isinstance(axis, (list, tuple)):
        full_name = f"jax.numpy.fft.{name}"
        raise ValueError(f"{full_name} does not support multiple axes. Please use {full_name}n. "
                         f"Got axis = {axis!r}.")


def _fft_core_1d(name, fft_type, a, n, axis, norm):
    _axis_check_1d(name, axis)
    return _fft_core(name, fft_type, a, None if n is None else [n],
                     None if axis is None else [axis], norm)


def _one_axis(fft_type, name):
    def transform(a, n=None, axis=-1, norm=None):
        return _fft_core_1d(name, fft_type, a, n, axis, norm)

    transform.__name__ = name
    transform.__doc__ = f"NumPy's ``fft.{name}``: the 1-d transform along ``axis``."
    return transform


def _n_axes(fft_type, name, two_axes=False):
    def transform(a, s=None, axes=(-2, -1) if two_axes else None, norm=None):
        if two_axes and len(axes) != 2:
            raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes = {axes!r}.")
        return _fft_core(name, fft_type, a, s, axes, norm)

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
fft2 = _n_axes(FftType.FFT, "fft2", two_axes=True)
ifft2 = _n_axes(FftType.IFFT, "ifft2", two_axes=True)
rfft2 = _n_axes(FftType.RFFT, "rfft2", two_axes=True)
irfft2 = _n_axes(FftType.IRFFT, "irfft2", two_axes=True)


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a Hermitian-symmetric signal given by its first half: a real spectrum (JAX's
    steps: the IRFFT of the conjugate, times the output length)."""
    conj_a = jnp.conj(a)
    _axis_check_1d("hfft", axis)
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * nn


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of ``hfft``: the first half of the spectrum of a real signal (JAX's steps:
    the conjugate of the RFFT, times one over the input length)."""
    _axis_check_1d("ihfft", axis)
    arr = jnp.asarray(a)
    nn = arr.shape[axis] if n is None else n
    return jnp.conj(_fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)) * (1 / nn)


def _check_freq_args(name, n, d):
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                         f"Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an ``n``-point FFT with sample spacing ``d`` (JAX's staging: an
    iota folded by ``remainder``, divided by ``d * n``)."""
    dtype = dtype or dtypes.default_float_dtype()
    _check_freq_args("fftfreq", n, d)
    out_dtype = dtype
    dtype = jnp.finfo(to_inexact_dtype(dtype)).dtype
    i = jnp.arange(n, dtype=dtype, device=device)
    k = (i + n // 2) % n - n // 2
    result = k.astype(dtype) / jnp.array(d * n, dtype=dtype, device=device)
    return result.astype(out_dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an ``n``-point real FFT (the non-negative ones)."""
    dtype = dtype or dtypes.default_float_dtype()
    _check_freq_args("rfftfreq", n, d)
    k = jnp.arange(0, n // 2 + 1 if n % 2 == 0 else (n - 1) // 2 + 1, dtype=dtype)
    result = k / jnp.array(d * n, dtype=dtype)
    return result if device is None else result.to_device(device)


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
