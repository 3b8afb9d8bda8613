"""jnp elementwise functions against NumPy, eagerly and under jit, on drawn shapes/dtypes."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from tests.numpy._helpers import BF16, check
from tests.ops.op_db import array as _array
from tests.ops.op_db import shapes

F32 = np.float32


def array(shape, dtype, lo=-10.0, hi=10.0):
    """op_db's arrays without subnormals (XLA's CPU code flushes them to zero, as in JAX)."""

    def flush(a):
        if a.dtype.kind == "f" or a.dtype == BF16:
            a = np.where(np.abs(a.astype(np.float32)) < 1e-30, 0, a).astype(a.dtype)
        return a

    return _array(shape, dtype, lo, hi).map(flush)

# name, jnp fn, NumPy fn, input range, dtypes
UNARY_FLOAT = [
    ("exp", jnp.exp, np.exp, (-5, 5)), ("exp2", jnp.exp2, np.exp2, (-5, 5)),
    ("log", jnp.log, np.log, (0.125, 10)), ("log2", jnp.log2, np.log2, (0.125, 10)),
    ("log10", jnp.log10, np.log10, (0.125, 10)), ("log1p", jnp.log1p, np.log1p, (-0.5, 5)),
    ("expm1", jnp.expm1, np.expm1, (-3, 3)), ("sqrt", jnp.sqrt, np.sqrt, (0, 10)),
    ("cbrt", jnp.cbrt, np.cbrt, (-10, 10)), ("sin", jnp.sin, np.sin, (-5, 5)),
    ("cos", jnp.cos, np.cos, (-5, 5)), ("tan", jnp.tan, np.tan, (-1.25, 1.25)),
    ("arcsin", jnp.arcsin, np.arcsin, (-0.984375, 0.984375)),
    ("arccos", jnp.arccos, np.arccos, (-0.984375, 0.984375)),
    ("arctan", jnp.arctan, np.arctan, (-5, 5)), ("sinh", jnp.sinh, np.sinh, (-3, 3)),
    ("cosh", jnp.cosh, np.cosh, (-3, 3)), ("tanh", jnp.tanh, np.tanh, (-3, 3)),
    ("arcsinh", jnp.arcsinh, np.arcsinh, (-5, 5)), ("arccosh", jnp.arccosh, np.arccosh, (1, 5)),
    ("arctanh", jnp.arctanh, np.arctanh, (-0.875, 0.875)),
    ("reciprocal", jnp.reciprocal, np.reciprocal, (0.5, 5)),
    ("floor", jnp.floor, np.floor, (-5, 5)), ("ceil", jnp.ceil, np.ceil, (-5, 5)),
    ("round", jnp.round, np.round, (-5, 5)), ("trunc", jnp.trunc, np.trunc, (-5, 5)),
    ("negative", jnp.negative, np.negative, (-5, 5)), ("abs", jnp.abs, np.abs, (-5, 5)),
    ("sign", jnp.sign, np.sign, (-5, 5)), ("square", jnp.square, np.square, (-5, 5)),
    ("deg2rad", jnp.deg2rad, np.deg2rad, (-5, 5)),
]


@pytest.mark.parametrize("name,fn,ref,bounds", UNARY_FLOAT, ids=[u[0] for u in UNARY_FLOAT])
@given(data=st.data())
def test_unary_float(name, fn, ref, bounds, data):
    dtype = data.draw(st.sampled_from([np.float32, BF16]))
    x = data.draw(array(data.draw(shapes(max_dims=3)), dtype, *bounds))
    expected = ref(x.astype(np.float32))
    tol = None if dtype == np.float32 else (3e-2, 3e-2)
    if name in ("round", "floor", "ceil", "trunc", "sign", "negative", "abs"):
        tol = (0, 0)  # exact on representable values
        expected = ref(x)
    for got in (fn(x), minijax.jit(fn)(x)):
        check(got, expected, dtype, tol)


@pytest.mark.parametrize("fn,ref", [(jnp.sin, np.sin), (jnp.sqrt, np.sqrt), (jnp.exp, np.exp),
                                    (jnp.log1p, np.log1p)])
def test_unary_float_of_ints_is_float32(fn, ref):
    x = np.array([0, 1, 2, 3], np.int32)
    check(fn(x), ref(x).astype(np.float32), np.float32)
    check(fn(np.array([1, 2], np.uint8)), ref(np.array([1, 2])).astype(np.float32), np.float32)


BINARY = [
    ("add", jnp.add, np.add), ("subtract", jnp.subtract, np.subtract),
    ("multiply", jnp.multiply, np.multiply), ("maximum", jnp.maximum, np.maximum),
    ("minimum", jnp.minimum, np.minimum), ("floor_divide", jnp.floor_divide, np.floor_divide),
    ("remainder", jnp.remainder, np.remainder), ("fmod", jnp.fmod, np.fmod),
    ("equal", jnp.equal, np.equal), ("not_equal", jnp.not_equal, np.not_equal),
    ("less", jnp.less, np.less), ("less_equal", jnp.less_equal, np.less_equal),
    ("greater", jnp.greater, np.greater), ("greater_equal", jnp.greater_equal, np.greater_equal),
]


@pytest.mark.parametrize("name,fn,ref", BINARY, ids=[b[0] for b in BINARY])
@given(data=st.data())
def test_binary(name, fn, ref, data):
    dtype = data.draw(st.sampled_from([np.float32, np.int32, np.int8, np.uint8]))
    shape = data.draw(shapes(max_dims=3))
    x = data.draw(array(shape, dtype, -20, 20))
    y_shape = data.draw(st.sampled_from([shape, shape[1:], ()]))
    y = data.draw(array(y_shape, dtype, -20, 20))
    if name in ("floor_divide", "remainder", "fmod"):
        y = np.where(y == 0, np.array(3, dtype), y)  # NumPy warns and XLA differs at 0
    if name == "subtract" and np.dtype(dtype).kind == "u":
        x, y = np.maximum(x, y), np.minimum(x, y)
    with np.errstate(all="ignore"):
        expected = ref(x, y)
    for got in (fn(x, y), minijax.jit(fn)(x, y)):
        check(got, expected, expected.dtype)


def test_floor_divide_and_remainder_python_semantics():
    a = np.array([-7, -6, 7, 6, -1, 0], np.int32)
    b = np.array([2, -4, -2, 4, 3, -5], np.int32)
    check(jnp.floor_divide(a, b), a // b)
    check(jnp.remainder(a, b), a % b)
    check(jnp.array(a) // jnp.array(b), a // b)
    check(jnp.array(a) % 3, a % 3)
    af, bf = a.astype(F32) + 0.5, b.astype(F32)
    check(jnp.floor_divide(af, bf), af // bf)
    check(jnp.remainder(af, bf), af % bf)
    q, r = jnp.divmod(af, bf)
    check(q, af // bf), check(r, af % bf)


def test_power():
    x = np.array([1.5, -2.0, 3.0], F32)
    check(jnp.power(x, 3), x**3)
    check(jnp.power(x, -2), x**-2.0)
    with np.errstate(invalid="ignore"):
        check(jnp.array(x) ** 0.5, x ** F32(0.5))
    i = np.array([2, -3, 4], np.int32)
    check(jnp.power(i, 3), i**3)
    e = np.array([0, 3, 2], np.int32)
    check(jnp.power(i, e), i**e)
    assert "integer_pow[y=3]" in str(minijax.make_jaxpr(lambda v: v**3)(x))
    with pytest.raises(TypeError, match="negative powers"):
        jnp.power(i, -1)
    check(jnp.power(2, x), 2.0**x)
    check(jnp.power(x, x), x**x)


def test_power_int_arrays_under_jit():
    b = np.array([3, -2, 5, 0], np.int32)
    e = np.array([4, 3, 0, 2], np.int32)
    check(minijax.jit(jnp.power)(b, e), b**e)
    check(minijax.jit(jnp.power)(b.astype(np.uint8), e.astype(np.uint8)),
          (b.astype(np.uint8) ** e.astype(np.uint8)))


def test_round_half_to_even_and_decimals():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.234, 12.5], F32)
    check(jnp.round(x), np.round(x))
    check(jnp.around(x, 2), np.round(x, 2))
    with pytest.raises(NotImplementedError, match="integer np.round"):  # as JAX 0.10.2
        jnp.round(np.array([15, 25, -35], np.int32), -1)
    check(jnp.round(np.array([1, 2], np.int32)), np.array([1, 2], np.int32))


def test_clip_spellings():
    x = np.arange(-3, 4).astype(F32)
    check(jnp.clip(x, -1, 2), np.clip(x, -1, 2))
    check(jnp.clip(x, min=0), np.clip(x, 0, None))
    check(jnp.clip(x, max=1.5), np.clip(x, None, 1.5))
    check(jnp.clip(x, min=-2, max=0), np.clip(x, -2, 0))
    check(jnp.clip(np.arange(5, dtype=np.int32), 1, 3), np.clip(np.arange(5), 1, 3))
    assert jnp.clip(jnp.ones(2, jnp.bfloat16), 0, 0.5).dtype == BF16


def test_logical_and_bitwise():
    a = np.array([0, 1, 2, -3], np.int32)
    b = np.array([1, 1, 0, 5], np.int32)
    for fn, ref in ((jnp.logical_and, np.logical_and), (jnp.logical_or, np.logical_or),
                    (jnp.logical_xor, np.logical_xor), (jnp.bitwise_and, np.bitwise_and),
                    (jnp.bitwise_or, np.bitwise_or), (jnp.bitwise_xor, np.bitwise_xor)):
        check(fn(a, b), ref(a, b))
    check(jnp.logical_not(a), np.logical_not(a))
    check(jnp.bitwise_not(a), np.bitwise_not(a))
    check(jnp.invert(np.array([True, False])), np.invert(np.array([True, False])))
    check(jnp.left_shift(a, 2), np.left_shift(a, 2))
    check(jnp.right_shift(a, 1), np.right_shift(a, 1))
    u = np.array([255, 128, 7], np.uint8)
    check(jnp.right_shift(u, np.uint8(1)), np.right_shift(u, 1))
    with pytest.raises(TypeError):
        jnp.bitwise_and(np.ones(2, F32), np.ones(2, F32))


def test_classification():
    x = np.array([0.0, -0.0, 1.5, -np.inf, np.inf, np.nan], F32)
    for fn, ref in ((jnp.isfinite, np.isfinite), (jnp.isinf, np.isinf), (jnp.isnan, np.isnan),
                    (jnp.signbit, np.signbit)):
        check(fn(x), ref(x))
        check(fn(np.array([1, -2], np.int32)), ref(np.array([1, -2])))
    check(jnp.signbit(np.array([-1.0, 1.0], BF16)), np.array([True, False]))


def test_complex_parts():
    z = np.array([1 + 2j, -3 - 0.5j], np.complex64)
    check(jnp.real(z), z.real)
    check(jnp.imag(z), z.imag)
    check(jnp.conj(z), np.conj(z))
    x = np.array([1.0, 2.0], F32)
    check(jnp.real(x), x), check(jnp.imag(x), np.zeros(2, F32)), check(jnp.conjugate(x), x)


def test_logaddexp_stable():
    a = np.array([1000.0, -np.inf, 0.0, np.inf, -5.0], F32)
    b = np.array([1000.0, -np.inf, 1.0, np.inf, 3.0], F32)
    check(jnp.logaddexp(a, b), np.logaddexp(a, b))
    check(jnp.logaddexp2(a[2:], b[2:]), np.logaddexp2(a[2:], b[2:]))
    check(jnp.hypot(np.array([3.0, 0.0, 1e30], F32), np.array([4.0, 0.0, 1e30], F32)),
          np.hypot(np.array([3.0, 0.0, 1e30], F32), np.array([4.0, 0.0, 1e30], F32)))
    check(jnp.arctan2(a[2:], b[2:]), np.arctan2(a[2:], b[2:]))


def test_where_one_argument_is_nonzero():
    x = np.array([[0, 1], [2, 0]])
    got = jnp.where(x)
    for g, e in zip(got, np.nonzero(x)):
        check(g, e.astype(np.int32))
    with pytest.raises(minijax.errors.ConcretizationTypeError):
        minijax.jit(jnp.nonzero)(x)


def test_astype_and_bool_arithmetic():
    check(jnp.astype(np.array([1.7, -1.7], F32), jnp.int32), np.array([1, -1], np.int32))
    t = np.array([True, False, True])
    check(jnp.add(t, t), t + t)
    check(jnp.multiply(t, ~t), t * ~t)


def test_where_one_argument_with_size_under_jit():
    # jnp.where(c, size=...) and x.nonzero(size=...) take the traceable path (one nonzero).
    x = np.array([[0, 3, 0], [1, 0, 2]], np.int32)
    got = minijax.jit(lambda c: jnp.where(c > 0, size=5, fill_value=-1))(x)
    for g, e in zip(got, np.nonzero(x)):
        np.testing.assert_array_equal(np.asarray(g), np.concatenate([e, [-1, -1]]))
    got = minijax.jit(lambda c: c.nonzero(size=2))(jnp.asarray(x))
    for g, e in zip(got, np.nonzero(x)):
        np.testing.assert_array_equal(np.asarray(g), e[:2])
    got = minijax.jit(lambda c: jnp.nonzero(c, size=4, fill_value=(7, 8)))(x)
    np.testing.assert_array_equal(np.asarray(got[0]), [0, 1, 1, 7])
    np.testing.assert_array_equal(np.asarray(got[1]), [1, 0, 2, 8])
    got = minijax.vmap(lambda r: jnp.where(r, size=2, fill_value=-1)[0])(x)
    np.testing.assert_array_equal(np.asarray(got), [[1, -1], [0, 2]])
    with pytest.raises(minijax.errors.ConcretizationTypeError, match="size="):
        minijax.jit(lambda c: jnp.where(c))(x)


def test_logaddexp_complex_against_the_definition():
    """NumPy's ufunc has no complex loop; JAX's has: compare with log(exp(a) + exp(b)) in
    complex128 where that does not overflow, and with the shifted form where it would."""
    rng = np.random.default_rng(0)
    a = (rng.normal(size=8) * 3 + 1j * rng.normal(size=8)).astype(np.complex64)
    b = (rng.normal(size=8) * 3 + 1j * rng.normal(size=8)).astype(np.complex64)
    got = np.asarray(jnp.logaddexp(a, b))
    want = np.log(np.exp(a.astype(np.complex128)) + np.exp(b.astype(np.complex128)))
    # equal up to a multiple of 2*pi*i (the branch of log)
    diff = got - want
    np.testing.assert_allclose(diff.real, 0, atol=1e-5)
    np.testing.assert_allclose(np.remainder(diff.imag + np.pi, 2 * np.pi) - np.pi, 0, atol=1e-5)
    big = np.asarray(jnp.logaddexp(np.complex64(700 + 1j), np.complex64(699.5 - 2j)))
    np.testing.assert_allclose(big, (700 + 1j) + np.log1p(np.exp(-0.5 - 3j)), rtol=1e-6)
