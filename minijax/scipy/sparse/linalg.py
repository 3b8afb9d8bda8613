"""``jax.scipy.sparse.linalg``: Krylov solvers ``cg``, ``bicgstab`` and ``gmres``.

``A`` is a square matrix or a function computing the linear map on a pytree shaped like
``b``; ``M`` (a preconditioner, an approximation of A^-1) likewise. Each solver works on
the pytree raveled into one vector, loops with ``while_loop`` (so it jits), and stops once
||r|| <= max(tol * ||b||, atol) or after ``maxiter`` iterations.

Derivatives come from the implicit function x = A^-1 b rather than from the iterations: the
cotangent of b is the solve with A^T (A itself for ``cg``, whose A is symmetric), and the
parameters A closes over get -(dA/dtheta)^T applied to x, so reverse mode works through the
loops and costs one more solve.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.autodiff import linear_transpose, vjp
from minijax.custom_derivatives import closure_convert, custom_vjp
from minijax.lax.control_flow.common import vary_like
from minijax.tree_util import tree_flatten, tree_leaves, tree_map

__all__ = ["bicgstab", "cg", "gmres"]

_HIGHEST = lax.Precision.HIGHEST


def _as_function(A):
    if callable(A):
        return A
    A = jnp.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"linear operator must be a square matrix, but has shape: {A.shape}")
    return partial(jnp.matmul, A, precision=_HIGHEST)


def _dot(x, y):
    """<x, y> = x^H y."""
    return jnp.vdot(x, y, precision=_HIGHEST)


def _sq_norm(x):
    return jnp.real(_dot(x, x))


def _tolerance(b, tol, atol):
    """The squared stopping threshold max(tol ||b||, atol)^2."""
    return jnp.maximum(jnp.square(tol) * _sq_norm(b), jnp.square(atol))


# ------------------------------------------------------------------------------------------------
# The iterations, on flat vectors: mv(v, *consts) and pc(v, *consts) apply A and M, their
# closed-over values made arguments (closure_convert's convention)


def _bind(f, consts):
    return lambda v: f(v, *consts)


def _cg_iterate(mv, pc, b, x0, tol, atol, mv_consts, pc_consts, *, maxiter):
    A, M = _bind(mv, mv_consts), _bind(pc, pc_consts)
    bound = _tolerance(b, tol, atol)
    r = b - A(x0)
    z = M(r)
    # For Hermitian A and M, <r, M r> is real; its real part keeps real arithmetic exact.
    gamma = jnp.real(_dot(r, z)).astype(b.dtype)

    def cond(state):
        _, r, _, _, k = state
        return (_sq_norm(r) > bound) & (k < maxiter)

    def body(state):
        x, r, p, gamma, k = state
        ap = A(p)
        alpha = gamma / jnp.real(_dot(p, ap)).astype(b.dtype)
        x, r = x + alpha * p, r - alpha * ap
        z = M(r)
        gamma_next = jnp.real(_dot(r, z)).astype(b.dtype)
        return x, r, z + (gamma_next / gamma) * p, gamma_next, k + 1

    state = vary_like((x0, r, z, gamma, 0), b, mv_consts, pc_consts)
    return lax.while_loop(cond, body, state)[0]


def _bicgstab_iterate(mv, pc, b, x0, tol, atol, mv_consts, pc_consts, *, maxiter):
    A, M = _bind(mv, mv_consts), _bind(pc, pc_consts)
    bound = _tolerance(b, tol, atol)
    r0 = b - A(x0)
    one = jnp.ones((), b.dtype)

    def cond(state):
        _, r, *_, broke, k = state
        return (_sq_norm(r) > bound) & (k < maxiter) & ~broke

    def body(state):
        x, r, p, v, rho, alpha, omega, _, k = state
        rho_next = _dot(r0, r)
        p = r + (rho_next / rho) * (alpha / omega) * (p - omega * v)
        p_hat = M(p)
        v = A(p_hat)
        alpha = rho_next / _dot(r0, v)
        s = r - alpha * v
        s_hat = M(s)
        t = A(s_hat)
        tt = _dot(t, t)
        # s already small: the half step is the answer (omega = 0 would stall the next rho).
        done = _sq_norm(s) <= bound
        omega = jnp.where(done | (tt == 0), 0, _dot(t, s) / jnp.where(tt == 0, 1, tt))
        x = x + alpha * p_hat + omega * s_hat
        r = s - omega * t
        # Breakdown (rho or omega zero) ends the iteration where it stands.
        broke = ~done & ((rho_next == 0) | (omega == 0))
        return x, r, p, v, rho_next, alpha, jnp.where(done, one, omega), broke, k + 1

    zeros = jnp.zeros_like(b)
    state = (x0, r0, zeros, zeros, one, one, one, jnp.array(False), 0)
    return lax.while_loop(cond, body, vary_like(state, b, mv_consts, pc_consts))[0]


def _gmres_cycle(A, M, x, b, restart, bound, incremental):
    """One cycle of restarted GMRES on the left-preconditioned system M A x = M b: build
    the Krylov basis V and Hessenberg matrix H by Arnoldi steps from the residual, then move x
    by V^T y with y minimizing ||beta e1 - H y||. ``incremental`` solves that small
    least-squares problem after every step and ends the cycle as soon as its residual meets
    ``bound``; otherwise ('batched') all ``restart`` steps run and it is solved once."""
    n = b.shape[0]
    r = M(b - A(x))
    beta = jnp.sqrt(_sq_norm(r)).astype(b.dtype)
    V = jnp.zeros((restart + 1, n), b.dtype).at[0].set(r / jnp.where(beta == 0, 1, beta))
    H = jnp.zeros((restart + 1, restart), b.dtype)
    e1 = jnp.zeros(restart + 1, b.dtype).at[0].set(beta)
    rows = jnp.arange(restart + 1)

    def least_squares(H):
        # Columns not built yet are zero; the minimum-norm solution leaves their y at zero.
        y = jnp.linalg.lstsq(H, e1)[0]
        return y, _sq_norm(e1 - jnp.matmul(H, y, precision=_HIGHEST))

    def step(j, V, H):
        w = M(A(V[j]))
        # Gram-Schmidt against the basis so far (rows > j of V are still zero), done twice
        # so the basis stays orthogonal in single precision.
        h = jnp.zeros(restart + 1, b.dtype)
        for _ in range(2):
            coef = jnp.where(rows <= j, jnp.matmul(jnp.conj(V), w, precision=_HIGHEST), 0)
            w = w - jnp.matmul(coef, V, precision=_HIGHEST)
            h = h + coef
        norm_w = jnp.sqrt(_sq_norm(w)).astype(b.dtype)
        V = V.at[j + 1].set(w / jnp.where(norm_w == 0, 1, norm_w))
        return V, H.at[:, j].set(h.at[j + 1].set(norm_w))

    if incremental:
        def cond(state):
            j, _, _, res = state
            return (j < restart) & (res > bound)

        def body(state):
            j, V, H, _ = state
            V, H = step(j, V, H)
            return j + 1, V, H, least_squares(H)[1]

        _, V, H, _ = lax.while_loop(cond, body, vary_like((0, V, H, _sq_norm(r))))
    else:
        V, H = lax.fori_loop(0, restart, lambda j, c: step(j, *c), vary_like((V, H)))
    y, _ = least_squares(H)
    return x + jnp.matmul(y, V[:restart], precision=_HIGHEST)


def _gmres_iterate(mv, pc, b, x0, tol, atol, mv_consts, pc_consts, *, maxiter, restart,
                   incremental):
    A, M = _bind(mv, mv_consts), _bind(pc, pc_consts)
    # The stopping test uses the preconditioned residual, which is what GMRES minimizes.
    bound = _tolerance(M(b), tol, atol)

    def residual(x):
        return _sq_norm(M(b - A(x)))

    def cond(state):
        _, res, k = state
        return (res > bound) & (k < maxiter)

    def body(state):
        x, _, k = state
        x = _gmres_cycle(A, M, x, b, restart, bound, incremental)
        return x, residual(x), k + 1

    state = vary_like((x0, residual(x0), 0), b, mv_consts, pc_consts)
    return lax.while_loop(cond, body, state)[0]


# ------------------------------------------------------------------------------------------------
# Implicit differentiation


@partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3))
def _solve(iterate, transposed, mv, pc, b, x0, tol, atol, mv_consts, pc_consts):
    return iterate(mv, pc, b, x0, tol, atol, mv_consts, pc_consts)


def _solve_fwd(iterate, transposed, mv, pc, b, x0, tol, atol, mv_consts, pc_consts):
    x = iterate(mv, pc, b, x0, tol, atol, mv_consts, pc_consts)
    return x, (x, tol, atol, mv_consts, pc_consts)


def _transpose_map(f):
    """v -> f^T v for the linear map u -> f(u, *consts)."""
    def f_t(v, *consts):
        (out,) = linear_transpose(lambda u: f(u, *consts), v)(v)
        return out

    return f_t


def _solve_bwd(iterate, transposed, mv, pc, res, x_bar):
    x, tol, atol, mv_consts, pc_consts = res
    mv_b, pc_b = (_transpose_map(mv), _transpose_map(pc)) if transposed else (mv, pc)
    b_bar = iterate(mv_b, pc_b, x_bar, jnp.zeros_like(x_bar), tol, atol, mv_consts, pc_consts)
    # x = A^-1 b moves with A's parameters as -A^-1 (dA) x, whose transpose sends x_bar to
    # -(dA/dconsts)^T b_bar at x.
    _, pull = vjp(lambda *c: mv(x, *c), *mv_consts)
    consts_bar = tuple(tree_map(lambda g: -g, g) for g in pull(b_bar))
    return b_bar, None, None, None, consts_bar, None


_solve.defvjp(_solve_fwd, _solve_bwd)


# ------------------------------------------------------------------------------------------------
# The public solvers


def _ravel(tree):
    """``(flat, unravel)``: the leaves of ``tree`` as one vector of their promoted dtype
    (promoting the arrays themselves: ``flatten_util.ravel_pytree`` promotes their dtypes,
    which fails for float64 under x64)."""
    leaves, treedef = tree_flatten(tree)
    leaves = [jnp.asarray(leaf) for leaf in leaves]
    dtype = jnp.result_type(*leaves)
    flat = jnp.concatenate([jnp.ravel(leaf).astype(dtype) for leaf in leaves])
    sizes = np.cumsum([leaf.size for leaf in leaves])[:-1]

    def unravel(v):
        parts = jnp.split(v, sizes)
        return treedef.unflatten([p.reshape(leaf.shape).astype(leaf.dtype)
                                  for p, leaf in zip(parts, leaves)])

    return flat, unravel


def _isolve(name, iterate, transposed, A, b, x0, tol, atol, M):
    b_flat, unravel = _ravel(b)
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b_shapes = [jnp.shape(leaf) for leaf in tree_leaves(b)]
    x0_shapes = [jnp.shape(leaf) for leaf in tree_leaves(x0)]
    if b_shapes != x0_shapes:
        raise ValueError(f"arrays in x0 and b must have matching shapes: {x0_shapes} vs "
                         f"{b_shapes}")
    x0_flat, _ = _ravel(x0)
    if x0_flat.dtype != b_flat.dtype:
        raise TypeError(f"{name}: x0 and b must have the same dtype, got {x0_flat.dtype} and "
                        f"{b_flat.dtype}")
    A = _as_function(A)
    M = (lambda x: x) if M is None else _as_function(M)
    # The maps on the raveled vector, their closed-over arrays made explicit arguments so
    # that the custom VJP can differentiate with respect to them.
    flat = lambda f: lambda v: _ravel(f(unravel(v)))[0]
    mv, mv_consts = closure_convert(flat(A), b_flat)
    pc, pc_consts = closure_convert(flat(M), b_flat)
    real = np.dtype(b_flat.dtype).kind != "c"
    tol = jnp.asarray(tol, dtype=b_flat.real.dtype if not real else b_flat.dtype)
    atol = jnp.asarray(atol, dtype=tol.dtype)
    x = _solve(iterate, transposed, mv, pc, b_flat, x0_flat, tol, atol, tuple(mv_consts),
               tuple(pc_consts))
    return unravel(x)


def _maxiter(b, maxiter):
    return 10 * sum(np.size(leaf) for leaf in tree_leaves(b)) if maxiter is None else maxiter


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Conjugate gradients for A x = b, A Hermitian positive definite (a matrix or a function
    on pytrees shaped like ``b``), preconditioned by ``M`` (likewise, approximating A^-1).
    Returns ``(x, None)``: as JAX, no convergence information."""
    iterate = partial(_cg_iterate, maxiter=_maxiter(b, maxiter))
    return _isolve("cg", iterate, False, A, b, x0, tol, atol, M), None


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """BiCGSTAB (van der Vorst 1992) for general A x = b, preconditioned by ``M``; stops early
    on a breakdown. Returns ``(x, None)``."""
    iterate = partial(_bicgstab_iterate, maxiter=_maxiter(b, maxiter))
    return _isolve("bicgstab", iterate, True, A, b, x0, tol, atol, M), None


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Restarted GMRES (Saad and Schultz 1986) for general A x = b, left-preconditioned by
    ``M``: cycles of ``restart`` Arnoldi steps, at most ``maxiter`` cycles (default
    10 * size(b)). ``solve_method='incremental'`` checks convergence after every step,
    'batched' once per cycle. Returns ``(x, 0)``."""
    if solve_method not in ("incremental", "batched"):
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' "
                         "or 'batched'")
    size = sum(np.size(leaf) for leaf in tree_leaves(b))
    restart = min(int(restart), size)
    iterate = partial(_gmres_iterate, maxiter=_maxiter(b, maxiter), restart=restart,
                      incremental=solve_method == "incremental")
    return _isolve("gmres", iterate, True, A, b, x0, tol, atol, M), 0
