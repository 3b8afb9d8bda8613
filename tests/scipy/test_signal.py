"""minijax.scipy.signal against scipy.signal: convolve/correlate (direct and fft, every
mode), the 2-d forms, fftconvolve over axes and detrend; result dtypes, jit, gradients."""

import numpy as np
import pytest
import scipy.signal
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.scipy.signal as S
from minijax.test_util import check_grads
from tests.scipy._helpers import assert_close
from tests.scipy._helpers import rand as _rand


def _close(actual, expected, tol=1e-4):
    assert_close(actual, expected, tol)


MODES = ["full", "same", "valid"]
SHAPES_1D = [((7,), (3,)), ((3,), (7,))]
SHAPES_2D = [((5, 4), (2, 3)), ((2, 3), (5, 4)), ((4, 4), (4, 4))]


@given(st.integers(0, 2 ** 31 - 1), st.sampled_from(SHAPES_1D + SHAPES_2D),
       st.sampled_from(MODES), st.sampled_from(["auto", "direct", "fft"]),
       st.sampled_from([np.float32, np.complex64]))
def test_convolve_correlate(seed, shapes, mode, method, dtype):
    rng = np.random.default_rng(seed)
    a, b = _rand(rng, shapes[0], dtype), _rand(rng, shapes[1], dtype)
    for ours, theirs in ((S.convolve, scipy.signal.convolve),
                         (S.correlate, scipy.signal.correlate)):
        out = ours(a, b, mode, method)
        assert out.dtype == dtype
        _close(out, theirs(a, b, mode, method))


@given(st.integers(0, 2 ** 31 - 1), st.sampled_from(SHAPES_2D), st.sampled_from(MODES),
       st.sampled_from([np.float32, np.complex64]))
def test_convolve2d_correlate2d(seed, shapes, mode, dtype):
    rng = np.random.default_rng(seed)
    a, b = _rand(rng, shapes[0], dtype), _rand(rng, shapes[1], dtype)
    _close(minijax.jit(S.convolve2d, static_argnames="mode")(a, b, mode=mode),
           scipy.signal.convolve2d(a, b, mode))
    _close(S.correlate2d(a, b, mode), scipy.signal.correlate2d(a, b, mode))


def test_dtypes_and_errors():
    i = np.arange(5)
    assert S.convolve(i, i).dtype == np.float32  # integer inputs convolve as floats (JAX)
    _close(S.convolve(i, i), scipy.signal.convolve(i, i).astype(np.float32))
    with pytest.raises(ValueError, match="method"):
        S.convolve(i, i, method="winograd")
    with pytest.raises(ValueError, match="mode"):
        S.convolve(i, i, mode="middle")
    with pytest.raises(ValueError, match="smaller than the other"):
        S.convolve(np.ones((2, 5)), np.ones((3, 3)))
    with pytest.raises(NotImplementedError, match="boundary"):
        S.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="wrap")
    with pytest.raises(ValueError, match="2-dimensional"):
        S.correlate2d(np.ones(3), np.ones(2))


@given(st.integers(0, 2 ** 31 - 1), st.sampled_from(MODES))
def test_fftconvolve_axes(seed, mode):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((3, 9)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    out = minijax.jit(S.fftconvolve, static_argnames=("mode", "axes"))(a, b, mode=mode, axes=1)
    _close(out, scipy.signal.fftconvolve(a, b, mode=mode, axes=1))
    _close(S.fftconvolve(a, b, mode), scipy.signal.fftconvolve(a, b, mode))


@given(st.integers(0, 2 ** 31 - 1), st.sampled_from([0, -1]),
       st.sampled_from(["linear", "constant"]), st.sampled_from([0, [4], [3, 7]]))
def test_detrend(seed, axis, type, bp):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 10)).astype(np.float32)
    x = x if axis == -1 else x.T
    out = S.detrend(x, axis=axis, type=type, bp=bp)
    assert out.dtype == np.float32
    _close(out, scipy.signal.detrend(x, axis=axis, type=type, bp=bp), 2e-5)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("method", ["direct", "fft"])
def test_convolve_grad(method):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(7), rng.standard_normal(3)
    check_grads(lambda a, b: S.convolve(a, b, "same", method), (a, b), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda a, b: S.correlate2d(a, b, "full"),
                (rng.standard_normal((4, 3)), rng.standard_normal((2, 2))), order=1,
                modes=("rev",))
