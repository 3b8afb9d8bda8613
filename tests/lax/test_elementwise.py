"""Elementwise primitives and conversions: what the op table cannot check.

Weak types, error messages (primitive, shapes, the caller's line), dtype categories, rank-0
broadcasting, select_n/clamp/round/convert/bitcast specifics, and C semantics of integer
division and remainder. Values are compared with NumPy; jaxprs with JAX's spelling.
"""

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
from minijax import lax
from minijax.config import config_context
from minijax.lowering.stablehlo import lower_jaxpr, module_to_text
from minijax.test_util import check_grads

f32 = np.float32
bf16 = ml_dtypes.bfloat16


def jaxpr_of(fn, *args):
    return str(minijax.make_jaxpr(fn)(*args))


def stablehlo_of(fn, *args):
    return module_to_text(lower_jaxpr(minijax.make_jaxpr(fn)(*args)).module)


def aval_of(x):
    return x.aval


# --- weak types -----------------------------------------------------------------------------------


def test_python_scalar_is_weak_of_its_default_dtype_in_the_jaxpr():
    x = np.arange(3, dtype=f32)
    assert jaxpr_of(lambda a: lax.mul(a, 2.0), x) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }"
    )
    # JAX 0.10.2: the scalar is float32 (int32 for an int), not the array's dtype
    with pytest.raises(TypeError, match=r"lax.add requires arguments to have the same dtypes, "
                                        r"got bfloat16, int32. \(Tip: jnp.add"):
        lax.add(np.ones(2, bf16), 1)
    out = lax.mul(x, 2.0)
    assert out.dtype == f32 and not aval_of(out).weak_type
    np.testing.assert_array_equal(np.asarray(out), x * 2)


def test_weak_only_when_every_operand_is_weak():
    both_weak = minijax.make_jaxpr(lambda: lax.add(1.0, 2.0))()
    assert both_weak.out_avals[0].weak_type and both_weak.out_avals[0].dtype == f32
    unary_weak = minijax.make_jaxpr(lambda: lax.sin(1.0))()
    assert unary_weak.out_avals[0].weak_type
    strong = minijax.make_jaxpr(lambda a: lax.add(a, 1.0))(f32(1))
    assert not strong.out_avals[0].weak_type
    # JAX 0.10.2: a comparison of weak operands is a weak bool
    compared = minijax.make_jaxpr(lambda: lax.lt(1.0, 2.0))()
    assert compared.out_avals[0].dtype == np.bool_ and compared.out_avals[0].weak_type


def test_python_float_does_not_silently_truncate_into_an_int_array():
    with pytest.raises(TypeError, match="add requires arguments to have the same dtypes"):
        lax.add(np.arange(3, dtype=np.int32), 1.5)


# --- errors: primitive, shapes and the caller's line ----------------------------------------------


def _text(e):
    """An error's message (JAX's) and the notes minijax adds to it (the user's line)."""
    return "\n".join([str(e), *getattr(e, "__notes__", ())])


def _line_of(fn, offset=1):
    """``file:line`` of the line ``offset`` lines below ``fn``'s ``def``."""
    return f"{__file__}:{fn.__code__.co_firstlineno + offset}"


@pytest.mark.parametrize("jit", [False, True])
def test_dtype_mismatch_names_primitive_shapes_and_line(jit):
    def f(x, y):
        return lax.sub(x, y)

    g = minijax.jit(f) if jit else f
    with pytest.raises(TypeError) as e:
        g(np.zeros((2, 3), f32), np.zeros((2, 3), np.int32))
    msg = _text(e.value)
    assert "lax.sub requires arguments to have the same dtypes, got float32, int32." in msg
    assert _line_of(f) in msg


@pytest.mark.parametrize("jit", [False, True])
def test_shape_mismatch_names_primitive_shapes_and_line(jit):
    def f(x, y):
        return lax.atan2(x, y)

    g = minijax.jit(f) if jit else f
    with pytest.raises(TypeError) as e:
        g(np.zeros((2, 3), f32), np.zeros((3, 2), f32))
    msg = _text(e.value)
    assert "atan2 got incompatible shapes" in msg and "f32[2,3], f32[3,2]" in msg
    assert _line_of(f) in msg


@pytest.mark.parametrize(
    "fn, dtype, name",
    [
        (lax.sin, np.int32, "sin"),
        (lax.exp, np.bool_, "exp"),
        (lax.floor, np.complex64, "floor"),
        (lax.is_finite, np.int32, "is_finite"),
        (lax.erf, np.complex64, "erf"),
        (lax.cbrt, np.complex64, "cbrt"),
        (lax.population_count, f32, "population_count"),
        (lax.clz, np.bool_, "clz"),
        (lax.bitwise_not, f32, "not"),
        (lax.abs, np.uint8, "abs"),  # as JAX: abs of unsigned is refused
        (lax.neg, np.bool_, "neg"),
        (lax.real, f32, "real"),
        (lambda x: lax.shift_left(x, x), f32, "shift_left"),
        (lambda x: lax.bitwise_and(x, x), f32, "and"),
        (lambda x: lax.lt(x, x), np.complex64, "lt"),
        (lambda x: lax.rem(x, x), np.complex64, "rem"),
        (lambda x: lax.pow(x, x), np.int32, "pow"),
        (lambda x: lax.nextafter(x, x), np.int32, "nextafter"),
        (lambda x: lax.complex(x, x), np.float16, "complex"),
        (lambda x: lax.reduce_precision(x, 5, 10), np.int32, "reduce_precision"),
    ],
)
def test_wrong_dtype_category_is_a_type_error(fn, dtype, name):
    x = np.ones(3, dtype)
    with pytest.raises(TypeError, match=f"^{name} does not accept dtype {np.dtype(dtype).name}"):
        fn(x)
    with pytest.raises(TypeError, match=f"^{name} does not accept"):
        minijax.jit(fn)(x)


def test_integer_pow_refuses_negative_powers_of_integers():
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers"):
        lax.integer_pow(np.arange(3, dtype=np.int32), -2)


def test_pow_exponent_must_match_or_be_integer():
    with pytest.raises(TypeError, match="inexact dtypes must match, but got float32 and float16"):
        lax.pow(np.ones(2, f32), np.ones(2, np.float16))


# --- rank-0 operands broadcast --------------------------------------------------------------------


def test_rank0_operands_broadcast_in_binary_ops_and_comparisons():
    x = np.arange(6, dtype=f32).reshape(2, 3)
    out = lax.sub(f32(10), x)  # a strong NumPy scalar on the left
    assert out.shape == (2, 3) and not aval_of(out).weak_type
    np.testing.assert_array_equal(np.asarray(out), 10 - x)
    np.testing.assert_array_equal(np.asarray(lax.ge(x, f32(2.5))), x >= 2.5)
    jitted = minijax.jit(lambda a: lax.max(a, 3.0))(x)
    np.testing.assert_array_equal(np.asarray(jitted), np.maximum(x, 3))
    assert jaxpr_of(lambda a: lax.div(2.0, a), x).endswith("div 2.0:f32[] a in (b,) }")


# --- size-1 axes broadcast (JAX's lax: div f32[n,k] f32[n,1]) -----------------------------------

_SIZE1_OPS = [
    (lax.add, np.add), (lax.sub, np.subtract), (lax.mul, np.multiply), (lax.div, np.divide),
    (lax.max, np.maximum), (lax.min, np.minimum), (lax.atan2, np.arctan2), (lax.pow, np.power),
]


@given(st.sampled_from(_SIZE1_OPS), st.lists(st.sampled_from([(1, 1), (1, 3), (3, 1), (3, 3)]),
                                            min_size=2, max_size=2), st.booleans())
def test_size1_axes_broadcast_in_values_grads_and_vmap(ops, sizes, x_is_full):
    lax_op, np_op = ops
    (a0, b0), (a1, b1) = sizes
    x_shape, y_shape = (2, a0, b0, 4), (2, a1, b1, 1 if x_is_full else 4)
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 2.0, x_shape).astype(f32)
    y = rng.uniform(0.5, 2.0, y_shape).astype(f32)
    expected = np_op(x, y)
    out = lax_op(x, y)
    assert out.shape == expected.shape
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(minijax.jit(lax_op)(x, y)), expected, rtol=1e-6)
    # Derivatives: both directions against finite differences (float64).
    with config_context("jax_enable_x64", True):
        check_grads(lax_op, (x.astype(np.float64), y.astype(np.float64)), 1, modes=("fwd", "rev"))
    # vmap over the leading axis, one operand unbatched: the stacked loop.
    looped = np.stack([np.asarray(lax_op(x[i], y[0])) for i in range(2)])
    np.testing.assert_allclose(np.asarray(minijax.vmap(lax_op, (0, None))(x, y[0])), looped,
                               rtol=1e-6)


def test_size1_broadcast_is_in_the_jaxpr_and_its_transpose_sums_back():
    x, s = np.ones((2, 3), f32), np.ones((2, 1), f32)
    assert jaxpr_of(lax.div, x, s) == (
        "{ lambda ; a:f32[2,3] b:f32[2,1]. let c:f32[2,3] = div a b in (c,) }")
    # NumPy broadcasting in jnp leaves the size-1 axis to lax (as JAX's jnp does).
    assert "f32[2,3] = div a d" in jaxpr_of(lambda a, b: a / b.sum(-1, keepdims=True), x, x)
    jaxpr = jaxpr_of(lambda a, b: a / b, x, np.ones(3, f32))
    assert "f32[1,3] = broadcast_in_dim" in jaxpr and "f32[2,3] = div a" in jaxpr
    grad_s = minijax.grad(lambda b: lax.mul(x * 2, b).sum())(s)
    assert grad_s.shape == (2, 1)
    np.testing.assert_array_equal(np.asarray(grad_s), np.full((2, 1), 6.0))


def test_size1_broadcast_errors_name_the_shapes():
    with pytest.raises(TypeError, match=r"mul got operands of different ranks: f32\[2,3\], f32\[3"):
        lax.mul(np.ones((2, 3), f32), np.ones(3, f32))
    with pytest.raises(TypeError, match=r"add got incompatible shapes.*f32\[2,3\], f32\[2,2\]"):
        lax.add(np.ones((2, 3), f32), np.ones((2, 2), f32))


# --- select_n, select and clamp -------------------------------------------------------------------


@given(st.lists(st.integers(0, 2), min_size=6, max_size=6))
def test_select_n_with_int_selector_and_three_cases(which):
    which = np.array(which, np.int32).reshape(2, 3)
    cases = [np.full((2, 3), 10 * i, f32) + np.arange(6, dtype=f32).reshape(2, 3) for i in range(3)]
    expected = np.choose(which, cases)
    np.testing.assert_array_equal(np.asarray(lax.select_n(which, *cases)), expected)
    np.testing.assert_array_equal(np.asarray(minijax.jit(lax.select_n)(which, *cases)), expected)


def test_select_n_lowers_to_a_balanced_tree_of_selects():
    cases = [np.full(4, i, f32) for i in range(5)]
    text = stablehlo_of(lax.select_n, np.zeros(4, np.int32), *cases)
    assert text.count("stablehlo.select") == 4  # n - 1 selects, depth ceil(log2 n)
    assert text.count("stablehlo.compare") == 4
    scalar_which = stablehlo_of(lax.select_n, np.int32(3), *cases)
    assert "tensor<i1>" in scalar_which  # a rank-0 predicate, not broadcast
    np.testing.assert_array_equal(np.asarray(lax.select_n(np.int32(3), *cases)), cases[3])


def test_select_picks_on_true_where_pred():
    pred = np.array([True, False, True])
    a, b = np.arange(3, dtype=f32), -np.arange(3, dtype=f32)
    np.testing.assert_array_equal(np.asarray(lax.select(pred, a, b)), np.where(pred, a, b))
    assert "select_n a c b" in jaxpr_of(lax.select, pred, a, b)  # select_n(pred, false, true)
    np.testing.assert_array_equal(np.asarray(lax.select_n(np.bool_(True), a, b)), b)


def test_select_n_errors():
    a = np.zeros(3, f32)
    with pytest.raises(TypeError, match="boolean `which` cannot have > 2 cases"):
        lax.select_n(np.array([True, False, True]), a, a, a)
    with pytest.raises(TypeError, match="`which` must be boolean or integer"):
        lax.select_n(np.zeros(3, f32), a, a)
    with pytest.raises(TypeError, match=r"same shapes, got f32\[3\], f32\[4\]"):
        lax.select_n(np.zeros(3, np.int32), a, np.zeros(4, f32))
    with pytest.raises(TypeError, match="`which` must be scalar or have the same shape"):
        lax.select_n(np.zeros(2, np.bool_), a, a)
    with pytest.raises(TypeError, match="lax.select requires arguments to have the same dtypes"):
        lax.select_n(np.zeros(3, np.bool_), a, np.zeros(3, np.int32))


def test_clamp_takes_min_operand_max_in_that_order():
    x = np.array([-3.0, -0.5, 0.25, 0.75, 4.0], f32)
    np.testing.assert_array_equal(np.asarray(lax.clamp(0.0, x, 1.0)), np.clip(x, 0, 1))
    lo = np.array([-1, 0, 0, 1, 5], f32)
    expected = np.minimum(np.maximum(x, lo), 2)
    np.testing.assert_array_equal(np.asarray(lax.clamp(lo, x, f32(2))), expected)
    assert jaxpr_of(lambda a: lax.clamp(0.0, a, 1.0), x).endswith(
        "clamp 0.0:f32[] a 1.0:f32[] in (b,) }"
    )
    with pytest.raises(TypeError, match="clamp requires min.shape == operand.shape"):
        lax.clamp(np.zeros(2, f32), x, 1.0)
    with pytest.raises(TypeError, match=r"clamp requires arguments to have the same dtypes"):
        lax.clamp(np.int32(0), x, 1.0)


# --- rounding -------------------------------------------------------------------------------------


def test_round_methods_on_ties():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4], f32)
    np.testing.assert_array_equal(np.asarray(lax.round(x)), [-3, -2, -1, 1, 2, 3, 2])
    even = lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    np.testing.assert_array_equal(np.asarray(even), [-2, -2, -0.0, 0, 2, 2, 2])
    np.testing.assert_array_equal(np.asarray(lax.round(x, 1)), np.asarray(even))  # an int works
    assert "round[rounding_method=1] a" in jaxpr_of(lambda a: lax.round(a, 1), x)
    assert "round[rounding_method=0] a" in jaxpr_of(lax.round, x)
    assert "round_nearest_even" in stablehlo_of(lambda a: lax.round(a, 1), x)
    with pytest.raises(ValueError):
        lax.round(x, 2)


# --- integer arithmetic: C semantics --------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8])
def test_integer_div_truncates_and_rem_takes_the_dividends_sign(dtype):
    lo = 0 if np.dtype(dtype).kind == "u" else -9
    pairs = [(a, b) for a, b in itertools.product(range(lo, 10), repeat=2) if b != 0]
    x = np.array([a for a, _ in pairs], dtype)
    y = np.array([b for _, b in pairs], dtype)
    wide_x, wide_y = x.astype(np.int64), y.astype(np.int64)
    q, r = np.asarray(lax.div(x, y)), np.asarray(lax.rem(x, y))
    np.testing.assert_array_equal(q, np.trunc(wide_x / wide_y).astype(dtype))  # -7 / 2 == -3
    np.testing.assert_array_equal(r, np.fmod(wide_x, wide_y).astype(dtype))  # -7 % 2 == -1
    np.testing.assert_array_equal(q * y + r, x)  # the C identity


def test_float_rem_is_fmod():
    x = np.array([-7.5, 7.5, -7.5, 7.5, 5.0], f32)
    y = np.array([2.0, -2.0, -2.0, 2.0, 2.5], f32)
    np.testing.assert_array_equal(np.asarray(lax.rem(x, y)), np.fmod(x, y))


def test_shifts_past_the_bit_width():
    x = np.array([-8, 8, 1, -1], np.int8)
    big = np.array([8, 9, 100, 127], np.int8)
    np.testing.assert_array_equal(np.asarray(lax.shift_left(x, big)), np.zeros(4, np.int8))
    np.testing.assert_array_equal(np.asarray(lax.shift_right_logical(x, big)), np.zeros(4, np.int8))
    np.testing.assert_array_equal(np.asarray(lax.shift_right_arithmetic(x, big)), [-1, 0, 0, -1])


def test_sign_abs_and_integer_pow_by_dtype():
    u = np.array([0, 1, 200], np.uint8)
    np.testing.assert_array_equal(np.asarray(lax.sign(u)), [0, 1, 1])
    z = np.array([3 + 4j, -1j], np.complex64)
    a = lax.abs(z)
    assert a.dtype == f32
    np.testing.assert_allclose(np.asarray(a), [5, 1])
    assert lax.is_finite(np.array([1, np.inf], f32)).dtype == np.bool_
    assert "integer_pow[y=3] a" in jaxpr_of(lambda v: lax.integer_pow(v, 3), np.ones(2, f32))
    text = stablehlo_of(lambda v: lax.integer_pow(v, 5), np.ones(2, f32))
    assert text.count("stablehlo.multiply") == 3  # x^5 = x * (x^2)^2
    np.testing.assert_array_equal(np.asarray(lax.integer_pow(np.int32(3), 0)), 1)


def test_pow_with_integer_exponent_array():
    x = np.array([2.0, -2.0, 0.5], f32)
    n = np.array([3, 2, -2], np.int32)
    out = lax.pow(x, n)
    assert out.dtype == f32
    np.testing.assert_allclose(np.asarray(out), [8.0, 4.0, 4.0], rtol=1e-6)


def test_complex_atan2_is_atan_of_the_quotient():
    rng = np.random.default_rng(0)
    z = (rng.normal(size=6) + 1j * rng.normal(size=6)).astype(np.complex64)
    out = lax.atan2(z, np.full(6, 2 + 0j, np.complex64))  # NumPy has no complex arctan2
    np.testing.assert_allclose(np.asarray(out), np.arctan(z.astype(np.complex128) / 2), atol=1e-6)


def test_conj_of_a_real_array_is_complex_and_records_its_input_dtype():
    x = np.array([1.0, -2.0], f32)
    out = lax.conj(x)
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(np.asarray(out), x.astype(np.complex64))
    assert "conj[input_dtype=float32] a" in jaxpr_of(lax.conj, x)


# --- convert_element_type -------------------------------------------------------------------------


def test_convert_f32_to_i32_truncates_and_saturates():
    x = np.array([-2.7, -0.5, 0.5, 3.9, 1e10, -1e10, np.nan, np.inf, -np.inf], f32)
    out = lax.convert_element_type(x, np.int32)
    assert out.dtype == np.int32
    i32 = np.iinfo(np.int32)
    expected = [-2, 0, 0, 3, i32.max, i32.min, 0, i32.max, i32.min]  # NaN → 0
    np.testing.assert_array_equal(np.asarray(out), expected)
    to_u8 = lax.convert_element_type(x[:4], np.uint8)
    np.testing.assert_array_equal(np.asarray(to_u8), [0, 0, 0, 3])
    assert "b:i32[9] = convert_element_type[new_dtype=int32 weak_type=False] a" in jaxpr_of(
        lambda a: lax.convert_element_type(a, np.int32), x
    )


def test_convert_to_bool_is_not_equal_zero():
    x = np.array([0.0, -0.0, 0.5, -3.0, np.nan], f32)
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(x, bool)), [0, 0, 1, 1, 1])
    ints = np.array([0, 1, 2, 256, -1], np.int32)  # 2 and 256 have a zero low bit
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(ints, np.bool_)), ints != 0)
    assert "compare" in stablehlo_of(lambda a: lax.convert_element_type(a, bool), ints)


def test_convert_bfloat16_round_trip():
    x = np.array([1.0, 1.00390625, 1.005859375, 3.14159265, -1e30, 1e-30], f32)
    to_bf16 = lax.convert_element_type(x, bf16)
    assert to_bf16.dtype == bf16
    np.testing.assert_array_equal(np.asarray(to_bf16), x.astype(bf16))  # round to nearest even
    back = lax.convert_element_type(to_bf16, f32)
    np.testing.assert_array_equal(np.asarray(back), x.astype(bf16).astype(f32))
    again = lax.convert_element_type(back, bf16)  # bf16 → f32 → bf16 is exact
    bits = np.asarray(again).view(np.uint16)
    np.testing.assert_array_equal(bits, np.asarray(to_bf16).view(np.uint16))


def test_convert_complex_to_real_keeps_the_real_part_and_warns():
    z = np.array([1 + 2j, 0 + 3j], np.complex64)
    with pytest.warns(np.exceptions.ComplexWarning):
        out = lax.convert_element_type(z, f32)
    np.testing.assert_array_equal(np.asarray(out), [1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        as_bool = lax.convert_element_type(z, bool)  # JAX: real part != 0
    np.testing.assert_array_equal(np.asarray(as_bool), [True, False])


def test_convert_canonicalizes_and_skips_no_ops():
    x = np.ones(3, f32)
    assert jaxpr_of(lambda a: lax.convert_element_type(a, np.float64), x) == (
        "{ lambda ; a:f32[3]. let  in (a,) }"  # float64 is float32 with x64 off: no equation
    )
    assert lax.convert_element_type(x, np.int64).dtype == np.int32
    big = lax.convert_element_type(2**40, f32)  # a Python int beyond int32 is fine for a float
    assert big.dtype == f32 and float(np.asarray(big)) == 2.0**40


# --- bitcast_convert_type and reduce_precision ----------------------------------------------------


def test_bitcast_shapes_follow_the_bit_widths():
    x = np.array([1.0, -2.0, 0.5], f32)
    narrow = lax.bitcast_convert_type(x, np.uint8)
    assert narrow.shape == (3, 4) and narrow.dtype == np.uint8
    np.testing.assert_array_equal(np.asarray(narrow), x.view(np.uint8).reshape(3, 4))
    wide = lax.bitcast_convert_type(narrow, f32)
    assert wide.shape == (3,)
    np.testing.assert_array_equal(np.asarray(wide), x)
    same = lax.bitcast_convert_type(x, np.int32)
    assert same.shape == (3,)
    np.testing.assert_array_equal(np.asarray(same), x.view(np.int32))
    assert "bitcast_convert_type[new_dtype=uint8] a" in jaxpr_of(
        lambda a: lax.bitcast_convert_type(a, np.uint8), x
    )
    scalar = lax.bitcast_convert_type(np.uint16([0x3F80, 0x4000]), bf16)
    np.testing.assert_array_equal(np.asarray(scalar).astype(f32), [1.0, 2.0])


def test_bitcast_errors():
    with pytest.raises(ValueError, match=r"3 \* 8 != 32"):
        lax.bitcast_convert_type(np.zeros((2, 3), np.uint8), f32)
    with pytest.raises(TypeError, match="does not support bool or complex"):
        lax.bitcast_convert_type(np.zeros(4, np.bool_), np.uint8)
    with pytest.raises(TypeError, match="does not support bool or complex"):
        lax.bitcast_convert_type(np.zeros(2, np.complex64), np.float32)


def test_reduce_precision_rounds_to_the_narrower_format():
    x = np.array([1.0 + 2.0**-9, 3.14159265, 1e6], f32)
    out = lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7)
    assert out.dtype == f32
    np.testing.assert_array_equal(np.asarray(out), x.astype(bf16).astype(f32))
    assert "reduce_precision[exponent_bits=8 mantissa_bits=7] a" in jaxpr_of(
        lambda a: lax.reduce_precision(a, 8, 7), x
    )
    with pytest.raises(ValueError, match="exponent_bits must be positive"):
        lax.reduce_precision(x, 0, 7)
    with pytest.raises(ValueError, match="mantissa_bits must be non-negative"):
        lax.reduce_precision(x, 8, -1)
