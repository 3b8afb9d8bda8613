"""``minijax.numpy.linalg``: NumPy's linalg on the factorizations of ``minijax.lax.linalg``.

Everything batches over leading axes like NumPy's gufuncs. Integer inputs become the default
float dtype first. Results that NumPy decides from values (``lstsq``'s residuals when the rank
is deficient) are computed with static shapes instead, as in JAX. Derivatives come from the
factorizations' JVP rules, so grad, jit and vmap compose through every function here.
"""

from __future__ import annotations

import functools
import itertools
import math as _math
import operator
from typing import NamedTuple

import numpy as np

from minijax import dtypes, lax
from minijax.lax import Precision
from minijax.config import default_matmul_precision
from minijax.custom_derivatives import custom_jvp
from minijax.lax import linalg as lax_linalg
from minijax.lax.families import rule_const
from minijax.lax.elementwise import stop_gradient
from minijax.numpy import creation, math, reductions, sorting
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import canonicalize_axis, check_arraylike, promote_dtypes_inexact
from minijax.numpy.creation import to_array
from minijax.numpy.functional import vectorize
from minijax.numpy.einsum import einsum
from minijax.numpy.indexing_routines import diagonal as _jnp_diagonal
from minijax.numpy.indexing_routines import take_along_axis
from minijax.numpy.logic import isinf, isnan
from minijax.numpy.linear_algebra import matmul, tensordot, vecdot
from minijax.numpy.linear_algebra import trace as _jnp_trace
from minijax.numpy.manipulation import (broadcast_to, concatenate, expand_dims, matrix_transpose,
                                        moveaxis)
from minijax.vmapping import vmap

__all__ = [
    "EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cond",
    "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm",
    "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv",
    "tensorsolve", "trace", "vecdot", "vector_norm",
]


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


def _inexact(name, *args):
    arrays = [to_array(a) for a in args]
    return [to_array(a) for a in promote_dtypes_inexact(*arrays)]


# JAX's own words where a function checks the shape itself (others say "Last 2 dimensions")
_NOT_SQUARE = {
    "det": "Argument to _det() must have shape [..., n, n], got {shape}",
    "slogdet": "Argument to slogdet() must have shape [..., n, n], got {shape}",
    "inv": "Argument to inv must have shape [..., n, n], got {shape}.",
    "eig": "The input to eig must be a square matrix. Got shape {last2}.",
    "eigvals": "The input to eig must be a square matrix. Got shape {last2}.",
}


def _matrix(name, a, square=False):
    (a,) = _inexact(name, a)
    if square and name in _NOT_SQUARE and (a.ndim < 2 or a.shape[-1] != a.shape[-2]):
        raise ValueError(_NOT_SQUARE[name].format(shape=a.shape, last2=a.shape[-2:]))
    if a.ndim < 2:
        raise ValueError(f"{name}: {a.ndim}-dimensional array given. Array must be at least "
                         "two-dimensional")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: Last 2 dimensions of the array must be square, got "
                         f"shape {a.shape}")
    return a


def _H(x):
    return math.conjugate(matrix_transpose(x))


def diagonal(x, /, *, offset=0):
    """The ``offset`` diagonal of the last two axes (jnp.diagonal's default axes are the
    first two). jnp.diagonal selects: a mask-and-multiply would turn a whole row NaN beside
    one NaN."""
    check_arraylike("jnp.linalg.diagonal", x)
    return _jnp_diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """The trace of the last two axes (jnp.trace's default axes are the first two)."""
    check_arraylike("jnp.linalg.trace", x)
    return _jnp_trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


# ------------------------------------------------------------------------------------------------
# Factorizations


@eager_jit(static_argnames=("upper", "symmetrize_input"), inline=False)
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """Lower (or ``upper``) Cholesky factor; NaNs where ``a`` is not positive definite."""
    # JAX checks nothing here: symmetrize broadcasts a (1, n) operand, its transpose refuses
    # rank < 2, and the primitive a non-square one
    (a,) = _inexact("cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


@eager_jit(static_argnames=("mode",), inline=False)
def qr(a, mode: str = "reduced"):
    """``QRResult(Q, R)`` (modes 'reduced', 'complete'), or R alone (mode 'r')."""
    a = _matrix("qr", a)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


@eager_jit(static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index"),
           inline=False)
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: tuple[int, int] | None = None):
    """``SVDResult(U, S, Vh)`` with a = U diag(S) Vh, S descending; or S (``compute_uv=False``).
    ``hermitian`` takes JAX's route through ``eigh`` (other signs than a general SVD's, and
    ``full_matrices`` ignored); ``subset_by_index`` goes to lax's svd or eigh, which compute
    only the whole range on CPU and GPU."""
    a = _matrix("svd", a)
    if hermitian:
        return _svd_hermitian(a, compute_uv, subset_by_index)
    if not compute_uv:
        return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False,
                              subset_by_index=subset_by_index)
    return SVDResult(*lax_linalg.svd(a, full_matrices=full_matrices,
                                     subset_by_index=subset_by_index))


def _svd_hermitian(a, compute_uv, subset_by_index):
    # JAX's: s = |w| descending; U the eigenvectors in that order, Vh = (U * sign(w))^H
    v, w = lax_linalg.eigh(a, subset_by_index=subset_by_index)
    s = lax.abs(w)
    last = s.ndim - 1
    if not compute_uv:
        return lax.rev(lax.sort(s, dimension=-1), dimensions=[last])
    sign = lax.sign(w)
    idx_dtype = np.uint64 if s.shape[last] > np.iinfo(np.uint32).max else np.uint32
    idxs = lax.broadcasted_iota(idx_dtype, s.shape, last)
    s, idxs, sign = lax.sort((s, idxs, sign), dimension=-1, num_keys=1)
    s, idxs, sign = (lax.rev(x, dimensions=[last]) for x in (s, idxs, sign))
    u = take_along_axis(v, idxs[..., None, :], axis=-1)
    return SVDResult(u, s, _H(u * sign[..., None, :].astype(u.dtype)))


def svdvals(x):
    return svd(x, compute_uv=False)


@eager_jit(static_argnames=("UPLO", "symmetrize_input"), inline=False)
def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
    """``EighResult(eigenvalues, eigenvectors)``, eigenvalues ascending."""
    (a,) = _inexact("eigh", a)  # the shape checks are lax's, as cholesky's
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
    v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


@eager_jit(static_argnames=("UPLO", "symmetrize_input"), inline=False)
def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def eig(a):
    """``EigResult(eigenvalues, eigenvectors)`` of general square matrices: always complex
    (complex64 for 32-bit inputs, complex128 for 64-bit, as JAX), eigenvectors as unit-norm
    columns with a @ v = v * w[..., None, :]. Eigenvalues come in LAPACK's order."""
    a = _matrix("eig", a, square=True)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@eager_jit(inline=False)
def eigvals(a):
    """The (complex) eigenvalues of general square matrices, as ``eig(a).eigenvalues``."""
    a = _matrix("eigvals", a, square=True)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


# ------------------------------------------------------------------------------------------------
# Determinants, inverses, solves (all through one LU factorization)


def _det_closed_form(a):
    """The 2x2 and 3x3 determinants as JAX writes them (no LU: any float dtype, float16 too,
    and an inf entry gives the formula's inf - inf = NaN, as in JAX)."""
    e = lambda i, j: a[..., i, j]
    if a.shape[-1] == 2:
        return e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0)
    return (e(0, 0) * e(1, 1) * e(2, 2) + e(0, 1) * e(1, 2) * e(2, 0)
            + e(0, 2) * e(1, 0) * e(2, 1) - e(0, 2) * e(1, 1) * e(2, 0)
            - e(0, 0) * e(1, 2) * e(2, 1) - e(0, 1) * e(1, 0) * e(2, 2))


@eager_jit(inline=False)
def det(a):
    a = _matrix("det", a, square=True)
    if a.shape[-1] in (2, 3):
        return _det_closed_form(a)  # differentiated through the formula, as JAX
    return _det(a)


@custom_jvp
def _det(a):
    """Other sizes, as JAX: the value from ``slogdet``, the derivative from the adjugate
    (``_cofactor_solve``), never a division by the determinant, so singular, zero and
    denormal determinants have finite derivatives."""
    sign, logabsdet = slogdet(a)
    return sign * math.exp(logabsdet).astype(sign.dtype)


@_det.defjvp
def _det_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    y, z = _cofactor_solve(x, g)  # y is the LU product: JAX's primal under differentiation
    return y, _jnp_trace(z, axis1=-1, axis2=-2)


def _cofactor_solve(a, b):
    """``(det(a), adj(a) @ b)`` for square ``a`` and ``b`` of its shape, defined for every
    ``a`` (JAX's construction). With P a = L U and x = L^-1 P b, adj(a) b = det(a) U^-1 x.
    The last pivot u_nn may be zero (rank n - 1), so U's corner becomes 1 / p, p the other
    pivots' product times the permutation's sign, and x's rows above the last are scaled by
    det(a): the solve's last entry is then p x_n = det(a) x_n / u_nn and the rows above it
    are unchanged. Below rank n - 1 that U is singular too (a non-finite probe solve) and
    the adjugate is zero, so those matrices give zeros."""
    if a.shape[-1] == 1:
        return a[..., 0, 0], b
    lu, pivots, permutation = lax_linalg.lu(a)
    swaps = reductions.count_nonzero(
        pivots != creation.arange(pivots.shape[-1], dtype=pivots.dtype), axis=-1)
    sign = (-2 * (swaps % 2) + 1).astype(a.dtype)
    partial_det = reductions.cumprod(diagonal(lu), axis=-1) * sign[..., None]
    lu = lu.at[..., -1, -1].set(1.0 / partial_det[..., -2])
    ones = creation.ones(b.shape[:-1], b.dtype)
    probe = lax_linalg.triangular_solve(lu, ones, left_side=True, lower=False)
    low_rank = reductions.any(isnan(probe) | isinf(probe), axis=-1)[..., None, None]
    x = sorting.where(low_rank, creation.zeros_like(b), b)
    x = take_along_axis(x, permutation[..., None], axis=-2, mode="promise_in_bounds")
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    x = concatenate((x[..., :-1, :] * partial_det[..., -1, None, None], x[..., -1:, :]),
                    axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    return partial_det[..., -1], sorting.where(low_rank, creation.zeros_like(x), x)


@eager_jit(static_argnames=("method",), inline=False)
def slogdet(a, *, method=None):
    """``SlogdetResult(sign, logabsdet)``: sign 0 and logabsdet -inf for singular matrices.
    As JAX: 1x1 and 2x2 from the closed-form determinant; larger from LU, where any zero
    pivot decides (so an inf pivot beside it gives -inf, not NaN) and, for real matrices,
    the sign counts the negative pivots instead of dividing by them. Both are differentiated
    by JAX's custom rule (``d logabsdet = trace(a^-1 da)``), never through the factorization."""
    if method not in (None, "lu", "qr"):  # "qr" gives the same values, here through LU
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         "(`None`), and 'qr'.")
    a = _matrix("slogdet", a, square=True)
    if method != "qr" and a.shape[-1] in (1, 2):
        return SlogdetResult(*_slogdet_small(a))
    return SlogdetResult(*_slogdet_lu(a))


@custom_jvp
def _slogdet_small(a):
    d = a[..., 0, 0] if a.shape[-1] == 1 else _det_closed_form(a)
    return math.sign(d), math.real(math.log(math.abs(d)))


@custom_jvp
def _slogdet_lu(a):
    lu, piv, _ = lax_linalg.lu(a)
    diag = diagonal(lu)
    is_zero = reductions.any(diag == 0, axis=-1)
    parity = reductions.count_nonzero(
        piv != creation.arange(piv.shape[-1], dtype=piv.dtype), axis=-1)
    if np.issubdtype(a.dtype, np.complexfloating):
        sign = reductions.prod(diag / math.abs(diag).astype(diag.dtype), axis=-1)
    else:
        sign = creation.ones((), a.dtype)
        parity = parity + reductions.count_nonzero(diag < 0, axis=-1)
    flip = creation.array(-2 * (parity % 2) + 1, dtype=a.dtype)
    sign = sorting.where(is_zero, creation.zeros((), a.dtype), sign * flip)
    logabsdet = reductions.sum(math.log(math.abs(diag)), axis=-1)
    logabsdet = sorting.where(is_zero, creation.full((), -np.inf, logabsdet.dtype), logabsdet)
    return sign, logabsdet


def _slogdet_tangents(sign, ans_dot):
    """A complex determinant's phase turns with the imaginary part of ``trace(a^-1 da)``; a
    real sign has zero derivative."""
    if np.issubdtype(ans_dot.dtype, np.complexfloating):
        return (ans_dot - math.real(ans_dot).astype(ans_dot.dtype)) * sign, math.real(ans_dot)
    return creation.zeros_like(sign), ans_dot


@_slogdet_small.defjvp
def _slogdet_small_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    sign, ans = _slogdet_small(x)
    if x.shape[-1] == 1:
        ans_dot = g[..., 0, 0] / x[..., 0, 0]
    else:
        e, t = (lambda i, j: x[..., i, j]), (lambda i, j: g[..., i, j])
        ans_dot = (t(0, 0) * e(1, 1) - t(0, 1) * e(1, 0) - t(1, 0) * e(0, 1)
                   + t(1, 1) * e(0, 0)) / _det_closed_form(x)
    return (sign, ans), _slogdet_tangents(sign, ans_dot)


@_slogdet_lu.defjvp
def _slogdet_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    sign, ans = slogdet(x)  # the jitted function, as JAX's rule calls it
    ans_dot = _jnp_trace(solve(x, g), axis1=-1, axis2=-2)
    return (sign, ans), _slogdet_tangents(sign, ans_dot)


@eager_jit(inline=False)
def solve(a, b):
    """x with a @ x = b; ``b`` is a vector (..., m) when 1-D, else matrices (..., m, k)."""
    a = _matrix("solve", a, square=True)
    a, b = _inexact("solve", a, b)
    if (b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]
            and a.shape[-1] != b.shape[-2]):
        # JAX's message for the shapes older JAX took as a batched 1-D solve
        raise ValueError(
            f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX v0.5.0, this would "
            "have been treated as a batched 1-dimensional solve. To recover this behavior, use "
            "solve(a, b[..., None]).squeeze(-1).")
    signature = "(m,m),(m)->(m)" if b.ndim == 1 else "(m,m),(m,n)->(m,n)"
    return vectorize(_solve, signature=signature)(a, b)


def _solve(a, b):
    """JAX's ``lax.linalg._solve``: ``custom_linear_solve`` with the LU of
    ``stop_gradient(a)``, so every derivative of any order is a solve with the same factors,
    never one through the factorization (the LU of a matrix holding infs has NaN derivatives
    where ``a^-1`` is finite: FINDINGS 164); a matrix ``b`` is solved column by column."""
    out_shape = tuple(d_a if d_b == 1 else d_b for d_a, d_b in zip(a.shape[:-1] + (1,), b.shape))
    b = lax.broadcast_in_dim(b, out_shape, tuple(range(b.ndim)))
    lu, _, perm = lax_linalg.lu(stop_gradient(a))
    custom_solve = functools.partial(
        lax.custom_linear_solve, lambda x: _broadcasted_matvec(a, x),
        solve=lambda _, x: _lu_solve(lu, perm, x, 0),
        transpose_solve=lambda _, x: _lu_solve(lu, perm, x, 1))
    if a.ndim == b.ndim + 1:
        return custom_solve(b)
    return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


def _broadcasted_matvec(a, b):
    """JAX's (..., n, m), (..., m) -> (..., n) dot at HIGHEST precision (the solve's matvec)."""
    batch_shape = lax.broadcast_shapes(a.shape[:-2], b.shape[:-1])
    n_batch = len(batch_shape)
    a = _broadcast_leading(a, (*batch_shape, *a.shape[-2:]))
    b = _broadcast_leading(b, (*batch_shape, b.shape[-1]))
    batch = list(range(n_batch))
    return lax.dot_general(a, b, (([a.ndim - 1], [b.ndim - 1]), (batch, batch)),
                           precision=Precision.HIGHEST)


def _broadcast_leading(x, shape):
    """JAX's ``lax.linalg._broadcast_to``: a ``broadcast_in_dim`` even to ``x``'s own shape
    (its transpose is the vecmat's ``reduce_sum[axes=()]``)."""
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - x.ndim, len(shape))))


@eager_jit(inline=False, static_argnames=("trans",))
def _lu_solve(lu, perm, b, trans):
    """JAX's ``lax.linalg._lu_solve`` (a jit of its own, printed ``_lu_solve``): a vector ``b``
    as one column, the batch dimensions broadcast and vmapped."""
    rhs_vector = lu.ndim == b.ndim + 1
    if rhs_vector:
        b = b[..., np.newaxis]
    batch_shape = lax.broadcast_shapes(lu.shape[:-2], perm.shape[:-1], b.shape[:-2])
    lu = broadcast_to(lu, (*batch_shape, *lu.shape[-2:]))
    perm = broadcast_to(perm, (*batch_shape, perm.shape[-1]))
    b = broadcast_to(b, (*batch_shape, *b.shape[-2:]))
    fn = functools.partial(_lu_solve_core, trans=trans)
    for _ in batch_shape:
        fn = vmap(fn)
    x = fn(lu, perm, b)
    return x[..., 0] if rhs_vector else x


lax_linalg.LU_SOLVE.append(_lu_solve)


def _lu_solve_core(lu, perm, b, trans):
    """JAX's ``_lu_solve_core``: the solve of one matrix, b's columns flattened into one axis,
    the permutation applied by jnp indexing."""
    m = lu.shape[0]
    x = lax.reshape(b, (m, _math.prod(b.shape[1:])))
    x = lax_linalg._lu_solve_factors(lu, perm, x, trans, permute=lambda x, p: x[p, :])
    return lax.reshape(x, b.shape)


@eager_jit(inline=False)
def inv(a):
    a = _matrix("inv", a, square=True)
    eye = broadcast_to(creation.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return solve(a, eye)  # the solve jit, as JAX's inv


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a matrix of its first ``ind`` axes by the others (shape
    ``a.shape[ind:] + a.shape[:ind]``)."""
    check_arraylike("tensorinv", a)
    arr = to_array(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got {ind=}")
    contracting_shape, batch_shape = arr.shape[:ind], arr.shape[ind:]
    flatshape = (_math.prod(contracting_shape), _math.prod(batch_shape))
    if flatshape[0] != flatshape[1]:
        raise ValueError("tensorinv is only possible when the product of the first"
                         " `ind` dimensions equals that of the remaining dimensions."
                         f" got {arr.shape=} with {ind=}.")
    return inv(arr.reshape(flatshape)).reshape(*batch_shape, *contracting_shape)


def tensorsolve(a, b, axes=None):
    """x with ``tensordot(a, x, x.ndim) == b`` (``axes`` of ``a`` moved to the end first)."""
    check_arraylike("tensorsolve", a, b)
    a_arr, b_arr = to_array(a), to_array(b)
    if axes is not None:
        a_arr = moveaxis(a_arr, axes, len(axes) * (a_arr.ndim - 1,))
    out_shape = a_arr.shape[b_arr.ndim:]
    if a_arr.shape[:b_arr.ndim] != b_arr.shape:
        raise ValueError("After moving axes to end, leading shape of a must match shape of b."
                         f" got a.shape={a_arr.shape}, b.shape={b_arr.shape}")
    if b_arr.size != _math.prod(out_shape):
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]); got a.shape={a_arr.shape}, "
                         f"b.ndim={b_arr.ndim}.")
    a_arr = a_arr.reshape(b_arr.size, _math.prod(out_shape))
    return solve(a_arr, b_arr.ravel()).reshape(out_shape)


def multi_dot(arrays, *, precision=None):
    """The chained product ``arrays[0] @ arrays[1] @ ...`` as one einsum (which picks the
    cheapest order); the first and last arrays may be 1-D."""
    check_arraylike("jnp.linalg.multi_dot", *arrays)
    # one array alone is split into its rows, as JAX's (its ensure_arraylike returns it bare)
    arrs = [to_array(a) for a in (to_array(arrays[0]) if len(arrays) == 1 else arrays)]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2) and
            all(a.ndim == 2 for a in arrs[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for"
                         " the first and last array which may be 1 or 2 dimensional."
                         f" Got array shapes {[a.shape for a in arrs]}")
    if any(a.shape[-1] != b.shape[0] for a, b in zip(arrs[:-1], arrs[1:])):
        raise ValueError("multi_dot: last dimension of each array must match first dimension"
                         f" of following array. Got array shapes {[a.shape for a in arrs]}")
    einsum_axes = [(i, i + 1) for i in range(len(arrs))]
    if arrs[0].ndim == 1:
        einsum_axes[0] = einsum_axes[0][1:]
    if arrs[-1].ndim == 1:
        einsum_axes[-1] = einsum_axes[-1][:1]
    return einsum(*itertools.chain(*zip(arrs, einsum_axes)), optimize="auto",
                  precision=precision)


def outer(x1, x2, /):
    """The outer product of two vectors (the array API's ``linalg.outer``; ``jnp.outer``
    flattens its operands, this one refuses other ranks as JAX's does)."""
    check_arraylike("jnp.linalg.outer", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are "
                         f"{x1.ndim=} {x2.ndim=}")
    return x1[:, None] * x2[None, :]


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along ``axis`` (the array API's ``linalg.cross``)."""
    check_arraylike("jnp.linalg.outer", x1, x2)  # JAX's name in its message
    x1, x2 = to_array(x1), to_array(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they have {x1.shape[axis]=} and {x2.shape[axis]=}")
    return math.cross(x1, x2, axis=axis)


@eager_jit(static_argnames=("p",), inline=False)  # a jit in JAX
def cond(x, p=None):
    """The condition number of ``x`` in the ``p`` norm (default 2: the ratio of the extreme
    singular values); inf, not NaN, for a singular matrix without NaNs."""
    check_arraylike("cond", x)
    arr = to_array(x)
    if arr.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got {arr.shape=}")
    if arr.shape[-1] == 0 or arr.shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got {arr.shape=}")
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        if arr.shape[-2] != arr.shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for {p=}, array must be square; got {arr.shape=}")
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    # NaNs become infs where the input has none (a singular matrix)
    return sorting.where(isnan(r) & ~reductions.any(isnan(x), axis=(-2, -1)), np.inf, r)


@eager_jit(static_argnames=("n",), inline=False)
def matrix_power(a, n):
    """a @ a @ ... (n times) by repeated squaring; negative n inverts first; n = 0 gives I."""
    a = to_array(a)
    if a.ndim < 2:  # JAX's TypeErrors
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError(f"exponent must be an integer, got {n}") from e
    if n == 0:
        return broadcast_to(creation.eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n < 0:
        a, n = inv(a), -n
    result, square = None, a
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


# ------------------------------------------------------------------------------------------------
# Through the SVD: pinv, lstsq, matrix_rank


def _default_rtol(a):
    return max(a.shape[-2:]) * float(dtypes.finfo(a.dtype).eps)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """Moore-Penrose pseudo-inverse: singular values below rtol * max(s) are dropped."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv(a, rtol, hermitian)


# JAX's jit (rtol is traced) under JAX's custom JVP
@functools.partial(custom_jvp, nondiff_argnums=(1, 2))
@eager_jit(static_argnames=("hermitian",), inline=False)
def _pinv(a, rtol=None, hermitian: bool = False):
    a = _matrix("pinv", a)
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return creation.empty(a.shape[:-2] + (n, m), a.dtype)
    a = math.conj(a)
    if rtol is None:
        rtol = 10. * max(m, n) * creation.array(dtypes.finfo(a.dtype).eps)
    rtol = to_array(rtol)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    # singular values at most rtol * the largest are dropped (1 / inf = 0)
    rtol = expand_dims(rtol[..., None], tuple(range(s.ndim - rtol.ndim - 1)))
    s = sorting.where(s > rtol * s[..., 0:1], s, np.inf).astype(u.dtype)
    res = matmul(matrix_transpose(vh), math.divide(matrix_transpose(u), s[..., None]),
                 precision=Precision.HIGHEST)
    return res.astype(a.dtype)


@_pinv.defjvp
@default_matmul_precision("float32")
def _pinv_jvp(rtol, hermitian, primals, tangents):
    """JAX's rule: Golub & Pereyra's derivative of the pseudo-inverse (SIAM J. Numer. Anal.
    10(2), 1973), defined where the SVD's derivative is not (repeated or dropped singular
    values); the products are grouped as JAX groups them, per shape."""
    (a,), (a_dot,) = primals, tangents
    p = pinv(a, rtol=rtol, hermitian=hermitian)  # n x m
    if hermitian:  # svd(hermitian=True) symmetrizes its input, and so must the derivative
        a, a_dot = lax_linalg.symmetrize(a), lax_linalg.symmetrize(a_dot)
    m, n = a.shape[-2:]
    if m >= n:
        s = (p @ _H(p)) @ _H(a_dot)  # n x m
        t = (_H(a_dot) @ _H(p)) @ p  # n x m
        p_dot = -(p @ a_dot) @ p + s - (s @ a) @ p + t - (p @ a) @ t
    else:
        s = p @ (_H(p) @ _H(a_dot))
        t = _H(a_dot) @ (_H(p) @ p)
        p_dot = -p @ (a_dot @ p) + s - s @ (a @ p) + t - p @ (a @ t)
    return p, p_dot


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """``(x, residuals, rank, s)`` minimizing |a x - b|. The residuals are always the summed
    squares of each column's residual, as JAX's (``numpy_resid``: empty where NumPy's are,
    which needs a concrete rank, so it is not jitted)."""
    if numpy_resid:
        return _lstsq.__wrapped__(a, b, rcond, numpy_resid=True)
    return _lstsq(a, b, rcond)


# JAX's jit (named _lstsq): rcond is traced
@eager_jit(inline=False)
def _lstsq(a, b, rcond, *, numpy_resid=False):
    a, b = _inexact("lstsq", a, b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim != 2:
        raise TypeError(
            f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
    m, n = a.shape
    if a.size == 0:
        s = creation.empty(0, dtype=a.dtype)
        rank = creation.array(0, dtype=dtypes.default_int_dtype())
        x = creation.zeros((n, *b.shape[1:]), dtype=a.dtype)
    else:
        eps = dtypes.finfo(a.dtype).eps
        if rcond is None:
            rcond = float(eps) * max(n, m)
        else:
            rcond = sorting.where(to_array(rcond) < 0, eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = (s > 0) & (s >= creation.array(rcond, dtype=s.dtype) * s[0])
        rank = reductions.sum(mask)
        safe_s = sorting.where(mask, s, 1).astype(a.dtype)
        s_inv = sorting.where(mask, 1 / safe_s, 0)[:, None]
        u_b = matmul(_H(u), b, precision=Precision.HIGHEST)
        x = matmul(_H(vt), s_inv * u_b, precision=Precision.HIGHEST)
    if numpy_resid and (rank < n or m <= n):
        resid = creation.asarray([])
    else:
        b_estimate = matmul(a, x, precision=Precision.HIGHEST)
        resid = norm(b - b_estimate, axis=0) ** 2
    if vector:
        x = x.ravel()
    return x, resid, rank, s


@eager_jit(static_argnames=("hermitian",), inline=False)
def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """The number of singular values above ``tol`` (default rtol * max(s))."""
    M = _inexact("matrix_rank", M)[0]
    if M.ndim < 2:
        return reductions.any(M != 0).astype(np.int32)
    s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if tol is None:
        rtol = _default_rtol(M) if rtol is None else rtol
        tol = rtol * reductions.max(s, axis=-1, keepdims=True)
    elif hasattr(tol, "ndim") and tol.ndim:
        tol = expand_dims(tol, -1)
    return reductions.sum(s > tol, axis=-1)  # the default int, as JAX's (int64 under x64)


# ------------------------------------------------------------------------------------------------
# Norms


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """As JAX's (not jitted, no promotion of integer inputs): reductions over ``axis`` (all
    axes for None) that take ``keepdims`` themselves, so a reduced axis is kept before the
    reduction's final convert to a narrow float, as JAX's programs keep it."""
    check_arraylike("vector_norm", x)
    x = to_array(x)
    if ord is None or ord == 2:
        return math.sqrt(reductions.sum(math.real(x * math.conjugate(x)), axis=axis,
                                        keepdims=keepdims))
    if ord == np.inf:
        # initial=0: the norm of an empty vector is 0, not an error
        return reductions.max(math.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return reductions.min(math.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return reductions.sum(x != 0, dtype=dtypes.finfo(x.dtype).dtype, axis=axis,
                              keepdims=keepdims)
    if ord == 1:
        return reductions.sum(math.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord in ("inf", "-inf"):
            msg += f"Use '{ord[:-3]}jax.numpy.inf' instead."
        raise ValueError(msg)
    # the exponent is an array of |x|'s dtype, as JAX's: a float one gives lax.pow, not
    # integer_pow, for an integer ord
    abs_x = math.abs(x)
    ord_arr = rule_const(abs_x, ord)
    ord_inv = rule_const(abs_x, 1. / ord_arr)
    return math.power(reductions.sum(abs_x ** ord_arr, axis=axis, keepdims=keepdims), ord_inv)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


@eager_jit(static_argnames=("ord", "axis", "keepdims"), inline=False)  # as JAX's jit
def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``norm``: vector norms over one axis, matrix norms over two; with ``axis=None``
    the 2-norm of the whole array (or the matrix norm ``ord`` of a 2-D array). As JAX's, each
    reduction takes ``keepdims`` itself, so a kept axis is added before the reduction's final
    convert to a narrow float (XLA fuses the convert pairs around it differently otherwise)."""
    (x,) = _inexact("norm", x)
    if axis is None:
        if ord is None:
            return math.sqrt(reductions.sum(math.real(x * math.conjugate(x)),
                                            keepdims=keepdims))
        axis = tuple(range(x.ndim))
    elif isinstance(axis, tuple):
        axis = tuple(canonicalize_axis(a, x.ndim) for a in axis)
    else:
        axis = (canonicalize_axis(axis, x.ndim),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) != 2:
        raise ValueError(f"Improper number of axes for norm: {axis=}. Pass one axis to"
                         " compute a vector-norm, or two axes to compute a matrix-norm.")
    row_axis, col_axis = axis
    if ord is None or ord in ("f", "fro"):
        return math.sqrt(reductions.sum(math.real(x * math.conjugate(x)), axis=axis,
                                        keepdims=keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        # ord ±1: the extreme column sum; ord ±inf: the extreme row sum. The second reduction's
        # axis moves down when the first one drops an axis before it.
        inner, outer = (row_axis, col_axis) if ord in (1, -1) else (col_axis, row_axis)
        if not keepdims and outer > inner:
            outer -= 1
        sums = reductions.sum(math.abs(x), axis=inner, keepdims=keepdims)
        if ord > 0:  # initial=0: the norm of an empty matrix is 0, not an error
            return reductions.max(sums, axis=outer, keepdims=keepdims, initial=0)
        return reductions.min(sums, axis=outer, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        s = svd(moveaxis(x, axis, (-2, -1)), compute_uv=False)
        if ord == 2:
            y = reductions.max(s, axis=-1, initial=0)
        elif ord == -2:
            y = reductions.min(s, axis=-1)
        else:
            y = reductions.sum(s, axis=-1)
        return expand_dims(y, axis) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")

