"""``jax.scipy.signal``: N-d convolution and correlation (direct, as one
``lax.conv_general_dilated``, or through the FFT), and ``detrend``.

SciPy's 'same' mode centres the output on the first operand, which pads differently from
``jnp.convolve``'s 'same' (centred on the longer operand), so the N-d paths compute their own
padding rather than reusing the 1-D NumPy functions, as in JAX.
"""

from __future__ import annotations

import operator
from functools import partial

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy import linalg as jnp_linalg
from minijax.numpy._util import canonicalize_axis, check_arraylike, promote_dtypes_inexact
from minijax.vmapping import vmap

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend",
           "fftconvolve", "istft", "stft", "welch"]

_MODES = ("full", "same", "valid")


def fftconvolve(in1, in2, mode: str = "full", axes=None):
    """The convolution of N-d ``in1`` and ``in2`` through the FFT: over ``axes`` (default all;
    the others must match in size and are mapped over)."""
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = (jnp.asarray(x) for x in promote_dtypes_inexact(in1, in2))
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in ["same", "full", "valid"]:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    conv = partial(_fftconvolve_unbatched, mode=mode)
    if axes is None:
        return conv(in1, in2)
    axes = (axes,) if isinstance(axes, int) or hasattr(axes, "__index__") else tuple(axes)
    axes = tuple(canonicalize_axis(operator.index(ax), in1.ndim) for ax in axes)
    mapped_axes = set(range(in1.ndim)) - set(axes)
    if any(in1.shape[i] != in2.shape[i] for i in mapped_axes):
        raise ValueError(f"mapped axes must have same shape; got {in1.shape=} {in2.shape=} "
                         f"{axes=}")
    for ax in sorted(mapped_axes):
        conv = vmap(conv, in_axes=ax, out_axes=ax)
    return conv(in1, in2)


def _fftconvolve_unbatched(in1, in2, mode):
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape))
    if mode == "valid":
        no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
        swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
        if not (no_swap or swap):
            raise ValueError("For 'valid' mode, One input must be at least as large as the "
                             "other in every dimension.")
        if swap:
            in1, in2 = in2, in1
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(in1.shape, in2.shape)):
        conv = in1 * in2  # an outer product: no transform needed
    else:
        complex_in = jnp.iscomplexobj(in1)
        fft = jnp.fft.fftn if complex_in else jnp.fft.rfftn
        ifft = jnp.fft.ifftn if complex_in else jnp.fft.irfftn
        conv = ifft(fft(in1, full_shape) * fft(in2, full_shape), full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = in1.shape
    else:
        out_shape = tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape))
    start = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape))
    return lax.slice(conv, start, tuple(s + o for s, o in zip(start, out_shape)))


def _convolve_nd(in1, in2, mode, *, precision):
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes "
                         f"{in1.shape} and {in2.shape}.")
    in1, in2 = promote_dtypes_inexact(in1, in2)
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    shape_o = in2.shape
    if swap:
        in1, in2 = in2, in1
    shape = in2.shape
    in2 = jnp.flip(in2)  # XLA's convolution is a cross-correlation
    if mode == "valid":
        padding = [(0, 0) for _ in shape]
    elif mode == "same":
        padding = [(s - 1 - (s_o - 1) // 2, s - s_o + (s_o - 1) // 2)
                   for s, s_o in zip(shape, shape_o)]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    result = lax.conv_general_dilated(in1[None, None], in2[None, None], (1,) * len(shape),
                                      padding, precision=precision)
    return result[0, 0]


def convolve(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """The N-d convolution of ``in1`` and ``in2`` (``mode`` 'full', 'same' or 'valid');
    ``method`` 'direct' and 'auto' use one XLA convolution, 'fft' :func:`fftconvolve`."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ["direct", "auto"]:
        return _convolve_nd(in1, in2, mode, precision=precision)
    raise ValueError(f"Got {method=}; expected 'auto', 'fft', or 'direct'.")


def correlate(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """The N-d cross-correlation: the convolution with ``in2`` flipped and conjugated."""
    in2 = jnp.asarray(in2)
    return convolve(in1, jnp.flip(jnp.conj(in2)), mode, precision=precision, method=method)


def _check_2d(name, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0,
               precision=None):
    """The 2-d convolution (zero fill outside, the one boundary JAX supports)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(in1, in2, mode, precision=precision)


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0,
                precision=None):
    """The 2-d cross-correlation, with SciPy's output alignment for each mode (when ``in1``
    is the smaller operand SciPy swaps them, which flips and conjugates the result)."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    same_shape = all(s1 == s2 for s1, s2 in zip(in1.shape, in2.shape))
    if mode == "same":
        return jnp.flip(_convolve_nd(jnp.flip(in1), jnp.conj(in2), mode, precision=precision))
    if mode == "valid":
        if swap and not same_shape:
            return _convolve_nd(jnp.flip(in2), jnp.conj(in1), mode, precision=precision)
        return jnp.flip(_convolve_nd(jnp.flip(in1), jnp.conj(in2), mode, precision=precision))
    if swap:
        return jnp.conj(_convolve_nd(jnp.flip(in2), jnp.conj(in1), mode, precision=precision))
    return jnp.flip(_convolve_nd(jnp.flip(in1), jnp.conj(in2), mode, precision=precision))


def detrend(data, axis: int = -1, type: str = "linear", bp=0, overwrite_data=None):
    """``data`` less its mean (``type='constant'``) or less its least-squares line on each
    piece between the static breakpoints ``bp`` (``'linear'``), along ``axis``."""
    if overwrite_data is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ["constant", "linear"]:
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    (data_arr,) = promote_dtypes_inexact(jnp.asarray(data))
    data_arr = jnp.asarray(data_arr)
    if type == "constant":
        return data_arr - data_arr.mean(axis, keepdims=True)
    N = data_arr.shape[axis]
    bp_arr = np.sort(np.unique(np.r_[0, bp, N]))  # static: numpy, not device arrays
    if bp_arr[0] < 0 or bp_arr[-1] > N:
        raise ValueError("Breakpoints must be non-negative and less than length of data along "
                         "given axis.")
    data_arr = jnp.moveaxis(data_arr, axis, 0)
    shape = data_arr.shape
    data_arr = data_arr.reshape(N, -1)
    for m in range(len(bp_arr) - 1):
        npts = int(bp_arr[m + 1] - bp_arr[m])
        A = jnp.vstack([jnp.ones(npts, dtype=data_arr.dtype),
                        jnp.arange(1, npts + 1, dtype=data_arr.dtype) / npts]).T
        sl = slice(int(bp_arr[m]), int(bp_arr[m + 1]))
        coef, *_ = jnp_linalg.lstsq(A, data_arr[sl])
        data_arr = data_arr.at[sl].add(-jnp.matmul(A, coef, precision=lax.Precision.HIGHEST))
    return jnp.moveaxis(data_arr.reshape(shape), 0, axis)


# The spectral estimates detrend their segments with the function above, so they are
# imported once it is defined.
from minijax.scipy._spectral import csd, istft, stft, welch  # noqa: E402
