"""Shape manipulation, creation and products vs NumPy."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minijax
import minijax.numpy as jnp
from tests.numpy._helpers import BF16, check
from tests.ops.op_db import shapes

F32 = np.float32


def arr(*shape, dtype=F32):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


@given(shapes(min_dims=0, max_dims=4, max_side=4), st.data())
def test_reshape_transpose_ravel(shape, data):
    x = arr(*shape)
    perm = data.draw(st.permutations(range(len(shape))))
    check(jnp.transpose(x, perm), np.transpose(x, perm))
    check(jnp.transpose(x), x.T)
    check(jnp.ravel(x), x.ravel())
    target = (-1,) + shape[1:] if shape and shape[0] else (x.size,)
    check(jnp.reshape(x, target), x.reshape(target))
    check(minijax.jit(lambda a: a.reshape(target).T)(x), x.reshape(target).T)
    if len(shape) >= 2:
        check(jnp.moveaxis(x, 0, -1), np.moveaxis(x, 0, -1))
        check(jnp.swapaxes(x, 0, -1), np.swapaxes(x, 0, -1))
        check(jnp.asarray(x).mT, np.swapaxes(x, -1, -2))


def test_reshape_errors():
    with pytest.raises(TypeError, match="cannot reshape"):
        jnp.reshape(arr(2, 3), (4, 2))
    with pytest.raises(TypeError, match="one unknown"):  # JAX 0.10.2 raises a TypeError
        jnp.reshape(arr(2, 3), (-1, -1))
    with pytest.raises(NotImplementedError):  # JAX 0.10.2 refuses order='A'
        jnp.reshape(arr(2, 3), (3, 2), order="A")
    check(jnp.reshape(arr(2, 3), (3, 2), order="F"), arr(2, 3).reshape(3, 2, order="F"))
    check(jnp.asarray(arr(2, 3)).reshape(3, 2), arr(2, 3).reshape(3, 2))


def test_squeeze_expand_broadcast():
    x = arr(1, 3, 1)
    check(jnp.squeeze(x), np.squeeze(x))
    check(jnp.squeeze(x, axis=(0, -1)), np.squeeze(x, axis=(0, -1)))
    with pytest.raises(ValueError):
        jnp.squeeze(x, 1)
    check(jnp.expand_dims(arr(3), (0, 2)), np.expand_dims(arr(3), (0, 2)))
    check(jnp.expand_dims(arr(2, 3), -1), np.expand_dims(arr(2, 3), -1))
    check(jnp.broadcast_to(arr(3), (2, 3)), np.broadcast_to(arr(3), (2, 3)))
    check(jnp.broadcast_to(arr(2, 1), (4, 2, 5)), np.broadcast_to(arr(2, 1), (4, 2, 5)))
    with pytest.raises(ValueError):
        jnp.broadcast_to(arr(3), (4,))
    pairs = zip(jnp.broadcast_arrays(arr(3), arr(2, 1)), np.broadcast_arrays(arr(3), arr(2, 1)))
    for g, e in pairs:
        check(g, e)
    check(jnp.atleast_1d(F32(2)), np.atleast_1d(F32(2)))
    check(jnp.atleast_2d(arr(3)), np.atleast_2d(arr(3)))


@given(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), st.integers(1, 3), st.data())
def test_join_and_split(shape, n, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    xs = [arr(*shape) + i for i in range(n)]
    check(jnp.concatenate(xs, axis), np.concatenate(xs, axis))
    check(jnp.stack(xs, axis), np.stack(xs, axis))
    check(minijax.jit(lambda *a: jnp.stack(a, -1))(*xs), np.stack(xs, -1))
    check(jnp.vstack(xs), np.vstack(xs)), check(jnp.hstack(xs), np.hstack(xs))
    big = np.concatenate(xs, axis)
    size = big.shape[axis]
    for g, e in zip(jnp.split(big, n, axis), np.split(big, n, axis)):
        check(g, e)
    cuts = sorted(data.draw(st.lists(st.integers(0, size), max_size=3)))
    got, want = jnp.split(big, cuts, axis), np.split(big, cuts, axis)
    assert len(got) == len(want)
    for g, e in zip(got, want):
        check(g, e)
    for g, e in zip(jnp.array_split(big, 3, axis), np.array_split(big, 3, axis)):
        check(g, e)


def test_concatenate_promotes_and_errors():
    out = jnp.concatenate([np.ones(2, np.int32), np.ones(1, F32)])
    check(out, np.ones(3, F32))
    check(jnp.concatenate([arr(2, 2), arr(2, 2)], axis=None), np.concatenate([arr(2, 2)] * 2, None))
    with pytest.raises(ValueError):
        jnp.split(arr(5), 2)


@given(hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), st.data())
def test_flip_roll_pad_tile_repeat(shape, data):
    x = arr(*shape)
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    check(jnp.flip(x, axis), np.flip(x, axis))
    check(jnp.flip(x), np.flip(x))
    shift = data.draw(st.integers(-7, 7))
    check(jnp.roll(x, shift, axis), np.roll(x, shift, axis))
    check(jnp.roll(x, shift), np.roll(x, shift))
    widths = [tuple(data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2)))) for _ in shape]
    check(jnp.pad(x, widths), np.pad(x, widths))
    check(jnp.pad(x, widths, constant_values=-1.0), np.pad(x, widths, constant_values=-1.0))
    check(jnp.pad(x, widths, mode="edge"), np.pad(x, widths, mode="edge"))
    check(jnp.pad(x, 1), np.pad(x, 1))
    reps = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    check(jnp.tile(x, reps), np.tile(x, reps))
    r = data.draw(st.integers(0, 3))
    check(jnp.repeat(x, r, axis), np.repeat(x, r, axis))
    check(jnp.repeat(x, r), np.repeat(x, r))
    counts = data.draw(st.lists(st.integers(0, 2), min_size=shape[axis % ndim],
                                max_size=shape[axis % ndim]))
    check(jnp.repeat(x, counts, axis), np.repeat(x, counts, axis))


def test_shape_queries():
    x = arr(2, 3)
    assert jnp.shape(x) == (2, 3) and jnp.ndim(x) == 2 and jnp.size(x) == 6
    assert jnp.size(x, 1) == 3 and jnp.shape(3.0) == ()


# --- creation ------------------------------------------------------------------------------------


def test_array_and_asarray():
    check(jnp.array([1, 2, 3]), np.array([1, 2, 3], np.int32))
    check(jnp.array([1, 2.5]), np.array([1, 2.5], F32))
    check(jnp.array([[1, 2], [3, 4]], dtype=jnp.bfloat16), np.array([[1, 2], [3, 4]], BF16), BF16)
    check(jnp.array(np.arange(3.0)), np.arange(3.0, dtype=F32))
    check(jnp.array([]), np.array([], F32))
    check(jnp.array(True), np.array(True))
    check(jnp.array(3, ndmin=2), np.array(3, ndmin=2).astype(np.int32))
    assert jnp.array(1.0).weak_type and not jnp.array([1.0]).weak_type
    assert not jnp.array(1.0, dtype=jnp.float32).weak_type
    x = jnp.arange(3)
    assert jnp.asarray(x) is x
    check(jnp.array([x, x + 1]), np.array([[0, 1, 2], [1, 2, 3]], np.int32))
    out = minijax.jit(lambda a: jnp.array([a, a * 2, 3.0]))(F32(1.5))
    check(out, np.array([1.5, 3.0, 3.0], F32))
    assert jnp.float32(3).dtype == F32 and jnp.int8(3).dtype == np.int8
    assert np.dtype(jnp.bfloat16) == BF16 and jnp.float32 == np.float32


def test_filled_and_ranges():
    check(jnp.zeros((2, 3)), np.zeros((2, 3), F32))
    check(jnp.ones(3, jnp.int8), np.ones(3, np.int8))
    check(jnp.full((2,), 7), np.full((2,), 7, np.int32))
    check(jnp.full((2, 2), np.array([1.0, 2.0])), np.full((2, 2), [1.0, 2.0], F32))
    with pytest.raises(TypeError):  # as JAX: lists are not arraylike here
        jnp.full((2, 2), [1.0, 2.0])
    check(jnp.empty(2), np.zeros(2, F32))
    x = jnp.ones((2, 2), jnp.bfloat16)
    check(jnp.zeros_like(x), np.zeros((2, 2), BF16), BF16)
    check(jnp.ones_like(x, dtype=jnp.int32), np.ones((2, 2), np.int32))
    check(jnp.full_like(x, 3, shape=(3,)), np.full(3, 3, BF16), BF16)
    check(jnp.arange(5), np.arange(5).astype(np.int32))
    check(jnp.arange(2, 11, 3), np.arange(2, 11, 3).astype(np.int32))
    check(jnp.arange(0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25).astype(F32))
    check(jnp.arange(5, dtype=jnp.float32), np.arange(5, dtype=F32))
    with pytest.raises(minijax.errors.ConcretizationTypeError):
        minijax.jit(lambda n: jnp.arange(n))(3)
    check(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5).astype(F32))
    check(jnp.linspace(-2, 3, 4, endpoint=False), np.linspace(-2, 3, 4, endpoint=False).astype(F32))
    check(jnp.linspace(np.zeros(2), np.ones(2) * 4, 3, axis=1),
          np.linspace(np.zeros(2), np.ones(2) * 4, 3, axis=1).astype(F32))
    check(jnp.linspace(0, 1, 1), np.linspace(0, 1, 1).astype(F32))
    for k in (-1, 0, 2):
        check(jnp.eye(3, 4, k), np.eye(3, 4, k, dtype=F32))
    check(jnp.identity(2, jnp.int32), np.identity(2, np.int32))
    check(jnp.tril(arr(3, 3)), np.tril(arr(3, 3)))
    check(jnp.triu(arr(3, 3), 1), np.triu(arr(3, 3), 1))


# --- products ------------------------------------------------------------------------------------


@given(st.sampled_from([((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                        ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                        ((1, 2, 3), (4, 3, 2)), ((6, 1, 2, 3), (5, 3, 2)), ((3,), (2, 3, 4))]),
       st.sampled_from([F32, np.int32]))
def test_matmul_matches_numpy(shapes_, dtype):
    sa, sb = shapes_
    a, b = arr(*sa, dtype=dtype) % 5, arr(*sb, dtype=dtype) % 3
    check(jnp.matmul(a, b), np.matmul(a, b))
    check(minijax.jit(lambda u, v: u @ v)(a, b), a @ b)
    check(jnp.asarray(a) @ b, a @ b)


def test_dot_vdot_inner_outer_tensordot():
    a, b = arr(2, 3), arr(3, 4)
    check(jnp.dot(a, b), np.dot(a, b))
    check(jnp.dot(arr(2, 3, 4), arr(5, 4, 2)), np.dot(arr(2, 3, 4), arr(5, 4, 2)))
    check(jnp.dot(a, 2.0), np.dot(a, 2.0).astype(F32))
    check(jnp.asarray(a).dot(b), a.dot(b))
    check(jnp.vdot(a, a), np.vdot(a, a))
    check(jnp.inner(arr(2, 3), arr(4, 3)), np.inner(arr(2, 3), arr(4, 3)))
    check(jnp.outer(arr(3), arr(2, 2)), np.outer(arr(3), arr(2, 2)))
    check(jnp.tensordot(arr(2, 3, 4), arr(3, 4, 5)), np.tensordot(arr(2, 3, 4), arr(3, 4, 5)))
    check(jnp.tensordot(arr(2, 3), arr(3, 2), axes=([1, 0], [0, 1])),
          np.tensordot(arr(2, 3), arr(3, 2), axes=([1, 0], [0, 1])))
    check(jnp.matmul(np.ones((2, 3), np.int8), np.ones(3, F32)), np.full(2, 3.0, F32))
    with pytest.raises(TypeError, match="contracting dimensions"):  # JAX 0.10.2's dot_general
        jnp.matmul(arr(2, 3), arr(2, 3))
    with pytest.raises(ValueError):
        jnp.matmul(arr(3), F32(2))
