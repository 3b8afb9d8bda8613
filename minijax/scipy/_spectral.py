"""``jax.scipy.signal``'s spectral estimates: ``stft``, ``istft``, ``csd`` and ``welch``.

All four cut the signal into windowed segments of ``nperseg`` samples, ``nperseg -
noverlap`` apart (SciPy's conventions for padding, scaling and the time and frequency
grids). The segments are one gather with host-computed indices, so the transforms are a
batched FFT; ``istft`` adds the inverse-transformed segments back with one scatter-add and
divides by the summed squared window.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import canonicalize_axis, promote_dtypes_inexact
from minijax.scipy.signal import detrend as _detrend

__all__ = ["csd", "istft", "stft", "welch"]


def _cosine_window(coefs, n):
    """sum_k (-1)^k a_k cos(2 pi k j / n) for j < n: the periodic (FFT) generalized cosine
    windows, as scipy.signal.get_window's default ``fftbins=True``."""
    j = np.arange(n)
    return sum((-1) ** k * a * np.cos(2 * np.pi * k * j / n) for k, a in enumerate(coefs))


def _triangle(n, zero_ends):
    m = n + 1  # periodic: the symmetric window one longer, its last sample dropped
    j = np.arange(1, m + 1)
    if zero_ends:  # bartlett
        w = 1 - np.abs(2 * (j - 1) / (m - 1) - 1)
    elif m % 2:
        w = 1 - np.abs(2 * j - m - 1) / (m + 1)
    else:
        w = 1 - np.abs(2 * j - m - 1) / m
    return w[:n]


_WINDOWS = {
    "boxcar": lambda n: np.ones(n),
    "hann": lambda n: _cosine_window((0.5, 0.5), n),
    "hamming": lambda n: _cosine_window((0.54, 0.46), n),
    "blackman": lambda n: _cosine_window((0.42, 0.5, 0.08), n),
    "bartlett": lambda n: _triangle(n, True),
    "triang": lambda n: _triangle(n, False),
}
_ALIASES = {"hanning": "hann", "han": "hann", "ones": "boxcar", "rect": "boxcar",
            "rectangular": "boxcar", "box": "boxcar", "ham": "hamming", "black": "blackman",
            "triangle": "triang", "tri": "triang", "bart": "bartlett", "brt": "bartlett"}


def _window(window, nperseg, dtype):
    if isinstance(window, str):
        name = _ALIASES.get(window, window)
        if name not in _WINDOWS:
            raise ValueError(f"Unknown window type: {window!r} (minijax has "
                             f"{sorted(_WINDOWS)} or an array)")
        return jnp.asarray(_WINDOWS[name](nperseg), dtype=dtype)
    if isinstance(window, tuple):
        raise ValueError(f"Windows with parameters are not supported: {window!r}; pass the "
                         "window's samples as an array")
    win = jnp.asarray(window)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if win.shape[0] != nperseg:
        raise ValueError("value specified for nperseg is different from length of window")
    return win.astype(dtype)


def _segment_length(nperseg, window, n):
    if nperseg is not None:
        nperseg = operator.index(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
        if nperseg > n:
            warnings.warn(f"nperseg={nperseg} is greater than input_length={n}, using "
                          f"nperseg={n}")
            nperseg = n
        return nperseg
    if isinstance(window, (str, tuple)):
        return min(256, n)
    return len(window)


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
              axis, mode, boundary=None, padded=False):
    """``(freqs, times, result)`` of SciPy's spectral helper: ``result`` (..., nfreq, nseg)
    holds conj(X) Y scaled per ``scaling`` (mode 'psd') or the scaled transform of x
    (mode 'stft'), the segments' axes moved to the end."""
    if mode == "psd":
        x, y = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(y))
    else:
        (x,) = promote_dtypes_inexact(jnp.asarray(x))
        y = x
    axis = canonicalize_axis(axis, x.ndim)
    if mode == "psd":
        # The signals broadcast against each other except along ``axis``, where the
        # shorter is zero-padded.
        nx, ny = x.shape[axis], y.shape[axis]
        if nx != ny:
            pad = [(0, 0)] * x.ndim
            if nx < ny:
                pad[axis] = (0, ny - nx)
                x = jnp.pad(x, pad)
            else:
                pad[axis] = (0, nx - ny)
                y = jnp.pad(y, pad)
    x, y = jnp.moveaxis(x, axis, -1), jnp.moveaxis(y, axis, -1)
    if mode == "psd":
        batch = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
        x = jnp.broadcast_to(x, (*batch, x.shape[-1]))
        y = jnp.broadcast_to(y, (*batch, y.shape[-1]))
    n = x.shape[-1]
    nperseg = _segment_length(nperseg, window, n)
    win = _window(window, nperseg, x.real.dtype if jnp.iscomplexobj(x) else x.dtype)
    nfft = nperseg if nfft is None else operator.index(nfft)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap

    def extend(v):
        if boundary is not None:
            v = jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(nperseg // 2, nperseg // 2)])
        if padded:
            extra = (-(v.shape[-1] - nperseg) % step) % nperseg
            v = jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, extra)])
        return v

    x = extend(x)
    y = extend(y) if mode == "psd" else x
    n = x.shape[-1]
    nseg = (n - nperseg) // step + 1
    index = step * np.arange(nseg)[:, None] + np.arange(nperseg)[None, :]

    def transform(v):
        seg = v[..., index]  # (..., nseg, nperseg)
        if detrend is not False and detrend is not None:
            seg = detrend(seg) if callable(detrend) else _detrend(seg, type=detrend, axis=-1)
        seg = seg * win
        if sides == "onesided":
            return jnp.fft.rfft(seg, n=nfft, axis=-1)
        return jnp.fft.fft(seg, n=nfft, axis=-1)

    complex_input = jnp.iscomplexobj(x) or jnp.iscomplexobj(y)
    sides = "onesided" if return_onesided and not complex_input else "twosided"
    if return_onesided and complex_input:
        warnings.warn("Input data is complex, switching to return_onesided=False")
    if scaling == "density":
        scale = 1.0 / (fs * jnp.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / jnp.sum(win) ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling!r}")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    X = transform(x)
    if mode == "stft":
        result = X * scale.astype(X.dtype)
    else:
        Y = transform(y)
        result = jnp.conj(X) * Y * scale.astype(X.dtype)
        if sides == "onesided":  # fold the negative frequencies onto the positive ones
            last = -1 if nfft % 2 == 0 else None
            result = result.at[..., 1:last].multiply(2)
    if sides == "onesided":
        freqs = np.fft.rfftfreq(nfft, 1.0)
    else:
        freqs = np.fft.fftfreq(nfft, 1.0)
    times = (nperseg / 2 + step * np.arange(nseg))
    if boundary is not None:
        times = times - nperseg / 2
    real_dtype = result.real.dtype
    fs = jnp.asarray(fs, real_dtype)
    freqs, times = jnp.asarray(freqs, real_dtype) * fs, jnp.asarray(times, real_dtype) / fs
    return freqs, times, jnp.swapaxes(result, -1, -2)


def stft(x, fs=1.0, window="hann", nperseg: int = 256, noverlap=None, nfft=None,
         detrend=False, return_onesided: bool = True, boundary="zeros", padded: bool = True,
         axis: int = -1):
    """``(f, t, Zxx)``: the short-time Fourier transform of ``x`` along ``axis``, Zxx
    (..., nfreq, nseg) with the frequencies where ``axis`` was and the times last."""
    if boundary not in (None, "zeros"):
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         "['zeros', None]")
    x = jnp.asarray(x)
    axis = canonicalize_axis(axis, x.ndim)
    f, t, Z = _spectral(x, x, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                        "spectrum", axis, "stft", boundary=boundary, padded=padded)
    return f, t, jnp.moveaxis(Z, -2, axis)


def _median_bias(n):
    """The ratio of the median to the mean of a chi-squared(2) sample of n segments."""
    k = 2 * np.arange(1, (n - 1) // 2 + 1)
    return 1 + np.sum(1.0 / (k + 1) - 1.0 / k)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided: bool = True, scaling: str = "density",
        axis: int = -1, average: str = "mean"):
    """``(f, Pxy)``: Welch's estimate of the cross power spectral density of ``x`` and ``y``
    (the mean or median of conj(X) Y over the segments), frequencies at ``axis``."""
    if y is None:
        y = x
    x, y = jnp.asarray(x), jnp.asarray(y)
    if average not in ("mean", "median"):
        raise ValueError(f'average must be "median" or "mean", got {average}')
    if x.size == 0 or y.size == 0:
        raise ValueError("x and y must not be empty")
    ndim = max(x.ndim, y.ndim)
    axis = canonicalize_axis(axis, ndim)
    x = x.reshape((1,) * (ndim - x.ndim) + x.shape)
    y = y.reshape((1,) * (ndim - y.ndim) + y.shape)
    f, _, P = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                        scaling, axis, "psd")
    if P.shape[-1] > 1:
        if average == "median":
            bias = _median_bias(P.shape[-1])
            med = lambda v: jnp.median(v, axis=-1) / bias
            P = lax.complex(med(P.real), med(P.imag)) if jnp.iscomplexobj(P) else med(P)
        else:
            P = P.mean(axis=-1)
    else:
        P = P[..., 0]
    return f, jnp.moveaxis(P, -1, axis)


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided: bool = True, scaling: str = "density",
          axis: int = -1, average: str = "mean"):
    """``(f, Pxx)``: Welch's estimate of the power spectral density of ``x``."""
    f, P = csd(x, x, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
               detrend=detrend, return_onesided=return_onesided, scaling=scaling, axis=axis,
               average=average)
    return f, P.real


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided: bool = True, boundary: bool = True, time_axis: int = -1,
          freq_axis: int = -2):
    """``(t, x)``: the inverse of :func:`stft` by weighted overlap-add, x's time axis last.
    As in JAX, ``t`` has the length of x's first axis (its time axis only for 1-D x)."""
    Zxx = jnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    time_axis = canonicalize_axis(time_axis, Zxx.ndim)
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim)
    if time_axis == freq_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    nseg = Zxx.shape[time_axis]
    nfreq = Zxx.shape[freq_axis]
    if nperseg is None:
        nperseg = 2 * (nfreq - 1) if input_onesided else nfreq
    nperseg = operator.index(nperseg)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    nfft = nperseg if nfft is None else operator.index(nfft)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    # (..., nseg, nfreq)
    Z = jnp.moveaxis(Zxx, (time_axis, freq_axis), (-2, -1))
    if input_onesided:
        segs = jnp.fft.irfft(Z, n=nfft, axis=-1)
    else:
        segs = jnp.fft.ifft(Z, n=nfft, axis=-1)
    segs = segs[..., :nperseg]
    win = _window(window, nperseg, segs.real.dtype)
    segs = segs * (jnp.sum(win) * win).astype(segs.dtype)  # undo stft's scale, window again
    length = nperseg + (nseg - 1) * step
    index = (step * np.arange(nseg)[:, None] + np.arange(nperseg)[None, :]).ravel()
    x = jnp.zeros((*segs.shape[:-2], length), segs.dtype)
    x = x.at[..., index].add(segs.reshape(*segs.shape[:-2], -1))
    norm = jnp.zeros(length, win.dtype).at[index].add(jnp.tile(win * win, nseg))
    if boundary:
        x = x[..., nperseg // 2:length - nperseg // 2]
        norm = norm[nperseg // 2:length - nperseg // 2]
    x = x / jnp.where(norm > 1e-10, norm, 1.0).astype(x.dtype)
    # JAX 0.10 (like SciPy for two-sided input) counts the times along the first axis of x,
    # which is the time axis for a single signal only; kept for JAX's results.
    t = jnp.arange(x.shape[0], dtype=win.dtype) / jnp.asarray(fs, win.dtype)
    return t, x
