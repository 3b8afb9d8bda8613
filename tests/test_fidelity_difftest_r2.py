"""Regressions for the second difftest run's (issue 21) classes; every expected error or value
was recorded from real JAX 0.10.2 (the comments quote it)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax, random


def test_jacfwd_of_a_bool_output_raises():
    # JAX 0.10.2: TypeError: a bytes-like object is required, not 'int'
    with pytest.raises(TypeError, match="bytes-like object is required"):
        minijax.jacfwd(lambda x: x > 0.5)(jnp.ones(3))
    # an integer output still gives zeros (FINDINGS 35)
    out = minijax.jacfwd(lambda x: jnp.floor(x).astype(jnp.int32))(jnp.ones(2))
    assert out.dtype == np.int32 and out.shape == (2, 2) and not np.asarray(out).any()


def test_rfft_of_half_precision_raises():
    # JAX 0.10.2: ValueError: RFFT input must be float32 or float64, got float16 (bfloat16)
    for dt in (jnp.float16, jnp.bfloat16):
        with pytest.raises(ValueError, match="RFFT input must be float32 or float64"):
            jnp.fft.rfft(jnp.ones(4, dt))
        with pytest.raises(ValueError, match="RFFT input must be float32 or float64"):
            jnp.fft.rfftn(jnp.ones(4, dt))
    # ints are promoted (JAX 0.10.2: complex64 [4, 0, 0])
    got = jnp.fft.rfft(jnp.ones(4, jnp.int32))
    assert got.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(got), [4, 0, 0])


def test_i0_of_complex_raises():
    # JAX 0.10.2: ValueError: Unsupported input type to jax.numpy.i0: complex64
    with pytest.raises(ValueError, match="Unsupported input type to jax.numpy.i0: complex64"):
        jnp.i0(jnp.ones(2, jnp.complex64))


def test_top_k_of_complex_is_a_value_error():
    # JAX 0.10.2: ValueError: top_k is not compatible with complex inputs.
    with pytest.raises(ValueError, match="top_k is not compatible with complex inputs"):
        lax.top_k(jnp.ones(2, jnp.complex64), 1)


def test_categorical_axis_out_of_range_is_an_index_error():
    key = random.key(0)
    # JAX 0.10.2: IndexError: index -1 is out of bounds for axis 0 with size 0
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0 with size 0"):
        random.categorical(key, jnp.float32(1.0))
    # JAX 0.10.2: IndexError: index 3 is out of bounds for axis 0 with size 1
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 1"):
        random.categorical(key, jnp.ones(3), axis=3)


@minijax.custom_vjp
def _clip_grad(x):
    return x


_clip_grad.defvjp(lambda x: (x, None), lambda _, ct: (jnp.clip(ct, -0.75, 0.75),))


def test_differentiating_a_jvp_of_a_custom_vjp_is_not_implemented():
    x = jnp.ones(3)

    def f(a):
        return minijax.jvp(lambda u: _clip_grad(u) * u, (a,), (a,))[1].sum()

    # JAX 0.10.2: NotImplementedError: Differentiation rule for 'custom_lin' not implemented
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'custom_lin'"):
        minijax.grad(f)(x)
    # JAX 0.10.2: TypeError: can't apply forward-mode autodiff (jvp) to a custom_vjp function.
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        f(x)


def test_conv_batched_over_an_empty_axis():
    x = jnp.zeros((1, 2, 5))
    conv = lambda a: lax.conv_general_dilated(a, a, (1,), "VALID", rhs_dilation=(2,))
    # JAX 0.10.2: float32 (1, 1, 0, 1, 2, 5) (jacrev vmaps over the output's 0 basis vectors)
    jac = minijax.jacrev(conv)(x)
    assert jac.shape == (1, 1, 0, 1, 2, 5) and jac.dtype == np.float32
    w = jnp.zeros((1, 2, 2))
    # JAX 0.10.2: float32 (0, 1, 1, 3)
    out = minijax.vmap(lambda a: lax.conv_general_dilated(a, w, (2,), "SAME", rhs_dilation=(2,)),
                       -1)(jnp.zeros((1, 2, 5, 0)))
    assert out.shape == (0, 1, 1, 3) and out.dtype == np.float32
    out = minijax.vmap(lambda k: lax.conv_general_dilated(x, k, (1,), "VALID"))(
        jnp.zeros((0, 3, 2, 2)))
    assert out.shape == (0, 1, 3, 4)


def test_heaviside_of_complex_raises():
    c = jnp.ones(3, jnp.complex64)
    # JAX 0.10.2: TypeError: lt does not accept dtype complex64 at position 0. ...
    for args in ((c, 0.5), (jnp.ones(3), c)):
        with pytest.raises(TypeError, match="lt does not accept dtype complex64"):
            jnp.heaviside(*args)


def test_clip_with_a_complex_bound_raises():
    # JAX 0.10.2: ValueError: Clip received a complex value either through the input or the
    # min/max keywords. ...
    with pytest.raises(ValueError, match="Clip received a complex value"):
        jnp.clip(jnp.ones(2), 0, jnp.complex64(1))
    with pytest.raises(ValueError, match="Clip received a complex value"):
        minijax.nn.standardize(jnp.ones(2, jnp.complex64))


def test_signbit_of_complex_message():
    # JAX 0.10.2: ValueError: jax.numpy.signbit is not well defined for complex64
    with pytest.raises(ValueError, match="jax.numpy.signbit is not well defined for complex64"):
        jnp.signbit(jnp.ones(2, jnp.complex64))


def test_standardize_clips_a_negative_fast_variance():
    x = jnp.array([1.0, 1.0])
    # JAX 0.10.2: [-316.227783203125, -316.227783203125] (E[x^2] - mean^2 = -3 is clipped to 0)
    np.testing.assert_allclose(np.asarray(minijax.nn.standardize(x, mean=jnp.float32(2.0))),
                               [-316.227783203125] * 2, rtol=1e-6)
    # JAX 0.10.2 (algorithm="stable"): [-0.9999950528144836, -0.9999950528144836]
    np.testing.assert_allclose(
        np.asarray(minijax.nn.standardize(x, mean=jnp.float32(2.0), algorithm="stable")),
        [-0.9999950528144836] * 2, rtol=1e-6)
    with pytest.raises(ValueError, match="Unknown algorithm 'x'"):
        minijax.nn.standardize(x, algorithm="x")


def test_failed_cholesky_keeps_zeros_off_its_triangle():
    a = jnp.array([[4.0, 2.0], [2.0, -1.0]])
    nan = np.nan
    # JAX 0.10.2: [[nan, 0], [nan, nan]]; upper=True: [[nan, nan], [0, nan]]
    np.testing.assert_array_equal(np.asarray(jnp.linalg.cholesky(a)), [[nan, 0], [nan, nan]])
    np.testing.assert_array_equal(np.asarray(jnp.linalg.cholesky(a, upper=True)),
                                  [[nan, nan], [0, nan]])


def test_exact_gelu_at_the_largest_floats():
    x = jnp.array([3.4028234663852886e38, -3e38, 1e30, -1.5, 0.7])
    # JAX 0.10.2: [3.4028235e+38, -0.0, 1.0e+30, -0.10021083056926727, 0.5306254029273987]
    np.testing.assert_allclose(np.asarray(minijax.nn.gelu(x, approximate=False)),
                               [3.4028235e38, -0.0, 1e30, -0.10021083056926727,
                                0.5306254029273987], rtol=1e-6)


def test_comparison_of_weak_operands_is_a_weak_bool():
    ints = jnp.array([[-3, -2, -4]], jnp.int32)
    # JAX 0.10.2: bool, weak_type=True (the int array is promoted to a weak float32)
    for out in (ints <= 0.5, minijax.jit(lambda a: a <= 0.5)(ints), jnp.less(ints, 0.5)):
        assert out.dtype == np.bool_ and out.weak_type
    assert not (jnp.ones(2) <= 0.5).weak_type
    w = jnp.asarray(0.5) < 1.0
    assert w.weak_type
    # JAX 0.10.2: promotion makes a weak bool strong; lax ops keep it; a weak int stays weak
    assert not (w & w).weak_type and not (w * w).weak_type
    assert not jnp.logical_and(w, w).weak_type and not w.astype(jnp.float32).weak_type
    assert (~w).weak_type and lax.select(w, jnp.asarray(0.5), jnp.asarray(0.5)).weak_type
    assert (w + 1).dtype == np.int32 and (w + 1).weak_type


def test_convolve_of_ints_and_bools_is_float():
    b = jnp.array([True, True, False])
    i = jnp.array([1, 2, 3])
    # JAX 0.10.2: float32 [2., 1., 0.]; float32 [1., 4., 10., 12., 9.]; float32 [1., 2.]
    for got, want in ((jnp.convolve(b, b, mode="same"), [2.0, 1.0, 0.0]),
                      (jnp.convolve(i, i), [1.0, 4.0, 10.0, 12.0, 9.0]),
                      (jnp.correlate(i, jnp.array([1, 0])), [1.0, 2.0])):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(got), want)
    # JAX 0.10.2: with preferred_element_type the operands keep their dtype: int32 (XLA's GPU
    # has no integer convolution, in JAX alike)
    if minijax.default_backend() == "cpu":
        assert jnp.convolve(i, i, preferred_element_type=jnp.int32).dtype == np.int32


def test_inexact_promotion_of_narrow_ints_under_x64_is_float32():
    with minijax.enable_x64(True):
        i32 = jnp.array([1, 2], jnp.int32)
        # JAX 0.10.2 (x64): float32 for bool and ints up to 32 bits, float64 for 64-bit ints
        assert jnp.sin(i32).dtype == np.float32
        assert jnp.exp(jnp.array([True])).dtype == np.float32
        assert jnp.sin(i32.astype(jnp.int8)).dtype == np.float32
        assert jnp.sin(i32.astype(jnp.uint32)).dtype == np.float32
        assert jnp.sin(i32.astype(jnp.int64)).dtype == np.float64
        assert jnp.mean(i32).dtype == np.float32
        assert minijax.nn.logsumexp(i32).dtype == np.float32
        assert jnp.convolve(i32, i32).dtype == np.float32
        assert jnp.sin(2).dtype == np.float64  # a Python int is a weak int64


def test_activations_of_integers_are_weak_floats():
    i = jnp.array([-1, 2], jnp.int32)
    # JAX 0.10.2: float32, weak_type=True (an int array meets Python float constants)
    for f in (minijax.nn.elu, minijax.nn.celu, minijax.nn.selu, minijax.nn.hard_sigmoid):
        out = f(i)
        assert out.dtype == np.float32 and out.weak_type, f
    # JAX 0.10.2: elu([-1, 2]) = [-0.6321205496788025, 2.0]
    np.testing.assert_allclose(np.asarray(minijax.nn.elu(i)), [-0.6321205496788025, 2.0],
                               rtol=1e-6)
    assert not minijax.nn.elu(jnp.ones(2)).weak_type


def test_mish():
    x = jnp.array([-100.0, -1.5, 0.0, 0.3, 2.0])
    # JAX 0.10.2: nn.mish values and gradient
    np.testing.assert_allclose(np.asarray(minijax.nn.mish(x)),
                               [-0.0, -0.29809969663619995, 0.0, 0.20800136029720306,
                                1.9439589977264404], rtol=1e-6,
                               atol=1e-38)  # a GPU keeps mish(-100)'s subnormal -3.8e-42
    np.testing.assert_allclose(np.asarray(minijax.grad(lambda a: minijax.nn.mish(a).sum())(x)),
                               [0.0, -0.06409783661365509, 0.6000000238418579,
                                0.7828272581100464, 1.0693178176879883], rtol=1e-5)
