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


# --- gelu / heaviside / hypot weak types (s6003-194, s6019-260, s6110-1, s6042-273, s6043-136,
# s6012-330, s6048-175): JAX mixes in NumPy constants, strong unless the input is a weak 0-d


def _weak_vec():
    return jnp.remainder(-1.5, jnp.array([2, 3]))  # float32, weak_type=True


def _weak_scalar():
    return jnp.remainder(-1.5, jnp.int32(2))


@pytest.mark.parametrize("fn, want", [
    # (weak f32[2], weak f32[], Python float): JAX 0.10.2's weak_type of the result
    (lambda a: nn.gelu(a), (False, False, False)),
    (lambda a: nn.gelu(a, approximate=False), (False, False, False)),
    (lambda a: jnp.heaviside(a, 0.5), (False, True, True)),
    (lambda a: jnp.heaviside(0.5, a), (True, True, True)),
    (lambda a: jnp.hypot(a, 2.0), (False, True, True)),
])
def test_weak_type_of_results(fn, want):
    got = tuple(fn(a).weak_type for a in (_weak_vec(), _weak_scalar(), 1.5))
    assert got == want
    assert minijax.jit(fn)(_weak_vec()).weak_type == want[0]


def test_weak_type_reproducers_values():
    i = jnp.array([0, 0, -1])
    out = jnp.heaviside(i, 0.5)
    assert not out.weak_type
    np.testing.assert_array_equal(np.asarray(out), [0.5, 0.5, 0.0])
    out = jnp.hypot(i, -1.5)
    assert not out.weak_type
    np.testing.assert_allclose(np.asarray(out), [1.5, 1.5, 1.8027756], rtol=1e-6)
    out = jnp.hypot(jnp.array([np.inf, 3.0, 0.0]), jnp.array([np.nan, 4.0, 0.0]))
    np.testing.assert_array_equal(np.asarray(out), [np.inf, 5.0, 0.0])
    for approximate in (True, False):
        out = nn.gelu(jnp.remainder(-1.5, i), approximate=approximate)
        assert not out.weak_type
    x = jnp.array([1.5, -2.0, 3.0], jnp.bfloat16)
    assert nn.gelu(x).dtype == jnp.bfloat16


# --- median/quantile of a 0-d input with keepdims (s6021-242): JAX ravels it first -> (1,)


@pytest.mark.parametrize("fn, shape", [
    (lambda a: jnp.median(a, keepdims=True), (1,)),
    (lambda a: jnp.median(a, axis=(), keepdims=True), (1,)),
    (lambda a: jnp.median(a), ()),
    (lambda a: jnp.nanmedian(a, keepdims=True), (1,)),
    (lambda a: jnp.quantile(a, jnp.array([0.1, 0.5]), keepdims=True), (2, 1)),
    (lambda a: jnp.nanquantile(a, 0.5, keepdims=True), (1,)),
    (lambda a: jnp.percentile(a, 50, keepdims=True), (1,)),
    (lambda a: jnp.nanpercentile(a, 50, keepdims=True), (1,)),
])
def test_quantile_of_0d_keepdims_shape(fn, shape):
    out = fn(jnp.float32(-2.0))
    assert out.shape == shape  # JAX 0.10.2 (NumPy keeps rank 0)
    np.testing.assert_array_equal(np.asarray(out), np.full(shape, -2.0))


def test_quantile_of_nd_keepdims_shape_unchanged():
    assert jnp.median(jnp.ones((2, 3)), keepdims=True).shape == (1, 1)
    assert jnp.median(jnp.ones((2, 3)), axis=(), keepdims=True).shape == (2, 3)


# --- the samplers' error for a wrong dtype (s6029-152): JAX's ValueError and words

_R = minijax.random
_K = _R.key(0)
_BAD_DTYPE = {  # sampler -> the name JAX 0.10.2's message gives, "or complex" where it says so
    "uniform": (lambda d: _R.uniform(_K, (2,), d), "uniform", False),
    "normal": (lambda d: _R.normal(_K, (2,), d), "normal", True),
    "truncated_normal": (lambda d: _R.truncated_normal(_K, -1.0, 1.0, (2,), d),
                         "truncated_normal", False),
    "beta": (lambda d: _R.beta(_K, 1.0, 1.0, (2,), d), "beta", False),
    "cauchy": (lambda d: _R.cauchy(_K, (2,), d), "cauchy", False),
    "exponential": (lambda d: _R.exponential(_K, (2,), d), "exponential", False),
    "gamma": (lambda d: _R.gamma(_K, 1.0, (2,), d), "gamma", False),
    "loggamma": (lambda d: _R.loggamma(_K, 1.0, (2,), d), "gamma", False),
    "gumbel": (lambda d: _R.gumbel(_K, (2,), d), "gumbel", False),
    "laplace": (lambda d: _R.laplace(_K, (2,), d), "laplace", False),
    "logistic": (lambda d: _R.logistic(_K, (2,), d), "logistic", False),
    "multivariate_normal": (lambda d: _R.multivariate_normal(_K, jnp.zeros(2), jnp.eye(2), (2,), d),
                            "multivariate_normal", False),
    "orthogonal": (lambda d: _R.orthogonal(_K, 2, (2,), d), "normal", True),
    "ball": (lambda d: _R.ball(_K, 2, 2, (2,), d), "gamma", False),
}


@pytest.mark.parametrize("name", sorted(_BAD_DTYPE))
def test_sampler_refuses_int_dtype_with_jax_error(name):
    fn, shown, complex_ok = _BAD_DTYPE[name]
    kinds = "a float or complex" if complex_ok else "a float"
    msg = f"dtype argument to `{shown}` must be {kinds} dtype, got int32"
    with pytest.raises(ValueError) as e:
        fn(jnp.int32)
    assert str(e.value).startswith(msg)


def test_sampler_dtype_error_under_jit_and_bits():
    with pytest.raises(ValueError, match="dtype argument to `uniform` must be a float dtype"):
        minijax.jit(lambda k: _R.uniform(k, (2,), jnp.int32))(_K)
    with pytest.raises(ValueError, match="dtype argument to `gumbel` must be a float dtype"):
        _R.categorical(_K, jnp.array([1, 2]))
    with pytest.raises(ValueError) as e:
        _R.bits(_K, (2,), jnp.int32)
    assert str(e.value).startswith("dtype argument to `bits` must be an unsigned int dtype, "
                                   "got int32")
