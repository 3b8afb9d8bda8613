"""minijax.numpy.linalg against numpy.linalg (values, shapes, dtypes), batched, under jit,
vmap and grad."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.test_util import check_grads
from tests.numpy._helpers import match_eigvals as match
from tests.numpy._helpers import rand

DTYPES = [np.float32, np.float64, np.complex64]


pytestmark = pytest.mark.usefixtures("x64")  # tests/conftest.py


def close(a, b, dtype, scale=10.0):
    t = (1e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11) * scale
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=t, atol=t)


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def test_namespace():
    assert minijax.numpy.linalg is jnp.linalg
    for name in ["norm", "det", "slogdet", "inv", "solve", "cholesky", "qr", "svd", "eigh", "eig",
                 "eigvals", "eigvalsh", "lstsq", "pinv", "matrix_power", "matrix_rank"]:
        assert callable(getattr(jnp.linalg, name)), name


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_det_slogdet_inv(dtype, shape):
    a = rand(shape, dtype)
    for f in (lambda x: x, minijax.jit):
        close(f(jnp.linalg.det)(a), np.linalg.det(a), dtype, 100)
        sign, logdet = f(jnp.linalg.slogdet)(a)
        ref = np.linalg.slogdet(a)
        close(sign, ref[0], dtype, 100)
        close(logdet, ref[1], dtype, 100)
        inv = np.asarray(f(jnp.linalg.inv)(a))
        assert inv.dtype == dtype
        close(inv, np.linalg.inv(a), dtype, 100)


def test_singular():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    sign, logdet = jnp.linalg.slogdet(a)
    assert float(sign) == 0 and np.isneginf(float(logdet))
    assert abs(float(jnp.linalg.det(a))) < 1e-12


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve(dtype):
    a, b = rand((2, 4, 4), dtype), rand((2, 4, 3), dtype, 1)
    close(jnp.linalg.solve(a, b), np.linalg.solve(a, b), dtype, 100)
    v = rand((4,), dtype, 2)
    close(jnp.linalg.solve(a[0], v), np.linalg.solve(a[0], v), dtype, 100)
    close(jnp.linalg.solve(a, b[0]), np.linalg.solve(a, b[0]), dtype, 100)  # broadcast b


def test_int_inputs_become_float():
    a = np.array([[2, 1], [1, 3]])
    out = jnp.linalg.inv(a)
    assert out.dtype == np.float64
    close(out, np.linalg.inv(a), np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
def test_factorizations(dtype):
    a = rand((2, 5, 3), dtype)
    q, r = jnp.linalg.qr(a)
    assert q.shape == (2, 5, 3) and r.shape == (2, 3, 3)
    close(np.asarray(q) @ np.asarray(r), a, dtype)
    q, r = jnp.linalg.qr(a, mode="complete")
    assert q.shape == (2, 5, 5) and r.shape == (2, 5, 3)
    close(np.abs(jnp.linalg.qr(a, mode="r")), np.abs(np.linalg.qr(a, mode="r")), dtype)
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), a, dtype)
    close(jnp.linalg.svd(a, compute_uv=False), np.linalg.svd(a, compute_uv=False), dtype)
    spd = np.asarray(H(a) @ a + 3 * np.eye(3), dtype)
    L = np.asarray(jnp.linalg.cholesky(spd))
    close(L, np.linalg.cholesky(spd), dtype)
    close(jnp.linalg.cholesky(spd, upper=True), H(L), dtype)
    w, v = jnp.linalg.eigh(spd)
    close(spd @ np.asarray(v), np.asarray(v) * np.asarray(w)[..., None, :], dtype)
    close(w, np.linalg.eigvalsh(spd), dtype)
    close(jnp.linalg.eigvalsh(spd, UPLO="U"), np.linalg.eigvalsh(spd, UPLO="U"), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pinv_lstsq_rank_power(dtype):
    a = rand((6, 4), dtype)
    close(jnp.linalg.pinv(a), np.linalg.pinv(a), dtype, 100)
    b = rand((6, 2), dtype, 1)
    got, ref = jnp.linalg.lstsq(a, b), np.linalg.lstsq(a, b, rcond=None)
    for g, r in zip(got, ref):
        close(g, r, dtype, 100)
    x, resid, rank, s = jnp.linalg.lstsq(a, b[:, 0])
    close(x, ref[0][:, 0], dtype, 100)
    assert resid.shape == (1,)
    low_rank = a @ np.diag([1.0, 1.0, 0.0, 0.0]).astype(dtype) @ rand((4, 4), dtype, 2)
    assert int(jnp.linalg.matrix_rank(low_rank)) == np.linalg.matrix_rank(low_rank) == 2
    sq = rand((3, 3), dtype, 3)
    for n in (0, 1, 2, 5, -1, -3):
        close(jnp.linalg.matrix_power(sq, n), np.linalg.matrix_power(sq, n), dtype, 1000)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norms(ord):
    a = rand((2, 3, 4), np.float64)
    close(jnp.linalg.norm(a, ord, axis=(1, 2)), np.linalg.norm(a, ord, axis=(1, 2)), np.float64)
    close(jnp.linalg.norm(a, ord, axis=(2, 0), keepdims=True),
          np.linalg.norm(a, ord, axis=(2, 0), keepdims=True), np.float64)


@pytest.mark.parametrize("ord", [None, 1, 2, 3, 0, np.inf, -np.inf])
def test_vector_norms(ord):
    a = rand((3, 4), np.complex64)
    close(jnp.linalg.norm(a, ord, axis=1), np.linalg.norm(a, ord, axis=1), np.float32)
    close(jnp.linalg.norm(a), np.linalg.norm(a), np.float32)
    close(jnp.linalg.norm(a[0], ord), np.linalg.norm(a[0], ord), np.float32)


def test_vmap_of_solve_and_det():
    a, b = rand((3, 4, 4), np.float64), rand((3, 4), np.float64, 1)
    out = minijax.vmap(jnp.linalg.solve)(a, b)
    dets = minijax.vmap(jnp.linalg.det)(a)
    for i in range(3):
        close(out[i], np.linalg.solve(a[i], b[i]), np.float64)
        close(dets[i], np.linalg.det(a[i]), np.float64)


@pytest.mark.parametrize("fn", ["det", "slogdet", "inv", "solve", "pinv", "norm_nuc"])
def test_grads(fn):
    a = rand((3, 3), np.float64) + 3 * np.eye(3)
    f = {
        "det": jnp.linalg.det,
        "slogdet": lambda x: jnp.linalg.slogdet(x)[1],
        "inv": jnp.linalg.inv,
        "solve": lambda x: jnp.linalg.solve(x, jnp.arange(3.0)),
        "pinv": jnp.linalg.pinv,
        "norm_nuc": lambda x: jnp.linalg.norm(x, "nuc"),
    }[fn]
    check_grads(f, (a,), 1, modes=("fwd", "rev"), jit=True)


# ------------------------------------------------------------------------------------------------
# eig / eigvals (general matrices) and roots (companion-matrix eigenvalues)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eig_eigvals(dtype):
    a = rand((2, 4, 4), dtype)
    w, v = jnp.linalg.eig(a)
    w, v = np.asarray(w), np.asarray(v)
    cdtype = np.result_type(dtype, np.complex64)
    assert w.dtype == v.dtype == cdtype and w.shape == (2, 4) and v.shape == (2, 4, 4)
    close(a @ v, v * w[..., None, :], dtype)
    want = np.linalg.eigvals(a.astype(np.complex128))
    close(match(w, want), want, dtype)
    ev = np.asarray(minijax.jit(jnp.linalg.eigvals)(a))
    assert ev.dtype == cdtype
    close(match(ev, want), want, dtype)


def test_eig_int_input_vmap_and_grad():
    w = jnp.linalg.eigvals(np.array([[2, 1], [1, 2]]))
    assert w.dtype == np.complex128
    close(np.sort(np.asarray(w).real), [1.0, 3.0], np.float64)
    xs = rand((3, 4, 4), np.float64, seed=2)
    out = np.asarray(minijax.vmap(jnp.linalg.eigvals)(xs))
    for i in range(3):
        np.testing.assert_allclose(out[i], np.asarray(jnp.linalg.eigvals(xs[i])), atol=1e-12)
    # the sum and product of the eigenvalues (trace, det) are smooth and order-free
    a = rand((3, 3), np.float64, seed=4) + np.diag([0.0, 3.0, 6.0])
    check_grads(lambda x: jnp.real(jnp.sum(jnp.linalg.eigvals(x) ** 2)), (a,), 1,
                modes=("fwd", "rev"))
    g = minijax.grad(lambda x: jnp.real(jnp.sum(jnp.linalg.eigvals(x))))(a)
    close(g, np.eye(3), np.float64)  # d trace / dA = I


@pytest.mark.parametrize("p", [[1.0, -3.0, 2.0], [2.0, 0.5, -1.0, 3.0, 1.0], [1.0, 0.0, 0.0, -1.0],
                               [0.0, 0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0, 0.0],
                               [0.0, 1.5, 2.0], [5.0], [0.0, 0.0], []])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_roots(p, dtype):
    p = np.asarray(p, dtype)
    got = np.asarray(jnp.roots(p))
    want = np.roots(p).astype(np.complex128)
    assert got.dtype == np.result_type(dtype, np.complex64) and got.shape == want.shape
    close(match(got, want), want, dtype, scale=100)


def test_roots_without_stripping_under_jit():
    f = minijax.jit(lambda p: jnp.roots(p, strip_zeros=False))
    got = np.asarray(f(np.array([0.0, 0.0, 1.0, -3.0, 2.0])))
    assert got.shape == (4,) and np.isnan(got[2:]).all()
    close(np.sort(got[:2].real), [1.0, 2.0], np.float64)
    assert np.isnan(np.asarray(f(np.zeros(3)))).all()
    with pytest.raises(minijax.errors.ConcretizationTypeError, match="strip_zeros=False"):
        minijax.jit(jnp.roots)(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="rank-1"):
        jnp.roots(np.ones((2, 2)))
    # poly of a square matrix: its characteristic polynomial (through eigvals)
    a = rand((3, 3), np.float64, seed=5)
    close(np.asarray(jnp.poly(a)).real, np.poly(a), np.float64)
