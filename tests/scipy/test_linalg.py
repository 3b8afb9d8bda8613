"""minijax.scipy.linalg against scipy.linalg on hypothesis-drawn matrices: values, result
dtypes (as JAX), under jit, and derivatives against finite differences."""

import numpy as np
import pytest
import scipy.linalg as sl
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
import minijax.scipy.linalg as L
from minijax.test_util import check_grads
from tests.scipy._helpers import assert_close
from tests.scipy._helpers import rand as _rand


def _close(actual, expected, tol=2e-5):
    assert_close(actual, expected, tol)


seeds = st.integers(0, 2 ** 31 - 1)
REV = dict(order=1, modes=("rev",), jit=True)  # one jitted reverse-mode check
N = 4


def _spd(seed, dtype=np.float32):
    m = _rand(seed, (N, N), dtype)
    return (m @ np.conj(m.T) + N * np.eye(N)).astype(dtype)


# Module-level jitted entry points, so each static combination compiles once and hypothesis
# examples (fixed shapes) reuse it. The public functions are themselves jitted inside, so an
# eager call would compile the same program again.
_j = minijax.jit
cholesky_j = _j(L.cholesky, static_argnames=("lower",))
cho_solve_j = _j(lambda c, b, lower: L.cho_solve((c, lower), b), static_argnames=("lower",))
lu_solve_j = _j(lambda lu, piv, b, trans: L.lu_solve((lu, piv), b, trans=trans),
                static_argnames=("trans",))
solve_j = _j(L.solve, static_argnames=("assume_a", "lower"))
solve_triangular_j = _j(L.solve_triangular, static_argnames=("trans", "lower", "unit_diagonal"))
expm_j = _j(L.expm)


@given(seeds, st.booleans(), st.sampled_from([np.float32, np.complex64]))
def test_cholesky_cho_solve(seed, lower, dtype):
    a = _spd(seed, dtype)
    b = _rand(seed + 1, (N, 2), dtype)
    c = cholesky_j(a, lower=lower)
    assert c.dtype == dtype
    _close(c, sl.cholesky(a, lower=lower), 1e-4)
    c, low = L.cho_factor(a, lower=lower)
    assert low is lower
    _close(cho_solve_j(c, b, lower), sl.cho_solve((np.asarray(c), lower), b), 1e-4)
    _close(L.cho_solve((c, lower), b[:, 0]), sl.cho_solve((np.asarray(c), lower), b[:, 0]),
           1e-4)


@pytest.mark.usefixtures("x64")
def test_cholesky_upper_default_and_grad():
    a = _spd(0, np.float64)
    _close(L.cholesky(a), sl.cholesky(a), 1e-12)  # SciPy's default is the upper factor
    spd = lambda m: m @ m.T + N * jnp.eye(N, dtype=m.dtype)
    check_grads(lambda m: L.cholesky(spd(m)), (_rand(1, (N, N), np.float64),), **REV)
    check_grads(lambda m, b: L.cho_solve(L.cho_factor(spd(m)), b),
                (_rand(2, (N, N), np.float64), _rand(3, (N, 2), np.float64)), **REV)


@given(seeds, st.sampled_from([(N, N), (3, 5), (5, 3)]))
def test_lu(seed, shape):
    a = _rand(seed, shape)
    p, l, u = L.lu(a)
    ps, ls, us = sl.lu(a)
    for x, y in zip((p, l, u), (ps, ls, us)):
        assert x.dtype == np.float32
        _close(x, y, 1e-5)
    pl, u2 = minijax.jit(lambda a: L.lu(a, permute_l=True))(a)
    pls, us2 = sl.lu(a, permute_l=True)
    _close(pl, pls, 1e-5)
    _close(u2, us2, 1e-5)


@given(seeds, st.sampled_from([0, 1, 2]), st.sampled_from([np.float32, np.complex64]))
def test_lu_factor_solve(seed, trans, dtype):
    a = _rand(seed, (N, N), dtype)
    b = _rand(seed + 1, (N, 2), dtype)
    lu, piv = L.lu_factor(a)
    lus, pivs = sl.lu_factor(a)
    assert piv.dtype == np.int32 and lu.dtype == dtype
    _close(lu, lus, 1e-5)
    np.testing.assert_array_equal(piv, pivs)
    _close(lu_solve_j(lu, piv, b, trans), sl.lu_solve((lus, pivs), b, trans=trans), 1e-3)
    _close(L.lu_solve((lu, piv), b[:, 0], trans=trans),
           sl.lu_solve((lus, pivs), b[:, 0], trans=trans), 1e-3)


@given(seeds, st.sampled_from(["full", "economic", "r"]), st.booleans(),
       st.sampled_from([(N, 3), (3, N)]))
def test_qr(seed, mode, pivoting, shape):
    a = _rand(seed, shape)
    out = L.qr(a, mode=mode, pivoting=pivoting)
    ref = sl.qr(a, mode=mode, pivoting=pivoting)
    assert isinstance(out, tuple) and len(out) == len(ref)
    for x, y in zip(out, ref):
        if x.dtype == np.int32:  # the column permutation
            np.testing.assert_array_equal(x, y)
        else:
            assert x.dtype == np.float32
            _close(x, y, 1e-4)


@given(seeds)
def test_svd_eigh_det_inv(seed):
    a = _rand(seed, (N, N))
    s = L.svd(a, compute_uv=False)
    _close(s, sl.svd(a, compute_uv=False), 1e-4)
    u, s, vh = minijax.jit(lambda a: L.svd(a, full_matrices=False))(a)
    _close((u * s) @ vh, a, 1e-4)
    h = a + a.T
    for lower in (True, False):
        w, v = L.eigh(h, lower=lower)
        _close(w, sl.eigh(h, lower=lower, eigvals_only=True), 1e-4)
        _close(h @ v, v * w, 1e-4)
    _close(L.eigh(h, eigvals_only=True), sl.eigh(h, eigvals_only=True), 1e-4)
    _close(L.det(a), sl.det(a), 1e-4)
    _close(L.inv(a), sl.inv(a), 1e-3)


def test_integer_inputs():
    i = np.array([[2, 1], [1, 3]])
    for f in (L.det, L.inv, L.cholesky, L.expm, lambda a: L.lu_factor(a)[0]):
        assert f(i).dtype == np.float32


@pytest.mark.usefixtures("x64")
def test_det_inv_grads():
    a = _rand(0, (3, 3), np.float64)
    check_grads(L.det, (a,), **REV)
    check_grads(L.inv, (a,), **REV)


@given(seeds, st.sampled_from(["gen", "sym", "pos"]), st.booleans())
def test_solve(seed, assume_a, lower):
    a = _spd(seed)
    b = _rand(seed + 1, (N, 2))
    x = solve_j(a, b, assume_a=assume_a, lower=lower)
    assert x.dtype == np.float32
    _close(x, sl.solve(a, b, assume_a=assume_a, lower=lower), 1e-4)
    _close(L.solve(a, b[:, 0], assume_a=assume_a, lower=lower),
           sl.solve(a, b[:, 0], assume_a=assume_a, lower=lower), 1e-4)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("assume_a", ["gen", "pos"])
def test_solve_grad(assume_a):
    spd = lambda m: m @ m.T + N * jnp.eye(N, dtype=m.dtype)
    check_grads(lambda m, b: L.solve(spd(m), b, assume_a=assume_a),
                (_rand(0, (N, N), np.float64), _rand(1, (N, 2), np.float64)), **REV)
    with pytest.raises(ValueError, match="assume_a"):
        L.solve(np.eye(2), np.ones(2), assume_a="banded")


@given(seeds, st.sampled_from([0, 1, 2]), st.booleans(), st.booleans())
def test_solve_triangular(seed, trans, lower, unit_diagonal):
    a = _rand(seed, (N, N), np.complex64) + 4 * np.eye(N, dtype=np.complex64)
    b = _rand(seed + 1, (N, 2), np.complex64)
    kw = dict(trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    _close(solve_triangular_j(a, b, **kw), sl.solve_triangular(a, b, **kw), 1e-4)
    letter = "NTC"[trans]  # SciPy's letter codes for the same operations
    _close(L.solve_triangular(a, b[:, 0], trans=letter, lower=lower,
                              unit_diagonal=unit_diagonal),
           sl.solve_triangular(a, b[:, 0], **kw), 1e-4)


@pytest.mark.usefixtures("x64")
def test_solve_triangular_grad():
    a = np.tril(_rand(0, (N, N), np.float64)) + 4 * np.eye(N)
    check_grads(lambda a, b: L.solve_triangular(a, b, lower=True, trans=1),
                (a, _rand(1, (N, 2), np.float64)), **REV)
    with pytest.raises(ValueError, match="trans"):
        L.solve_triangular(a, np.ones(N), trans=3)


@given(seeds, st.sampled_from([0.1, 1.0, 6.0]))
def test_expm(seed, scale):
    # The scales reach different Pade orders and (6.0) the squaring steps.
    a = _rand(seed, (N, N)) * np.float32(scale / N)
    out = expm_j(a)
    assert out.dtype == np.float32
    ref = sl.expm(a.astype(np.float64))
    _close(out / np.abs(ref).max(), ref / np.abs(ref).max(), 2e-5)
    e = _rand(seed + 1, (N, N))
    ea, frechet = L.expm_frechet(a, e)
    ref_ea, ref_frechet = sl.expm_frechet(a.astype(np.float64), e.astype(np.float64))
    _close(ea / np.abs(ref_ea).max(), ref_ea / np.abs(ref_ea).max(), 2e-5)
    _close(frechet / np.abs(ref_frechet).max(), ref_frechet / np.abs(ref_frechet).max(), 1e-4)


@pytest.mark.usefixtures("x64")
def test_expm_float64_grad_batch_nan():
    a = _rand(0, (2, 3, 3), np.float64)
    check_grads(L.expm, (a[1] * 3.0,), **REV)
    # A batch whose second matrix needs more squarings than allowed: NaNs there only.
    out = L.expm(np.stack([a[0], a[1] * 1e3]), max_squarings=8)
    _close(out[0], sl.expm(a[0]), 1e-12)
    assert np.isnan(out[1]).all()
    upper = np.triu(a[0])
    _close(L.expm(upper, upper_triangular=True), sl.expm(upper), 1e-12)


@given(seeds, st.sampled_from(["qdwh", "svd"]), st.sampled_from(["right", "left"]))
def test_polar(seed, method, side):
    shape = (N, 3) if side == "right" else (3, N)
    a = _rand(seed, shape)
    u, p = L.polar(a, side=side, method=method)
    us, ps = sl.polar(a.astype(np.float64), side=side)
    assert u.dtype == np.float32 and p.dtype == np.float32
    _close(u, us, 1e-4)
    _close(p, ps, 1e-4)


def test_polar_square_jit():
    a = _rand(3, (N, N), np.complex64)
    u, p = minijax.jit(L.polar)(a)
    us, ps = sl.polar(a.astype(np.complex128))
    _close(u, us, 1e-4)
    _close(p, ps, 1e-4)


@given(seeds)
def test_special_matrices(seed):
    rng = np.random.default_rng(seed)
    c = rng.integers(-5, 5, 3)
    r = rng.integers(-5, 5, 4)
    t = L.toeplitz(c, r)
    assert t.dtype == np.int32
    np.testing.assert_array_equal(t, sl.toeplitz(c, r))
    cz = (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64)
    _close(L.toeplitz(cz), sl.toeplitz(cz), 1e-7)
    _close(L.toeplitz(np.stack([cz, 2 * cz]))[1], sl.toeplitz(2 * cz), 1e-7)
    blocks = [rng.standard_normal((2, 3)).astype(np.float32), np.float32(5.0),
              rng.standard_normal(2).astype(np.float32)]
    bd = L.block_diag(*blocks)
    assert bd.dtype == np.float32
    _close(bd, sl.block_diag(*blocks), 0)
    assert L.block_diag().shape == (1, 0)
    h = L.hilbert(5)
    assert h.dtype == np.float32
    _close(h, sl.hilbert(5), 1e-7)
