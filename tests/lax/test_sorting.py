"""sort, sort_key_val and top_k: stability, NaN order, multiple keys, params and errors."""

import ml_dtypes
import numpy as np
import pytest

import minijax
from minijax import lax

BF16 = ml_dtypes.bfloat16


def test_single_array_gives_an_array_and_a_sequence_a_tuple():
    x = np.array([3, 1, 2], np.int32)
    out = lax.sort(x)
    assert isinstance(out, minijax.Array)
    np.testing.assert_array_equal(np.asarray(out), [1, 2, 3])
    outs = lax.sort([x, x + 10])
    assert isinstance(outs, tuple) and len(outs) == 2
    np.testing.assert_array_equal(np.asarray(outs[1]), [11, 12, 13])


def test_stable_sort_keeps_equal_keys_in_input_order():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 5, 3000).astype(np.float32)
    values = np.arange(3000, dtype=np.int32)
    k, v = lax.sort_key_val(keys, values)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(np.asarray(k), keys[order])
    np.testing.assert_array_equal(np.asarray(v), order)


def test_nans_sort_last_and_signed_zeros_are_equal():
    x = np.array([np.nan, 1.0, 0.0, -np.nan, -np.inf, -0.0, np.inf, -1.0], np.float32)
    for dtype in (np.float32, BF16):
        k, v = lax.sort_key_val(x.astype(dtype), np.arange(8, dtype=np.int32))
        # -0.0 and 0.0 tie (stable: input order), NaNs of either sign tie after +inf.
        np.testing.assert_array_equal(np.asarray(v), [4, 7, 2, 5, 1, 6, 0, 3])
        k = np.asarray(k).astype(np.float32)
        assert np.isnan(k[-2:]).all() and not np.signbit(k[2]) and np.signbit(k[3])
    np.testing.assert_array_equal(np.asarray(lax.sort(x)), np.sort(x))


def test_multi_key_sort_matches_lexsort():
    rng = np.random.default_rng(1)
    k0 = rng.integers(0, 3, 200).astype(np.int32)
    k1 = rng.choice([0.5, -1.0, np.nan, 2.0], 200).astype(np.float32)
    v = rng.standard_normal(200).astype(np.float32)
    order = np.lexsort((k1, k0))
    out = minijax.jit(lambda a, b, c: lax.sort((a, b, c), num_keys=2))(k0, k1, v)
    for got, arr in zip(out, (k0, k1, v)):
        np.testing.assert_array_equal(np.asarray(got), arr[order])
    # with one key, the second operand is only carried along (stable in k0)
    out = lax.sort((k0, k1, v), num_keys=1)
    np.testing.assert_array_equal(np.asarray(out[2]), v[np.argsort(k0, kind="stable")])


def test_sort_along_other_dimensions():
    x = np.random.default_rng(2).standard_normal((3, 4, 5)).astype(np.float32)
    for d in (0, 1, -1, -3):
        np.testing.assert_array_equal(np.asarray(lax.sort(x, dimension=d)), np.sort(x, axis=d))


def test_unstable_sort_still_sorts():
    x = np.random.default_rng(3).integers(0, 4, 100).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(lax.sort(x, is_stable=False)), np.sort(x))


def test_complex_and_bool_sort():
    c = np.array([1 + 2j, 1 + 1j, -3 + 5j, 1 - 1j], np.complex64)
    np.testing.assert_array_equal(np.asarray(lax.sort(c)), np.sort(c))
    b = np.array([True, False, True, False])
    np.testing.assert_array_equal(np.asarray(lax.sort(b)), np.sort(b))


def test_sort_params_print_as_jax():
    x = np.zeros((2, 3), np.float32)
    jaxpr = minijax.make_jaxpr(lambda a, b: lax.sort((a, b), dimension=0, num_keys=2))(x, x)
    assert "c:f32[2,3] d:f32[2,3] = sort[dimension=0 is_stable=True num_keys=2] a b" in str(jaxpr)
    jaxpr = minijax.make_jaxpr(lambda a: lax.sort(a))(x)
    assert "sort[dimension=1 is_stable=True num_keys=1]" in str(jaxpr)


def _text(e):
    """An error's message (JAX's) and the notes minijax adds to it (the user's line)."""
    return "\n".join([str(e), *getattr(e, "__notes__", ())])


def test_sort_errors():
    x = np.zeros(3, np.float32)
    with pytest.raises(TypeError) as e:
        lax.sort((x, np.zeros(4, np.int32)))  # mismatched shapes
    assert "sort requires all operands to have the same shape" in str(e.value)
    assert "f32[3]" in str(e.value) and "i32[4]" in str(e.value) and __file__ in _text(e.value)
    with pytest.raises(ValueError, match="num_keys=3 must be between 1 and 2"):
        lax.sort((x, x), num_keys=3)
    with pytest.raises(ValueError, match="num_keys=2 must equal 1"):
        lax.sort(x, num_keys=2)
    with pytest.raises(ValueError, match="out of bounds"):
        lax.sort(x, dimension=1)
    with pytest.raises(TypeError, match="at least one operand"):
        lax.sort(())


# --- top_k ---------------------------------------------------------------------------------------


def test_top_k_values_indices_and_ties():
    x = np.array([9.0, 3.0, 9.0, 4.0, 10.0, 3.0], np.float32)
    values, indices = lax.top_k(x, 4)
    np.testing.assert_array_equal(np.asarray(values), [10, 9, 9, 4])
    np.testing.assert_array_equal(np.asarray(indices), [4, 0, 2, 3])
    assert indices.dtype == np.int32


def test_top_k_nan_counts_as_largest():
    x = np.array([1.0, np.nan, np.inf, 2.0], np.float32)
    values, indices = lax.top_k(x, 2)
    np.testing.assert_array_equal(np.asarray(indices), [1, 2])


def test_top_k_along_an_axis_under_jit():
    x = np.random.default_rng(4).standard_normal((5, 3, 2)).astype(np.float32)
    values, indices = minijax.jit(lambda a: lax.top_k(a, 2, axis=0))(x)
    order = np.argsort(-x, axis=0, kind="stable")[:2]
    np.testing.assert_array_equal(np.asarray(indices), order)
    np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(x, order, axis=0))


def test_top_k_params_and_errors():
    x = np.zeros((2, 3), np.float32)
    jaxpr = minijax.make_jaxpr(lambda a: lax.top_k(a, 2))(x)
    assert "b:f32[2,2] c:i32[2,2] = top_k[axis=1 k=2] a" in str(jaxpr)
    with pytest.raises(ValueError, match="no larger than the size along axis 1"):
        lax.top_k(x, 4)
    with pytest.raises(ValueError, match="must be nonnegative"):
        lax.top_k(x, -1)
    with pytest.raises(ValueError, match="top_k is not compatible with complex inputs"):  # JAX
        lax.top_k(np.zeros(3, np.complex64), 1)
