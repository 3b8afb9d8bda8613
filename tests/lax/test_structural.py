"""Structural primitives: jaxpr params, errors, dynamic-slice clamping, padding, iota, full.

Random shapes and dtypes against NumPy live in the op table (op_entries_structural.py); these
tests pin down params as printed in jaxprs, error messages, and edge cases random data rarely
hits.
"""

import ml_dtypes
import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.errors import ConcretizationTypeError

BF16 = np.dtype(ml_dtypes.bfloat16)


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def jaxpr_of(fn, *args):
    return str(minijax.make_jaxpr(fn)(*args))


def run_both(fn, *args):
    """``fn`` eagerly and under jit, as NumPy arrays; the two must agree exactly."""
    eager = np.asarray(fn(*args))
    jitted = np.asarray(minijax.jit(fn)(*args))
    np.testing.assert_array_equal(eager, jitted)
    assert eager.dtype == jitted.dtype
    return eager


# --- jaxpr params, printed as JAX prints them ----------------------------------------------------


@pytest.mark.parametrize("fn, args, expected", [
    (lambda x: lax.reshape(x, (6,)), (f32(2, 3),),
     "b:f32[6] = reshape[dimensions=None new_sizes=(6,) sharding=None] a"),
    (lambda x: lax.reshape(x, (3, 2), (1, 0)), (f32(2, 3),),
     "reshape[dimensions=(1, 0) new_sizes=(3, 2) sharding=None] a"),
    (lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), (f32(3),),
     "b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a"),
    (lambda x: lax.broadcast(x, (4,)), (f32(3),),
     "broadcast_in_dim[broadcast_dimensions=(1,)] a"),
    (lambda x: lax.expand_dims(x, (0,)), (f32(3),),
     "b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a"),
    (lambda x: lax.squeeze(x, (-1,)), (f32(3, 1),), "b:f32[3] = squeeze[dimensions=(1,)] a"),
    (lambda x: lax.transpose(x, (1, 0)), (f32(2, 3),),
     "b:f32[3,2] = transpose[permutation=(1, 0)] a"),
    (lambda x: lax.rev(x, (0,)), (f32(2, 3),), "b:f32[2,3] = rev[dimensions=(0,)] a"),
    (lambda x: lax.pad(x, 0.0, [(1, -1, 2)]), (f32(3),),
     "b:f32[7] = pad[padding_config=((1, -1, 2),)] a 0.0:f32[]"),
    (lambda x: lax.concatenate([x, x], 0), (f32(2),), "b:f32[4] = concatenate[dimension=0] a a"),
    (lambda x: lax.slice(x, (1,), (3,)), (f32(4),),
     "b:f32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=None] a"),
    (lambda x: lax.slice_in_dim(x, 0, 4, 2), (f32(4),),
     "b:f32[2] = slice[limit_indices=(4,) start_indices=(0,) strides=(2,)] a"),
    (lambda x: lax.dynamic_slice(x, (1,), (2,)), (f32(4),),
     "b:f32[2] = dynamic_slice[slice_sizes=(2,)] a 1:i32[]"),
    (lambda x: lax.dynamic_update_slice(x, x[:2], (-1,)), (f32(4),),
     "dynamic_update_slice a b 3:i32[]"),
    (lambda: lax.iota(np.int32, 5), (),
     "a:i32[5] = iota[dimension=0 dtype=int32 shape=(5,) sharding=None]"),
    (lambda: lax.broadcasted_iota(np.float32, (2, 3), 1), (),
     "a:f32[2,3] = iota[dimension=1 dtype=float32 shape=(2, 3) sharding=None]"),
    (lambda: lax.full((2, 3), 1.0), (),
     "a:f32[2,3] = broadcast_in_dim 1.0:f32[]"),
])
def test_jaxpr_params_match_jax(fn, args, expected):
    assert expected in jaxpr_of(fn, *args)


def test_numpy_ints_in_static_params_become_python_ints():
    shape = np.array([3, 2])
    text = jaxpr_of(lambda x: lax.reshape(x, shape), f32(2, 3))
    assert "new_sizes=(3, 2)" in text
    out = lax.reshape(f32(2, 3), (np.int64(3), np.int32(2)))
    np.testing.assert_array_equal(np.asarray(out), f32(2, 3).reshape(3, 2))


@pytest.mark.parametrize("fn", [
    lambda x: lax.reshape(x, (2, 3)),
    lambda x: lax.reshape(x, (2, 3), (0, 1)),
    lambda x: lax.transpose(x, (0, 1)),
    lambda x: lax.squeeze(x, ()),
    lambda x: lax.broadcast(x, ()),
    lambda x: lax.concatenate([x], 1),
])
def test_identity_wrappers_add_no_equation(fn):
    jaxpr = minijax.make_jaxpr(fn)(f32(2, 3))
    assert jaxpr.eqns == []


def test_traced_index_is_wrapped_with_select_n():
    text = jaxpr_of(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), f32(5), np.int32(0))
    assert "lt b 0:i32[]" in text and "add b 5:i32[]" in text and "select_n" in text


def test_unsigned_traced_index_is_not_wrapped():
    text = jaxpr_of(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), f32(5), np.uint8(0))
    assert "select_n" not in text and "dynamic_slice[slice_sizes=(2,)] a b" in text


# --- errors: the primitive, the shapes/params and the user's line ---------------------------------


def _raises(exc, fn, *args, jit=False):
    """The error message of ``fn(*args)`` (eager, or staged under jit) and its notes (the
    user's line: the message itself is JAX's)."""
    with pytest.raises(exc) as e:
        (minijax.jit(fn) if jit else fn)(*args)
    return "\n".join([str(e.value), *getattr(e.value, "__notes__", ())])


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("exc, fn, arg, needles", [
    (TypeError, lambda x: lax.reshape(x, (4, 2)), f32(2, 3),
     ["reshape total size must be unchanged, got f32[2,3] -> (4, 2)"]),
    (TypeError, lambda x: lax.reshape(x, (-1,)), f32(2, 3), ["reshape", "-1", "f32[2,3]"]),
    (TypeError, lambda x: lax.reshape(x, (6,), (0, 0)), f32(2, 3),
     ["reshape dimensions must be a permutation", "(0, 0)", "f32[2,3]"]),
    # broadcast_in_dim: JAX 0.10.2's words and order of checks (unsorted dimensions transpose;
    # a broadcast to the operand's own shape is checked, then forwarded)
    (TypeError, lambda x: lax.broadcast_in_dim(x, (3, 2), (1,)), f32(3),
     ["broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
      "corresponding dimensions in the target broadcast shape; got operand of shape (3,), "
      "target broadcast shape (3, 2), broadcast_dimensions (1,) "]),
    (TypeError, lambda x: lax.broadcast_in_dim(x, (2, 3), (1, 1)), f32(1, 1),
     ["broadcast_in_dim broadcast_dimensions must not contain duplicates, got "
      "broadcast_dimensions (1, 1)"]),
    (TypeError, lambda x: lax.broadcast_in_dim(x, (3, 3), (0, 0)), f32(3, 3),
     ["broadcast_in_dim broadcast_dimensions must not contain duplicates"]),
    (TypeError, lambda x: lax.broadcast_in_dim(x, (2, 3), ()), f32(3),
     ["broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
      "broadcast_dimensions () for operand ndim 1."]),
    (TypeError, lambda x: lax.broadcast_in_dim(x, (2, 3), (2,)), f32(3),
     ["broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got (2,) "
      "for operand ndim 1 and shape (2, 3)."]),
    (TypeError, lambda x: lax.broadcast_in_dim(x, (3,), (0, 1)), f32(2, 3),
     ["broadcast_in_dim target broadcast shape must have equal or higher rank to the operand "
      "shape; got operand ndim 2 and target broadcast ndim 1."]),
    (TypeError, lambda x: lax.broadcast_in_dim(x, (-3,), (0,)), f32(3),
     ["broadcast_in_dim shape must have every element be nonnegative", "(-3,)"]),
    # squeeze, transpose and rev: JAX 0.10.2's words
    (ValueError, lambda x: lax.squeeze(x, (1,)), f32(2, 3),
     ["cannot select an axis to squeeze out which has size not equal to one, got "
      "shape=(2, 3) and dimensions=(1,)"]),
    (ValueError, lambda x: lax.squeeze(x, (1, 1)), f32(2, 1),
     ["dimensions are not unique: (1, 1)"]),
    (TypeError, lambda x: lax.transpose(x, (0, 0)), f32(2, 3),
     ["transpose permutation isn't a permutation of operand dimensions, got permutation "
      "(0, 0) for operand shape (2, 3)."]),
    (TypeError, lambda x: lax.rev(x, (2,)), f32(2, 3),
     ["rev dimensions must all be less than operand ndim, got dimensions (2,) for operand "
      "ndim 2."]),
    # slice and the dynamic slices in JAX 0.10.2's words (FINDINGS 282's leftover)
    (TypeError, lambda x: lax.slice(x, (0, 0), (2, 4)), f32(2, 3),
     ["slice limit_indices must be less than or equal to operand shape, got limit_indices "
      "(2, 4) for operand shape (2, 3)."]),
    (TypeError, lambda x: lax.slice(x, (-1,), (2,)), f32(3),
     ["slice start_indices must have every element be nonnegative, got (-1,)."]),
    (TypeError, lambda x: lax.slice(x, (2,), (1,)), f32(3),
     ["slice limit_indices must be greater than or equal to start_indices, got start_indices "
      "(2,) and limit_indices (1,)."]),
    (TypeError, lambda x: lax.slice(x, (0,), (3,)), f32(3, 2),
     ["slice start_indices must have length equal to the number of dimensions of the operand, "
      "got indices (0,) for operand shape (3, 2)."]),
    (TypeError, lambda x: lax.concatenate([x, x[0]], 0), f32(2, 3),
     ["Cannot concatenate arrays with different numbers of dimensions", "f32[2,3], f32[3]"]),
    (TypeError, lambda x: lax.concatenate([x, x[:, :2]], 0), f32(2, 3),
     ["Cannot concatenate arrays with shapes that differ", "dimension 0", "f32[2,3], f32[2,2]"]),
    (TypeError, lambda x: lax.concatenate([x, x], 2), f32(2, 3),
     ["concatenate dimension out of bounds", "dimension 2", "f32[2,3]"]),
    (TypeError, lambda x: lax.concatenate([x, x.astype(np.int32)], 0), f32(2),
     ["lax.concatenate requires arguments to have the same dtypes, got float32, int32."]),
    (ValueError, lambda x: lax.pad(x, 0.0, [(-2, -2, 0)]), f32(3),
     ["pad: dimension size after padding is not at least 0", "f32[3]"]),
    (ValueError, lambda x: lax.pad(x, 0.0, [(0, 0, -1)]), f32(3),
     ["pad: interior padding in padding_config must be nonnegative", "f32[3]"]),
    (ValueError, lambda x: lax.pad(x, 0.0, [(0, 0, 0)]), f32(2, 3),
     ["pad: length of padding_config must equal the number of axes", "f32[2,3]"]),
    (TypeError, lambda x: lax.pad(x, np.int32(0), [(1, 1, 0)]), f32(3),
     ["pad operand and padding_value must be same dtype: got float32 and int32."]),
    (TypeError, lambda x: lax.dynamic_slice(x, (0, 0), (3, 1)), f32(2, 3),
     ["slice slice_sizes must be less than or equal to operand shape, got slice_sizes (3, 1) "
      "for operand shape (2, 3)."]),
    (TypeError, lambda x: lax.dynamic_update_slice(x, x.T, (0, 0)), f32(2, 3),
     ["dynamic_update_slice update shape must be smaller than operand shape, got update shape "
      "(3, 2) for operand shape (2, 3)."]),
    (TypeError, lambda x: lax.dynamic_update_slice(x, x[0], (0, 0)), f32(2, 3),
     ["dynamic_update_slice update must have the same rank as operand, got update shape (3,) "
      "for operand shape (2, 3)."]),
    (ValueError, lambda x: lax.dynamic_slice(x, (0,), (1,)), f32(2, 3),
     ["Length of slice indices must match number of operand dimensions (1 vs (2, 3))"]),
    (TypeError, lambda x: lax.dynamic_slice(x, (0.5,), (1,)), f32(3),
     ["index arguments to dynamic_slice must be integers of the same type, got: float32"]),
])
def test_errors_name_primitive_shapes_and_user_line(jit, exc, fn, arg, needles):
    msg = _raises(exc, fn, arg, jit=jit)
    for needle in needles:
        assert needle in msg, f"{needle!r} not in {msg!r}"
    assert f"{__file__}:" in msg, msg  # the user's line (the lambda above) is named


def test_slice_zero_stride_is_jax_zero_division():
    # JAX 0.10.2's shape rule divides by the stride (core.stride_dim): Python's error
    for jit in (False, True):
        assert _raises(ZeroDivisionError, lambda x: lax.slice(x, (0,), (3,), (0,)), f32(3),
                       jit=jit).startswith("integer division or modulo by zero")


def test_error_points_at_the_offending_line():
    bad = lambda x: lax.reshape(x, (4, 2))  # the offending line
    msg = _raises(TypeError, bad, f32(2, 3), jit=True)
    assert "the offending line" in msg


def test_expand_dims_repeated_axis():
    with pytest.raises(ValueError, match="repeated axis in lax.expand_dims"):
        lax.expand_dims(f32(3), (0, 0))
    with pytest.raises(ValueError, match="repeated axis in lax.expand_dims: \\[0, 0\\]"):
        lax.expand_dims(f32(3), (0, -3))  # both name axis 0 of the rank-3 result


def test_static_params_must_be_concrete_integers():
    with pytest.raises(ConcretizationTypeError):
        minijax.jit(lambda x: lax.reshape(x, (x.shape[0], x[0, 0])))(f32(2, 3))
    with pytest.raises(TypeError, match="reshape new_sizes must be a 1D sequence of concrete"):
        lax.reshape(f32(2, 3), (6.0,))
    with pytest.raises(TypeError, match="broadcast_in_dim shape must be a 1D sequence"):
        lax.broadcast_in_dim(f32(3), 3, (0,))


def test_full_requires_scalar_fill():
    with pytest.raises(TypeError, match="full must be called with scalar fill_value"):
        lax.full((2,), np.zeros(2))


# --- dynamic_slice / dynamic_update_slice: negative indices wrap, then XLA clamps ----------------


@pytest.mark.parametrize("start, expected", [
    (0, [0, 1]), (3, [3, 4]),
    (4, [3, 4]), (100, [3, 4]),  # clamped so the slice stays in bounds
    (-1, [3, 4]), (-2, [3, 4]), (-5, [0, 1]),  # wrapped once: -2 -> 3
    (-6, [0, 1]), (-100, [0, 1]),  # wrapped, still negative: clamped to 0
])
def test_dynamic_slice_wraps_then_clamps(start, expected):
    x = f32(5)
    np.testing.assert_array_equal(run_both(lambda x: lax.dynamic_slice(x, (start,), (2,)), x),
                                  expected)
    traced = minijax.jit(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(x, np.int32(start))
    np.testing.assert_array_equal(np.asarray(traced), expected)


def test_dynamic_update_slice_clamps():
    x = np.zeros((3, 4), np.int32)
    u = np.ones((2, 2), np.int32)
    out = run_both(lambda x, u: lax.dynamic_update_slice(x, u, (5, -1)), x, u)
    expected = x.copy()
    expected[1:3, 2:4] = 1  # row 5 clamps to 1; column -1 wraps to 3, clamps to 2
    np.testing.assert_array_equal(out, expected)


def test_dynamic_slice_indices_of_mixed_dtypes_are_refused():
    # JAX 0.10.2 keeps each start's dtype (a Python int the default int) and its dtype rule
    # refuses a mix, in these words ("got: " for dynamic_slice, "got " for the update)
    x = f32(4, 5)
    for fn, args, got in [
            (lambda x, i: lax.dynamic_slice(x, (i, 2), (2, 2)), (np.int8(1),), "got: int8, int32"),
            (lambda x, i: lax.dynamic_slice(x, (i, -100), (1, 2)), (np.uint8(1),),
             "got: uint8, int32"),
            (lambda x, i: lax.dynamic_update_slice(x, x[:1], (i, 0)), (np.int16(1),),
             "got int16, int32")]:
        for run in (fn, minijax.jit(fn)):
            with pytest.raises(TypeError, match=f"must be integers of the same type, {got}"):
                run(x, *args)
    # one dtype throughout (Python ints beside an int32 index) is fine
    out = minijax.jit(lambda x, i: lax.dynamic_slice(x, (i, -1), (1, 1)))(x, np.int32(1))
    np.testing.assert_array_equal(np.asarray(out), x[1:2, 4:5])


def test_narrow_index_widens_when_a_dimension_does_not_fit():
    x = np.arange(400, dtype=np.int32)
    fn = lambda x, i: lax.dynamic_slice(x, (i,), (2,))
    assert "add c 400:i32[]" in jaxpr_of(fn, x, np.int8(-100))
    np.testing.assert_array_equal(np.asarray(minijax.jit(fn)(x, np.int8(-100))), [300, 301])


def test_dynamic_index_and_update_in_dim():
    x = f32(3, 4)
    np.testing.assert_array_equal(
        run_both(lambda x: lax.dynamic_index_in_dim(x, -1, axis=1, keepdims=False), x), x[:, 3])
    row = np.full((4,), -1.0, np.float32)
    out = run_both(lambda x, r: lax.dynamic_update_index_in_dim(x, r, 1, 0), x, row)
    expected = x.copy()
    expected[1] = -1
    np.testing.assert_array_equal(out, expected)


# --- pad --------------------------------------------------------------------------------------


def test_negative_padding_crops():
    x = f32(5)
    np.testing.assert_array_equal(run_both(lambda x: lax.pad(x, -1.0, [(-2, -1, 0)]), x),
                                  [2.0, 3.0])
    np.testing.assert_array_equal(run_both(lambda x: lax.pad(x, -1.0, [(-1, 2, 1)]), x),
                                  [-1, 1, -1, 2, -1, 3, -1, 4, -1, -1])
    # cropping more than the operand holds eats into the padding on the other edge
    np.testing.assert_array_equal(run_both(lambda x: lax.pad(x, 7.0, [(-6, 3, 0)]), x), [7, 7])


def test_pad_with_a_python_scalar_of_another_dtype_is_refused():
    # JAX 0.10.2: a Python float is float32, whatever the operand's dtype
    x = np.arange(3, dtype=BF16)
    with pytest.raises(TypeError, match="pad operand and padding_value must be same dtype: "
                                        "got bfloat16 and float32."):
        lax.pad(x, 9.0, [(1, 0, 0)])
    out = run_both(lambda x: lax.pad(x, BF16.type(9), [(1, 0, 0)]), x)
    assert out.dtype == BF16
    np.testing.assert_array_equal(out.astype(np.float32), [9, 0, 1, 2])


# --- iota -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint32, np.float16, np.float32,
                                   BF16, np.complex64])
def test_iota_dtypes(dtype):
    out = run_both(lambda: lax.broadcasted_iota(dtype, (2, 3), 0))
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, np.array([[0, 0, 0], [1, 1, 1]]).astype(dtype))


def test_iota_canonicalizes_dtype():
    assert lax.iota(np.int64, 3).dtype == np.int32  # x64 off
    assert lax.iota(int, 3).dtype == np.int32
    assert lax.iota(float, 3).dtype == np.float32


def test_iota_rejects_bool_and_bad_dimension():
    with pytest.raises(TypeError, match="iota does not accept dtype bool"):
        lax.iota(np.bool_, 3)
    with pytest.raises(ValueError, match="iota dimension must be between 0 and len\\(shape\\)"):
        lax.broadcasted_iota(np.int32, (2, 3), 2)


# --- full / full_like: dtype and weak type as in JAX ------------------------------------------


def test_full_of_a_scalar_shape_is_an_array():
    out = lax.full((), 1.0)
    assert isinstance(out, minijax.Array) and out.aval.weak_type and out.shape == ()
    # as JAX 0.10.2's make_jaxpr: the scalar is a literal output, no equation
    assert jaxpr_of(lambda: lax.full((), 1.0)) == "{ lambda ; . let  in (1.0:f32[],) }"


def test_full_weak_types():
    assert lax.full((2,), 1.0).aval.weak_type
    assert not lax.full((2,), 1.0, np.float32).aval.weak_type
    assert not lax.full((2,), np.float32(1.0)).aval.weak_type
    out = run_both(lambda: lax.full((2,), 300, np.uint8))  # converts as astype does: wraps
    np.testing.assert_array_equal(out, [44, 44])


def test_full_like_follows_x():
    x = np.ones((2, 3), BF16)
    out = run_both(lambda x: lax.full_like(x, 2.5), x)
    assert out.dtype == BF16 and out.shape == (2, 3)
    out = run_both(lambda x: lax.full_like(x, 2.5, np.int32, shape=(4,)), x)
    np.testing.assert_array_equal(out, [2, 2, 2, 2])
    assert run_both(lambda x: lax.zeros_like_array(x), np.ones(3, np.bool_)).dtype == np.bool_


def test_full_with_a_traced_fill_value():
    text = jaxpr_of(lambda v: lax.full((3,), v, np.int32), np.float32(2.7))
    assert "convert_element_type[new_dtype=int32" in text and "broadcast_in_dim" in text
    out = minijax.jit(lambda v: lax.full((3,), v, np.int32))(np.float32(2.7))
    np.testing.assert_array_equal(np.asarray(out), [2, 2, 2])


# --- misc wrappers ----------------------------------------------------------------------------


def test_reshape_dimensions_transposes_first():
    x = f32(2, 3)
    out = run_both(lambda x: lax.reshape(x, (6,), (1, 0)), x)
    np.testing.assert_array_equal(out, x.T.reshape(6))


def test_slice_and_index_in_dim_wrappers():
    x = f32(4, 5)
    np.testing.assert_array_equal(run_both(lambda x: lax.slice_in_dim(x, -3, None, axis=1), x),
                                  x[:, -3:])
    np.testing.assert_array_equal(run_both(lambda x: lax.index_in_dim(x, -1, keepdims=False), x),
                                  x[-1])
    np.testing.assert_array_equal(run_both(lambda x: lax.index_in_dim(x, 2, axis=1), x),
                                  x[:, 2:3])


def test_zero_sized_results():
    x = f32(3, 2)
    assert run_both(lambda x: lax.slice(x, (1, 0), (1, 2)), x).shape == (0, 2)
    assert run_both(lambda x: lax.pad(x, 0.0, [(-3, 0, 0), (0, 0, 0)]), x).shape == (0, 2)
    assert run_both(lambda x: lax.dynamic_slice(x, (2, 1), (0, 1)), x).shape == (0, 1)


@pytest.mark.parametrize("x_shape,dims,shape", [((2, 3), (2, 1), (4, 3, 2)),
                                                ((2, 3), (0, 2), (2, 1, 3)),
                                                ((2, 1), (2, 0), (3, 4, 2)),
                                                ((2, 3), (1, 0), (3, 2))])
def test_broadcast_in_dim_gradient_with_unsorted_dimensions(x_shape, dims, shape):
    # beyond JAX 0.10.2, whose transpose reshapes the cotangent and fails its type check: the
    # gradient of sum(broadcast(x) * w) is w summed over the axes x does not fill, in x's order
    x = np.arange(np.prod(x_shape), dtype=np.float32).reshape(x_shape)
    w = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)

    def f(x):
        return (lax.broadcast_in_dim(x, shape, dims) * w).sum()

    dropped = tuple(a for a in range(len(shape)) if a not in dims)
    stretched = tuple(d for d, n in zip(dims, x_shape) if n != shape[d])
    kept = w.sum(axis=dropped + stretched, keepdims=True)  # x's axes at dims, size 1 elsewhere
    expected = np.transpose(kept, list(dims) + list(dropped)).reshape(x_shape)
    for g in (minijax.grad(f), minijax.jit(minijax.grad(f))):
        np.testing.assert_array_equal(g(x), expected)
