"""``jax.scipy.linalg``'s Schur-form functions: ``schur``, ``rsf2csf``, ``hessenberg``,
``sqrtm``, ``funm`` and ``solve_sylvester``.

They rest on LAPACK's gees/gehrd (``minijax.lax.linalg.schur`` / ``hessenberg``), which JAX
and minijax run on the CPU only. On a triangular Schur factor T, a matrix function F = f(T)
commutes with T, and F T = T F fixes each entry of F from entries on nearer diagonals
(Parlett's recurrence; for the square root, R R = T in the same way). So the
triangular factors are filled one superdiagonal at a time: each step is a matrix product
over the whole matrix, masked to one diagonal, and the loop runs n - 1 times.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.jitting import jit
from minijax.lax import linalg as lax_linalg
from minijax.lax.control_flow.common import vary_like
from minijax.numpy._util import promote_dtypes_inexact

__all__ = ["funm", "hessenberg", "rsf2csf", "schur", "solve_sylvester", "sqrtm"]

_HIGHEST = lax.Precision.HIGHEST


def _dot(a, b):
    return jnp.matmul(a, b, precision=_HIGHEST)


def _H(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _complex(x):
    single = x.dtype in (np.float32, np.complex64, np.float16, dtypes.bfloat16)
    return x.astype(np.complex64 if single else np.complex128)


# ------------------------------------------------------------------------------------------------
# Schur and Hessenberg forms


@partial(jit, static_argnames=("output",))
def _schur(a, output):
    if output == "complex":
        a = _complex(a)
    return lax_linalg.schur(a)


def schur(a, output: str = "real"):
    """``(T, Z)`` with a = Z T Z^H: T upper triangular (``output='complex'``) or
    quasi-triangular with 2x2 blocks for complex-conjugate eigenvalue pairs ('real'),
    Z unitary. CPU only."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    return _schur(jnp.asarray(a), output)


@partial(jit, static_argnames=("calc_q", "overwrite_a", "check_finite"))
def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
    """The upper Hessenberg form H of square ``a`` (a = Q H Q^H), and Q with ``calc_q``.
    CPU only."""
    del overwrite_a, check_finite
    packed, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    # Reflector i acts on rows i+1.. and is stored below the subdiagonal in column i, so the
    # trailing (n-1, n-1) block of Q is the Householder product of the shifted reflectors;
    # Q's first row and column are e_0.
    n = a.shape[-1]
    q_tail = lax_linalg.householder_product(packed[..., 1:, :n - 1], taus)
    q = jnp.zeros_like(packed).at[..., 0, 0].set(1)
    return h, q.at[..., 1:, 1:].set(q_tail)


@jit
def _rsf2csf_2d(T, Z):
    n = T.shape[-1]
    eps = float(np.finfo(T.dtype).eps)

    def step(k, carry):
        T, Z = carry
        m = n - 1 - k  # the subdiagonal entry T[m, m-1], from the bottom up
        a, b = T[m - 1, m - 1], T[m - 1, m]
        c, d = T[m, m - 1], T[m, m]
        is_block = jnp.abs(c) > eps * (jnp.abs(a) + jnp.abs(d))
        # A Givens rotation on rows/columns m-1, m whose first column is the eigenvector of
        # the 2x2 block for its eigenvalue with positive imaginary part (LAPACK's first).
        half = (a - d) / 2
        root = jnp.sqrt(half * half + b * c)
        mu = half + jnp.where(jnp.imag(root) < 0, -root, root)  # eigenvalue - T[m, m]
        r = jnp.sqrt(jnp.abs(mu) ** 2 + jnp.abs(c) ** 2)
        r = jnp.where(is_block, r, 1)
        cs, sn = mu / r, c / r
        G = (jnp.eye(n, dtype=T.dtype).at[m - 1, m - 1].set(jnp.conj(cs)).at[m, m].set(cs)
             .at[m - 1, m].set(sn).at[m, m - 1].set(-sn))
        G = jnp.where(is_block, G, jnp.eye(n, dtype=T.dtype))
        T = _dot(_dot(G, T), _H(G))
        Z = _dot(Z, _H(G))
        return T.at[m, m - 1].set(0), Z

    return lax.fori_loop(0, n - 1, step, vary_like((T, Z)))


@partial(jit, static_argnames=("check_finite",))
def rsf2csf(T, Z, check_finite: bool = True):
    """The complex Schur form ``(T, Z)`` from the real one, by a Givens rotation of each
    2x2 diagonal block. Leading axes are a batch."""
    del check_finite
    T, Z = promote_dtypes_inexact(jnp.asarray(T), jnp.asarray(Z))
    T, Z = _complex(T), _complex(Z)
    for name, x in (("T", T), ("Z", Z)):
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ValueError(f"Input '{name}' must be square.")
    if T.shape[-1] != Z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {Z.shape} vs. T: {T.shape}")
    if T.shape[-1] <= 1:
        return jnp.broadcast_arrays(T, Z)
    return jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(T, Z)


# ------------------------------------------------------------------------------------------------
# Matrix functions on the complex Schur form


def _diagonal_masks(n):
    """masks[d - 1] is True on the d-th superdiagonal, d = 1 .. n-1."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return jnp.asarray(np.stack([(j - i) == d for d in range(1, n)]).reshape(n - 1, n, n))


def _fill_superdiagonals(F, masks, entry):
    """F with its superdiagonals filled in order: ``entry(F)`` gives the d-th one's values
    from F holding diagonals < d (and zeros above)."""
    def step(F, mask):
        return jnp.where(mask, entry(F), F), None

    F, _ = lax.scan(step, F, masks)
    return F


@jit
def _sqrtm(A):  # JAX's jit name
    T, Z = lax_linalg.schur(_complex(A))
    n = T.shape[-1]
    if n <= 1:
        return _dot(_dot(Z, jnp.sqrt(T)), _H(Z))
    r = jnp.sqrt(jnp.diagonal(T))
    # R R = T entry (i, j): (R_ii + R_jj) R_ij + sum_{i<k<j} R_ik R_kj = T_ij; with R holding
    # the nearer diagonals only, the sum is (R R)_ij.
    denom = r[:, None] + r[None, :]
    R = _fill_superdiagonals(jnp.diag(r), _diagonal_masks(n),
                             lambda R: (T - _dot(R, R)) / denom)
    return _dot(_dot(Z, R), _H(Z))


def sqrtm(A, blocksize: int = 1):
    """The principal square root of square ``A`` (complex result), through the complex Schur
    form. CPU only; leading axes are a batch."""
    if blocksize > 1:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Blocked version is not implemented yet.")
    (A,) = promote_dtypes_inexact(jnp.asarray(A))
    if A.ndim < 2:  # schur's refusals, in JAX's words (its sqrtm leaves the checks to schur)
        raise TypeError(f"Input 0 to schur must have rank at least 2, but got shape={A.shape}")
    if A.shape[-1] != A.shape[-2]:
        raise ValueError(f"The input to schur must be a square matrix. Got shape {A.shape[-2:]}.")
    return jnp.vectorize(_sqrtm, signature="(n,n)->(n,n)")(A)


def funm(A, func, disp: bool = True):
    """f(A) for a scalar function ``func`` applied to the eigenvalues, by the Schur-Parlett
    recurrence on the complex Schur form (result complex). With ``disp=False``, also an
    estimate of the relative error, as SciPy's. CPU only."""
    (A,) = promote_dtypes_inexact(jnp.asarray(A))
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("expected square array_like input")
    F, err = _funm(A, func)
    return F if disp else (F, err)


@partial(jit, static_argnums=(1,))
def _funm(A, func):
    T, Z = lax_linalg.schur(_complex(A))
    n = T.shape[-1]
    t = jnp.diagonal(T)
    F = jnp.diag(jnp.asarray(func(t)).astype(T.dtype))
    den = t[None, :] - t[:, None]  # T_jj - T_ii
    safe_den = jnp.where(den == 0, 1, den)  # SciPy leaves the numerator undivided there
    if n > 1:
        # F T = T F at (i, j): F_ij (T_jj - T_ii) = (T F - F T)_ij with F_ij still zero.
        F = _fill_superdiagonals(F, _diagonal_masks(n),
                                 lambda F: (_dot(T, F) - _dot(F, T)) / safe_den)
    F = _dot(_dot(Z, F), _H(Z))
    tol = float(np.finfo(T.dtype).eps)
    upper = np.triu(np.ones((n, n), bool), 1)
    minden = jnp.min(jnp.where(upper, jnp.abs(den), jnp.inf), initial=jnp.abs(T[0, 0]))
    minden = jnp.where(minden == 0, tol, minden)
    strict = jnp.where(upper, T, 0)
    one_norm = jnp.max(jnp.sum(jnp.abs(strict), axis=0))
    err = jnp.minimum(1, jnp.maximum(tol, tol / minden * one_norm))
    err = jnp.where(jnp.all(~jnp.isfinite(F)), jnp.inf, err)
    return F, err


# ------------------------------------------------------------------------------------------------
# The Sylvester equation A X + X B = C


def _sylvester_triangular(R, S, F):
    """Y with R Y + Y S = F for upper triangular R (m, m) and S (n, n): column k solves
    (R + S_kk I) y_k = f_k - sum_{l<k} y_l S_lk, in order."""
    m, n = R.shape[0], S.shape[0]
    eye = jnp.eye(m, dtype=R.dtype)

    def column(Y, k):
        rhs = F[:, k] - _dot(Y, S[:, k])  # Y's columns >= k are still zero
        y = lax_linalg.triangular_solve(R + S[k, k] * eye, rhs[:, None], left_side=True,
                                        lower=False)[:, 0]
        return Y.at[:, k].set(y), None

    Y, _ = lax.scan(column, vary_like(jnp.zeros((m, n), R.dtype), R, S, F), jnp.arange(n))
    return Y


@partial(jit, static_argnames=("method",))
def _solve_sylvester_2d(A, B, C, tol, *, method):
    real = not jnp.iscomplexobj(C)
    if method == "schur":
        R, U = lax_linalg.schur(_complex(A))
        S, V = lax_linalg.schur(_complex(B))
        Y = _sylvester_triangular(R, S, _dot(_dot(_H(U), _complex(C)), V))
        X = _dot(_dot(U, Y), _H(V))
        la, lb = jnp.diagonal(R), jnp.diagonal(S)
    else:
        # A = P diag(la) P^-1, B = Q diag(lb) Q^-1: the equation decouples entrywise in
        # P^-1 X Q, whose (i, j) entry is (P^-1 C Q)_ij / (la_i + lb_j).
        la, P = jnp.linalg.eig(A)
        lb, Q = jnp.linalg.eig(B)
        G = _dot(_dot(jnp.linalg.inv(P), _complex(C)), Q)
        X = _dot(_dot(P, G / (la[:, None] + lb[None, :])), jnp.linalg.inv(Q))
    # The equation is singular when an eigenvalue of A and one of -B (nearly) coincide.
    singular = jnp.min(jnp.abs(la[:, None] + lb[None, :])) < tol
    X = jnp.real(X) if real else X
    return jnp.where(singular, jnp.nan, X).astype(C.dtype)


@partial(jit, static_argnames=("method",))  # a jit in JAX (tol traced)
def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """X with A X + X B = C (A (..., m, m), B (..., n, n), C (..., m, n); batch axes
    broadcast), by the Bartels-Stewart algorithm on complex Schur forms (``method='schur'``,
    CPU only) or by eigendecompositions ('eigen'); NaNs when some eigenvalues of A and -B
    are closer than ``tol``."""
    if method not in ("schur", "eigen"):
        raise ValueError(f'Unrecognized method {method}. The two valid methods are either '
                         '"schur" or "eigen".')
    A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
    return jnp.vectorize(partial(_solve_sylvester_2d, method=method),
                         signature="(m,m),(n,n),(m,n),()->(m,n)")(A, B, C, tol)
