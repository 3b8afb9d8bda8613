"""lax.linalg.tridiagonal_solve against numpy.linalg.solve of the dense matrix, on the default
device: LAPACK's gtsv on the CPU; on a GPU (tests/run_on_gpu.sh) cuSPARSE's gtsv2 for m >= 3,
the unrolled lax fallback for m <= 2, and jaxlib's perturbed kernel for perturb_singular."""

import numpy as np
import pytest

import minijax
from minijax import lax
from tests.numpy._helpers import rand

pytestmark = pytest.mark.usefixtures("x64")  # tests/conftest.py


def dense(dl, d, du):
    """The (..., m, m) matrices of the diagonals (dl[..., 0] and du[..., m - 1] lie outside)."""
    m = d.shape[-1]
    return (d[..., :, None] * np.eye(m, dtype=d.dtype)
            + dl[..., :, None] * np.eye(m, k=-1, dtype=d.dtype)
            + du[..., :, None] * np.eye(m, k=1, dtype=d.dtype))


def system(batch, m, n, dtype, seed=0):
    """A diagonally dominant system, so every solver's pivoting gives the same X."""
    dl, du = rand((*batch, m), dtype, seed), rand((*batch, m), dtype, seed + 1)
    d = (rand((*batch, m), dtype, seed + 2) + 4).astype(dtype)
    return dl, d, du, rand((*batch, m, n), dtype, seed + 3)


def tol(dtype):
    return 2e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("m", [1, 2, 3, 7])
@pytest.mark.parametrize("batch", [(), (3,)])
@pytest.mark.parametrize("perturb_singular", [False, True])
def test_matches_dense_solve(dtype, m, batch, perturb_singular):
    dl, d, du, b = system(batch, m, 2, dtype)
    x = minijax.jit(lambda *a: lax.linalg.tridiagonal_solve(
        *a, perturb_singular=perturb_singular))(dl, d, du, b)
    assert x.dtype == dtype and x.shape == b.shape
    want = np.linalg.solve(dense(dl, d, du), b)
    np.testing.assert_allclose(np.asarray(x), want, rtol=tol(dtype), atol=tol(dtype))


@pytest.mark.parametrize("m", [2, 5])
def test_singular_system(m):
    # A zero row: without perturbation the solve is NaN, with it finite (JAX's both kernels)
    dl, d, du, b = system((), m, 1, np.float32)
    dl[1], d[1] = 0, 0
    if m > 2:
        du[1] = 0
    plain = lax.linalg.tridiagonal_solve(dl, d, du, b)
    perturbed = lax.linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True)
    assert not np.all(np.isfinite(np.asarray(plain)))
    assert np.all(np.isfinite(np.asarray(perturbed)))
