"""QDWH polar decomposition (QR-based dynamically weighted Halley iteration), as JAX's.

Nakatsukasa, Bai and Gygi, "Optimizing Halley's iteration for computing the matrix polar
decomposition", SIAM J. Matrix Anal. Appl. 31(5), 2010. The iteration needs no matrix
inverse: its first, badly conditioned steps use a QR factorization, the later ones a Cholesky
factorization. The weights depend only on the (static) lower bound of the smallest singular
value, so they are computed in Python and the loops are ``fori_loop``/``while_loop``.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.jitting import jit
from minijax.lax import linalg as lax_linalg
from minijax.numpy import linalg as jnp_linalg

_CHOLESKY_CUTOFF = 100  # weights c above this make the Cholesky step too ill-conditioned


def _H(x):
    return jnp.conj(x.T)


def _dot(a, b):
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _use_qr(u, params):
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    m, n = u.shape
    y = jnp.concatenate([sqrt_c * u, jnp.eye(n, dtype=u.dtype)], axis=0)
    q, _ = lax_linalg.qr(y, full_matrices=False)
    q1, q2 = q[:m, :], _H(q[m:, :])
    return e * u + a_minus_e_by_sqrt_c * _dot(q1, q2)


def _use_cholesky(u, params):
    a_minus_e, c, e = params
    n = u.shape[1]
    x = c * _dot(_H(u), u) + jnp.eye(n, dtype=u.dtype)
    y = lax_linalg.cholesky(x, symmetrize_input=False)  # lower triangular
    z = jnp.conj(lax_linalg.triangular_solve(y, u.T, left_side=True, lower=True,
                                             conjugate_a=True))
    z = _H(lax_linalg.triangular_solve(y, z, left_side=True, lower=True, transpose_a=True,
                                       conjugate_a=True))
    return e * u + a_minus_e * z


def _qr_params(a, b, c):
    e = b / c
    sqrt_c = c ** 0.5
    return ((a - e) / sqrt_c, sqrt_c, e)


def _chol_params(a, b, c):
    e = b / c
    return (a - e, c, e)


def _qdwh(x, max_iterations, eps):
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    one_norm = jnp_linalg.norm(x, ord=1)
    inf_norm = jnp_linalg.norm(x, ord=np.inf)
    # alpha >= ||x||_2, so u starts with singular values in (0, 1].
    alpha_inverse = lax.rsqrt(one_norm) * lax.rsqrt(inf_norm)
    alpha_inverse = jnp.where(one_norm == 0, 1, alpha_inverse)
    u = x * alpha_inverse.astype(x.dtype)

    l = eps  # lower bound on the smallest singular value of u
    tol_l = 10.0 * eps / 2.0
    tol_norm = float(np.cbrt(tol_l))

    qr_coefs, chol_coefs = [], []
    k = 0
    while l + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** 0.5
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** 0.5
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        if c > _CHOLESKY_CUTOFF:
            qr_coefs.append(_qr_params(a, b, c))
        else:
            chol_coefs.append(_chol_params(a, b, c))

    def iteration(k, u, update_fn, coefs):
        if coefs is None:  # as l -> 1 the weights (a, b, c) -> (3, 1, 3): Halley's method
            params = _chol_params(3, 1, 3)
        else:
            params = lax.dynamic_index_in_dim(coefs, k, keepdims=False)
        u_new = update_fn(u, params)
        return u_new, jnp_linalg.norm(u_new - u) > tol_norm

    def iterate(u, coefs, update_fn):
        if not coefs:
            return u, jnp.array(True)
        coefs = jnp.array(coefs).astype(x.dtype)
        body = lambda k, state: iteration(k, state[0], update_fn, coefs)
        return lax.fori_loop(0, len(coefs), body, (u, jnp.array(True)))

    u, _ = iterate(u, qr_coefs, _use_qr)
    u, is_not_converged = iterate(u, chol_coefs, _use_cholesky)

    # If l has converged but u has not, go on with Halley's method until it does.
    def cond_fun(state):
        k, _, is_not_converged = state
        return jnp.logical_and(is_not_converged, k < max_iterations)

    def body_fun(state):
        k, u, _ = state
        u, is_not_converged = iteration(k, u, _use_cholesky, None)
        return k + 1, u, is_not_converged

    k = len(qr_coefs) + len(chol_coefs)
    num_iters, u, is_not_converged = lax.while_loop(
        cond_fun, body_fun, (jnp.array(k, dtype=np.int32), u, is_not_converged))

    u = 1.5 * u - 0.5 * _dot(u, _dot(_H(u), u))  # a Newton-Schulz step refines u
    h = _dot(_H(u), x)
    h = (h + _H(h)) / 2
    return u, h, num_iters, jnp.logical_not(is_not_converged)


@partial(jit, static_argnames=("max_iterations", "eps"))
def qdwh(x, *, max_iterations: int | None = None, eps: float | None = None):
    """``(u, h, num_iters, is_converged)``: x = u h with u (M, N) having orthonormal columns
    and h (N, N) Hermitian positive semi-definite, for M >= N."""
    m, n = x.shape
    if m < n:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    return _qdwh(x, 10 if max_iterations is None else int(max_iterations), eps)
