"""Round-6 fidelity fixes in jnp/nn/random (dtypes, weak types, shapes, errors).

Every expected value was recorded from real JAX 0.10.2 (the reproducers of the final oracle run,
re-run under /work/venv_jax); each block names the case it came from.
"""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import nn


# --- jnp.fft dtypes under x64 (s6001-208, s6031-6, s6156-6, s6058-85, s6156-13): JAX's
# to_complex_dtype/to_inexact_dtype give complex64/float32 for f16, bf16, bool and <=32-bit ints

# input dtype -> (fft, rfft, irfft) result dtypes in JAX 0.10.2 with x64 on
_FFT_X64 = {
    "bool": ("complex64", "complex64", "float32"),
    "int8": ("complex64", "complex64", "float32"),
    "int32": ("complex64", "complex64", "float32"),
    "uint8": ("complex64", "complex64", "float32"),
    "int64": ("complex128", "complex128", "float64"),
    "float16": ("complex64", None, "float32"),
    "bfloat16": ("complex64", None, "float32"),
    "float32": ("complex64", "complex64", "float32"),
    "float64": ("complex128", "complex128", "float64"),
}


@pytest.mark.parametrize("name", sorted(_FFT_X64))
def test_fft_dtypes_under_x64(name, x64):
    want_fft, want_rfft, want_irfft = _FFT_X64[name]
    x = jnp.ones(4, jnp.bool_ if name == "bool" else getattr(jnp, name))
    assert jnp.fft.fft(x).dtype == want_fft
    assert jnp.fft.ifft(x).dtype == want_fft
    assert jnp.fft.fft2(x.reshape(2, 2)).dtype == want_fft
    assert jnp.fft.irfft(x).dtype == want_irfft
    assert jnp.fft.hfft(x).dtype == want_irfft
    if want_rfft is None:  # JAX: "RFFT input must be float32 or float64"
        with pytest.raises(ValueError):
            jnp.fft.rfft(x)
    else:
        assert jnp.fft.rfft(x).dtype == want_rfft


def test_irfft_f16_values_under_x64(x64):
    out = jnp.fft.irfft(jnp.array([1.0, 2.0, 3.0], jnp.float16))
    assert out.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(out), np.fft.irfft(np.array([1.0, 2.0, 3.0])), atol=1e-6)


# --- jnp.power, inexact base and integer-array exponent (s6052-10, s6006-293): JAX's "Case 3"
# keeps the integer exponent (lax.pow(x, int)), so the result is strong and d/dx at y == 0 is 0


def test_power_float_scalar_int_array_is_strong():
    out = 0.5 ** jnp.array([1, 2], jnp.int32)
    assert out.dtype == jnp.float32 and not out.weak_type  # JAX: float32, weak_type=False
    np.testing.assert_array_equal(np.asarray(out), [0.5, 0.25])
    out = jnp.power(0.5, jnp.array([1, 2], jnp.int32))
    assert not out.weak_type
    # an f16 carry divided by it is float32 in JAX (its fori_loop refuses the carry change)
    assert (jnp.float16(1.0) / out).dtype == jnp.float32


def test_power_float_scalar_int_array_under_x64(x64):
    out = 0.5 ** jnp.array([1, 2], jnp.int32)
    assert out.dtype == jnp.float64 and not out.weak_type  # JAX 0.10.2


def test_power_grad_at_zero_exponent_is_zero():
    f = minijax.jit(minijax.grad(lambda x, k: jnp.power(x, k)))
    assert float(f(jnp.float32(np.nan), jnp.int32(0))) == 0.0  # JAX 0.10.2: 0.0
    assert float(f(jnp.float32(0.0), jnp.int32(0))) == 0.0
    np.testing.assert_allclose(float(f(jnp.float32(-2.0), jnp.int32(3))), 12.0)


# --- bool -> int32 in to_numeric_dtype, also under x64 (s6008-227)


@pytest.mark.parametrize("fn", [
    jnp.square, lambda b: jnp.power(b, b), lambda b: b ** 2, lambda b: jnp.floor_divide(b, b),
    lambda b: jnp.remainder(b, b), lambda b: jnp.fmod(b, b), lambda b: jnp.divmod(b, b)[0],
])
def test_numeric_ops_of_bool_are_int32_under_x64(fn, x64):
    assert fn(jnp.array([True, False])).dtype == jnp.int32  # JAX 0.10.2 (NumPy: int8/int64)


def test_standardize_bool_is_float32_under_x64(x64):
    assert nn.standardize(jnp.array([True, False])).dtype == jnp.float32  # JAX 0.10.2
