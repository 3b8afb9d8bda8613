"""minijax.scipy.cluster.vq.vq, interpolate.RegularGridInterpolator and
spatial.transform.Rotation/Slerp against SciPy on hypothesis-drawn inputs (under module-level
jits, so every example reuses one executable), pytree round trips, and gradients by central
differences."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.cluster.vq as svq
import scipy.interpolate as si
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial.transform import Rotation as SRotation
from scipy.spatial.transform import Slerp as SSlerp

import minijax
from minijax import scipy as msp
from minijax.test_util import check_grads

Rotation = msp.spatial.transform.Rotation
Slerp = msp.spatial.transform.Slerp
RegularGridInterpolator = msp.interpolate.RegularGridInterpolator


def _floats(data, lo, hi, shape):
    lo, hi = (float(np.nextafter(np.float32(v), np.float32(0))) for v in (lo, hi))  # inward
    return data.draw(hnp.arrays(np.float32, shape, elements=st.floats(lo, hi, width=32)))


def test_submodules():
    assert set(dir(msp)) >= {"cluster", "interpolate", "spatial"}
    assert msp.cluster.vq.vq is not None and msp.spatial.transform.Rotation is Rotation


# ------------------------------------------------------------------------------------------------
# cluster.vq

_vq = minijax.jit(msp.cluster.vq.vq)


@given(data=st.data())
def test_vq(data):
    obs = _floats(data, -5, 5, (8, 3))
    book = _floats(data, -5, 5, (4, 3))
    code, dist = _vq(obs, book)
    ref_code, ref_dist = svq.vq(obs, book)
    # ties between codes at float32 noise may resolve differently: compare the distances, and
    # the codes where the nearest code is clearly nearest
    np.testing.assert_allclose(dist, ref_dist, rtol=1e-5, atol=1e-5)
    all_d = np.linalg.norm(obs[:, None] - book[None], axis=-1)
    gap = np.sort(all_d, axis=1)[:, 1] - np.sort(all_d, axis=1)[:, 0]
    np.testing.assert_array_equal(code[gap > 1e-4], ref_code[gap > 1e-4])
    assert code.dtype == np.int32 and dist.dtype == np.float32


def test_vq_1d_and_errors():
    code, dist = msp.cluster.vq.vq(np.float32([0.0, 2.0, 9.0]), np.float32([1.0, 8.0]))
    np.testing.assert_array_equal(code, [0, 0, 1])
    np.testing.assert_allclose(dist, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="same rank"):
        msp.cluster.vq.vq(np.zeros((2, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="ndim different"):
        msp.cluster.vq.vq(np.zeros((2, 2, 2)), np.zeros((2, 2, 2)))


# ------------------------------------------------------------------------------------------------
# interpolate.RegularGridInterpolator

_GRID = (np.float32([0.0, 0.5, 1.5, 2.0]), np.float32([-1.0, 0.0, 1.0, 2.0, 4.0]))
_interp = minijax.jit(lambda interp, xi: interp(xi))
_interp_nearest = minijax.jit(lambda interp, xi: interp(xi, method="nearest"))


@given(data=st.data())
def test_regular_grid_interpolator(data):
    values = _floats(data, -3, 3, (4, 5, 2))
    xi = _floats(data, -0.5, 4.5, (6, 2))
    for fill in (np.nan, None, -1.0):
        interp = RegularGridInterpolator(_GRID, values, fill_value=fill)
        ref = si.RegularGridInterpolator(_GRID, values.astype(np.float64), bounds_error=False,
                                         fill_value=fill)
        np.testing.assert_allclose(_interp(interp, xi), ref(xi), rtol=1e-5, atol=1e-5)
        # nearest: ties exactly half way may round either way; drawn points avoid them a.s.
        np.testing.assert_allclose(_interp_nearest(interp, xi), ref(xi, method="nearest"),
                                   rtol=1e-6)


def test_regular_grid_interpolator_forms():
    values = np.arange(20, dtype=np.float32).reshape(4, 5)
    interp = RegularGridInterpolator(_GRID, values, method="nearest")
    ref = si.RegularGridInterpolator(_GRID, values, method="nearest", bounds_error=False)
    x, y = np.float32([0.2, 1.9]), np.float32([0.4, 3.5])
    np.testing.assert_allclose(interp((x, y)), ref((x, y)))  # a tuple of coordinate arrays
    lin_1d = RegularGridInterpolator((_GRID[0],), np.float32([1.0, 2.0, 0.0, 4.0]))
    np.testing.assert_allclose(lin_1d(np.float32([0.25, 1.75])), [1.5, 2.0])
    leaves, treedef = minijax.tree_util.tree_flatten(interp)
    assert len(leaves) == 4  # two grid axes, the values, the fill value
    assert minijax.tree_util.tree_unflatten(treedef, leaves).method == "nearest"
    with pytest.raises(ValueError, match="not defined"):
        RegularGridInterpolator(_GRID, values, method="cubic")
    with pytest.raises(NotImplementedError):
        RegularGridInterpolator(_GRID, values, bounds_error=True)
    with pytest.raises(ValueError, match="dimension"):
        interp(np.zeros((2, 3), np.float32))


def test_regular_grid_interpolator_grad():
    values = np.random.default_rng(0).normal(size=(4, 5))
    f = lambda xi, v: RegularGridInterpolator(_GRID, v)(xi)  # noqa: E731
    xi = np.array([[0.3, 0.4], [1.7, 2.5]])  # inside cells, away from knots
    check_grads(f, (xi, values), 1, modes=("rev",), atol=1e-2, rtol=1e-2, eps=1e-3)


# ------------------------------------------------------------------------------------------------
# spatial.transform


def _quats(data, n):
    q = _floats(data, -1, 1, (n, 4)).astype(np.float64)
    q[:, 3] += np.where(q[:, 3] >= 0, 0.2, -0.2)  # away from the zero quaternion
    return q.astype(np.float32)


def _conversions(quat, vec):
    r = Rotation.from_quat(quat)
    return (r.as_quat(), r.as_quat(canonical=True, scalar_first=True), r.as_matrix(),
            r.as_rotvec(), r.as_rotvec(degrees=True), r.as_mrp(), r.magnitude(),
            r.as_euler("xyz"), r.as_euler("ZXZ", degrees=True), r.apply(vec),
            r.apply(vec, inverse=True), (r * r[::-1]).as_quat(), r.inv().as_quat(),
            r.mean().as_quat())


_conversions_jit = minijax.jit(_conversions)


def _same_rotation(a, b, atol):
    """Quaternions q and -q are the same rotation."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    sign = np.sign(np.sum(a * b, axis=-1, keepdims=True))
    np.testing.assert_allclose(a * sign, b, atol=atol)


@given(data=st.data())
def test_rotation(data):
    quat = _quats(data, 5)
    vec = _floats(data, -3, 3, (5, 3))
    r = SRotation.from_quat(quat.astype(np.float64))
    out = _conversions_jit(quat, vec)
    expected = (r.as_quat(), r.as_quat(canonical=True, scalar_first=True), r.as_matrix(),
                r.as_rotvec(), r.as_rotvec(degrees=True), r.as_mrp(), r.magnitude(), None,
                None, r.apply(vec), r.apply(vec, inverse=True), (r * r[::-1]).as_quat(),
                r.inv().as_quat(), None)
    for i, (got, want) in enumerate(zip(out, expected)):
        if want is not None:
            tol = 2e-3 if i == 4 else 2e-5  # degrees are ~57 times larger
            np.testing.assert_allclose(got, want, atol=tol, err_msg=str(i))
    # Euler angles are not unique: they must give back the rotation
    _same_rotation(SRotation.from_euler("xyz", np.asarray(out[7], np.float64)).as_quat(),
                   r.as_quat(), 1e-5)
    _same_rotation(SRotation.from_euler("ZXZ", np.asarray(out[8], np.float64),
                                        degrees=True).as_quat(), r.as_quat(), 1e-4)
    _same_rotation(out[13], r.mean().as_quat(), 1e-4)


_from = minijax.jit(lambda euler, rotvec, matrix, mrp: (
    Rotation.from_euler("xyz", euler).as_quat(), Rotation.from_euler("YZY", euler).as_quat(),
    Rotation.from_euler("zx", euler[:, :2], degrees=True).as_quat(),
    Rotation.from_rotvec(rotvec).as_quat(), Rotation.from_rotvec(rotvec, degrees=True).as_quat(),
    Rotation.from_matrix(matrix).as_quat(), Rotation.from_mrp(mrp).as_quat()))


@given(data=st.data())
def test_rotation_constructors(data):
    euler = _floats(data, -3, 3, (4, 3))
    rotvec = _floats(data, -2, 2, (4, 3))
    matrix = SRotation.from_quat(_quats(data, 4).astype(np.float64)).as_matrix()
    mrp = _floats(data, -0.9, 0.9, (4, 3)) / np.float32(np.sqrt(3))
    out = _from(euler, rotvec, matrix.astype(np.float32), mrp)
    e = euler.astype(np.float64)
    expected = (SRotation.from_euler("xyz", e), SRotation.from_euler("YZY", e),
                SRotation.from_euler("zx", e[:, :2], degrees=True),
                SRotation.from_rotvec(rotvec.astype(np.float64)),
                SRotation.from_rotvec(rotvec.astype(np.float64), degrees=True),
                SRotation.from_matrix(matrix), SRotation.from_mrp(mrp.astype(np.float64)))
    for got, want in zip(out, expected):
        _same_rotation(got, want.as_quat(), 2e-5)


def test_rotation_small_angles_and_single():
    rotvec = np.float32([[1e-5, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2e-4, 1e-4]])
    r = Rotation.from_rotvec(rotvec)
    np.testing.assert_allclose(r.as_rotvec(), rotvec, rtol=1e-4, atol=1e-9)
    single = Rotation.identity()
    assert single.single
    np.testing.assert_allclose(single.as_matrix(), np.eye(3))
    with pytest.raises(TypeError, match="not subscriptable"):
        single[0]
    with pytest.raises(TypeError, match="no len"):
        len(single)
    with pytest.raises(ValueError, match="Expected axes"):
        Rotation.from_euler("xyZ", np.zeros(3))
    with pytest.raises(ValueError, match="consecutive"):
        Rotation.from_euler("xxy", np.zeros(3))
    with pytest.raises(ValueError, match="Expected 3 axes"):
        single.as_euler("xy")
    both = Rotation.concatenate([Rotation.from_quat(np.float32([[0, 0, 0, 1]])), r])
    assert len(both) == 4
    leaves, treedef = minijax.tree_util.tree_flatten(both)
    assert len(leaves) == 1 and minijax.tree_util.tree_unflatten(treedef, leaves).quat.shape == (4, 4)


_slerp = minijax.jit(lambda times, quat, t: Slerp.init(times, Rotation.from_quat(quat))(t).quat)


@given(data=st.data())
def test_slerp(data):
    quat = _quats(data, 4)
    steps = _floats(data, 0.2, 2.0, (4,))
    times = np.cumsum(steps).astype(np.float32)
    t = np.sort(_floats(data, 0.0, 1.0, (5,))) * (times[-1] - times[0]) + times[0]
    t = np.clip(t, times[0], times[-1]).astype(np.float32)
    got = _slerp(times, quat, t)
    want = SSlerp(times.astype(np.float64), SRotation.from_quat(quat.astype(np.float64)))(
        t.astype(np.float64)).as_quat()
    _same_rotation(got, want, 5e-5)


def test_slerp_errors_and_single_time():
    rots = Rotation.from_rotvec(np.float32([[0, 0, 0], [0, 0, 1.0]]))
    s = Slerp.init(np.float32([0.0, 1.0]), rots)
    np.testing.assert_allclose(s(0.5).as_rotvec(), [0, 0, 0.5], atol=1e-6)
    with pytest.raises(ValueError, match="at least 2"):
        Slerp.init(np.float32([0.0]), rots[:1])
    with pytest.raises(TypeError, match="Rotation"):
        Slerp.init(np.float32([0.0, 1.0]), rots.quat)
    with pytest.raises(ValueError, match="timestamps"):
        Slerp.init(np.float32([0.0, 1.0, 2.0]), rots)


def test_rotation_grad():
    rotvec = np.array([[0.3, -0.2, 0.5], [1.0, 0.4, -0.7]])
    vec = np.array([1.0, -2.0, 0.5])
    check_grads(lambda rv: Rotation.from_rotvec(rv).apply(vec), (rotvec,), 1, modes=("rev",),
                atol=1e-3, rtol=1e-3, eps=1e-4)
