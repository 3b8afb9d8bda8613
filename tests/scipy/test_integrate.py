"""minijax.scipy.integrate.trapezoid against scipy.integrate.trapezoid, under jit, with
gradients against finite differences."""

import numpy as np
import pytest
import scipy.integrate
from hypothesis import given
from hypothesis import strategies as st

import minijax
from minijax.scipy.integrate import trapezoid
from minijax.test_util import check_grads

trapezoid_j = minijax.jit(trapezoid, static_argnames=("axis",))


@given(st.integers(0, 2 ** 31 - 1), st.sampled_from([0, 1, -1]), st.booleans())
def test_trapezoid(seed, axis, with_x):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal((4, 5)).astype(np.float32)
    if with_x:
        x = np.sort(rng.uniform(0, 3, y.shape[axis])).astype(np.float32)
        out = trapezoid_j(y, x, axis=axis)
        ref = scipy.integrate.trapezoid(y, x, axis=axis)
    else:
        dx = np.float32(rng.uniform(0.1, 2))
        out = trapezoid(y, dx=dx, axis=axis)
        ref = scipy.integrate.trapezoid(y, dx=dx, axis=axis)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_dtypes_and_nd_x():
    y = np.arange(7)
    assert trapezoid(y).dtype == np.float32  # integers integrate in the default float
    np.testing.assert_allclose(trapezoid(y), scipy.integrate.trapezoid(y))
    y2 = np.arange(12.0).reshape(3, 4)
    x2 = np.cumsum(np.ones((3, 4)), axis=1) ** 2  # x with y's shape
    np.testing.assert_allclose(trapezoid(y2, x2), scipy.integrate.trapezoid(y2, x2), rtol=1e-6)


@pytest.mark.usefixtures("x64")
def test_trapezoid_grad():
    rng = np.random.default_rng(0)
    y = rng.standard_normal((3, 5))
    x = np.sort(rng.uniform(0, 3, 5))
    check_grads(trapezoid, (y, x), order=2, modes=("fwd", "rev"))
    check_grads(lambda y: trapezoid(y, dx=0.3, axis=0), (y,), order=1, modes=("rev",))
