"""Op-table entries: ``lax.fft`` (FFT, IFFT, RFFT, IRFFT over 1 to 3 trailing axes) against
``numpy.fft``, results cast to the single-precision types XLA computes in (x64 off)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from minijax import lax
from tests.ops.op_db import array, register

TOL = {"complex64": (1e-4, 1e-4), "float32": (1e-4, 1e-4)}


def _operand(k, real, half_last=False):
    """An operand with 0-1 leading axes and ``k`` transformed axes; with ``half_last`` the last
    axis holds ``n // 2 + 1`` frequencies and the drawn ``n`` comes along as a static length."""

    @st.composite
    def strat(draw):
        lead = draw(st.lists(st.integers(1, 3), min_size=0, max_size=1))
        lengths = draw(st.lists(st.integers(1, 6), min_size=k, max_size=k))
        shape = list(lead) + lengths
        if half_last:
            shape[-1] = lengths[-1] // 2 + 1
        dtype = np.float32 if real else np.complex64
        x = draw(array(tuple(shape), dtype, -4, 4))
        return (x, np.zeros(lengths[-1], np.float32)) if half_last else (x,)

    return strat()


def _axes(k):
    return tuple(range(-k, 0))


for _k in (1, 2, 3):
    register(f"fft_fft_{_k}d", lambda x, k=_k: lax.fft(x, lax.FftType.FFT, x.shape[-k:]),
             lambda x, k=_k: np.fft.fftn(x, axes=_axes(k)).astype(np.complex64),
             _operand(_k, real=False), tol=TOL)
    register(f"fft_ifft_{_k}d", lambda x, k=_k: lax.fft(x, "ifft", x.shape[-k:]),
             lambda x, k=_k: np.fft.ifftn(x, axes=_axes(k)).astype(np.complex64),
             _operand(_k, real=False), tol=TOL)

for _k in (1, 2):
    register(f"fft_rfft_{_k}d", lambda x, k=_k: lax.fft(x, lax.FftType.RFFT, x.shape[-k:]),
             lambda x, k=_k: np.fft.rfftn(x, axes=_axes(k)).astype(np.complex64),
             _operand(_k, real=True), tol=TOL)

    # the second operand only carries the output length n of the last axis (its shape)
    def _irfft(x, n, k=_k):
        return lax.fft(x, lax.FftType.IRFFT, (*x.shape[-k:-1], n.shape[0]))

    def _irfft_ref(x, n, k=_k):
        s = (*x.shape[-k:-1], n.shape[0])
        return np.fft.irfftn(x, s=s, axes=_axes(k)).astype(np.float32)

    register(f"fft_irfft_{_k}d", _irfft, _irfft_ref, _operand(_k, real=False, half_last=True),
             tol=TOL)
