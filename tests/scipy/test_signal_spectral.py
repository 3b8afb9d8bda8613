"""minijax.scipy.signal's spectral estimates (stft, istft, csd, welch) against
scipy.signal, with windows against scipy.signal.get_window and finite-difference gradients."""

import numpy as np
import pytest
import scipy.signal as ss
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.scipy.signal as S
from minijax.scipy._spectral import _WINDOWS
from minijax.test_util import check_grads
from tests.scipy._helpers import assert_close
from tests.scipy._helpers import rand as _rand


def _close(actual, expected, tol=1e-5):
    assert_close(actual, expected, tol)


seeds = st.integers(0, 2 ** 31 - 1)


def _all_close(mine, ref, tol=1e-5):
    assert len(mine) == len(ref)
    for m, r in zip(mine, ref):
        _close(m, r, tol)


welch_j = minijax.jit(S.welch, static_argnames=("nperseg", "scaling", "average", "window"))


@given(seeds, st.sampled_from(["density", "spectrum"]), st.sampled_from(["mean", "median"]),
       st.sampled_from(["hann", "hamming", "boxcar"]))
def test_welch(seed, scaling, average, window):
    x = _rand(seed, (2, 64))
    kw = dict(nperseg=16, scaling=scaling, average=average, window=window)
    f, p = welch_j(x, **kw)
    assert p.dtype == np.float32
    _all_close((f, p), ss.welch(x, **kw))


def test_csd_options():
    x, y = _rand(0, (2, 50)), _rand(1, (2, 50))
    for kw in (dict(nperseg=16, nfft=17), dict(nperseg=16, noverlap=4, detrend="linear"),
               dict(nperseg=16, return_onesided=False, fs=8.0), dict(detrend=False)):
        _all_close(S.csd(x, y, **kw), ss.csd(x, y, **kw), 1e-4)
    # Along axis 0, with y shorter (zero-padded) and complex input (two-sided).
    _all_close(S.csd(x.T, y.T[:40], nperseg=16, axis=0), ss.csd(x.T, y.T[:40], nperseg=16,
                                                                  axis=0), 1e-4)
    z = _rand(2, (50,), np.complex64)
    with pytest.warns(UserWarning, match="complex"):
        _all_close(S.welch(z, nperseg=16), ss.welch(z, nperseg=16), 1e-4)
    with pytest.warns(UserWarning, match="greater than input_length"):
        assert S.welch(x, nperseg=100)[1].shape == (2, 26)
    with pytest.raises(ValueError, match="average"):
        S.csd(x, y, average="foo")
    with pytest.raises(ValueError, match="noverlap"):
        S.welch(x, nperseg=8, noverlap=8)


def test_stft_istft():
    x = _rand(3, (2, 40))
    for kw in (dict(nperseg=8), dict(nperseg=8, noverlap=6, window="hamming", nfft=10),
               dict(nperseg=8, boundary=None, padded=False, detrend="constant", fs=4.0)):
        f, t, Z = S.stft(x, **kw)
        assert Z.dtype == np.complex64
        _all_close((f, t, Z), ss.stft(x, **kw), 1e-5)
    f, t, Z = S.stft(x.T, nperseg=8, axis=0)
    _close(Z, ss.stft(x.T, nperseg=8, axis=0)[2], 1e-5)
    _, _, Z = ss.stft(x, nperseg=8)
    tr, xr = S.istft(Z, nperseg=8)
    _close(xr, ss.istft(Z, nperseg=8)[1], 1e-5)
    _close(xr, x, 1e-5)  # the round trip
    _close(tr, np.arange(2.0))  # JAX's times: the length of x's first axis
    _all_close(S.istft(Z[0], nperseg=8, fs=2.0), ss.istft(Z[0], nperseg=8, fs=2.0), 1e-5)
    _, _, Z = ss.stft(x, nperseg=8, window="hamming", noverlap=6, return_onesided=False)
    kw = dict(nperseg=8, window="hamming", noverlap=6, boundary=False, input_onesided=False)
    _close(S.istft(Z, **kw)[1], ss.istft(Z, **kw)[1], 1e-5)
    _close(S.istft(np.swapaxes(Z, -1, -2), time_axis=-2, freq_axis=-1, **kw)[1],
           ss.istft(Z, **kw)[1], 1e-5)
    win = ss.get_window("hann", 8)
    _close(S.stft(x, window=win, nperseg=8)[2], ss.stft(x, window=win, nperseg=8)[2], 1e-5)
    with pytest.raises(ValueError, match="boundary"):
        S.stft(x, boundary="even")


def test_windows_match_scipy():
    for name in _WINDOWS:
        for n in (7, 8):
            np.testing.assert_allclose(_WINDOWS[name](n), ss.get_window(name, n), atol=1e-15)


@pytest.mark.usefixtures("x64")
def test_grads():
    x = _rand(4, (32,), np.float64)
    opts = dict(order=1, modes=("rev",), jit=True)
    check_grads(lambda v: S.welch(v, nperseg=8)[1], (x,), **opts)
    check_grads(lambda v: S.stft(v, nperseg=8)[2], (x,), **opts)
    Z = ss.stft(x, nperseg=8)[2]
    check_grads(lambda z: S.istft(z, nperseg=8)[1], (Z,), **opts)
