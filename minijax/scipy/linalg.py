"""``jax.scipy.linalg``: SciPy's linalg API on the factorizations of ``minijax.lax.linalg``.

One implementation per operation: SciPy's spellings (``lower=False`` upper factors, ``trans``
codes, ``(lu, piv)`` pairs) are thin wrappers over the ``lax`` primitives, and what NumPy's
API already has (``det``, ``inv``, the general ``solve``) is ``minijax.numpy.linalg``'s.
Derivatives come from the primitives' JVP rules, so grad, jit and vmap compose through all of
it. The ``overwrite_*`` and ``check_finite`` arguments are accepted and ignored, as in JAX:
a compiled program cannot check values or overwrite its inputs.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.autodiff import jvp
from minijax.jitting import jit
from minijax.lax import linalg as lax_linalg
from minijax.numpy import linalg as jnp_linalg
from minijax.numpy._util import promote_dtypes, promote_dtypes_inexact
from minijax.scipy._schur_based import funm, hessenberg, rsf2csf, schur, solve_sylvester, sqrtm
from minijax.scipy._special_matrices import (
    circulant,
    companion,
    convolution_matrix,
    dft,
    fiedler,
    fiedler_companion,
    hadamard,
    hankel,
    helmert,
    invhilbert,
    invpascal,
    leslie,
    pascal,
    toeplitz,
)

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
    "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet",
    "fiedler", "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg",
    "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve",
    "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester",
    "solve_triangular", "sqrtm", "svd", "toeplitz",
]

_HIGHEST = lax.Precision.HIGHEST


def _inexact(*args):
    return promote_dtypes_inexact(*(jnp.asarray(a) for a in args))


def _vector_signature(name, a, b, arity=2):
    """The gufunc signature of a solve against ``b``: one vector when ``b`` is 1-D (or, with a
    FutureWarning as in JAX, a batch of vectors matching ``a``'s batch), else matrices."""
    pre = "(n,n)," + "(n)," * (arity - 2)
    if b.ndim == 1:
        return pre + "(n)->(n)"
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        warnings.warn(
            f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and "
            "in the future will be treated as a batched 2D solve. Use "
            f"{name}(..., b[..., None]).squeeze(-1) to avoid this warning.",
            category=FutureWarning)
        return pre + "(n)->(n)"
    return pre + "(n,k)->(n,k)"


# ------------------------------------------------------------------------------------------------
# Cholesky


@jit(static_argnames=("lower",))
def _cholesky(a, lower):
    (a,) = _inexact(a)
    # The upper factor U of A is the conjugate transpose of the lower factor of A^H; the
    # kernel reads one triangle, so the input is not symmetrized (SciPy reads one triangle too).
    l = lax_linalg.cholesky(a if lower else jnp.conj(a.mT), symmetrize_input=False)
    return l if lower else jnp.conj(l.mT)


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor of Hermitian positive-definite ``a`` (..., N, N): upper U with
    A = U^H U by default (SciPy's convention), lower L with A = L L^H when ``lower``."""
    del overwrite_a, check_finite
    return _cholesky(a, lower)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(c, lower)`` for :func:`cho_solve`: the Cholesky factor and which triangle it is."""
    del overwrite_a, check_finite
    return (cholesky(a, lower=lower), lower)


@jit(static_argnames=("lower",))
def _cho_solve(c, b, lower):
    c, b = _inexact(c, b)
    signature = _vector_signature("cho_solve", c, b)
    # A = L L^H: solve L y = b, then L^H x = y (for an upper factor U = L^H, the same solves
    # with the transposes swapped).
    b = jnp.vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                              transpose_a=not lower, conjugate_a=not lower),
                      signature=signature)(c, b)
    return jnp.vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                                 transpose_a=lower, conjugate_a=lower),
                         signature=signature)(c, b)


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """x with A x = b, given ``(c, lower) = cho_factor(A)``."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    return _cho_solve(c, b, lower)


# ------------------------------------------------------------------------------------------------
# SVD, eigh, det, inv


@jit(static_argnames=("full_matrices", "compute_uv"))
def _svd(a, *, full_matrices, compute_uv):
    (a,) = _inexact(a)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """``(U, s, Vh)`` with a = U diag(s) Vh, s descending; ``s`` alone without ``compute_uv``."""
    del overwrite_a, check_finite, lapack_driver
    return _svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    del overwrite_a, check_finite
    return jnp_linalg.det(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    del overwrite_a, check_finite
    return jnp_linalg.inv(a)


@jit(static_argnames=("lower", "eigvals_only", "eigvals", "type"))
def _eigh(a, b, lower, eigvals_only, eigvals, type):
    if b is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = _inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True):
    """``(w, v)``: eigenvalues ascending and eigenvectors (columns) of Hermitian ``a``, read
    from its ``lower`` (or upper) triangle; ``w`` alone with ``eigvals_only``. As in JAX, the
    generalized problem (``b``), ``type != 1`` and ``eigvals`` subsets are not supported."""
    del overwrite_a, overwrite_b, turbo, check_finite
    return _eigh(a, b, lower, eigvals_only, eigvals, type)


# ------------------------------------------------------------------------------------------------
# LU


@jit(static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """``(lu, piv)``: L (unit diagonal) below and U on and above the diagonal of ``lu``, and
    ``piv`` the 0-based row interchanges (row i was swapped with row piv[i]), int32."""
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def _lu_solve_one(lu_, perm, b, *, trans):
    if b.ndim == 1:
        return lax_linalg._lu_solve_factors(lu_, perm, b[:, None], trans)[:, 0]
    return lax_linalg._lu_solve_factors(lu_, perm, b, trans)


@jit(static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True):
    """x with op(A) x = b given ``lu_factor(A)``: ``trans`` 0 (A), 1 (A^T) or 2 (A^H)."""
    del overwrite_b, check_finite
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    lu_, pivots = lu_and_piv
    lu_, b = _inexact(lu_, b)
    perm = lax_linalg.lu_pivots_to_permutation(pivots, lu_.shape[-2])
    signature = _vector_signature("lu_solve", lu_, b, arity=3)
    return jnp.vectorize(partial(_lu_solve_one, trans=trans), signature=signature)(
        lu_, perm, b)


@jit(static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(p, l, u)`` with a = p @ l @ u (l unit lower (M, K), u upper (K, N), K = min(M, N));
    ``(p @ l, u)`` with ``permute_l``. Leading axes are a batch."""
    del overwrite_a, check_finite
    return _lu(a, permute_l)


@partial(jit, static_argnums=(1,))  # JAX's inner jit
def _lu(a, permute_l):
    (a,) = _inexact(a)
    if a.ndim < 2:
        raise ValueError(f"lu: expected an array of rank >= 2, got shape {a.shape}")
    lu_, _, perm = lax_linalg.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    # p[i, j] = 1 where perm[j] == i: P^T of the row permutation, so a = p @ l @ u.
    # real, as JAX's (a complex matrix's permutation is float)
    p = jnp.real((perm[..., None, :] == jnp.arange(m, dtype=perm.dtype)[:, None]).astype(a.dtype))
    l = jnp.tril(lu_, -1)[..., :, :k] + jnp.eye(m, k, dtype=a.dtype)
    u = jnp.triu(lu_)[..., :k, :]
    if permute_l:
        return jnp.matmul(p, l, precision=_HIGHEST), u
    return p, l, u


# ------------------------------------------------------------------------------------------------
# QR


@jit(static_argnames=("mode", "pivoting"))
def _qr(a, mode, pivoting):
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = _inexact(a)
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    return (r, *p) if mode == "r" else (q, r, *p)


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """``(Q, R)`` with a = Q R (``mode`` 'full' or 'economic'), ``(R,)`` for mode 'r'; with
    ``pivoting``, also the column permutation P (int32) with a[:, P] = Q R, |diag(R)|
    non-increasing (LAPACK's geqp3)."""
    del overwrite_a, lwork, check_finite
    return _qr(a, mode, pivoting)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """The economic QR of ``a`` (..., M, N) with Q applied to ``c``: ``(Q @ c, R)`` for
    ``mode='left'`` (c (..., K, P), K = min(M, N)) or ``(c @ Q, R)`` for 'right' (c (..., P,
    M)); conj(Q) with ``conjugate``; the column permutation third with ``pivoting``. A 1-D
    ``c`` is a column (left) or row (right) vector and the product comes back 1-D. As JAX's:
    LAPACK's geqrf (geqp3) and ormqr, Q never formed, and not differentiable."""
    del overwrite_a, overwrite_c
    a, c = _inexact(a, c)
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(
            "Array shapes are not compatible for Q @ c operation: a has shape "
            f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} rows (expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(
            "Array shapes are not compatible for c @ Q operation: a has shape "
            f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} columns (expected {m}).")
    batch = jnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])
    if pivoting:
        r, p, taus = lax_linalg.geqp3(a, jnp.zeros(a.shape[:-2] + (n,), dtype=np.int32))
        perm = [p - 1]  # geqp3's pivots are 1-based
    else:
        (r, taus), perm = lax_linalg.geqrf(a), []
    if m > n and mode == "left":  # Q is m x m: c's rows below k meet Q's columns past k
        c = jnp.concatenate([c, jnp.zeros(c.shape[:-2] + (m - k,) + c.shape[-1:], c.dtype)],
                            axis=-2)
    # conj(Q) c = (c^T Q^H)^T: ormqr with Q^H on the other side, no conj of Q needed
    if conjugate:
        c = c.swapaxes(-1, -2)
    out = lax_linalg.ormqr(r, taus, c, left=(mode == "left") != conjugate, transpose=conjugate)
    if conjugate:
        out = out.swapaxes(-1, -2)
    if mode == "right":
        out = out[..., :k]
    if vector:
        out = out.ravel()
    return (out, jnp.triu(r[..., :k, :]), *perm)


# ------------------------------------------------------------------------------------------------
# Symmetric tridiagonal eigenproblem


def _sturm_count(d, e_sq, x, pivmin):
    """How many eigenvalues of the symmetric tridiagonal (d, e) lie below each of ``x``: the
    count of negative pivots of the LDL^T factorization of T - x I (Sylvester's law of
    inertia), with tiny pivots nudged to -pivmin so the recurrence never divides by zero."""
    def step(carry, de):
        q_prev, count = carry
        d_i, e2 = de
        q = d_i - x - e2 / q_prev
        q = jnp.where(jnp.abs(q) < pivmin, -pivmin, q)
        return (q, count + (q < 0)), None

    q0 = d[0] - x
    q0 = jnp.where(jnp.abs(q0) < pivmin, -pivmin, q0)
    (_, count), _ = lax.scan(step, (q0, (q0 < 0).astype(np.int32)), (d[1:], e_sq))
    return count


@partial(jit, static_argnames=("eigvals_only", "select", "select_range"))
def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
    """Eigenvalues (ascending) of the real symmetric (or Hermitian, for complex ``e``)
    tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``, all (``select='a'``) or
    those of indices select_range[0]..select_range[1] ('i'), by bisection on Sturm counts to
    absolute tolerance ``tol``; with ``eigvals_only=False`` also the eigenvectors (columns).
    ``key`` is accepted for JAX's signature: the eigenvectors come from the dense
    Hermitian eigensolver of the tridiagonal matrix, not from random starts."""
    d, e = jnp.asarray(d), jnp.asarray(e)
    for x in (d, e):
        if x.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
            raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                            f"jax.scipy.linalg.eigh_tridiagonal, got {d.dtype} and {e.dtype}")
    n = d.shape[0]
    if select == "a":
        lo, hi = 0, n - 1
    elif select == "i":
        lo, hi = (int(i) for i in select_range)
    elif select == "v":
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    real_dtype = jnp.real(d).dtype
    dr = jnp.real(d).astype(real_dtype)
    e_abs = jnp.abs(e).astype(real_dtype)  # a Hermitian tridiagonal is similar to |e|'s
    if n == 0:
        w = jnp.zeros((0,), real_dtype)
        return w if eigvals_only else (w, jnp.zeros((0, 0), d.dtype))
    # Gershgorin bounds contain every eigenvalue.
    radius = jnp.concatenate([e_abs, jnp.zeros(1, real_dtype)]) + jnp.concatenate(
        [jnp.zeros(1, real_dtype), e_abs])
    lower, upper = jnp.min(dr - radius), jnp.max(dr + radius)
    finfo = dtypes.finfo(real_dtype)
    scale = jnp.maximum(jnp.abs(lower), jnp.abs(upper))
    pivmin = finfo.tiny * jnp.maximum(1, jnp.max(e_abs ** 2, initial=0))
    atol = 2 * finfo.eps * scale if tol is None else jnp.asarray(tol, real_dtype)
    # Eigenvalue k is the x where the Sturm count passes k: bisect all wanted k together;
    # the interval halves each step, so the step count needed is known up front.
    ks = jnp.arange(lo, hi + 1)
    width0 = jnp.maximum(upper - lower, finfo.tiny)
    steps = jnp.ceil(jnp.log2(width0 / jnp.maximum(atol, finfo.tiny))).astype(np.int32) + 1
    steps = jnp.clip(steps, 1, finfo.nmant + 4 + int(np.log2(finfo.max)) // 8)
    e_sq = e_abs * e_abs

    def body(_, bounds):
        a, b = bounds
        mid = a + (b - a) / 2
        below = _sturm_count(dr, e_sq, mid, pivmin) > ks
        return jnp.where(below, a, mid), jnp.where(below, mid, b)

    start = (jnp.full(ks.shape, lower), jnp.full(ks.shape, upper))
    a, b = lax.fori_loop(0, steps, body, start)
    w = a + (b - a) / 2
    if eigvals_only:
        return w
    t = jnp.diag(d) + jnp.diag(e, -1) + jnp.diag(jnp.conj(e), 1)
    v, _ = lax_linalg.eigh(t)
    return w, v[:, lo:hi + 1]


# ------------------------------------------------------------------------------------------------
# Solves


@jit(static_argnames=("assume_a", "lower"))
def _solve(a, b, assume_a, lower):
    if assume_a != "pos":
        return jnp_linalg.solve(a, b)
    a, b = _inexact(a, b)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}")
    # Through one Cholesky factorization; its JVP rule gives the derivative in a.
    factors = cho_factor(a, lower=lower)
    if a.ndim == b.ndim + 1:  # b: (..., m), one vector per matrix
        return cho_solve(factors, b[..., None])[..., 0]
    return cho_solve(factors, b)


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """x with a @ x = b. ``assume_a='pos'`` solves through a Cholesky factorization of the
    ``lower`` (default upper) triangle of ``a``; 'gen', 'sym' and 'her' through LU."""
    del overwrite_a, overwrite_b, debug, check_finite
    valid_assume_a = ["gen", "sym", "her", "pos"]
    if assume_a not in valid_assume_a:
        raise ValueError(f"Expected assume_a to be one of {valid_assume_a}; got {assume_a!r}")
    return _solve(a, b, assume_a, lower)


@jit(static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a, b, trans, lower, unit_diagonal):
    if trans == 0 or trans == "N":
        transpose_a, conjugate_a = False, False
    elif trans == 1 or trans == "T":
        transpose_a, conjugate_a = True, False
    elif trans == 2 or trans == "C":
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = _inexact(a, b)
    signature = _vector_signature("solve_triangular", a, b)
    return jnp.vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                                 transpose_a=transpose_a, conjugate_a=conjugate_a,
                                 unit_diagonal=unit_diagonal),
                         signature=signature)(a, b)


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """x with op(a) x = b for triangular ``a`` (its ``lower`` or upper triangle is read);
    ``trans`` 0/'N' (a), 1/'T' (a^T) or 2/'C' (a^H)."""
    del overwrite_b, debug, check_finite
    return _solve_triangular(a, b, trans, lower, unit_diagonal)


# ------------------------------------------------------------------------------------------------
# Matrix exponential: scaling and squaring with Pade approximants (Higham 2005), as JAX


@jit(static_argnames=("upper_triangular", "max_squarings"))
def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """exp(A) of square matrices (..., n, n); NaNs where more than ``max_squarings``
    squarings would be needed."""
    (A,) = _inexact(A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got {A.shape=}.")
    if A.ndim > 2:
        return jnp.vectorize(partial(expm, upper_triangular=upper_triangular,
                                     max_squarings=max_squarings),
                             signature="(n,n)->(n,n)")(A)
    P, Q, n_squarings = _calc_P_Q(A)

    def _nan(args):
        A, *_ = args
        return jnp.full_like(A, np.nan)

    def _compute(args):
        A, P, Q = args
        R = (solve_triangular(Q, P) if upper_triangular else jnp_linalg.solve(Q, P))
        return _squaring(R, n_squarings, max_squarings)

    return lax.cond(n_squarings > max_squarings, _nan, _compute, (A, P, Q))


def _calc_P_Q(A):
    A_L1 = jnp_linalg.norm(A, 1)
    if A.dtype in (np.float64, np.complex128):
        maxnorm = 5.371920351148152
        conds = [1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                 2.097847961257068e+000]
        pades = [_pade3, _pade5, _pade7, _pade9, _pade13]
    elif A.dtype in (np.float32, np.complex64):
        maxnorm = 3.925724783138660
        conds = [4.258730016922831e-001, 1.880152677804762e+000]
        pades = [_pade3, _pade5, _pade7]
    else:
        raise TypeError(f"A.dtype={A.dtype} is not supported.")
    n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(A_L1 / maxnorm)))
    A = A / (2 ** n_squarings).astype(A.dtype)
    idx = jnp.digitize(A_L1, jnp.array(conds, dtype=A_L1.dtype))
    U, V = lax.switch(idx, pades, A)
    return U + V, -U + V, n_squarings  # numerator p_m(A), denominator q_m(A)


def _dot(A, B):
    return jnp.matmul(A, B, precision=_HIGHEST)


def _squaring(R, n_squarings, max_squarings):
    def body(c, i):
        return lax.cond(i < n_squarings, lambda x: _dot(x, x), lambda x: x, c), None

    res, _ = lax.scan(body, R, jnp.arange(max_squarings, dtype=n_squarings.dtype))
    return res


def _pade_powers(A, count):
    ident = jnp.eye(*A.shape, dtype=A.dtype)
    A2 = _dot(A, A)
    powers = [ident, A2]
    if count >= 2:
        powers.append(_dot(A2, A2))
    if count >= 3:
        powers.append(_dot(powers[2], A2))
    if count >= 4:
        powers.append(_dot(powers[3], A2))
    return powers


def _pade(b):
    """The (m, m) Pade approximant's odd part U and even part V for coefficients ``b``."""
    count = (len(b) - 2) // 2

    def approx(A):
        powers = _pade_powers(A, count)  # I, A^2, A^4, ...
        return _dot(A, _weighted_sum(b[1::2], powers)), _weighted_sum(b[0::2], powers)

    return approx


def _weighted_sum(coeffs, powers):
    """``sum(c * p)``, added from the highest power down as JAX writes it (``b[7]*A6 +
    b[5]*A4 + ...``): float32 sums in another order differ in the last digits."""
    terms = [c * p for c, p in zip(coeffs, powers)]
    total = terms[-1]
    for t in reversed(terms[:-1]):
        total = total + t
    return total


_pade3 = _pade((120., 60., 12., 1.))
_pade5 = _pade((30240., 15120., 3360., 420., 30., 1.))
_pade7 = _pade((17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.))
_pade9 = _pade((17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160.,
                110880., 3960., 90., 1.))


def _pade13(A):
    b = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.)
    ident, A2, A4, A6 = _pade_powers(A, 3)
    U = _dot(A, _dot(A6, b[13] * A6 + b[11] * A4 + b[9] * A2)
             + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * ident)
    V = (_dot(A6, b[12] * A6 + b[10] * A4 + b[8] * A2)
         + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident)
    return U, V


@jit(static_argnames=("method", "compute_expm"))
def expm_frechet(A, E, *, method=None, compute_expm: bool = True):
    """The Frechet derivative of expm at ``A`` in direction ``E`` (the JVP of :func:`expm`),
    with expm(A) first when ``compute_expm``."""
    del method
    A, E = jnp.asarray(A), jnp.asarray(E)
    if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise ValueError("expected A and E to be the same shape, got "
                         f"A.shape={A.shape} E.shape={E.shape}")
    expm_A, frechet = jvp(partial(expm, upper_triangular=False, max_squarings=16), (A,), (E,))
    return (expm_A, frechet) if compute_expm else frechet


# ------------------------------------------------------------------------------------------------
# Polar decomposition


# As JAX 0.10.2's: a jit with static side and method only, so eps and max_iterations are
# traced; lax.linalg.qdwh's static eps then refuses a given eps (unhashable tracer), and
# max_iterations is not passed on at all (qdwh's default, 10, holds).
@partial(jit, static_argnames=("side", "method"))
def _polar_2d(a, side, method, eps, max_iterations):
    m, n = a.shape
    if method == "qdwh":
        if m >= n and side == "right":
            unitary, posdef, _, _ = lax_linalg.qdwh(a, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            unitary, posdef, _, _ = lax_linalg.qdwh(jnp.conj(a.T), is_hermitian=False, eps=eps)
            posdef, unitary = jnp.conj(posdef.T), jnp.conj(unitary.T)
        else:
            # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError(
                "method='qdwh' only supports mxn matrices where m < n where side='right' and "
                f"m >= n side='left', got {a.shape} with {side=}")
    elif method == "svd":
        u, s, vh = lax_linalg.svd(a, full_matrices=False)
        s = s.astype(u.dtype)
        unitary = _dot(u, vh)
        if side == "right":
            posdef = _dot(jnp.conj(vh.T) * s[None, :], vh)
        else:
            posdef = _dot(u * s[None, :], jnp.conj(u.T))
    else:
        raise ValueError(f"Unknown polar decomposition method {method}.")
    return unitary, posdef


def polar(a, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None):
    """``(u, p)``: a = u p (``side='right'``, p (n, n)) or a = p u (``'left'``, p (m, m)) with
    u unitary and p Hermitian positive semi-definite; by QDWH iteration or by the SVD."""
    arr = jnp.asarray(a)  # not promoted: an integer matrix is refused, as in JAX
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return jnp.vectorize(partial(_polar_2d, side=side, method=method, eps=eps,
                                 max_iterations=max_iterations), signature=sig)(arr)


# ------------------------------------------------------------------------------------------------
# Special matrices


@jit
def block_diag(*arrs):
    """The block-diagonal matrix of the (at most 2-D) arguments, in order."""
    if len(arrs) == 0:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(jnp.asarray(a) for a in promote_dtypes(*arrs))
    bad = [i for i, a in enumerate(arrs) if a.ndim > 2]
    if bad:
        raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                         f"dimensions, got {arrs[bad[0]]} at argument {bad[0]}.")
    arrs = [jnp.atleast_2d(a) for a in arrs]
    dtype = arrs[0].dtype
    total_cols = sum(a.shape[1] for a in arrs)
    padded, col = [], 0
    for arr in arrs:
        cols = arr.shape[1]
        padded.append(lax.pad(arr, np.zeros((), dtype),
                              ((0, 0, 0), (col, total_cols - cols - col, 0))))
        col += cols
    return jnp.concatenate(padded, axis=0)


@partial(jit, static_argnames=("n",))
def hilbert(n: int):
    """The (n, n) Hilbert matrix H[i, j] = 1 / (i + j + 1), in the default float dtype."""
    a = lax.broadcasted_iota(dtypes.default_float_dtype(), (n, 1), 0)
    return 1 / (a + a.T + 1)
