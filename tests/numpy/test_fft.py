"""jnp.fft against numpy.fft: every transform with drawn shapes, ``n``/``s`` (cropping and
zero-padding), ``axis``/``axes`` (negative, reordered, more than XLA's three) and ``norm``,
eagerly and under jit; frequencies and shifts; grad and vmap through jnp.fft; input dtypes
(ints and float64 become float32/complex64 with x64 off); errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from tests.numpy._helpers import both, check

TOL = (2e-4, 2e-4)
NORMS = [None, "backward", "ortho", "forward"]


def _array(draw, shape, complex_):
    rng = np.random.default_rng(draw(st.integers(0, 2**16), label="seed"))
    x = rng.standard_normal(shape).astype(np.float32)
    if complex_:
        x = (x + 1j * rng.standard_normal(shape)).astype(np.complex64)
    return x


@st.composite
def one_axis_case(draw, real_input):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3), label="shape"))
    x = _array(draw, shape, complex_=not real_input)
    axis = draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    n = draw(st.one_of(st.none(), st.integers(1, 8)), label="n")
    norm = draw(st.sampled_from(NORMS), label="norm")
    return x, n, axis, norm


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@given(data=st.data())
def test_one_axis_transforms(name, data):
    x, n, axis, norm = data.draw(one_axis_case(real_input=name in ("rfft", "ihfft")))
    if name in ("irfft", "hfft") and n is None and x.shape[axis] == 1:
        n = 1  # NumPy's default 2 * (m - 1) would be 0 points
    expected = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
    for got in both(lambda a: getattr(jnp.fft, name)(a, n=n, axis=axis, norm=norm), x):
        check(got, expected, tol=TOL)


@st.composite
def n_axes_case(draw, real_input, two_d):
    ndim = draw(st.integers(2 if two_d else 1, 4), label="ndim")
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    x = _array(draw, shape, complex_=not real_input)
    if two_d:
        axes = (-2, -1) if draw(st.booleans()) else tuple(
            draw(st.permutations(range(ndim)))[:2])
    else:
        k = draw(st.integers(1, ndim))
        axes = tuple(draw(st.permutations(range(ndim)))[:k])
    s = None
    if draw(st.booleans(), label="with s"):
        s = tuple(draw(st.integers(1, 5)) for _ in axes)
    norm = draw(st.sampled_from(NORMS), label="norm")
    return x, s, axes, norm


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2",
                                  "irfft2"])
@given(data=st.data())
def test_n_axes_transforms(name, data):
    two_d = name.endswith("2")
    x, s, axes, norm = data.draw(n_axes_case(real_input=name.startswith("rfft"), two_d=two_d))
    if name.startswith("irfft") and s is None and x.shape[axes[-1]] == 1:
        s = tuple(x.shape[a] for a in axes[:-1]) + (1,)
    expected = getattr(np.fft, name)(x, s=s, axes=axes, norm=norm)
    for got in both(lambda a: getattr(jnp.fft, name)(a, s=s, axes=axes, norm=norm), x):
        check(got, expected, tol=TOL)


def test_defaults_and_many_axes():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 2, 3, 2)).astype(np.float32)
    check(jnp.fft.fftn(x), np.fft.fftn(x), tol=TOL)  # five axes: two XLA transforms
    check(jnp.fft.ifftn(x), np.fft.ifftn(x), tol=TOL)
    check(jnp.fft.rfftn(x), np.fft.rfftn(x), tol=TOL)
    y = np.fft.rfftn(x)
    check(jnp.fft.irfftn(y, s=x.shape), np.fft.irfftn(y, s=x.shape), tol=TOL)
    check(jnp.fft.fft2(x), np.fft.fft2(x), tol=TOL)


def test_input_dtypes():
    x = np.arange(6, dtype=np.int32)
    got = jnp.fft.fft(x)
    assert got.dtype == np.complex64
    check(got, np.fft.fft(x), tol=TOL)
    check(jnp.fft.rfft(x), np.fft.rfft(x), tol=TOL)
    z = (np.arange(4) + 1j).astype(np.complex128)  # x64 off: complex64
    assert jnp.fft.ifft(z).dtype == np.complex64
    assert jnp.fft.irfft(z).dtype == np.float32


def test_freqs_and_shifts():
    for n in (1, 4, 5):
        for d in (1.0, 0.25):
            check(jnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
            check(jnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    x = np.arange(24).reshape(4, 6)
    for axes in (None, 0, (1,), (0, 1)):
        check(jnp.fft.fftshift(x, axes), np.fft.fftshift(x, axes))
        check(jnp.fft.ifftshift(x, axes), np.fft.ifftshift(x, axes))
    y = np.arange(5)
    check(jnp.fft.ifftshift(jnp.fft.fftshift(y)), y)


def test_grad_and_vmap():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 6)).astype(np.float32)

    def power(v):
        return jnp.sum(jnp.abs(jnp.fft.rfft(v, norm="ortho")) ** 2)

    # Parseval with ortho: |rfft|^2 summed counts the interior frequencies once, so the
    # gradient equals the one of the explicit sum over the half spectrum
    g = minijax.grad(power)(x[0])
    eps = 1e-3
    num = np.array([(float(power(x[0] + eps * e)) - float(power(x[0] - eps * e))) / (2 * eps)
                    for e in np.eye(6, dtype=np.float32)])
    np.testing.assert_allclose(np.asarray(g), num, rtol=2e-2, atol=2e-2)
    batched = minijax.vmap(lambda v: jnp.fft.fft(v, n=8))(x)
    check(batched, np.fft.fft(x, n=8, axis=-1), tol=TOL)
    ifft_roundtrip = minijax.jit(lambda v: jnp.fft.irfft(jnp.fft.rfft(v), n=6))(x)
    check(ifft_roundtrip, x, tol=TOL)


def test_errors():
    x = np.ones((4,), np.float32)
    with pytest.raises(ValueError, match="norm"):
        jnp.fft.fft(x, norm="bogus")
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.fft.fft(x, axis=2)
    with pytest.raises(ValueError, match="Shape should be positive"):  # JAX 0.10.2's words
        jnp.fft.fft(x, n=0)
    with pytest.raises(ValueError, match="real"):
        jnp.fft.rfft(x.astype(np.complex64))
    with pytest.raises(ValueError, match="fft_lengths"):
        minijax.lax.fft(x.astype(np.complex64), "fft", (5,))
    with pytest.raises(TypeError, match="RFFT requires a float32"):
        minijax.lax.fft(x.astype(np.complex64), "rfft", (4,))
