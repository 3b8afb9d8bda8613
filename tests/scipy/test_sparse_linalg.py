"""minijax.scipy.sparse.linalg (cg, bicgstab, gmres) against direct solves and
scipy.sparse.linalg: matrices and functions on pytrees, preconditioners, jit, and gradients
(implicit, against NumPy's closed forms and finite differences)."""

import numpy as np
import pytest
import scipy.sparse.linalg as ssl
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from minijax.scipy.sparse import linalg as SL
from minijax.test_util import check_grads
from tests.scipy._helpers import rand as _rand

seeds = st.integers(0, 2 ** 31 - 1)
N = 6


def _spd(seed, dtype=np.float32):
    m = _rand(seed, (N, N), dtype)
    return (m @ np.conj(m.T) + N * np.eye(N)).astype(dtype)


def _general(seed, dtype=np.float32):
    return (_rand(seed, (N, N), dtype) + 2 * N ** 0.5 * np.eye(N)).astype(dtype)


SOLVERS = {
    "cg": SL.cg, "bicgstab": SL.bicgstab,
    "gmres": SL.gmres, "gmres_incremental": lambda *a, **k: SL.gmres(
        *a, solve_method="incremental", **k)}
# One compiled program per solver and static configuration, shared by hypothesis examples.
JITTED = {name: minijax.jit(lambda A, b, f=f: f(A, b, tol=1e-6)[0])
          for name, f in SOLVERS.items()}


@given(seeds, st.sampled_from(sorted(SOLVERS)), st.sampled_from([np.float32, np.complex64]))
def test_solves_match_direct_solve(seed, name, dtype):
    A = _spd(seed, dtype) if name == "cg" else _general(seed, dtype)
    b = _rand(seed + 1, (N,), dtype)
    x = JITTED[name](A, b)
    assert x.dtype == dtype
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(A, b), rtol=1e-4, atol=1e-4)


def test_agrees_with_scipy_and_returns_info():
    A, b = _spd(0), _rand(1, (N,))
    for mine, ref in ((SL.cg, ssl.cg), (SL.bicgstab, ssl.bicgstab), (SL.gmres, ssl.gmres)):
        x, info = mine(A, b, tol=1e-6)
        xs, _ = ref(A, b, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(x), xs, rtol=1e-4, atol=1e-5)
        assert info == (0 if mine is SL.gmres else None)


def test_pytree_operator_preconditioner_and_x0():
    A1, A2 = _spd(2), _spd(3)
    b = {"u": _rand(4, (N,)), "v": _rand(5, (N,))}
    op = lambda x: {"u": A1 @ x["u"], "v": A2 @ x["v"]}
    diag = {"u": np.diag(A1), "v": np.diag(A2)}
    jacobi = lambda x: {k: x[k] / diag[k] for k in x}
    x0 = {"u": np.ones(N, np.float32), "v": np.zeros(N, np.float32)}
    for solver, M in ((SL.cg, jacobi), (SL.bicgstab, None), (SL.gmres, jacobi)):
        x, _ = solver(op, b, x0=x0, tol=1e-6, M=M)
        np.testing.assert_allclose(np.asarray(x["u"]), np.linalg.solve(A1, b["u"]),
                                   rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(np.asarray(x["v"]), np.linalg.solve(A2, b["v"]),
                                   rtol=1e-4, atol=1e-4)
    # A matrix preconditioner, and gmres restarting with a short Krylov space.
    A, bb = _general(6), _rand(7, (N,))
    x, _ = SL.gmres(A, bb, tol=1e-6, restart=2, M=np.linalg.inv(np.diag(np.diag(A))))
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(A, bb), rtol=1e-4, atol=1e-4)


def test_maxiter_and_errors():
    A, b = _spd(8), _rand(9, (N,))
    x1, _ = SL.cg(A, b, maxiter=1)
    r1 = np.linalg.norm(A @ np.asarray(x1) - b)
    assert 1e-3 < r1 < np.linalg.norm(b)  # one step: better than x0 = 0, far from solved
    with pytest.raises(ValueError, match="matching shapes"):
        SL.cg(A, b, x0=np.ones(3, np.float32))
    with pytest.raises(ValueError, match="square matrix"):
        SL.cg(np.ones((2, 3), np.float32), b[:2])
    with pytest.raises(ValueError, match="invalid solve_method"):
        SL.gmres(A, b, solve_method="foo")


@pytest.mark.usefixtures("x64")
def test_gradients():
    A, b = _spd(10, np.float64), _rand(11, (N,), np.float64)
    G = _general(12, np.float64)
    opts = dict(order=1, modes=("rev",), atol=1e-5, rtol=1e-5, jit=True)
    check_grads(lambda m: SL.cg(m @ m.T + N * jnp.eye(N), b, tol=1e-12)[0],
                (_rand(13, (N, N), np.float64),), **opts)
    check_grads(lambda g, b: SL.bicgstab(g, b, tol=1e-12)[0], (G, b), **opts)
    # A function closing over a traced parameter.
    check_grads(lambda s, b: SL.gmres(lambda x: G @ x + s * x, b, tol=1e-12)[0],
                (np.float64(0.5), b), **opts)
    g = minijax.grad(lambda b: jnp.sum(SL.cg(A, b, tol=1e-12)[0]))(b)
    np.testing.assert_allclose(np.asarray(g), np.linalg.solve(A, np.ones(N)), rtol=1e-8)
