"""Dtype promotion (JAX's lattice, weak types) and NumPy broadcasting in jnp binary ops."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minijax
import minijax.numpy as jnp
from tests.numpy._helpers import check

BF16 = np.dtype(ml_dtypes.bfloat16)

# (lhs dtype, rhs dtype, result dtype) from JAX's promotion table, x64 off.
TABLE = [
    ("int32", "float32", "float32"),
    ("uint8", "int8", "int16"),
    ("uint8", "uint16", "uint16"),
    ("int8", "int16", "int16"),
    ("uint16", "int16", "int32"),
    ("uint32", "int32", "int32"),  # int64, canonicalized to 32 bits
    ("bfloat16", "float32", "float32"),
    ("bfloat16", "float16", "float32"),
    ("float16", "int32", "float16"),
    ("bfloat16", "uint8", "bfloat16"),
    ("bool", "int8", "int8"),
    ("bool", "float16", "float16"),
    ("float32", "complex64", "complex64"),
]


@pytest.mark.parametrize("a,b,want", TABLE)
def test_promotion_table(a, b, want):
    x = jnp.ones(3, np.dtype(a) if a != "bfloat16" else BF16)
    y = jnp.ones(3, np.dtype(b) if b != "bfloat16" else BF16)
    want = BF16 if want == "bfloat16" else np.dtype(want)
    assert jnp.add(x, y).dtype == want
    assert (y + x).dtype == want
    assert jnp.result_type(x, y) == want
    assert minijax.jit(lambda u, v: u * v)(x, y).dtype == want


def test_python_scalars_are_weak():
    x = jnp.ones(3, jnp.bfloat16) * 2.0
    assert x.dtype == BF16 and not x.weak_type
    np.testing.assert_array_equal(np.asarray(x, np.float32), [2, 2, 2])
    y = jnp.ones(3, jnp.int32) + 1.5
    assert y.dtype == np.float32  # a weak float meets int32: float32 (weak, as JAX)
    np.testing.assert_array_equal(np.asarray(y), [2.5, 2.5, 2.5])
    assert (jnp.ones(3, jnp.int8) + 1).dtype == np.int8
    assert (jnp.ones(3, jnp.uint8) * 200).dtype == np.uint8
    # As JAX: a weak int must fit the default int type, then wraps into the array's dtype.
    np.testing.assert_array_equal(np.asarray(jnp.ones(3, jnp.uint8) + 300), [45, 45, 45])
    traced = minijax.jit(lambda a: a + 300)(jnp.ones(3, jnp.uint8))
    np.testing.assert_array_equal(np.asarray(traced), [45, 45, 45])
    with pytest.raises(OverflowError):
        jnp.ones(3, jnp.int8) * 2**40
    with pytest.raises(OverflowError):
        minijax.make_jaxpr(lambda a: a * 2**40)(jnp.ones(3, jnp.int8))
    assert (jnp.ones(3, jnp.float16) - 1).dtype == np.float16
    both_scalars = jnp.add(1, 2)
    assert both_scalars.dtype == np.int32 and both_scalars.weak_type
    assert jnp.multiply(2, 1.5).dtype == np.float32


def test_weak_literal_in_jaxpr():
    jaxpr = minijax.make_jaxpr(lambda x: x * 2.0)(np.ones(3, BF16))
    assert "mul a 2.0:bf16[]" in str(jaxpr)


def test_numpy_float64_is_canonicalized():
    out = jnp.add(np.ones(2), jnp.ones(2, jnp.float32))
    assert out.dtype == np.float32
    assert jnp.asarray(np.arange(3, dtype=np.int64)).dtype == np.int32


def test_true_divide_of_ints_is_float():
    check(jnp.true_divide(jnp.array([7, -7]), 2), np.array([3.5, -3.5], np.float32))
    check(jnp.array([1, 2], jnp.int8) / jnp.array([2, 4], jnp.int8), np.array([0.5, 0.5],
                                                                               np.float32))


def test_lists_are_refused():
    with pytest.raises(TypeError, match="add requires ndarray or scalar"):
        jnp.add([1, 2], jnp.ones(2))
    with pytest.raises(TypeError):
        jnp.ones(2) + [1, 2]


def test_incompatible_shapes_raise_value_error():
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        jnp.add(jnp.ones((2, 3)), jnp.ones((4,)))


@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4),
       st.sampled_from(["float32", "int32", "int8", "uint8", "bfloat16"]),
       st.sampled_from(["float32", "int16", "bool"]))
def test_broadcasting_matches_numpy(shapes, da, db):
    (sa, sb), out_shape = shapes
    da = BF16 if da == "bfloat16" else np.dtype(da)
    a = (np.arange(int(np.prod(sa))) % 7).reshape(sa).astype(da)
    b = (np.arange(int(np.prod(sb))) % 3).reshape(sb).astype(db)
    want_dtype = jnp.promote_types(da, db)
    for op, ref in ((jnp.add, np.add), (jnp.multiply, np.multiply), (jnp.maximum, np.maximum)):
        eager = op(jnp.asarray(a), jnp.asarray(b))
        jitted = minijax.jit(op)(a, b)
        expected = ref(a.astype(np.float32), b.astype(np.float32))
        if want_dtype == np.bool_:
            expected = expected.astype(bool)
        for got in (eager, jitted):
            assert got.shape == out_shape
            check(got, expected, want_dtype)


def test_where_promotes_and_broadcasts():
    cond = np.array([[True], [False]])
    out = jnp.where(cond, jnp.arange(3, dtype=jnp.int8), 1.5)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), np.where(cond, np.arange(3), 1.5))
    out = jnp.where(jnp.arange(4) > 1, jnp.ones(4, jnp.bfloat16), 0)
    assert out.dtype == BF16


def test_a_large_host_mask_is_broadcast_in_the_program_not_on_the_host():
    # Broadcast on the host, a (S, S) causal mask against (B, H, S, S) scores would be a
    # B*H times larger constant: under jit, an extra argument read on every call.
    mask = np.tril(np.ones((64, 64), bool))
    scores = np.arange(4 * 2 * 64 * 64, dtype=np.float32).reshape(4, 2, 64, 64)
    closed = minijax.make_jaxpr(lambda s: jnp.where(mask, s, -1e9))(scores)
    assert max(np.size(c) for c in closed.consts) == mask.size
    out = minijax.jit(lambda s: jnp.where(mask, s, -1e9))(scores)
    np.testing.assert_array_equal(np.asarray(out), np.where(mask, scores, np.float32(-1e9)))


# ------------------------------------------------------------------------------------------------
# Python ints that do not fit: what JAX 0.10 does, case by case (checked against JAX by hand).


@pytest.mark.parametrize("make", [
    lambda: jnp.array(2**40), lambda: jnp.asarray(2**31), lambda: jnp.array(2**64),
    lambda: jnp.zeros(3) + 2**40, lambda: jnp.arange(3) + 2**31,
    lambda: minijax.device_put(2**40), lambda: minijax.jit(lambda x: x)(2**40),
])
def test_python_int_must_fit_default_int(make):
    with pytest.raises(OverflowError, match=r"(2147483648|1099511627776|18446744073709551616)"
                                              r".*int32"):
        make()


@pytest.mark.parametrize("make", [lambda: jnp.array(1000, dtype=jnp.int8),
                                  lambda: jnp.int8(1000), lambda: jnp.uint8(-1)])
def test_python_int_out_of_bounds_for_explicit_dtype(make):
    with pytest.raises(OverflowError, match=r"(1000|-1).*u?int8"):
        make()


def test_weak_python_int_wraps_into_narrow_array_dtype():
    # JAX: the int must fit the default int; it then wraps into int8/uint8 (like C / NumPy's
    # modular arithmetic), and the result keeps the array's dtype.
    x = np.arange(3, dtype=np.int8)
    for make_out, ref in [(lambda: jnp.asarray(x) + 1000, x + np.int16(1000).astype(np.int8)),
                          (lambda: minijax.jit(lambda a: a * 1000)(x),
                           x * np.int16(1000).astype(np.int8)),
                          (lambda: jnp.asarray(x, jnp.uint8) + -1,
                           x.astype(np.uint8) + np.uint8(255)),
                          (lambda: jnp.full(3, 1000, jnp.int8), np.full(3, -24, np.int8))]:
        out = make_out()
        assert out.dtype == ref.dtype
        np.testing.assert_array_equal(np.asarray(out), ref)


def test_lax_refuses_a_python_int_of_another_dtype():
    # JAX 0.10.2: lax takes a Python int as int32 (the default int), whatever the array's dtype
    for value in (1000, 100):
        with pytest.raises(TypeError, match="lax.add requires arguments to have the same "
                                            "dtypes, got int8, int32"):
            minijax.lax.add(jnp.arange(3, dtype=jnp.int8), value)
    with pytest.raises(OverflowError, match="Python int 1099511627776 too large to convert to "
                                            "int32"):
        minijax.lax.add(jnp.arange(3, dtype=jnp.int32), 2**40)
    out = minijax.lax.add(jnp.arange(3, dtype=jnp.int32), 100)
    np.testing.assert_array_equal(np.asarray(out), np.arange(3, dtype=np.int32) + 100)


def test_python_int_range_under_x64():
    minijax.config.update("jax_enable_x64", True)
    try:
        assert int(jnp.array(2**40)) == 2**40 and jnp.array(2**40).dtype == np.int64
        assert int(jnp.full((), 2**40)) == 2**40
        with pytest.raises(OverflowError, match="9223372036854775808.*int64"):
            jnp.array(2**63)
    finally:
        minijax.config.update("jax_enable_x64", False)
