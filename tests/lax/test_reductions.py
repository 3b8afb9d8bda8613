"""reduce_*, argmax/argmin and cumulative ops: params, errors, identities, ties and NaNs.

Random shapes and dtypes against NumPy live in the op table (op_entries_reductions.py); these
tests pin down behaviour that random data rarely hits.
"""

import re

import ml_dtypes
import numpy as np
import pytest

import minijax
from minijax import lax

BF16 = ml_dtypes.bfloat16


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


# --- reduce_* ------------------------------------------------------------------------------------


def test_reduce_sum_prints_axes_as_jax_does():
    jaxpr = minijax.make_jaxpr(lambda x: lax.reduce_sum(x, (0,)))(f32(3, 4))
    assert "b:f32[4] = reduce_sum[axes=(0,) out_sharding=None] a" in str(jaxpr)


def test_axes_bind_as_given():
    # JAX 0.10.2 binds tuple(axes) unsorted; a negative axis is out of bounds (only jnp
    # normalizes it)
    jaxpr = minijax.make_jaxpr(lambda x: lax.reduce_max(x, (2, 0)))(f32(2, 3, 4))
    assert "reduce_max[axes=(2, 0)]" in str(jaxpr)
    np.testing.assert_array_equal(np.asarray(lax.reduce_max(f32(2, 3, 4), (2, 0))),
                                  f32(2, 3, 4).max(axis=(0, 2)))
    with pytest.raises(ValueError, match=re.escape(
            "reduction axes (-1, 0) contains out-of-bounds indices for float32[2,3,4].")):
        lax.reduce_max(f32(2, 3, 4), (-1, 0))


def _text(e):
    """An error's message (JAX's) and the notes minijax adds to it (the user's line)."""
    return "\n".join([str(e), *getattr(e, "__notes__", ())])


def test_out_of_range_axis_names_primitive_shape_and_line():
    with pytest.raises(ValueError) as e:
        minijax.jit(lambda x: lax.reduce_sum(x, (2,)))(f32(3, 4))  # the bad reduction
    msg = _text(e.value)
    assert "reduction axes (2,)" in msg and "float32[3,4]" in msg
    assert f"{__file__}:" in msg and "the bad reduction" in msg


def test_duplicate_axes_raise():
    msg = "duplicate value in 'axes' of reduction: (1, 1)"
    with pytest.raises(ValueError, match=re.escape(msg)):
        lax.reduce_min(f32(3, 4), (1, 1))


@pytest.mark.parametrize("fn, x, msg", [
    (lax.reduce_sum, np.zeros(3, np.bool_),
     "reduce_sum does not accept dtype bool. Accepted dtypes are subtypes of number."),
    (lax.reduce_and, np.zeros(3, np.float32),
     "logical reduction requires operand dtype bool or int, got float32."),
    (lax.reduce_xor, np.zeros(3, BF16),
     "logical reduction requires operand dtype bool or int, got bfloat16."),
])
def test_dtype_not_accepted(fn, x, msg):
    with pytest.raises(TypeError, match=re.escape(msg)):
        fn(x, (0,))


def test_empty_reductions_give_the_identity():
    x = np.zeros((0, 2), np.float32)
    i = np.zeros((0, 2), np.int32)
    u = np.zeros((0, 2), np.uint8)
    cases = [
        (lax.reduce_sum(x, (0,)), [0.0, 0.0]),
        (lax.reduce_prod(x, (0,)), [1.0, 1.0]),
        (lax.reduce_max(x, (0,)), [-np.inf, -np.inf]),
        (lax.reduce_min(x, (0,)), [np.inf, np.inf]),
        (lax.reduce_max(i, (0,)), [np.iinfo(np.int32).min] * 2),
        (lax.reduce_min(u, (0,)), [255, 255]),
        (lax.reduce_and(u, (0,)), [255, 255]),
        (lax.reduce_and(i, (0,)), [-1, -1]),
        (lax.reduce_or(i, (0,)), [0, 0]),
        (lax.reduce_and(np.zeros((0,), bool), (0,)), True),
        (lax.reduce_or(np.zeros((0,), bool), (0,)), False),
    ]
    for got, want in cases:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_reduce_max_and_min_propagate_nan_like_numpy():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -np.inf]], np.float32)
    for fn, ref in ((lax.reduce_max, np.max), (lax.reduce_min, np.min)):
        for axes in [(0,), (1,), (0, 1)]:
            np.testing.assert_array_equal(np.asarray(fn(x, axes)), ref(x, axis=axes))


def test_reduce_keeps_weak_type_and_argmax_drops_it():
    out = minijax.make_jaxpr(lambda x: lax.reduce_sum(x, ()))(2.0).jaxpr.outvars[0].aval
    assert out.dtype == np.float32 and out.weak_type
    out = minijax.make_jaxpr(lambda x: lax.reduce_max(x, (0,)))(f32(3)).jaxpr.outvars[0].aval
    assert not out.weak_type


def test_reduce_sum_of_large_bf16_is_accurate_relative_to_magnitude():
    x = np.random.default_rng(0).uniform(-1, 1, 4096).astype(BF16)
    got = float(np.asarray(lax.reduce_sum(x, (0,))).astype(np.float64))
    want = float(x.astype(np.float64).sum())
    magnitude = float(np.abs(x.astype(np.float64)).sum())
    # Within a bf16 rounding of the exact sum plus a small share of the magnitude.
    assert abs(got - want) <= 2**-8 * abs(want) + 1e-3 * magnitude


# --- argmax / argmin ---------------------------------------------------------------------------


def test_argmax_ties_pick_the_first_occurrence():
    x = np.array([1, 3, 2, 3, 3], np.int32)
    assert int(lax.argmax(x, 0, np.int32)) == 1
    assert int(lax.argmin(np.array([2, 0, 0, 1], np.uint8), 0, np.int32)) == 1


def test_argmax_nan_wins_and_first_nan_is_returned():
    x = np.array([1.0, np.inf, np.nan, 5.0, np.nan], np.float32)
    for dtype in (np.float32, BF16):
        xd = x.astype(dtype)
        assert int(lax.argmax(xd, 0, np.int32)) == np.argmax(x) == 2
        assert int(lax.argmin(xd, 0, np.int32)) == np.argmin(x) == 2
        assert int(minijax.jit(lambda v: lax.argmax(v, 0, np.int32))(xd)) == 2


def test_argmax_when_every_value_equals_the_identity():
    assert int(lax.argmax(np.full(4, -np.inf, np.float32), 0, np.int32)) == 0
    assert int(lax.argmin(np.full(4, np.inf, np.float32), 0, np.int32)) == 0
    assert int(lax.argmax(np.full(3, np.iinfo(np.int32).min, np.int32), 0, np.int32)) == 0
    assert int(lax.argmax(np.zeros(3, bool), 0, np.int32)) == 0


def test_argmax_large_array_with_ties_and_nans_matches_numpy():
    # Large enough that XLA splits the reduction: the answer must not depend on its order.
    rng = np.random.default_rng(1)
    x = rng.integers(0, 4, size=(7, 5000)).astype(np.float32)
    x[3, [4000, 17, 2500]] = np.nan
    for axis in (0, 1):
        for fn, ref in ((lax.argmax, np.argmax), (lax.argmin, np.argmin)):
            np.testing.assert_array_equal(np.asarray(fn(x, axis, np.int32)), ref(x, axis=axis))


def test_argmax_params_and_dtype():
    jaxpr = minijax.make_jaxpr(lambda x: lax.argmax(x, 1, np.int32))(f32(2, 3))
    assert "b:i32[2] = argmax[axes=(1,) index_dtype=int32] a" in str(jaxpr)
    out = lax.argmin(f32(2, 3), 0, np.uint8)
    assert out.dtype == np.uint8 and out.shape == (3,)


def test_argmax_errors():
    # JAX 0.10.2's messages (lax.argmax keeps a negative axis; jnp.argmax normalizes it)
    with pytest.raises(TypeError, match="^index_dtype must be an integer type, but got float32"):
        lax.argmax(f32(3), 0, np.float32)
    with pytest.raises(ValueError, match=re.escape(
            "argmin and argmax require non-empty reduced dimension. operand.shape=(2, 0) axis=1")):
        lax.argmin(np.zeros((2, 0), np.float32), 1, np.int32)
    with pytest.raises(ValueError, match=re.escape("Invalid axis 1 for operand shape (3,)")):
        lax.argmax(f32(3), 1, np.int32)


# --- cumulative ops ----------------------------------------------------------------------------


def test_cumulative_params_print_as_jax():
    jaxpr = minijax.make_jaxpr(lambda x: lax.cumsum(x, axis=1, reverse=True))(f32(2, 3))
    assert "cumsum[axis=1 reverse=True]" in str(jaxpr)


@pytest.mark.parametrize("reverse", [False, True])
def test_long_cumulative_ops_match_numpy(reverse):
    # n = 3000: XLA rewrites the size-n reduce_window into a scan; check it is still right.
    x = np.random.default_rng(2).uniform(-1, 1, (2, 3000)).astype(np.float32)
    flip = (lambda a: a[:, ::-1]) if reverse else (lambda a: a)
    cases = [
        (lax.cumsum, np.cumsum, 1e-4),
        (lax.cummax, np.maximum.accumulate, 0),
        (lax.cummin, np.minimum.accumulate, 0),
        (lax.cumlogsumexp, np.logaddexp.accumulate, 1e-5),
    ]
    for fn, ref, tol in cases:
        want = flip(ref(flip(x).astype(np.float64), axis=1))
        got = np.asarray(fn(x, axis=1, reverse=reverse))
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 100, err_msg=fn.__name__)


def test_cumlogsumexp_handles_infinities_and_nan():
    x = np.array([-np.inf, -np.inf, 0.0, np.inf, 1.0], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.cumlogsumexp(x)), [-np.inf, -np.inf, 0, np.inf,
                                                                    np.inf])
    y = np.array([0.0, np.nan, 1.0], np.float32)
    assert np.isnan(np.asarray(lax.cumlogsumexp(y))[1:]).all()


def test_cumulative_errors():
    # JAX 0.10.2's words
    with pytest.raises(ValueError, match=r"axis 2 is out of bounds for array of shape \(2, 3\)"):
        lax.cumsum(f32(2, 3), axis=2)
    with pytest.raises(ValueError, match="XLA operations do not allow negative axes"):
        lax.cummax(f32(2, 3), axis=-1)
    # JAX 0.10.2 checks only "number" here and fails lowering the -inf identity for ints
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        lax.cumlogsumexp(np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="cumprod does not accept dtype bool"):
        lax.cumprod(np.ones(3, bool))
