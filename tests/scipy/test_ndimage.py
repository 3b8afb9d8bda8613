"""minijax.scipy.ndimage.map_coordinates against scipy.ndimage.map_coordinates: every mode,
orders 0 and 1, result dtypes as JAX, under jit, and order-1 gradients against finite
differences. JAX's 'constant' mode is SciPy's 'grid-constant' (the input is extended by
cval before interpolating), and its 'wrap' is SciPy's 'grid-wrap'."""

import numpy as np
import pytest
import scipy.ndimage
from hypothesis import given
from hypothesis import strategies as st

import minijax
from minijax.scipy.ndimage import map_coordinates
from minijax.test_util import check_grads

MODES = ["constant", "nearest", "wrap", "mirror", "reflect"]
SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap"}

map_coordinates_j = minijax.jit(map_coordinates, static_argnames=("order", "mode"))


@given(st.integers(0, 2 ** 31 - 1), st.sampled_from(MODES), st.sampled_from([0, 1]))
def test_map_coordinates(seed, mode, order):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((5, 6)).astype(np.float32)
    # Coordinates off the grid on both sides, away from the half-way points where order 0
    # rounding is a tie.
    coords = [np.round(rng.uniform(-4, 9, (3, 4)), 1).astype(np.float32) + 0.03
              for _ in range(2)]
    out = map_coordinates_j(x, coords, order=order, mode=mode, cval=0.5)
    ref = scipy.ndimage.map_coordinates(x, np.array(coords), order=order,
                                        mode=SCIPY_MODE.get(mode, mode), cval=0.5)
    assert out.dtype == np.float32 and out.shape == (3, 4)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_integer_input_rounds():
    x = np.arange(12, dtype=np.int32).reshape(3, 4) * 3
    coords = [np.array([0.5, 1.25, 2.0]), np.array([0.5, 2.5, 3.0])]
    out = map_coordinates(x, coords, order=1, mode="nearest")
    assert out.dtype == np.int32
    ref = scipy.ndimage.map_coordinates(x.astype(np.float64), np.array(coords), order=1,
                                        mode="nearest")
    np.testing.assert_array_equal(out, np.sign(ref) * np.floor(np.abs(ref) + 0.5))


def test_errors():
    x = np.ones((3, 3), np.float32)
    with pytest.raises(ValueError, match="length input.ndim"):
        map_coordinates(x, [np.zeros(2)], order=1)
    with pytest.raises(NotImplementedError, match="order<=1"):
        map_coordinates(x, [np.zeros(2), np.zeros(2)], order=3)
    with pytest.raises(NotImplementedError, match="mode"):
        map_coordinates(x, [np.zeros(2), np.zeros(2)], order=1, mode="grid-mirror")


@pytest.mark.usefixtures("x64")
def test_order1_grad():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5))
    # Away from integer coordinates, where linear interpolation has kinks.
    c = [np.array([0.3, 1.6, 2.45]), np.array([0.7, 3.2, 1.55])]
    check_grads(lambda x, c0, c1: map_coordinates(x, [c0, c1], order=1, mode="reflect"),
                (x, *c), order=1, modes=("fwd", "rev"))
