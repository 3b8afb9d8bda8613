"""The polar decomposition by the QR-based dynamically weighted Halley iteration (QDWH).

Y. Nakatsukasa, Z. Bai and F. Gygi, "Optimizing Halley's iteration for computing the matrix
polar decomposition", SIAM J. Matrix Anal. Appl. 31(5), 2010.

Scaled so that its singular values lie in [l, 1], X is driven to the unitary polar factor
by the rational map

    X <- X (a I + b X^H X) (I + c X^H X)^-1 = (b / c) X + (a - b / c) X (I + c X^H X)^-1,

which sends each singular value s to s (a + b s^2) / (1 + c s^2). The weights (a, b, c) are
chosen from the current lower bound l so that the worst-placed singular value moves as far
towards 1 as possible, and l is then mapped with the singular values. l depends on nothing
but its starting value, so the whole weight schedule is computed in Python before tracing;
after at most six steps in double precision l is 1 to working accuracy and the weights are
Halley's (3, 1, 3).

The inverse is never formed. While c is large, I + c X^H X is ill-conditioned and the step
uses the QR factorization of the stacked [sqrt(c) X; I] = [Q1; Q2] R, for which
X (I + c X^H X)^-1 = Q1 Q2^H / sqrt(c); once c is moderate (the paper's threshold 100) the
Cholesky factor W^H W = I + c X^H X is accurate enough and cheaper, giving
X (I + c X^H X)^-1 = (X W^-1) W^-H by two triangular solves.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.jitting import jit
from minijax.lax import linalg as lax_linalg
from minijax.lax.control_flow.common import vary_like
from minijax.numpy import linalg as jnp_linalg

_QR_WHILE_C_ABOVE = 100.0


def _adjoint(x):
    return jnp.conj(x.T)


def _matmul(a, b):
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _weights(l):
    """The optimal (a, b, c) for singular values in [l, 1] (the paper's eq. (3.14))."""
    l2 = l * l
    d = (4.0 * (1.0 - l2) / (l2 * l2)) ** (1.0 / 3.0)
    root = np.sqrt(1.0 + d)
    a = root + 0.5 * np.sqrt(8.0 - 4.0 * d + 8.0 * (2.0 - l2) / (l2 * root))
    b = (a - 1.0) ** 2 / 4.0
    return a, b, a + b - 1.0


def _schedule(l, tol, max_steps):
    """Weights (a, b, c) per step until the lower bound l reaches 1 - tol."""
    steps = []
    while 1.0 - l > tol and len(steps) < max_steps:
        a, b, c = _weights(l)
        steps.append((a, b, c))
        l = min(1.0, l * (a + b * l * l) / (1.0 + c * l * l))
    return steps


def _qr_step(x, a, b, c):
    m, n = x.shape
    stacked = jnp.concatenate([jnp.sqrt(c).astype(x.dtype) * x, jnp.eye(n, dtype=x.dtype)])
    q, _ = lax_linalg.qr(stacked, full_matrices=False)
    correction = _matmul(q[:m], _adjoint(q[m:])) / jnp.sqrt(c).astype(x.dtype)
    return (b / c).astype(x.dtype) * x + (a - b / c).astype(x.dtype) * correction


def _cholesky_step(x, a, b, c):
    n = x.shape[1]
    gram = c.astype(x.dtype) * _matmul(_adjoint(x), x) + jnp.eye(n, dtype=x.dtype)
    w_h = lax_linalg.cholesky(gram, symmetrize_input=False)  # lower: gram = W^H W, W^H = w_h
    # y = x W^-1, then y W^-H: right-side solves with the upper factor W = w_h^H and with W^H.
    y = lax_linalg.triangular_solve(w_h, x, left_side=False, lower=True, transpose_a=True,
                                    conjugate_a=True)
    y = lax_linalg.triangular_solve(w_h, y, left_side=False, lower=True)
    return (b / c).astype(x.dtype) * x + (a - b / c).astype(x.dtype) * y


def _iterate(x, max_iterations, eps):
    real = np.finfo(x.dtype).dtype
    # sqrt(||x||_1 ||x||_inf) bounds ||x||_2 from above, so the scaled singular values are
    # at most 1; eps stands in for the unknown lower bound of the smallest one.
    scale = jnp.sqrt(jnp_linalg.norm(x, ord=1) * jnp_linalg.norm(x, ord=np.inf))
    u = x / jnp.where(scale == 0, 1, scale).astype(x.dtype)
    schedule = _schedule(eps, 5 * eps, max_iterations)
    halley = (3.0, 1.0, 3.0)
    table = jnp.asarray(schedule + [halley], dtype=real)  # the last row repeats forever
    # Once l is 1 the map is Halley's, which converges cubically: stop when a step moves X by
    # less than the cube root of the working accuracy.
    step_tol = float(np.cbrt(5 * eps))
    n_scheduled = len(schedule)

    def step(u, k):
        a, b, c = table[jnp.minimum(k, n_scheduled)]
        return lax.cond(c > _QR_WHILE_C_ABOVE, _qr_step, _cholesky_step, u, a, b, c)

    def keep_going(state):
        k, _, moved = state
        return (k < max_iterations) & ((k < n_scheduled) | (moved > step_tol))

    def body(state):
        k, u, _ = state
        new = step(u, k)
        return k + 1, new, jnp_linalg.norm(new - u)

    k, u, moved = lax.while_loop(keep_going, body,
                                 vary_like((jnp.array(0, np.int32), u, jnp.array(np.inf, real))))
    # One Newton-Schulz step, u (3 I - u^H u) / 2, restores orthonormality to working
    # accuracy at the cost of two products.
    u = 1.5 * u - 0.5 * _matmul(u, _matmul(_adjoint(u), u))
    h = _matmul(_adjoint(u), x)
    return u, (h + _adjoint(h)) / 2, k, moved <= step_tol


@partial(jit, static_argnames=("max_iterations", "eps"))
def qdwh(x, *, max_iterations: int | None = None, eps: float | None = None):
    """``(u, h, num_iters, is_converged)``: x = u h with u (M, N) having orthonormal columns
    and h (N, N) Hermitian positive semi-definite, for M >= N."""
    m, n = x.shape
    if m < n:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    eps = float(np.finfo(x.dtype).eps) if eps is None else float(eps)
    return _iterate(x, 10 if max_iterations is None else int(max_iterations), eps)
