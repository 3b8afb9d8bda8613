"""lax.linalg primitives, checked by reconstruction (L L^H = A, Q R = A, P A = L U,
A V = V diag(w), U diag(s) Vh = A) and against numpy.linalg, eagerly, under jit, under vmap
(against stacking per-example results) and under grad (finite differences)."""

from functools import partial

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.test_util import check_grads
from tests.numpy._helpers import match_eigvals, rand

DTYPES = [np.float32, np.float64, np.complex64]
SHAPES = [(4, 4), (3, 5, 5), (2, 2, 3, 3)]
RECT = [(5, 3), (3, 5), (2, 4, 4), (2, 6, 2)]


pytestmark = pytest.mark.usefixtures("x64")  # tests/conftest.py


def spd(shape, dtype, seed=0):
    x = rand(shape, dtype, seed)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def tol(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def close(a, b, dtype, scale=1.0):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=tol(dtype) * scale,
                               rtol=tol(dtype) * scale)


# ------------------------------------------------------------------------------------------------
# Reconstruction, eagerly and under jit


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_cholesky(shape, dtype):
    a = spd(shape, dtype)
    for f in (lax.cholesky, minijax.jit(lax.cholesky)):
        L = np.asarray(f(a))
        assert L.dtype == dtype and L.shape == shape
        close(L @ H(L), a, dtype, scale=10)
        np.testing.assert_array_equal(np.triu(L, 1), 0)
        close(L, np.linalg.cholesky(a), dtype, scale=10)


def test_cholesky_not_positive_definite_gives_nan():
    a = np.stack([np.eye(3), -np.eye(3)]).astype(np.float32)
    L = np.asarray(lax.cholesky(a))
    # as JAX 0.10.2: NaN on and below the diagonal, zeros above it
    assert np.all(np.isfinite(L[0])) and np.all(np.isnan(L[1][np.tril_indices(3)]))
    assert np.all(L[1][np.triu_indices(3, 1)] == 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a,conjugate_a", [(False, False), (True, False), (True, True),
                                                     (False, True)])
def test_triangular_solve(dtype, left_side, lower, transpose_a, conjugate_a):
    a = rand((2, 4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    b = rand((2, 4, 3) if left_side else (2, 3, 4), dtype, seed=1)
    x = minijax.jit(lambda a, b: lax.triangular_solve(
        a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
        conjugate_a=conjugate_a))(a, b)
    t = np.tril(a) if lower else np.triu(a)
    if conjugate_a:
        t = np.conj(t)
    if transpose_a:
        t = np.swapaxes(t, -1, -2)
    lhs = t @ np.asarray(x) if left_side else np.asarray(x) @ t
    close(lhs, b, dtype, scale=10)


def test_triangular_solve_unit_diagonal_and_vector():
    a = rand((4, 4), np.float64) + 4 * np.eye(4)
    b = rand((4,), np.float64, seed=1)
    x = lax.triangular_solve(a, b, left_side=True, lower=True, unit_diagonal=True)
    t = np.tril(a, -1) + np.eye(4)
    close(t @ np.asarray(x), b, np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + RECT)
def test_lu(shape, dtype):
    a = rand(shape, dtype)
    lu, piv, perm = minijax.jit(lax.lu)(a)
    lu, piv, perm = map(np.asarray, (lu, piv, perm))
    *batch, m, n = shape
    k = min(m, n)
    assert piv.shape == (*batch, k) and perm.shape == (*batch, m)
    assert piv.dtype == perm.dtype == np.int32
    L = np.tril(lu, -1)[..., :, :k] + np.eye(m, k, dtype=dtype)
    U = np.triu(lu)[..., :k, :]
    pa = np.take_along_axis(a, perm[..., :, None], axis=-2)
    close(L @ U, pa, dtype, scale=10)
    # the permutation is the pivots' row swaps applied in order (LAPACK's convention)
    for idx in np.ndindex(*batch):
        expected = np.arange(m)
        for i, p in enumerate(piv[idx]):
            expected[[i, p]] = expected[[p, i]]
        np.testing.assert_array_equal(perm[idx], expected)
    if np.dtype(dtype).kind == "f":  # partial pivoting: |L| <= 1 (complex pivots on |re|+|im|)
        assert np.all(np.abs(L) <= 1 + 1e-6)


def test_lu_pivots_to_permutation():
    piv = np.array([[2, 2, 3, 3], [0, 3, 3, 3]], np.int32)
    out = np.asarray(lax.lu_pivots_to_permutation(piv, 5))
    for row, p in zip(out, piv):
        expected = np.arange(5)
        for i, j in enumerate(p):
            expected[[i, j]] = expected[[j, i]]
        np.testing.assert_array_equal(row, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + RECT)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr(shape, dtype, full_matrices):
    a = rand(shape, dtype)
    q, r = map(np.asarray, minijax.jit(lambda x: lax.qr(x, full_matrices=full_matrices))(a))
    *batch, m, n = shape
    k = m if full_matrices else min(m, n)
    assert q.shape == (*batch, m, k) and r.shape == (*batch, k, n)
    close(q @ r, a, dtype, scale=10)
    close(H(q) @ q, np.broadcast_to(np.eye(k), (*batch, k, k)), dtype, scale=10)
    np.testing.assert_array_equal(np.tril(r, -1), 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_eigh(shape, dtype):
    a = rand(shape, dtype)
    a = a + H(a)
    v, w = map(np.asarray, minijax.jit(lax.eigh)(a))
    assert w.dtype == np.zeros((), dtype).real.dtype
    close(a @ v, v * w[..., None, :], dtype, scale=10)
    close(w, np.linalg.eigvalsh(a), dtype, scale=10)
    n = shape[-1]
    close(H(v) @ v, np.broadcast_to(np.eye(n), v.shape), dtype, scale=10)


def test_eigh_reads_only_one_triangle():
    a = rand((4, 4), np.float64)
    sym = np.tril(a) + np.tril(a, -1).T
    _, w = lax.eigh(a, lower=True, symmetrize_input=False)
    close(w, np.linalg.eigvalsh(sym), np.float64)
    _, w = lax.eigh(a, lower=False, symmetrize_input=False)
    close(w, np.linalg.eigvalsh(np.triu(a) + np.triu(a, 1).T), np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + RECT)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd(shape, dtype, full_matrices):
    a = rand(shape, dtype)
    u, s, vt = map(np.asarray, minijax.jit(lambda x: lax.svd(x, full_matrices=full_matrices))(a))
    *batch, m, n = shape
    k = min(m, n)
    assert s.shape == (*batch, k) and s.dtype == np.zeros((), dtype).real.dtype
    assert u.shape == (*batch, m, m if full_matrices else k)
    assert vt.shape == (*batch, n if full_matrices else k, n)
    close((u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :], a, dtype, scale=10)
    close(s, np.linalg.svd(a, compute_uv=False), dtype, scale=10)
    close(lax.svd(a, compute_uv=False), s, dtype, scale=10)


# ------------------------------------------------------------------------------------------------
# vmap against stacking per-example results (sign-free quantities where signs are arbitrary)


def _invariants(name, x):
    if name == "cholesky":
        return [lax.cholesky(x)]
    if name == "lu":
        return list(lax.lu(x))
    if name == "qr":
        q, r = lax.qr(x, full_matrices=False)
        return [q @ r, jnp.abs(r)]
    if name == "eigh":
        v, w = lax.eigh(x)
        return [w, jnp.abs(v)]
    u, s, vt = lax.svd(x, full_matrices=False)
    return [s, u @ vt]


@pytest.mark.parametrize("name", ["cholesky", "lu", "qr", "eigh", "svd"])
@pytest.mark.parametrize("axis", [0, 2])
def test_vmap_matches_stacking(name, axis):
    xs = spd((3, 4, 4), np.float64) if name in ("cholesky", "eigh") else rand((3, 4, 4),
                                                                             np.float64)
    batched = np.moveaxis(xs, 0, axis)
    outs = minijax.jit(minijax.vmap(lambda x: _invariants(name, x), in_axes=axis))(batched)
    for i in range(3):
        for got, want in zip(outs, _invariants(name, xs[i])):
            np.testing.assert_allclose(np.asarray(got)[i], np.asarray(want), atol=1e-10)


def test_vmap_triangular_solve_one_operand_mapped():
    a = rand((4, 4), np.float64) + 4 * np.eye(4)
    bs = rand((3, 4, 2), np.float64, seed=1)
    f = lambda a, b: lax.triangular_solve(a, b, left_side=True, lower=True)
    out = minijax.vmap(f, in_axes=(None, 0))(a, bs)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(out[i]), np.asarray(f(a, bs[i])), atol=1e-12)
    out = minijax.vmap(f, in_axes=(0, None))(np.stack([a, 2 * a]), bs[0])
    np.testing.assert_allclose(np.asarray(out[1]), np.asarray(f(2 * a, bs[0])), atol=1e-12)


# ------------------------------------------------------------------------------------------------
# Derivatives against finite differences (float64)


def _spd_of(x):
    n = x.shape[-1]
    return x @ jnp.swapaxes(x, -1, -2) + n * jnp.eye(n)


def _sym(x):
    return x + jnp.swapaxes(x, -1, -2)


GRAD_CASES = {
    "cholesky": (lambda x: lax.cholesky(_spd_of(x)), [(2, 3, 3)], 2),
    "triangular_solve_left": (lambda a, b: lax.triangular_solve(
        a + 4 * jnp.eye(3), b, left_side=True, lower=True), [(2, 3, 3), (2, 3, 2)], 2),
    "triangular_solve_right_T_unit": (lambda a, b: lax.triangular_solve(
        a + 4 * jnp.eye(3), b, left_side=False, lower=False, transpose_a=True,
        unit_diagonal=True), [(3, 3), (4, 3)], 2),
    "lu_square": (lambda x: lax.lu(x)[0], [(2, 3, 3)], 2),
    "lu_wide": (lambda x: lax.lu(x)[0], [(3, 5)], 1),
    "lu_tall": (lambda x: lax.lu(x)[0], [(5, 3)], 1),
    "qr_tall": (lambda x: lax.qr(x, full_matrices=False), [(2, 5, 3)], 1),
    "qr_square_full": (lambda x: lax.qr(x, full_matrices=True), [(3, 3)], 1),
    "eigh": (lambda x: lax.eigh(_sym(x)), [(2, 4, 4)], 1),
    "svd_tall": (lambda x: lax.svd(x, full_matrices=False), [(5, 3)], 1),
    "svd_wide": (lambda x: lax.svd(x, full_matrices=False), [(2, 3, 4)], 1),
    "svd_values": (lambda x: lax.svd(x, compute_uv=False), [(4, 3)], 1),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grads(name):
    f, shapes, order = GRAD_CASES[name]
    args = tuple(rand(s, np.float64, seed=i) for i, s in enumerate(shapes))
    check_grads(f, args, order, modes=("fwd", "rev"), jit=True)


def test_grads_complex_eigh_and_cholesky():
    x = rand((3, 3), np.complex128)
    herm = lambda x: x + jnp.conj(jnp.swapaxes(x, -1, -2))
    # eigenvalues and gauge-free projectors |v_i|^2 are smooth functions of a Hermitian input
    check_grads(lambda x: lax.eigh(herm(x))[1], (x,), 1, modes=("fwd", "rev"), jit=True)
    check_grads(lambda x: jnp.abs(lax.eigh(herm(x))[0]) ** 2, (x,), 1, modes=("fwd", "rev"),
                jit=True)
    pd = lambda x: x @ jnp.conj(jnp.swapaxes(x, -1, -2)) + 3 * jnp.eye(3)
    check_grads(lambda x: lax.cholesky(pd(x)), (x,), 1, modes=("fwd", "rev"), jit=True)


def test_errors():
    with pytest.raises(ValueError, match="square"):  # symmetrizing would broadcast (1, n)
        lax.cholesky(np.zeros((3, 4), np.float32), symmetrize_input=False)
    with pytest.raises(TypeError, match="Accepted dtypes at position 0 are subtypes of "
                                        "floating, complexfloating"):  # JAX 0.10.2's words
        lax.qr(np.zeros((3, 3), np.int32))
    with pytest.raises(ValueError, match="Incompatible shapes"):
        lax.triangular_solve(np.eye(3, dtype=np.float32), np.zeros((4, 2), np.float32),
                             left_side=True)


# ------------------------------------------------------------------------------------------------
# General eigendecomposition (geev): complex eigenvalues/vectors of non-symmetric matrices

EIG_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
# cuSOLVER's geev has no left eigenvectors (JAX refuses them on GPUs too); a GPU run of the
# suite checks the right ones and the refusal.
LEFT = minijax.default_backend() == "cpu"


@pytest.mark.parametrize("dtype", EIG_DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5)])
def test_eig(shape, dtype):
    a = rand(shape, dtype)
    eig = partial(lax.eig, compute_left_eigenvectors=LEFT)
    w, *vl, vr = map(np.asarray, minijax.jit(eig)(a))
    cdtype = np.result_type(dtype, np.complex64)
    assert w.shape == shape[:-1] and vr.shape == shape
    assert w.dtype == vr.dtype == cdtype
    close(a @ vr, vr * w[..., None, :], dtype, scale=10)           # A V = V diag(w)
    if LEFT:
        (vl,) = vl
        assert vl.shape == shape and vl.dtype == cdtype
        close(H(vl) @ a, w[..., :, None] * H(vl), dtype, scale=10)  # u^H A = w u^H
    else:
        with pytest.raises(NotImplementedError, match="left eigenvectors"):
            lax.eig(a)
    close(np.linalg.norm(vr, axis=-2), np.ones(shape[:-1]), dtype, scale=10)
    want = np.linalg.eigvals(a.astype(np.complex128))
    close(match_eigvals(w, want), want, dtype, scale=10)


def test_eig_flags_and_real_spectrum():
    a = rand((5, 5), np.float64, seed=3)
    (w,) = lax.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    w2, vr = lax.eig(a, compute_left_eigenvectors=False)
    np.testing.assert_array_equal(np.asarray(w), np.asarray(w2))
    assert vr.shape == (5, 5)
    if LEFT:
        w3, vl = lax.eig(a, compute_right_eigenvectors=False)
        np.testing.assert_array_equal(np.asarray(w), np.asarray(w3))
        assert vl.shape == (5, 5)
    # a matrix with a real spectrum: real eigenvectors (zero imaginary parts)
    t = np.triu(rand((4, 4), np.float64)) + np.diag([1.0, 2.0, 3.0, 4.0])
    w, vr = lax.eig(t, compute_left_eigenvectors=False)
    close(np.sort(np.asarray(w).real), np.sort(np.diag(t)), np.float64)
    assert np.all(np.asarray(vr).imag == 0) and np.all(np.asarray(w).imag == 0)
    (w0,) = lax.eig(np.zeros((0, 0), np.float32), compute_left_eigenvectors=False,
                    compute_right_eigenvectors=False)
    assert w0.shape == (0,) and w0.dtype == np.complex64


@pytest.mark.parametrize("axis", [0, 2])
def test_vmap_eig(axis):
    xs = rand((3, 4, 4), np.float64)
    eig = partial(lax.eig, compute_left_eigenvectors=LEFT)
    outs = minijax.jit(minijax.vmap(eig, in_axes=axis))(np.moveaxis(xs, 0, axis))
    for i in range(3):
        for got, want in zip(outs, eig(xs[i])):
            np.testing.assert_allclose(np.asarray(got)[i], np.asarray(want), atol=1e-10)


def _distinct(shape, dtype, seed=0):
    """A matrix whose eigenvalues are well separated (a perturbed diagonal 0, 3, 6, ...)."""
    n = shape[-1]
    return (0.5 * rand(shape, dtype, seed) + np.diag(3.0 * np.arange(n))).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_grads_eig(dtype):
    eigvals = lambda x: lax.eig(x, compute_left_eigenvectors=False,
                                compute_right_eigenvectors=False)[0]
    a = _distinct((2, 4, 4), dtype)
    check_grads(eigvals, (a,), 1, modes=("fwd", "rev"), jit=True)
    # eigenvectors (opt-in, JAX's normalization-aware rule): forward mode, 3x3
    b = _distinct((3, 3), dtype, seed=1)
    check_grads(lambda x: lax.eig(x, compute_left_eigenvectors=LEFT, enable_eigvec_derivs=True),
                (b,), 1, modes=("fwd",))
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        minijax.jvp(lambda x: lax.eig(x), (b,), (b,))
