"""minijax.scipy.linalg's special matrices, Schur-form functions (schur, rsf2csf, hessenberg,
sqrtm, funm, solve_sylvester), qr_multiply and eigh_tridiagonal against scipy.linalg."""

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
N = 5
REV = dict(order=1, modes=("rev",), jit=True)


# ------------------------------------------------------------------------------------------------
# Special matrices


@given(seeds)
def test_matrices_from_arrays(seed):
    a = _rand(seed, (N,))
    for name, args in [("circulant", (a,)), ("companion", (a,)), ("fiedler", (a,)),
                       ("fiedler_companion", (a,)), ("fiedler_companion", (a[:4],)),
                       ("fiedler_companion", (a[:2],)), ("hankel", (a[:3], a[1:])),
                       ("hankel", (a[:3],)), ("leslie", (a, a[1:]))]:
        out = getattr(L, name)(*args)
        assert out.dtype == np.float32, name
        _close(out, getattr(sl, name)(*args), 1e-5)


def test_matrices_from_arrays_dtypes_and_batches():
    i = np.arange(1, 5, dtype=np.int32)
    assert L.circulant(i).dtype == np.int32 and L.fiedler(i).dtype == np.int32
    assert L.companion(i).dtype == np.float32  # a division, as in JAX
    assert L.hankel(i.astype(np.int8), np.arange(3.0)).dtype == np.float32
    batch = _rand(0, (2, 4))
    _close(L.circulant(batch), np.stack([sl.circulant(b) for b in batch]))
    _close(L.companion(batch), np.stack([sl.companion(b) for b in batch]), 1e-5)
    _close(L.fiedler_companion(batch), np.stack([sl.fiedler_companion(b) for b in batch]),
           1e-5)
    assert L.fiedler_companion(jnp.ones(1)).shape == (0, 0)
    with pytest.raises(ValueError, match="must be at least 2"):
        L.companion(jnp.ones(1))
    with pytest.raises(ValueError, match="Incorrect lengths for f and s"):
        L.leslie(jnp.ones(3), jnp.ones(3))


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolution_matrix(mode):
    a = _rand(1, (4,))
    for n in (2, 4, 7):
        m = L.convolution_matrix(a, n, mode)
        _close(m, sl.convolution_matrix(a, n, mode))
        v = _rand(n, (n,))
        _close(m @ v, np.convolve(a, v, mode), 1e-5)
    assert L.convolution_matrix(np.arange(3), 2).dtype == np.int32
    assert L.convolution_matrix(_rand(0, (2, 3)), 2).shape == (2, 4, 2)
    with pytest.raises(ValueError, match="positive integer"):
        L.convolution_matrix(a, 0)
    with pytest.raises(ValueError, match="mode must be one of"):
        L.convolution_matrix(a, 2, "foo")


def test_static_size_matrices():
    for n in (1, 2, 8):
        _close(L.hadamard(n), sl.hadamard(n))
    assert L.hadamard(4).dtype == np.int32 and L.hadamard(4, float).dtype == np.float32
    with pytest.raises(ValueError, match="positive power of 2"):
        L.hadamard(6)
    _close(L.helmert(5), sl.helmert(5), 1e-6)
    _close(L.helmert(5, full=True), sl.helmert(5, full=True), 1e-6)
    for kind in (None, "symmetric", "lower", "upper"):
        _close(L.pascal(6, kind), sl.pascal(6, kind or "symmetric").astype(float), 0)
        _close(L.invpascal(6, kind), sl.invpascal(6, kind or "symmetric").astype(float), 0)
    assert L.pascal(3).dtype == np.float32
    with pytest.raises(ValueError, match="Expected kind"):
        L.pascal(3, "foo")
    _close(L.invhilbert(6), sl.invhilbert(6), 1e-6)
    for scale in (None, "sqrtn", "n"):
        d = L.dft(6, scale)
        assert d.dtype == np.complex64
        _close(d, sl.dft(6, scale), 1e-6)
    with pytest.raises(ValueError, match="scale must be"):
        L.dft(3, "foo")


@pytest.mark.usefixtures("x64")
def test_special_matrices_x64_and_grads():
    assert L.hadamard(2).dtype == np.int64 and L.helmert(3).dtype == np.float64
    assert L.dft(2).dtype == np.complex128 and L.pascal(2).dtype == np.float32
    _close(L.invhilbert(10), sl.invhilbert(10), 1e-12)
    _close(L.invhilbert(6) @ L.hilbert(6), np.eye(6), 1e-6)
    a = _rand(2, (N,), np.float64)
    check_grads(L.circulant, (a,), **REV)
    check_grads(lambda c, r: L.hankel(c, r), (a[:3], a), **REV)
    check_grads(L.companion, (a,), **REV)
    check_grads(L.fiedler_companion, (a,), **REV)
    check_grads(lambda x: L.convolution_matrix(x, 3, "same"), (a,), **REV)


# ------------------------------------------------------------------------------------------------
# Schur-form functions (LAPACK gees / gehrd: CPU only)


def _reconstructs(z, t, a, tol):
    z, t = np.asarray(z), np.asarray(t)
    _close(z @ t @ np.conj(z.T), a, tol)
    _close(np.conj(z.T) @ z, np.eye(a.shape[-1]), tol)


@given(seeds, st.sampled_from([np.float32, np.complex64]))
def test_schur(seed, dtype):
    a = _rand(seed, (N, N), dtype)
    t, z = L.schur(a)
    assert t.dtype == dtype and z.dtype == dtype
    _reconstructs(z, t, a, 1e-4)
    _close(t, sl.schur(a)[0], 1e-4)  # the same LAPACK routine, so the same form
    tc, zc = L.schur(a, output="complex")
    assert tc.dtype == np.complex64
    _reconstructs(zc, tc, a, 1e-4)
    assert np.allclose(np.tril(np.asarray(tc), -1), 0)
    t2, z2 = L.rsf2csf(t, z)
    ts, zs = sl.rsf2csf(*sl.schur(a))
    _close(t2, ts, 1e-4)
    _close(z2, zs, 1e-4)


def test_schur_batched_vmapped_and_errors():
    a = _rand(3, (2, N, N))
    t, z = L.schur(a)
    for i in range(2):
        _reconstructs(z[i], t[i], a[i], 1e-4)
    tv, _ = minijax.vmap(L.schur)(a)
    _close(tv, t, 1e-6)
    with pytest.raises(ValueError, match="'output'"):
        L.schur(a, output="foo")
    with pytest.raises(TypeError):
        L.schur(np.ones((3, 3), np.int32))
    with pytest.raises(NotImplementedError, match="sort"):
        minijax.lax.linalg.schur(a[0], sort_eig_vals=True)


@given(seeds, st.sampled_from([np.float32, np.complex64]))
def test_hessenberg(seed, dtype):
    a = _rand(seed, (N, N), dtype)
    h, q = L.hessenberg(a, calc_q=True)
    hs, qs = sl.hessenberg(a, calc_q=True)
    _close(h, hs, 1e-4)
    _close(q, qs, 1e-4)
    _close(L.hessenberg(a), hs, 1e-4)
    _reconstructs(q, h, a, 1e-4)


def _well_conditioned(seed, dtype=np.float32):
    # Eigenvalues near N: positive real parts, away from the branch cut of sqrt.
    return (_rand(seed, (N, N), dtype) / 2 + N * np.eye(N)).astype(dtype)


@given(seeds)
def test_sqrtm_funm(seed):
    a = _well_conditioned(seed)
    s = L.sqrtm(a)
    assert s.dtype == np.complex64
    _close(s, sl.sqrtm(a), 1e-4)
    f, err = L.funm(a, jnp.exp, disp=False)
    fs, errs = sl.funm(a, np.exp, disp=False)
    assert f.dtype == np.complex64 and err.dtype == np.float32
    # float32's error is relative to the matrix's norm, not to each entry (seed 0 on an AVX2
    # CPU: 2.3e-4 off on an entry of 2.19, beside entries of 150)
    np.testing.assert_allclose(np.asarray(f), fs, rtol=1e-4, atol=1e-5 * np.abs(fs).max())
    np.testing.assert_allclose(float(err), errs, rtol=0.5)
    _close(L.funm(a, jnp.sin), sl.funm(a, np.sin), 1e-4)
    with pytest.raises(NotImplementedError):
        L.sqrtm(a, blocksize=2)
    with pytest.raises(ValueError, match="square"):
        L.funm(a[:2], jnp.exp)


@given(seeds, st.sampled_from(["schur", "eigen"]), st.sampled_from([np.float32, np.complex64]))
def test_solve_sylvester(seed, method, dtype):
    a, b = _well_conditioned(seed, dtype), _well_conditioned(seed + 1, dtype)[:3, :3]
    c = _rand(seed + 2, (N, 3), dtype)
    x = L.solve_sylvester(a, b, c, method=method)
    assert x.dtype == dtype
    _close(x, sl.solve_sylvester(a, b, c), 1e-4)


def test_solve_sylvester_singular_batched_and_errors():
    tri = np.triu(_well_conditioned(0))  # exact eigenvalues: its diagonal
    assert np.isnan(np.asarray(L.solve_sylvester(tri, -tri, np.ones((N, N))))).all()
    a = _well_conditioned(0)
    b, c = _well_conditioned(1)[:3, :3], _rand(2, (2, N, 3))
    x = L.solve_sylvester(a, b, c)
    _close(x, np.stack([sl.solve_sylvester(a, b, ci) for ci in c]), 1e-4)
    with pytest.raises(ValueError, match="Unrecognized method"):
        L.solve_sylvester(a, b, c, method="foo")


# ------------------------------------------------------------------------------------------------
# qr_multiply, eigh_tridiagonal


@given(seeds, st.sampled_from(["left", "right"]), st.booleans(), st.booleans())
def test_qr_multiply(seed, mode, pivoting, vector):
    a = _rand(seed, (N, 4))
    shape = {("left", False): (4, 3), ("left", True): (4,),
             ("right", False): (2, N), ("right", True): (N,)}[mode, vector]
    c = _rand(seed + 1, shape)
    out = L.qr_multiply(a, c, mode=mode, pivoting=pivoting)
    expected = sl.qr_multiply(a, c, mode=mode, pivoting=pivoting)
    assert len(out) == len(expected)
    for o, e in zip(out, expected):
        _close(o, e, 1e-4)


def test_qr_multiply_conjugate_batch_and_errors():
    a, c = _rand(0, (N, 3), np.complex64), _rand(1, (2, N), np.complex64)
    out, r = L.qr_multiply(a, c, conjugate=True)
    e, er = sl.qr_multiply(a, c, conjugate=True)
    _close(out, e, 1e-4)
    _close(r, er, 1e-4)
    ab = _rand(2, (2, N, 3))
    outb, _ = L.qr_multiply(ab, _rand(3, (4, N)))
    assert outb.shape == (2, 4, 3)
    with pytest.raises(ValueError, match="c @ Q"):
        L.qr_multiply(a, c[:, :3])
    with pytest.raises(ValueError, match="mode must be"):
        L.qr_multiply(a, c, mode="foo")


@given(seeds)
def test_eigh_tridiagonal(seed):
    d, e = _rand(seed, (6,)), _rand(seed + 1, (5,))
    w = L.eigh_tridiagonal(d, e, eigvals_only=True)
    _close(w, sl.eigh_tridiagonal(d, e, eigvals_only=True), 1e-5)
    w, v = L.eigh_tridiagonal(d, e, select="i", select_range=(1, 3))
    ws, vs = sl.eigh_tridiagonal(d, e, select="i", select_range=(1, 3))
    _close(w, ws, 1e-5)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    _close(t @ np.asarray(v), np.asarray(v) * ws[None, :], 1e-4)


@pytest.mark.usefixtures("x64")
def test_eigh_tridiagonal_x64_tol_and_errors():
    d, e = _rand(0, (8,), np.float64), _rand(1, (7,), np.float64)
    _close(L.eigh_tridiagonal(d, e, eigvals_only=True),
           sl.eigh_tridiagonal(d, e, eigvals_only=True), 1e-12)
    coarse = L.eigh_tridiagonal(d, e, eigvals_only=True, tol=1e-3)
    _close(coarse, sl.eigh_tridiagonal(d, e, eigvals_only=True), 2e-3)
    with pytest.raises(NotImplementedError, match="select='v'"):
        L.eigh_tridiagonal(d, e, eigvals_only=True, select="v", select_range=(0, 1))
    with pytest.raises(TypeError, match="float32 and float64"):
        L.eigh_tridiagonal(np.arange(3), np.arange(2), eigvals_only=True)
