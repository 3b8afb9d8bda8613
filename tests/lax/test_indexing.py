"""gather / scatter / scatter_add beyond the op table: shape errors, the printed form, and
derivatives (each transposes into the other), against NumPy (np.add.at is scatter-add)."""

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.lax import GatherDimensionNumbers as GDN
from minijax.lax import ScatterDimensionNumbers as SDN

ROWS = GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
S_ROWS = SDN(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def test_gather_shape_errors_are_type_errors():
    x, idx = randn(4, 3), np.zeros((2, 1), np.int32)
    with pytest.raises(TypeError, match="start_index_map"):
        lax.gather(x, idx, GDN((1,), (0,), (0, 1)), (1, 3))
    with pytest.raises(TypeError, match="Slice size at index 1"):  # JAX's words
        lax.gather(x, idx, ROWS, (1, 5))
    with pytest.raises(TypeError, match="integer"):
        lax.gather(x, idx.astype(np.float32), ROWS, (1, 3))
    with pytest.raises(TypeError, match="do not fit"):
        lax.scatter(x, idx, randn(3, 3), S_ROWS)


def test_gather_prints_its_dimension_numbers():
    text = str(minijax.make_jaxpr(lambda x, i: lax.gather(x, i, ROWS, (1, 3), mode="clip"))(
        randn(4, 3), np.zeros((2, 1), np.int32)))
    assert "GatherDimensionNumbers(offset_dims=(1,)" in text and "GatherScatterMode.CLIP" in text


def test_gather_fill_value_and_default_fill():
    x = np.arange(6, dtype=np.int32).reshape(3, 2)
    idx = np.array([[1], [5], [-1]], np.int32)
    out = lax.gather(x, idx, ROWS, (1, 2), mode="fill", fill_value=-7)
    np.testing.assert_array_equal(out, [[2, 3], [-7, -7], [-7, -7]])
    out = lax.gather(x.astype(np.float32), idx, ROWS, (1, 2), mode="fill")  # NaN by default
    assert np.isnan(np.asarray(out)[1:]).all()
    # JAX 0.10.2: mode=None promises in-bounds indices, and XLA clamps
    out = lax.gather(x.astype(np.float32), idx, ROWS, (1, 2))
    np.testing.assert_array_equal(out, [[2, 3], [4, 5], [0, 1]])


def test_grad_of_gather_adds_up_repeated_rows():
    x, w = randn(4, 3), randn(5, 3)
    idx = np.array([[0], [2], [2], [9], [3]], np.int32)  # a repeat, and one out of bounds

    def f(x):
        return (lax.gather(x, idx, ROWS, (1, 3), mode="fill") * w).sum()

    expected = np.zeros_like(x)
    for k, (i,) in enumerate(idx):
        if 0 <= i < 4:
            np.add.at(expected, i, w[k])
    close(minijax.grad(f)(x), expected)
    close(minijax.jit(minijax.grad(f))(x), expected)


def test_grad_of_scatter_add_and_scatter():
    x, u, w = randn(4, 3), randn(2, 3), randn(4, 3)
    idx = np.array([[3], [1]], np.int32)

    def f_add(x, u):
        return (lax.scatter_add(x, idx, u, S_ROWS) * w).sum()

    gx, gu = minijax.grad(f_add, argnums=(0, 1))(x, u)
    close(gx, w)
    close(gu, w[[3, 1]])

    def f_set(x, u):
        return (lax.scatter(x, idx, u, S_ROWS, unique_indices=True) * w).sum()

    gx, gu = minijax.grad(f_set, argnums=(0, 1))(x, u)
    expected = w.copy()
    expected[[3, 1]] = 0
    close(gx, expected)
    close(gu, w[[3, 1]])
    # Without the promise of unique indices the same numbers come out (masked scatter_add).
    gx2, gu2 = minijax.grad(lambda x, u: (lax.scatter(x, idx, u, S_ROWS) * w).sum(),
                            argnums=(0, 1))(x, u)
    close(gx2, expected)
    close(gu2, w[[3, 1]])

    # A repeated index: the update XLA keeps gets the cotangent, the overwritten one gets 0.
    rep = np.array([[2], [2]], np.int32)
    f_rep = lambda x, u: (lax.scatter(x, rep, u, S_ROWS) * w).sum()
    out = np.asarray(lax.scatter(x, rep, u, S_ROWS))
    winner = 0 if np.allclose(out[2], u[0]) else 1
    gx, gu = minijax.grad(f_rep, argnums=(0, 1))(x, u)
    expected = w.copy()
    expected[2] = 0
    close(gx, expected)
    close(gu[winner], w[2])
    close(gu[1 - winner], np.zeros(3))


def test_jvp_of_gather_is_the_gather_of_the_tangent():
    x, t = randn(4, 3), randn(4, 3)
    idx = np.array([[1], [0]], np.int32)
    f = lambda x: lax.gather(x, idx, ROWS, (1, 3), mode="clip")
    y, ty = minijax.jvp(f, (x,), (t,))
    close(y, x[[1, 0]])
    close(ty, t[[1, 0]])


# ------------------------------------------------------------------------------------------------
# vmap with per-example indices under autodiff: batched dynamic_slice / dynamic_update_slice
# become gather / scatter, whose transposes these exercise.


def test_grad_through_per_example_dynamic_slices():
    x, w = randn(3, 6), randn(3, 2)
    starts = np.array([4, 0, 9], np.int32)  # 9 clamps to 4

    def loss(x):
        windows = minijax.vmap(lambda row, i: lax.dynamic_slice(row, (i,), (2,)))(x, starts)
        return (windows * w).sum()

    expected = np.zeros_like(x)
    for r, s in enumerate([4, 0, 4]):
        expected[r, s:s + 2] = w[r]
    close(minijax.grad(loss)(x), expected)
    close(minijax.jit(minijax.grad(loss))(x), expected)


def test_per_example_grads_of_a_dynamic_update():
    x, u, w = randn(3, 5), randn(3, 2), randn(5)
    starts = np.array([1, -1, 0], np.int32)  # -1 wraps to 4, then clamps to 3

    def loss(row, upd, i):
        return (lax.dynamic_update_slice(row, upd, (i,)) * w).sum()

    gx, gu = minijax.vmap(minijax.grad(loss, argnums=(0, 1)))(x, u, starts)
    for r, s in enumerate([1, 3, 0]):
        expected = w.copy()
        expected[s:s + 2] = 0
        close(gx[r], expected)
        close(gu[r], w[s:s + 2])
