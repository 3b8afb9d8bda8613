"""Linear-algebra primitives: cholesky, triangular_solve, lu, qr, eigh, svd, eig, hessenberg,
householder_product, schur, tridiagonal, tridiagonal_solve, symmetric_product,
cholesky_update, ormqr.

Each works on the last two axes and treats leading axes as a batch, which the LAPACK (CPU)
and cuSOLVER (GPU) kernels loop over themselves: vmap just moves the mapped axis to the front.
Lowerings pick the library from the platform being compiled for (``linalg_ffi.platform_of``);
triangular_solve is StableHLO's own op, which XLA lowers to cuBLAS trsm on GPU and to its
blocked expansion on CPU. A matrix whose factorization fails (not positive definite, no
convergence) comes back as NaNs, as in JAX.

JVP rules are JAX's formulas, written with lax ops that are themselves differentiable and
linear in the tangent, so grad (JVP + transpose) and higher orders need nothing more.
"""

from __future__ import annotations

import enum
import functools
import warnings

import numpy as np
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.config import config
from minijax.core import Primitive, ShapedArray, check_memory_spaces
from minijax.interpreters import ad, batching
from minijax.interpreters.mlir import lower_traced
from minijax.lax import linalg_ffi as ffi
from minijax.lax.convert import _convert_element_type, convert_element_type
from minijax.lax.dot import Precision, dot_general
from minijax.lax.elementwise import abs as lax_abs
from minijax.lax.control_flow.loops import fori_loop, while_loop
from minijax.lax.elementwise import (
    add,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    cbrt,
    conj,
    div,
    eq,
    ge,
    gt,
    imag,
    integer_pow,
    lt,
    mul,
    neg,
    real,
    rsqrt,
    select,
    sqrt,
    sub,
)
from minijax.lax.elementwise import max as lax_max
from minijax.lax.elementwise import complex as make_complex
from minijax.lax.families import check_same_dtypes
from minijax.lax.indexing import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    dynamic_index_in_dim,
    dynamic_slice_in_dim,
    dynamic_update_slice_in_dim,
    gather,
    scatter,
)
from minijax.lax.reductions import argmax, reduce_max, reduce_sum
from minijax.lax.sorting import sort_key_val
from minijax.lax.structural import (
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    concatenate,
    expand_dims,
    full,
    full_like,
    pad,
    slice,
    squeeze,
    transpose,
)
from minijax.lowering.stablehlo import tensor_type
from minijax.lax import sharding_rules

__all__ = [
    "EigImplementation", "EighImplementation", "SvdAlgorithm",
    "cholesky", "cholesky_p", "eig", "eig_p", "eigh", "eigh_p", "lu", "lu_p",
    "lu_pivots_to_permutation", "lu_pivots_to_permutation_p", "qr", "qr_p", "svd", "svd_p", "triangular_solve",
    "triangular_solve_p", "tridiagonal", "tridiagonal_p", "tridiagonal_solve",
    "tridiagonal_solve_p", "symmetric_product", "symmetric_product_p", "cholesky_update",
    "cholesky_update_p", "ormqr", "ormqr_p",
]


# ------------------------------------------------------------------------------------------------
# Helpers written with lax ops (for the JVP rules and wrappers)


def _T(x):
    nd = x.ndim
    return transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _H(x):
    return conj(_T(x)) if ffi.is_complex(x.dtype) else _T(x)


def _matmul(a, b, preferred_element_type=None, precision=Precision.HIGHEST):
    """JAX's ``batch_matmul`` at HIGHEST precision; with ``preferred_element_type``, the
    result's dtype, its ``a @ b`` (jnp.matmul) where a rule writes that."""
    nb = a.ndim - 2
    batch = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)), precision=precision,
                       preferred_element_type=preferred_element_type)


def _tri(shape, k):
    """JAX's ``lax._tri(bool, (m, n), k)``: one (m, n) bool matrix, True where col <= row + k."""
    return ge(add(broadcasted_iota(np.int32, shape, 0), np.int32(k)),
              broadcasted_iota(np.int32, shape, 1))


# As JAX's: the mask is built for one matrix and broadcast over the batch; the zeros are
# full_like's, so a weakly typed x stays weak
def _tril(x, k=0):
    *batch, m, n = x.shape
    return select(broadcast(_tri((m, n), k), tuple(batch)), x, full_like(x, 0))


def _triu(x, k=0):
    *batch, m, n = x.shape
    return select(broadcast(_tri((m, n), k - 1), tuple(batch)), full_like(x, 0), x)


def _lax_eye(dtype, shape):
    """JAX's ``lax._eye(dtype, (m, n))``: one identity matrix, its bool pattern converted."""
    same = eq(add(broadcasted_iota(np.int32, shape, 0), np.int32(0)),
              broadcasted_iota(np.int32, shape, 1))
    return convert_element_type(same, dtype)


def _eye(shape, dtype):
    """Identity matrices of ``shape`` (..., m, n): ones where row == col."""
    same = eq(broadcasted_iota(np.int32, shape, len(shape) - 2),
              broadcasted_iota(np.int32, shape, len(shape) - 1))
    return select(same, full(shape, 1, dtype), full(shape, 0, dtype))


def _diag_index(i, m, n):
    """jnp's index for x[..., i, i] over (m, n) matrices: ``i`` normalized against each axis
    (a negative index counts from its end), the two stacked as (k, 2)."""
    k = i.shape[0]
    rows, cols = (select(lt(i, np.int32(0)), add(i, np.int32(size)), i) for size in (m, n))
    return concatenate([broadcast_in_dim(rows, (k, 1), (0,)),
                        broadcast_in_dim(cols, (k, 1), (0,))], 1)


def _extract_diagonal(x):
    """JAX's ``_extract_diagonal``: x[..., i, i] for i = iota(min(m, n)), the gather jnp's
    indexing builds; a gather, not a product with the identity, whose 0 * inf = NaN spread a
    non-finite entry along its row (FINDINGS 127)."""
    *batch, m, n = x.shape
    k = min(m, n)
    if 0 in x.shape:
        # JAX's indexing makes an empty result a constant: the tangent is a symbolic zero (so
        # e.g. gamma's sampler loop is never transposed).
        return full_like(x, 0, shape=(*batch, k))
    idx = _diag_index(broadcasted_iota(np.int32, (k,), 0), m, n)
    nb = len(batch)
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(nb)),
                                   collapsed_slice_dims=(nb, nb + 1),
                                   start_index_map=(nb, nb + 1))
    return gather(x, idx, dnums, (*batch, 1, 1), mode="promise_in_bounds")


def _construct_diagonal(s):
    """JAX's ``_construct_diagonal``: zeros (..., k, k) with ``.at[..., i, i].set(s)``, the
    scatter jnp's indexing builds."""
    *batch, k = s.shape
    i = broadcasted_iota(np.int32, (k,), 0)
    zeros = full((*s.shape, k), 0, s.dtype)
    nb = len(batch)
    dnums = ScatterDimensionNumbers(update_window_dims=tuple(range(nb)),
                                    inserted_window_dims=(nb, nb + 1),
                                    scatter_dims_to_operand_dims=(nb, nb + 1))
    return scatter(zeros, _diag_index(i, k, k), s, dnums, mode="drop")


def _row(v, n_rows):
    """(..., n) -> (..., n_rows, n): v along each row (v[..., None, :])."""
    nd = v.ndim
    return broadcast_in_dim(v, (*v.shape[:-1], n_rows, v.shape[-1]), (*range(nd - 1), nd))


def _col(v, n_cols):
    """(..., n) -> (..., n, n_cols): v down each column (v[..., :, None])."""
    nd = v.ndim
    return broadcast_in_dim(v, (*v.shape, n_cols), tuple(range(nd)))


def _to(x, dtype):
    return x if x.dtype == dtype else convert_element_type(x, dtype)


def _weak(value, dtype):
    """A Python scalar as jnp's arithmetic takes it: weakly typed, of the other operand's dtype."""
    return _convert_element_type(value, dtype, weak_type=True)


def _real_dtype(dtype):
    dtype = np.dtype(dtype)
    return np.dtype(np.float32 if dtype == np.complex64 else np.float64) \
        if dtype.kind == "c" else dtype


# ------------------------------------------------------------------------------------------------
# Shape rules and batching shared by the family


def _check_matrix(name, aval, square=False, position=0):
    """JAX's checks of operand ``position``, in its words. float16/bfloat16 pass here: XLA
    lowers some ops itself, and the kernels refuse them at lowering
    (``ffi.check_kernel_dtype``), as JAX."""
    if not dtypes.issubdtype(aval.dtype, np.inexact):
        raise TypeError(f"{name} does not accept dtype {np.dtype(aval.dtype).name} at position "
                        f"{position}. Accepted dtypes at position {position} are subtypes of "
                        "floating, complexfloating.")
    if aval.ndim < 2:
        raise TypeError(f"Input {position} to {name} must have rank at least 2, but got "
                        f"shape={aval.shape}")
    if square and aval.shape[-1] != aval.shape[-2]:
        raise ValueError(_NOT_SQUARE.get(name, "The input to {} must be a square matrix. Got "
                                               "shape {}.").format(name, aval.shape[-2:]))


_NOT_SQUARE = {
    "hessenberg": "Argument to Hessenberg reduction must have shape [..., n, n], got shape {1}",
    "eigh": "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape "
            "{1}",
    "triangular_solve": "The first input to {} must be a square matrix. Got shape {}.",
}


def _leading_batcher(prim):
    """vmap rule for a one-operand primitive: the kernels batch over leading axes."""

    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        out = prim.bind(batching.moveaxis(x, d, 0), **params)
        return (out, [0] * len(out)) if prim.multiple_results else (out, 0)

    return rule


def _front_batcher(prim):
    """vmap rule for a primitive batching over leading axes (JAX's expand_dims_batcher): every
    operand gets the mapped axis in front, broadcast if unmapped."""

    def rule(args, dims, **params):
        size = batching.axis_size(args, dims)
        out = prim.bind(*(batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)),
                        **params)
        return (out, [0] * len(out)) if prim.multiple_results else (out, 0)

    return rule


# ------------------------------------------------------------------------------------------------
# Cholesky


def _cholesky_abstract(x):
    _check_matrix("cholesky", x, square=True)
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _cholesky_lowering(ctx, x):
    (aval,) = ctx.avals_in
    batch = aval.shape[:-2]
    info_aval = ShapedArray(batch, ffi.INFO)
    if ffi.platform_of(ctx) == "gpu":
        target, attrs = "cusolver_potrf_ffi", {"lower": True}
    else:
        target, attrs = ffi.lapack_target("potrf", aval.dtype), {"uplo": ffi.char("L")}
    factor, info = ffi.ffi_call(target, [x], [aval], [aval, info_aval], attrs, aliases={0: 0})
    factor = ffi.keep_triangle(factor, aval, lower=True)  # the upper triangle holds the input
    return ffi.nan_where_not_ok(ffi.info_ok(info, batch), factor, aval)


def _cholesky_jvp(primals, tangents):
    # Murray, "Differentiation of the Cholesky decomposition" (arXiv:1602.07527), as JAX:
    # L_dot = L phi(L^-1 A_dot L^-H), phi = lower triangle with the diagonal halved.
    # L is masked with tril as in JAX: under a second derivative the mask's own derivative
    # zeroes the upper triangle of L's tangent, which the products below fill with NaN
    # beside an inf entry
    (x,), (x_dot,) = primals, tangents
    L = _tril(cholesky_p.bind(x))
    if type(x_dot) is ad.Zero:
        return L, ad.Zero.from_primal_value(L)
    tmp = triangular_solve(L, x_dot, left_side=False, transpose_a=True, conjugate_a=True,
                           lower=True)
    inner = triangular_solve(L, tmp, left_side=True, lower=True)
    low, n = _tril(inner), x.shape[-1]
    halve = expand_dims(add(np.array(1, x.dtype), _lax_eye(x.dtype, (n, n))), range(x.ndim - 2))
    return L, _matmul(L, div(low, halve))


cholesky_p = Primitive("cholesky")
cholesky_p.def_abstract_eval(_cholesky_abstract)
cholesky_p.def_lowering(_cholesky_lowering)
ad.primitive_jvps[cholesky_p] = _cholesky_jvp
cholesky_p.def_batching(_leading_batcher(cholesky_p))


def cholesky(x, symmetrize_input: bool = True):
    """Lower Cholesky factor L of Hermitian positive-definite matrices (A = L L^H); NaNs where
    A is not positive definite. ``symmetrize_input`` uses (A + A^H) / 2, as JAX."""
    if symmetrize_input:
        x = symmetrize(x)
    # JAX's lax.linalg.cholesky: a failure's all-NaN factor keeps zeros above the diagonal
    return _tril(cholesky_p.bind(x))


def symmetrize(x):
    """JAX's ``(x + _H(x)) / 2``, with jnp's operators: a (..., 1, n) or (..., n, 1) operand
    broadcasts to (..., n, n) and an integer or bool one (bools add as logical or) divides into
    the default float dtype."""
    x_h = _H(x)
    s = bitwise_or(x, x_h) if x.dtype == np.bool_ else add(x, x_h)
    if not dtypes.issubdtype(s.dtype, np.inexact):
        s = _convert_element_type(s, dtypes.default_float_dtype(), weak_type=dtypes.dtype_of(s)[1])
    # a weak 2 (the Python scalar of JAX's `/ 2`) keeps a weakly typed input weak
    return div(s, full_like(s, 2, shape=()))


# ------------------------------------------------------------------------------------------------
# Triangular solve


def _triangular_solve_abstract(a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    _check_matrix("triangular_solve", a, square=True)
    _check_matrix("triangular_solve", b, position=1)
    if a.dtype != b.dtype:
        raise TypeError(f"triangular_solve requires operands of one dtype, got "
                        f"{a.str_short(True)} and {b.str_short(True)}")
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(f"triangular_solve requires equal batch dimensions, got "
                         f"{a.str_short(True)} and {b.str_short(True)}")
    common = b.shape[-2] if left_side else b.shape[-1]
    if common != a.shape[-1]:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: "
                         f"{a.str_short(True)} and {b.str_short(True)} (left_side={left_side})")
    # JAX's standard weak-type rule for linalg primitives: weak when every operand is
    return ShapedArray(b.shape, b.dtype, a.weak_type and b.weak_type)


def _triangular_solve_lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    if conjugate_a and not transpose_a and ffi.is_complex(ctx.avals_in[0].dtype):
        a = chlo.conj(a)
        conjugate_a = False
    a_aval, b_aval = ctx.avals_in
    if ffi.platform_of(ctx) == "cpu" and a_aval.dtype in ffi.LAPACK_DTYPES:
        # LAPACK's trsm, as JAX on CPU: its plain substitution gives JAX's values where XLA's
        # expander differs (a zero pivot divides to inf, then NaN; the expander's NaN spreads)
        trans = ("C" if conjugate_a else "T") if transpose_a else "N"
        attrs = {"side": ffi.char("L" if left_side else "R"),
                 "uplo": ffi.char("L" if lower else "U"), "trans_x": ffi.char(trans),
                 "diag": ffi.char("U" if unit_diagonal else "N")}
        (out,) = ffi.ffi_call(ffi.lapack_target("trsm", a_aval.dtype), [a, b],
                              [a_aval, b_aval], [b_aval], attrs, aliases={1: 0})
        return out
    if not transpose_a:
        trans = "NO_TRANSPOSE"
    else:
        trans = "ADJOINT" if conjugate_a and ffi.is_complex(ctx.avals_in[0].dtype) else "TRANSPOSE"
    return hlo.triangular_solve(a, b, left_side, lower, unit_diagonal,
                                hlo.TransposeAttr.get(trans))


def _triangular_solve_jvp_a(g_a, ans, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    # X = op(A)^-1 B  =>  X_dot = -op(A)^-1 op(A_dot) X  (right side: -X op(A_dot) op(A)^-1),
    # with A_dot restricted to the triangle the solve reads.
    k = 1 if unit_diagonal else 0
    g_a = _tril(g_a, -k) if lower else _triu(g_a, k)
    g_a = neg(g_a)
    g_a = _T(g_a) if transpose_a else g_a
    g_a = conj(g_a) if conjugate_a and ffi.is_complex(g_a.dtype) else g_a
    params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                  conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    m, n = b.shape[-2:]
    if left_side:  # the cheaper association: solve against the thinner operand
        if m > n:
            return triangular_solve_p.bind(a, _matmul(g_a, ans), **params)
        return _matmul(triangular_solve_p.bind(a, g_a, **params), ans)
    if m < n:
        return triangular_solve_p.bind(a, _matmul(ans, g_a), **params)
    return _matmul(ans, triangular_solve_p.bind(a, g_a, **params))


def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                                unit_diagonal):
    assert not ad.is_undefined_primal(a) and ad.is_undefined_primal(b)
    ct_b = triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower,
                                   transpose_a=not transpose_a, conjugate_a=conjugate_a,
                                   unit_diagonal=unit_diagonal)
    return [None, ct_b]


def _triangular_solve_batching(args, dims, **params):
    a, b = args
    if dims[0] is batching.not_mapped:
        # JAX's fold: the batch joins B's columns (rows on the right side); its derivative
        # then associates as for that wider B
        return batching.fold_batch(lambda b: triangular_solve_p.bind(a, b, **params), b,
                                   dims[1], b.ndim - 1 if params["left_side"] else b.ndim - 2)
    size = batching.axis_size(args, dims)
    a, b = (batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))
    return triangular_solve_p.bind(a, b, **params), 0


triangular_solve_p = Primitive("triangular_solve")
triangular_solve_p.def_abstract_eval(_triangular_solve_abstract)
triangular_solve_p.def_lowering(_triangular_solve_lowering)
ad.defjvp2(triangular_solve_p, _triangular_solve_jvp_a,
           lambda g_b, ans, a, b, **params: triangular_solve_p.bind(a, g_b, **params))
ad.primitive_transposes[triangular_solve_p] = _triangular_solve_transpose
triangular_solve_p.def_batching(_triangular_solve_batching)


def triangular_solve(a, b, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """Solves op(A) X = B (``left_side``) or X op(A) = B for triangular A (JAX's signature:
    the default is the right side). A ``b`` of rank ``a.ndim - 1`` is one vector."""
    conjugate_a = bool(conjugate_a) and ffi.is_complex(a.dtype)
    singleton = b.ndim == a.ndim - 1
    if singleton:
        b = broadcast_in_dim(b, (*b.shape, 1) if left_side else (*b.shape[:-1], 1, b.shape[-1]),
                             tuple(range(b.ndim)) if left_side
                             else (*range(b.ndim - 1), b.ndim))
    out = triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                  transpose_a=bool(transpose_a), conjugate_a=conjugate_a,
                                  unit_diagonal=bool(unit_diagonal))
    if singleton:
        out = squeeze(out, (out.ndim - 1,) if left_side else (out.ndim - 2,))
    return out


# ------------------------------------------------------------------------------------------------
# LU with partial pivoting: P A = L U


def _lu_abstract(x):
    _check_matrix("lu", x)
    *batch, m, n = x.shape
    # JAX's standard weak-type rule holds for every output, the int32 pivots included
    weak = x.weak_type
    return [ShapedArray(x.shape, x.dtype, weak), ShapedArray((*batch, min(m, n)), ffi.INFO, weak),
            ShapedArray((*batch, m), ffi.INFO, weak)]


def _lu_lowering(ctx, x):
    (aval,) = ctx.avals_in
    lu_aval, piv_aval, perm_aval = ctx.avals_out
    batch = aval.shape[:-2]
    info_aval = ShapedArray(batch, ffi.INFO)
    gpu = ffi.platform_of(ctx) == "gpu"
    target = "cusolver_getrf_ffi" if gpu else ffi.lapack_target("getrf", aval.dtype)
    lu, piv, info = ffi.ffi_call(target, [x], [aval], [lu_aval, piv_aval, info_aval],
                                 aliases={0: 0})
    piv = hlo.subtract(piv, ffi.full_like_aval(1, piv_aval))  # LAPACK's pivots are 1-based
    # info > 0 means an exactly singular U: the factorization is still valid (JAX keeps it).
    lu = ffi.nan_where_not_ok(ffi.info_ok(info, batch, "GE"), lu, lu_aval)
    return [lu, piv, _pivots_to_permutation_hlo(gpu, piv, piv_aval, perm_aval)]


def _pivots_to_permutation_hlo(gpu, piv, piv_aval, perm_aval):
    """lu_pivots_to_permutation's lowering, which lu's reuses: on GPU jaxlib's CUDA kernel (as
    JAX), else a loop of the swaps."""
    *batch, k = piv_aval.shape
    if gpu and k > 0:
        (perm,) = ffi.ffi_call("cu_lu_pivots_to_permutation", [piv], [piv_aval], [perm_aval],
                               column_major=False, num_non_batch_dims=1)
        return perm
    return ffi.pivots_to_permutation(piv, tuple(batch), k, perm_aval.shape[-1])


def _permute(x, perm, axis=-2):
    """x[..., perm, :] (``axis`` -2) or x[..., perm] (-1) for x (..., m, n) and perm (..., m or
    n), as one gather (JAX indexes, so a non-finite entry stays in its own row or column, where
    a permutation matmul's 0 * inf is NaN in all)."""
    nd = x.ndim
    batch = tuple(range(nd - 2))
    axis, other = (nd - 2, nd - 1) if axis == -2 else (nd - 1, nd - 2)
    dnums = GatherDimensionNumbers(
        offset_dims=(other,), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=batch, start_indices_batching_dims=batch)
    idx = broadcast_in_dim(perm, (*perm.shape, 1), tuple(range(perm.ndim)))
    sizes = [1] * nd
    sizes[other] = x.shape[other]
    return gather(x, idx, dnums, tuple(sizes), indices_are_sorted=False, unique_indices=True,
                  mode="promise_in_bounds")


def _lu_jvp(primals, tangents):
    # De Hoog, Anderssen and Lukas: L^-1 P A_dot U^-1 = L^-1 L_dot + U_dot U^-1, whose strictly
    # lower part gives L_dot and upper part U_dot (JAX's rule, with padding for m != n).
    (a,), (a_dot,) = primals, tangents
    lu, piv, perm = lu_p.bind(a)
    zeros = [ad.Zero.from_primal_value(piv), ad.Zero.from_primal_value(perm)]
    if type(a_dot) is ad.Zero:
        return [lu, piv, perm], [ad.Zero.from_primal_value(lu), *zeros]
    *batch, m, n = a.shape
    k = min(m, n)
    nb, dtype = len(batch), a.dtype
    zero = np.zeros((), dtype)
    lower = _tril(slice(lu, (0,) * (nb + 2), (*batch, m, k)), -1)
    lower = pad(lower, zero, [(0, 0, 0)] * (nb + 1) + [(0, m - k, 0)])
    lower = add(lower, _eye((*batch, m, m), dtype))
    u = _triu(slice(lu, (0,) * (nb + 2), (*batch, k, n)))
    u = pad(u, zero, [(0, 0, 0)] * nb + [(0, n - k, 0), (0, 0, 0)])
    if n > k:  # ones on the padded diagonal keep u invertible; they do not touch the result
        corner = mul(_eye((*batch, n, n), dtype), _to(_ge_rows((*batch, n, n), k), dtype))
        u = add(u, corner)
    la = triangular_solve(lower, _permute(a_dot, perm), left_side=True, lower=True,
                          unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    lu_dot = add(_matmul(lower, _tril(lau, -1)), _matmul(_triu(lau), u))
    return [lu, piv, perm], [lu_dot, *zeros]


def _ge_rows(shape, k):
    return ge(broadcasted_iota(np.int32, shape, len(shape) - 2), np.int32(k))


lu_p = Primitive("lu", multiple_results=True)
lu_p.def_abstract_eval(_lu_abstract)
lu_p.def_lowering(_lu_lowering)
ad.primitive_jvps[lu_p] = _lu_jvp
lu_p.def_batching(_leading_batcher(lu_p))


def lu(x):
    """``(lu, pivots, permutation)`` with P A = L U: L (unit diagonal, not stored) below the
    diagonal of ``lu``, U on and above; ``pivots`` the 0-based row swaps (..., min(m, n)),
    ``permutation`` the same as a permutation of the rows (..., m), both int32."""
    out = lu_p.bind(x)
    return tuple(out)


def _lu_pivots_to_permutation_abstract(pivots, *, permutation_size):
    # JAX's standard linalg rules, in its words and order: the shape (rank >= 1, leading axes
    # batch), then the dtype (int32 only)
    if pivots.ndim < 1:
        raise TypeError("Input 0 to lu_pivots_to_permutation must have rank at least 1, but "
                        f"got shape={pivots.shape}")
    *batch, k = pivots.shape
    if not permutation_size >= k:
        raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing "
                         f"dimension of the pivots. Got pivots size {k}")
    if np.dtype(pivots.dtype) != np.int32:
        raise TypeError(f"lu_pivots_to_permutation does not accept dtype "
                        f"{np.dtype(pivots.dtype).name} at position 0. Accepted dtypes at "
                        "position 0 are subtypes of int32.")
    shape = (*batch, permutation_size)
    if not isinstance(permutation_size, (int, np.integer)):  # JAX's shape check
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {shape!r}.")
    return ShapedArray(shape, ffi.INFO, pivots.weak_type)


def _lu_pivots_to_permutation_lowering(ctx, pivots, *, permutation_size):
    (piv_aval,), (perm_aval,) = ctx.avals_in, ctx.avals_out
    return _pivots_to_permutation_hlo(ffi.platform_of(ctx) == "gpu", pivots, piv_aval, perm_aval)


# No JVP rule, as in JAX: the int32 operand's tangent is always a symbolic zero.
lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")
lu_pivots_to_permutation_p.def_abstract_eval(_lu_pivots_to_permutation_abstract)
lu_pivots_to_permutation_p.def_lowering(_lu_pivots_to_permutation_lowering)
lu_pivots_to_permutation_p.def_batching(_leading_batcher(lu_pivots_to_permutation_p))


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation (..., permutation_size) int32 that applying the row swaps ``pivots``
    (..., k) int32 in order makes of the identity: swap entries i and pivots[i] for i = 0..k-1.
    An out-of-range pivot acts as JAX's indexing does (negative ones count from the end; the
    read clamps, the write is dropped)."""
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=permutation_size)


# ------------------------------------------------------------------------------------------------
# QR: Householder (geqrf, or geqp3 with column pivoting), then the explicit Q (orgqr / ungqr)


def _qr_abstract(x, *, pivoting, full_matrices, use_magma):
    del use_magma
    _check_linalg_operands("qr", [x], [2])
    *batch, m, n = x.shape
    k = m if full_matrices else min(m, n)
    outs = [ShapedArray((*batch, m, k), x.dtype, x.weak_type),
            ShapedArray((*batch, k, n), x.dtype, x.weak_type)]
    if pivoting:  # weak-typed with x, as all of JAX's linalg results
        outs.append(ShapedArray((*batch, n), np.dtype(np.int32), x.weak_type))
    return outs


def _qr_lowering(ctx, x, *, pivoting, full_matrices, use_magma):
    (aval,) = ctx.avals_in
    q_aval, r_aval = ctx.avals_out[:2]
    *batch, m, n = aval.shape
    k = min(m, n)
    if k == 0:  # nothing to factor: Q = I, R = 0, P = 0 (LAPACK rejects empty matrices)
        eye = hlo.select(_eq_mask(q_aval.shape), ffi.full_like_aval(1, q_aval),
                         ffi.full_like_aval(0, q_aval))
        return [eye, *(ffi.full_like_aval(0, a) for a in ctx.avals_out[1:])]
    # JAX lowers qr as a function whose last step keeps R's upper triangle with a select
    # between a device-memory mask and R: its memory-space rule refuses an R in host memory
    check_memory_spaces("select_n", [ShapedArray(r_aval.shape, np.dtype(np.bool_)), r_aval])
    gpu = ffi.platform_of(ctx) == "gpu"
    taus_aval = ShapedArray((*batch, k), aval.dtype)
    if pivoting:  # from a zero jpvt (every column free to move); geqp3's pivots are 1-based
        jpvt_aval = ShapedArray((*batch, n), np.dtype(np.int32))
        r, p, taus = _emit_geqp3(x, ffi.full_like_aval(0, jpvt_aval), aval, jpvt_aval,
                                 taus_aval, gpu, use_magma)
        p = hlo.subtract(p, ffi.full_like_aval(1, jpvt_aval))
    else:
        r, taus = _emit_geqrf(x, aval, taus_aval, gpu)
    if m < n:  # Q from the first m columns' reflectors
        h, h_aval = ffi.slice_last2(r, aval, m, m)
    elif full_matrices and m > n:
        h, h_aval = ffi.pad_cols(r, aval, m)
    else:
        h, h_aval = r, aval
    if gpu:
        orgqr = "cusolver_orgqr_ffi"
    else:
        orgqr = ffi.lapack_target("ungqr" if ffi.is_complex(aval.dtype) else "orgqr", aval.dtype)
    (q,) = ffi.ffi_call(orgqr, [h, taus], [h_aval, taus_aval], [h_aval], aliases={0: 0})
    if not full_matrices and m > n:
        r, r_full = ffi.slice_last2(r, aval, n, n)
    else:
        r_full = aval
    outs = [q, ffi.keep_triangle(r, r_full, lower=False)]
    return outs + [p] if pivoting else outs


def _emit_geqrf(x, aval, taus_aval, gpu):
    """Householder QR in place: (R above the diagonal, reflectors below, taus)."""
    target = "cusolver_geqrf_ffi" if gpu else ffi.lapack_target("geqrf", aval.dtype)
    return ffi.ffi_call(target, [x], [aval], [aval, taus_aval], aliases={0: 0})


def _emit_geqp3(x, jpvt, aval, jpvt_aval, taus_aval, gpu, use_magma):
    """Householder QR with column pivoting in place, as JAX lowers it: LAPACK's geqp3 on the
    CPU, on the GPU jaxlib's hybrid kernel (MAGMA's geqp3, or LAPACK's on the host:
    ``use_magma`` True / False, else the ``jax_use_magma`` mode). A nonzero jpvt entry pins
    its column in front; the pivots come back 1-based: (R and reflectors, jpvt, taus)."""
    if gpu:
        _initialize_hybrid_kernels()
        magma = config.jax_use_magma if use_magma is None else ("on" if use_magma else "off")
        target, attrs = "cuhybrid_geqp3", {"magma": magma}
    else:
        target, attrs = ffi.lapack_target("geqp3", aval.dtype), {}
    return ffi.ffi_call(target, [x, jpvt], [aval, jpvt_aval], [aval, jpvt_aval, taus_aval],
                        attrs, aliases={0: 0, 1: 1})


def _geqrf_abstract(a):
    _check_linalg_operands("geqrf", [a], [2])
    *batch, m, n = a.shape
    return [ShapedArray(a.shape, a.dtype, a.weak_type),
            ShapedArray((*batch, min(m, n)), a.dtype, a.weak_type)]


def _geqrf_lowering(ctx, a):
    return _emit_geqrf(a, ctx.avals_in[0], ctx.avals_out[1], ffi.platform_of(ctx) == "gpu")


# LAPACK's factorizations behind qr, bound by scipy.linalg.qr_multiply (with ormqr), as JAX's
# internal geqrf_p and geqp3_p; neither has a derivative, as in JAX.
geqrf_p = Primitive("geqrf", multiple_results=True)
geqrf_p.def_abstract_eval(_geqrf_abstract)
geqrf_p.def_lowering(_geqrf_lowering)
geqrf_p.def_batching(_front_batcher(geqrf_p))


def geqrf(a):
    """LAPACK's geqrf of ``a`` (..., m, n): ``(r, taus)``, R in r's upper triangle and the
    Householder reflectors below it with their scales taus (..., min(m, n))."""
    return tuple(geqrf_p.bind(a))


def _geqp3_abstract(a, jpvt, *, use_magma):
    del use_magma
    _check_linalg_operands("geqp3", [a], [2])
    if jpvt.ndim != a.ndim - 1 or not dtypes.issubdtype(jpvt.dtype, np.integer):
        raise TypeError(
            f"geqp3 takes jpvt (..., n) of an integer dtype, got {jpvt.str_short(True)}")
    *batch, m, n = a.shape
    weak = a.weak_type and jpvt.weak_type
    return [ShapedArray(a.shape, a.dtype, weak), ShapedArray(jpvt.shape, jpvt.dtype, weak),
            ShapedArray((*batch, min(m, n)), a.dtype, weak)]


def _geqp3_lowering(ctx, a, jpvt, *, use_magma):
    a_aval, jpvt_aval = ctx.avals_in
    return _emit_geqp3(a, jpvt, a_aval, jpvt_aval, ctx.avals_out[2],
                       ffi.platform_of(ctx) == "gpu", use_magma)


geqp3_p = Primitive("geqp3", multiple_results=True)
geqp3_p.def_abstract_eval(_geqp3_abstract)
geqp3_p.def_lowering(_geqp3_lowering)
geqp3_p.def_batching(_front_batcher(geqp3_p))


def geqp3(a, jpvt, *, use_magma: bool | None = None):
    """LAPACK's geqp3 of ``a`` (..., m, n) from the pivots ``jpvt`` (..., n) (0: free column):
    ``(r, jpvt, taus)`` as geqrf's with the 1-based column pivots, a[..., jpvt - 1] = Q R."""
    return tuple(geqp3_p.bind(a, jpvt, use_magma=use_magma))


def _eq_mask(shape):
    i32 = tensor_type(ShapedArray(shape, ffi.INFO))
    from jaxlib.mlir import ir

    dim = lambda d: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)
    rows, cols = hlo.iota(i32, dim(len(shape) - 2)), hlo.iota(i32, dim(len(shape) - 1))
    return hlo.compare(rows, cols, hlo.ComparisonDirectionAttr.get("EQ"),
                       compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))


def _thin_qr_jvp(q, r, dx):
    # J. Townsend, "Differentiating the QR decomposition" (JAX's rule): m >= n, reduced Q.
    # JAX writes its products as a @ b: jnp.matmul's default precision, the result's dtype.
    mm = functools.partial(_matmul, preferred_element_type=dx.dtype, precision=None)
    dx_rinv = triangular_solve(r, dx)  # dx r^-1 (right side)
    qt_dx_rinv = mm(_H(q), dx_rinv)
    low = _tril(qt_dx_rinv, -1)
    do = sub(low, _H(low))  # skew-Hermitian
    # The imaginary diagonal, fixed by R's real diagonal: I * (M - re(M)), as JAX adds it for
    # every dtype. For real inputs it is 0 * (M - M), NaN wherever M is not finite (as in JAX,
    # whose QR derivatives beside an inf are NaN throughout).
    n = r.shape[-1]
    eye = expand_dims(_lax_eye(do.dtype, (n, n)), range(qt_dx_rinv.ndim - 2))
    re = qt_dx_rinv
    if ffi.is_complex(dx.dtype):
        re = convert_element_type(real(qt_dx_rinv), dx.dtype)
    do = add(do, mul(eye, sub(qt_dx_rinv, re)))
    dq = add(mm(q, sub(do, qt_dx_rinv)), dx_rinv)
    dr = mm(sub(qt_dx_rinv, do), r)
    return dq, dr


def _last2(x, rows, cols):
    """x[..., rows[0]:rows[1], cols[0]:cols[1]]."""
    nb = x.ndim - 2
    return slice(x, (0,) * nb + (rows[0], cols[0]), (*x.shape[:nb], rows[1], cols[1]))


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    (x,), (dx,) = primals, tangents
    *_, m, n = x.shape
    q, r, *p = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    # The permutation is piecewise constant: its tangent is a symbolic zero.
    zeros = lambda outs: [ad.Zero.from_primal_value(o) for o in outs]
    if type(dx) is ad.Zero:
        return [q, r, *p], zeros([q, r, *p])
    if pivoting:  # X P = Q R: the rule differentiates X P, so dX's columns move as X's did
        dx = _permute(dx, p[0], axis=-1)
    last = x.ndim - 1
    # JAX writes these products as a @ b: jnp.matmul's default precision, the result's dtype
    mm = functools.partial(_matmul, preferred_element_type=dx.dtype, precision=None)
    if m < n:
        # X = [X1 X2] with X1 = Q R1 square: the square rule gives dQ and dR1, and
        # R2 = Q^H X2 gives dR2 = dQ^H X2 + Q^H dX2. (With pivoting JAX takes X2 from the
        # unpermuted X, so do we: the same values.)
        x2, dx1, dx2 = _last2(x, (0, m), (m, n)), _last2(dx, (0, m), (0, m)), _last2(
            dx, (0, m), (m, n))
        dq, dr1 = _thin_qr_jvp(q, _last2(r, (0, m), (0, m)), dx1)
        dr2 = add(mm(_H(dq), x2), mm(_H(q), dx2))
        return [q, r, *p], [dq, concatenate((dr1, dr2), last), *zeros(p)]
    if not full_matrices or m == n:
        return [q, r, *p], [*_thin_qr_jvp(q, r, dx), *zeros(p)]
    # Tall, full Q = [Q_mn Q_mp]: the thin rule gives dQ_mn and dR_nn (R's last m - n rows
    # are zero); dQ_mp follows Roberts & Roberts, arXiv 2409.13374 eqs. 32-33 (JAX's rule):
    # Z = Q_pn (Q_nn - I)^-1 and dQ_mp = dQ_mn Z^H - (Q_mn + Q_mp Z) (dQ_pn - Z dQ_nn)^H.
    q_mn, r_nn = _last2(q, (0, m), (0, n)), _last2(r, (0, n), (0, n))
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    q_nn, q_pn = _last2(q_mn, (0, n), (0, n)), _last2(q_mn, (n, m), (0, n))
    q_mp = _last2(q, (0, m), (n, m))
    dq_nn, dq_pn = _last2(dq_mn, (0, n), (0, n)), _last2(dq_mn, (n, m), (0, n))
    eye = expand_dims(_lax_eye(q_nn.dtype, (n, n)), range(q_nn.ndim - 2))
    lu_, _, perm = lu(sub(q_nn, eye))
    z_h = LU_SOLVE[0](lu_, perm, _H(q_pn), 2)  # trans=2 solves A^H X = B
    z = _H(z_h)
    dq_mp = sub(mm(dq_mn, z_h),
                mm(add(q_mn, mm(q_mp, z)), _H(sub(dq_pn, mm(z, dq_nn)))))
    dr = concatenate((dr_nn, full((*dr_nn.shape[:-2], m - n, n), 0, dr_nn.dtype)), last - 1)
    return [q, r, *p], [concatenate((dq_mn, dq_mp), last), dr, *zeros(p)]


qr_p = Primitive("qr", multiple_results=True)
qr_p.def_abstract_eval(_qr_abstract)
qr_p.def_lowering(_qr_lowering)
ad.primitive_jvps[qr_p] = _qr_jvp
qr_p.def_batching(_leading_batcher(qr_p))


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma: bool | None = None):
    """``(q, r)`` with A = Q R: Q (..., m, m) unitary and R (..., m, n) upper triangular, or
    with ``full_matrices=False`` Q (..., m, k) and R (..., k, n), k = min(m, n). With
    ``pivoting``, ``(q, r, p)``: A[..., p] = Q R with |diag(R)| non-increasing, p (..., n)
    int32 (LAPACK's geqp3). ``use_magma`` picks the GPU kernel of pivoted QR (MAGMA's or the
    host's LAPACK; None: the ``jax_use_magma`` flag); CPUs ignore it."""
    return tuple(qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices,
                           use_magma=use_magma))


# ------------------------------------------------------------------------------------------------
# Hermitian eigendecomposition: A V = V diag(w), w ascending


class EighImplementation(enum.Enum):
    """Implementation for symmetric/Hermitian eigendecomposition (``eigh``'s
    ``implementation``): LAPACK's (CPU) and cuSOLVER's (GPU) drivers are QR-based; cuSOLVER
    also has JACOBI; QDWH is JAX's TPU algorithm."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


def _eigh_abstract(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    _check_matrix("eigh", x, square=True)
    n = x.shape[-1]
    # d eigenpairs: JAX's shape rule takes end - start unchecked (the lowering refuses any
    # range but the whole one on CPU/GPU)
    d = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
    return [ShapedArray((*x.shape[:-1], d), x.dtype, x.weak_type),
            ShapedArray((*x.shape[:-2], d), _real_dtype(x.dtype), x.weak_type)]


def _eigh_lowering(ctx, x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    del sort_eigenvalues  # LAPACK's and cuSOLVER's drivers always sort (as JAX's lowering)
    (aval,) = ctx.avals_in
    v_aval, w_aval = ctx.avals_out
    batch = aval.shape[:-2]
    platform = ffi.platform_of(ctx)
    # Refused at lowering, as JAX's: an eigh that jit drops as unused raises nothing, and an
    # empty matrix is refused as well. JAX checks the subset first.
    if subset_by_index is not None and subset_by_index != (0, aval.shape[-1]):
        # JAX 0.10.2 refuses it too, in these words (only its TPU eigh computes a subset)
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    if algorithm == EighImplementation.QDWH:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    if algorithm == EighImplementation.JACOBI and platform == "cpu":
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Jacobi implementation is not supported on CPU")
    if aval.shape[-1] == 0:
        return [x, ffi.full_like_aval(0, w_aval)]
    if platform == "gpu":
        # cusolver_syevd_ffi's algorithm: 0 its default, 1 QR, 2 Jacobi (JAX's mapping)
        algo = 0 if algorithm is None else 2 if algorithm == EighImplementation.JACOBI else 1
        target, attrs = "cusolver_syevd_ffi", {"lower": bool(lower), "algorithm": np.uint8(algo)}
    else:
        base = "heevd" if ffi.is_complex(aval.dtype) else "syevd"
        target = ffi.lapack_target(base, aval.dtype)
        attrs = {"mode": ffi.char("V"), "uplo": ffi.char("L" if lower else "U")}
    info_aval = ShapedArray(batch, ffi.INFO)
    v, w, info = ffi.ffi_call(target, [x], [aval], [v_aval, w_aval, info_aval], attrs,
                              aliases={0: 0})
    ok = ffi.info_ok(info, batch)
    return [ffi.nan_where_not_ok(ok, v, v_aval), ffi.nan_where_not_ok(ok, w, w_aval)]


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    # First-order perturbation theory for distinct eigenvalues (JAX's rule):
    # w_dot = diag(V^H A_dot V), V_dot = V (F * V^H A_dot V), F_ij = 1 / (w_j - w_i), F_ii = 0.
    (a,), (a_dot,) = primals, tangents
    if subset_by_index is not None and subset_by_index != (0, a.shape[-1]):
        # JAX 0.10.2 refuses it too (at trace time), in these words
        raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
    # JAX binds eigh on symmetrize(a) even though eigh(symmetrize_input=True) already did: the
    # second pass changes the result where a holds inf/NaN or entries near the dtype's max.
    v, w_real = eigh_p.bind(symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues,
                            subset_by_index=subset_by_index, algorithm=algorithm)
    if type(a_dot) is ad.Zero:
        return [v, w_real], [ad.Zero.from_primal_value(v), ad.Zero.from_primal_value(w_real)]
    n, lead = a.shape[-1], range(a.ndim - 2)
    w = _to(w_real, a.dtype)
    # One (n, n) identity, broadcast over the batch at each use, as JAX's. JAX sums
    # eye_n + w[..., None, :] - w[..., None] left to right, so a large eigenvalue swallows the 1
    # and the diagonal of F is 1 / 0 (inf/NaN in dV); minijax subtracts the eigenvalues first,
    # keeping the exact derivative (sharp_bits; tests/test_fidelity_r14_s.py)
    eye = _lax_eye(a.dtype, (n, n))
    w_row = expand_dims(w, (w.ndim - 1,))
    f = add(expand_dims(eye, lead), sub(w_row, expand_dims(w, (w.ndim,))))
    f = sub(integer_pow(f, -1), expand_dims(eye, lead))
    vh_adot_v = _matmul(_matmul(_H(v), a_dot), v)
    dv = _matmul(v, mul(f, vh_adot_v))
    dw = _extract_diagonal(real(vh_adot_v) if ffi.is_complex(a.dtype) else vh_adot_v)
    return [v, w_real], [dv, dw]


eigh_p = Primitive("eigh", multiple_results=True)
eigh_p.def_abstract_eval(_eigh_abstract)
eigh_p.def_lowering(_eigh_lowering)
ad.primitive_jvps[eigh_p] = _eigh_jvp
eigh_p.def_batching(_leading_batcher(eigh_p))


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index: tuple[int, int] | None = None,
         implementation: EighImplementation | None = None):
    """``(v, w)``: eigenvectors (columns of v) and ascending real eigenvalues of Hermitian
    matrices. Only the ``lower`` (or upper) triangle is read unless ``symmetrize_input``.
    ``implementation`` picks the solver as JAX's does; compiling for a platform that lacks
    it raises (CPU: JACOBI and QDWH; GPU: QDWH). ``subset_by_index=(start, end)`` asks for
    eigenpairs start..end-1 (shapes (..., n, d), (..., d)); as JAX's, CPU and GPU compute only
    the whole range (0, n) and refuse others when compiling. ``sort_eigenvalues=False`` lets
    an implementation skip sorting; CPU and GPU sort anyway."""
    if symmetrize_input:
        x = symmetrize(x)
    return tuple(eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=sort_eigenvalues,
                             subset_by_index=subset_by_index, algorithm=implementation))


# ------------------------------------------------------------------------------------------------
# Singular value decomposition: A = U diag(s) Vh, s descending


class SvdAlgorithm(enum.Enum):
    """Enum for SVD algorithm (``svd``'s ``algorithm``): on CPU, DEFAULT and
    DIVIDE_AND_CONQUER are LAPACK's gesdd, QR its gesvd; JACOBI and POLAR are cuSOLVER's
    gesvdj and gesvdp (GPU)."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def _svd_abstract(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_matrix("svd", x)
    *batch, m, n = x.shape
    k = min(m, n)
    if subset_by_index is not None:
        if full_matrices and subset_by_index != (0, k):
            # JAX 0.10.2's shape rule refuses it too, in these words (even without compute_uv)
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        k = min(k, subset_by_index[1] - subset_by_index[0])
    s = ShapedArray((*batch, k), _real_dtype(x.dtype), x.weak_type)
    if not compute_uv:
        return [s]
    um, vn = (m, n) if full_matrices else (k, k)
    return [s, ShapedArray((*batch, m, um), x.dtype, x.weak_type),
            ShapedArray((*batch, vn, n), x.dtype, x.weak_type)]


def _svd_lowering(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    (aval,) = ctx.avals_in
    *batch, m, n = aval.shape
    batch = tuple(batch)
    k = min(m, n)
    if subset_by_index is not None and subset_by_index != (0, k):
        # JAX 0.10.2 refuses it too, in these words, before an empty matrix's early return
        # (only its TPU svd computes a subset)
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    u_aval = ShapedArray((*batch, m, m if full_matrices else k), aval.dtype)
    vt_aval = ShapedArray((*batch, n if full_matrices else k, n), aval.dtype)
    s_aval = ctx.avals_out[0]
    info_aval = ShapedArray(batch, ffi.INFO)
    if k == 0:
        outs = [ffi.full_like_aval(0, s_aval)]
        if compute_uv:
            outs += [hlo.select(_eq_mask(a.shape), ffi.full_like_aval(1, a),
                                ffi.full_like_aval(0, a)) for a in (u_aval, vt_aval)]
        return outs
    if ffi.platform_of(ctx) == "gpu":
        if algorithm == SvdAlgorithm.DIVIDE_AND_CONQUER:
            # JAX 0.10.2 refuses it on CUDA too, in these words
            raise NotImplementedError(
                "Divide-and-conquer SVD (SvdAlgorithm.DIVIDE_AND_CONQUER) is only supported on "
                "AMD (ROCm) GPUs, not on NVIDIA CUDA.")
        if algorithm not in (None, SvdAlgorithm.DEFAULT, SvdAlgorithm.QR, SvdAlgorithm.JACOBI,
                             SvdAlgorithm.POLAR):
            # JAX 0.10.2 refuses a value outside the enum on GPU too, in these words
            raise NotImplementedError(f"Unsupported SVD algorithm on GPU: {algorithm!r}")
        if algorithm in (None, SvdAlgorithm.DEFAULT):
            # JAX's choice on CUDA: cuSOLVER's Jacobi up to 1024 x 1024, gesvd beyond
            algorithm = SvdAlgorithm.JACOBI if m <= 1024 and n <= 1024 else SvdAlgorithm.QR
        if algorithm != SvdAlgorithm.QR:
            s, u, vt, info = _svd_gpu_jacobi_polar(x, aval, s_aval, info_aval, full_matrices,
                                                   compute_uv, algorithm)
            return _svd_outputs(s, u, vt, info, batch, s_aval, u_aval, vt_aval, compute_uv)
        # cuSOLVER's gesvd wants m >= n: factor A^T (row-major A is column-major A^T), then
        # U and Vt swap roles.
        transposed = m < n
        avals = ([aval, s_aval, vt_aval, u_aval, info_aval] if transposed
                 else [aval, s_aval, u_aval, vt_aval, info_aval])
        attrs = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv),
                 "transposed": transposed}
        _, s, u, vt, info = ffi.ffi_call("cusolver_gesvd_ffi", [x], [aval], avals, attrs,
                                         aliases={0: 0}, column_major=not transposed)
        if transposed:
            u, vt = vt, u
    else:
        if algorithm in (None, SvdAlgorithm.DEFAULT, SvdAlgorithm.DIVIDE_AND_CONQUER):
            base = "gesdd"
        elif algorithm == SvdAlgorithm.QR:
            base = "gesvd"
        else:
            # JAX 0.10.2 refuses the others on CPU too, in these words (after the empty
            # matrix's early return, which any algorithm takes)
            raise NotImplementedError(
                "The SVD Jacobi and Polar algorithms are not implemented on CPU.")
        mode = "N" if not compute_uv else ("A" if full_matrices else "S")
        target = ffi.lapack_target(base, aval.dtype)
        _, s, u, vt, info = ffi.ffi_call(target, [x], [aval],
                                         [aval, s_aval, u_aval, vt_aval, info_aval],
                                         {"mode": ffi.char(mode)}, aliases={0: 0})
    return _svd_outputs(s, u, vt, info, batch, s_aval, u_aval, vt_aval, compute_uv)


def _svd_outputs(s, u, vt, info, batch, s_aval, u_aval, vt_aval, compute_uv):
    """The results, NaN where the solver reported a failure."""
    ok = ffi.info_ok(info, batch)
    outs = [ffi.nan_where_not_ok(ok, s, s_aval)]
    if compute_uv:
        outs += [ffi.nan_where_not_ok(ok, u, u_aval), ffi.nan_where_not_ok(ok, vt, vt_aval)]
    return outs


def _svd_gpu_jacobi_polar(x, aval, s_aval, info_aval, full_matrices, compute_uv, algorithm):
    """cuSOLVER's gesvdj (JACOBI) or gesvdp (POLAR), as JAX lowers them: both return V, not
    V^H, and always allocate U and V; gesvdj's batched kernel (used up to 32 x 32) has no
    economy mode, so there the full factors are computed and sliced."""
    *batch, m, n = aval.shape
    k = min(m, n)
    jacobi = algorithm == SvdAlgorithm.JACOBI
    econ = not full_matrices and (not jacobi or (m > 32 and n > 32))
    u_aval = ShapedArray((*batch, m, k if econ else m), aval.dtype)
    v_aval = ShapedArray((*batch, n, k if econ else n), aval.dtype)
    target = "cusolver_gesvdj_ffi" if jacobi else "cusolver_gesvdp_ffi"
    _, s, u, v, info = ffi.ffi_call(target, [x], [aval],
                                    [aval, s_aval, u_aval, v_aval, info_aval],
                                    {"full_matrices": not econ, "compute_uv": bool(compute_uv)},
                                    aliases={0: 0})
    if not compute_uv:
        return s, u, v, info
    nb = len(batch)
    vt = hlo.transpose(v, ffi.dense_i64([*range(nb), nb + 1, nb]))
    if ffi.is_complex(aval.dtype):
        vt = hlo.complex(hlo.real(vt), hlo.negate(hlo.imag(vt)))
    if not full_matrices and not econ:
        u, _ = ffi.slice_last2(u, u_aval, m, k)
        vt, _ = ffi.slice_last2(vt, ShapedArray((*batch, n, n), aval.dtype), k, n)
    return s, u, vt, info


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    # JAX's rule (Townsend's notes), for distinct nonzero singular values.
    (a,), (da,) = primals, tangents
    if compute_uv and full_matrices and a.shape[-2] != a.shape[-1]:
        # JAX 0.10.2's svd_jvp_rule makes the same refusal (a square matrix's full and
        # reduced factors coincide, so that case goes on).
        raise NotImplementedError("Singular value decomposition JVP not implemented for full "
                                  "matrices")
    # JAX passes the subset on (no refusal here: a partial one is refused at lowering)
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True,
                          subset_by_index=subset_by_index, algorithm=algorithm)
    primal_out = [s, u, vt] if compute_uv else [s]
    if type(da) is ad.Zero:
        return primal_out, [ad.Zero.from_primal_value(p) for p in primal_out]
    dtype = a.dtype
    mm = functools.partial(_matmul, preferred_element_type=dtype)  # JAX's rule writes a @ b
    *batch, m, n = a.shape
    k = s.shape[-1]
    ut, v = _H(u), _H(vt)
    # JAX's jnp forms: s_dim = s[..., None, :] against its transpose, with size-1 broadcasting
    s_dim = expand_dims(s, (s.ndim - 1,))
    ds_mat = mm(mm(ut, da), v)
    ds = _extract_diagonal(real(ds_mat) if ffi.is_complex(dtype) else ds_mat)
    if not compute_uv:
        return primal_out, [ds]
    s_diffs = mul(add(s_dim, _T(s_dim)), sub(s_dim, _T(s_dim)))
    # JAX 0.10.2 guards only the diagonal: a repeated singular value (s_i = s_j, i != j)
    # makes F infinite and dU, dV NaN there, as JAX's (the hessian at a zero matrix)
    eye = expand_dims(_lax_eye(s.dtype, (k, k)), range(s_diffs.ndim - 2))
    f = sub(div(_weak(1, s.dtype), add(s_diffs, eye)), eye)
    dss = mul(_to(s_dim, dtype), ds_mat)  # dS diag(s)
    sds = mul(_T(_to(s_dim, dtype)), ds_mat)  # diag(s) dS
    s_zeros = _to(eq(s, _weak(0, s.dtype)), s.dtype)
    s_inv = sub(div(_weak(1, s.dtype), add(s, s_zeros)), s_zeros)
    s_inv_mat = _construct_diagonal(s_inv)
    dudv_diag = mul(mul(_weak(0.5, dtype), sub(ds_mat, _H(ds_mat))), _to(s_inv_mat, dtype))
    du = mm(u, add(mul(_to(f, dtype), add(dss, _H(dss))), dudv_diag))
    dv = mm(v, mul(_to(f, dtype), add(sds, _H(sds))))
    if m > n:
        dav = mm(da, v)
        du = add(du, div(sub(dav, mm(u, mm(ut, dav))), _to(s_dim, dtype)))
    if n > m:
        dahu = mm(_H(da), u)
        dv = add(dv, div(sub(dahu, mm(v, mm(vt, dahu))), _to(s_dim, dtype)))
    return primal_out, [ds, du, _H(dv)]


svd_p = Primitive("svd", multiple_results=True)
svd_p.def_abstract_eval(_svd_abstract)
svd_p.def_lowering(_svd_lowering)
ad.primitive_jvps[svd_p] = _svd_jvp
svd_p.def_batching(_leading_batcher(svd_p))


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: tuple[int, int] | None = None, algorithm: SvdAlgorithm | None = None):
    """``(u, s, vh)`` with A = U diag(s) Vh and s descending, or just ``s``. ``algorithm``
    picks the solver as JAX's does; compiling for a platform that lacks it raises.
    ``subset_by_index=(start, end)`` (with ``full_matrices=False``) asks for singular triplets
    start..end-1; as JAX's, CPU and GPU compute only the whole range and refuse others when
    compiling."""
    out = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                     subset_by_index=subset_by_index, algorithm=algorithm)
    if compute_uv:
        s, u, vt = out
        return u, s, vt
    return out[0]


# ------------------------------------------------------------------------------------------------
# General (non-symmetric) eigendecomposition: A vr = vr diag(w), vl^H A = diag(w) vl^H


def _complex_dtype(dtype):
    return np.dtype(np.complex64 if np.dtype(dtype) in (np.float32, np.complex64)
                    else np.complex128)


class EigImplementation(enum.Enum):
    """Enum for eigendecomposition algorithm (``eig``'s ``implementation``): LAPACK's geev
    (CPU), cuSOLVER's geev or MAGMA's (GPU)."""
    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


def _eig_abstract(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs, implementation):
    _check_matrix("eig", x, square=True)
    dtype = _complex_dtype(x.dtype)
    count = int(compute_left_eigenvectors) + int(compute_right_eigenvectors)
    return ([ShapedArray(x.shape[:-1], dtype, x.weak_type)]
            + [ShapedArray(x.shape, dtype, x.weak_type)] * count)


def _eig_lowering(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs, implementation):
    (aval,) = ctx.avals_in
    w_aval, *v_avals = ctx.avals_out
    batch = aval.shape[:-2]
    gpu = ffi.platform_of(ctx) == "gpu"
    # JAX's test, first thing in its CPU lowering (an empty matrix is refused too): any truthy
    # value but LAPACK, so also the string "lapack"
    if not gpu and implementation and implementation != EigImplementation.LAPACK:
        raise ValueError("Only the lapack implementation is supported on CPU.")
    magma = _eig_gpu_magma_mode(implementation, compute_left_eigenvectors) if gpu else None
    if aval.shape[-1] == 0:
        return [ffi.full_like_aval(0, a) for a in ctx.avals_out]
    if gpu and magma is None:
        return _eig_cusolver_lowering(ctx, x, compute_right_eigenvectors)
    # LAPACK's geev on the CPU, or on the GPU jaxlib's hybrid kernel (geev on the host or
    # MAGMA's), which has the same results: the eigenvectors as complex matrices for real inputs
    # too (the handlers unpack LAPACK's (re, im) column pairs themselves), and the eigenvalues of
    # a real matrix as separate real and imaginary parts (wr, wi).
    real = not ffi.is_complex(aval.dtype)
    vec_aval = ShapedArray(aval.shape, w_aval.dtype)
    info_aval = ShapedArray(batch, ffi.INFO)
    w_parts = [ShapedArray(aval.shape[:-1], aval.dtype)] * (2 if real else 1)
    if gpu:
        _initialize_hybrid_kernels()
        target = "cuhybrid_eig_real" if real else "cuhybrid_eig_comp"
        attrs = {"magma": magma, "left": compute_left_eigenvectors,
                 "right": compute_right_eigenvectors}
    else:
        mode = lambda on: ffi.char("V" if on else "N")
        target = ffi.lapack_target("geev", aval.dtype)
        attrs = {"compute_left": mode(compute_left_eigenvectors),
                 "compute_right": mode(compute_right_eigenvectors)}
    *w, vl, vr, info = ffi.ffi_call(target, [x], [aval], [*w_parts, vec_aval, vec_aval, info_aval],
                                    attrs)
    w = hlo.complex(*w) if real else w[0]
    return _eig_outputs(ctx, info, w, vl, vr, compute_left_eigenvectors,
                        compute_right_eigenvectors)


def _eig_outputs(ctx, info, w, vl, vr, left, right):
    w_aval, *v_avals = ctx.avals_out
    ok = ffi.info_ok(info, ctx.avals_in[0].shape[:-2])
    outs = [ffi.nan_where_not_ok(ok, w, w_aval)]
    for on, v in ((left, vl), (right, vr)):
        if on:
            outs.append(ffi.nan_where_not_ok(ok, v, v_avals[len(outs) - 1]))
    return outs


def _eig_gpu_magma_mode(implementation, left):
    """JAX's choice of GPU kernel. None: cuSOLVER's Xgeev (cusolver >= 11.7.1, right
    eigenvectors only), the default without left eigenvectors. Otherwise the hybrid kernel's
    ``magma`` mode: "on" runs MAGMA's geev on the GPU, "off" LAPACK's on the host, "auto" (the
    ``jax_use_magma`` default) MAGMA when jaxlib finds its library."""
    if implementation == EigImplementation.CUSOLVER or (implementation is None and not left):
        if left:
            # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError("Left eigenvectors are not supported by cusolver")
        return None
    if implementation is None:
        return config.jax_use_magma
    return "on" if implementation == EigImplementation.MAGMA else "off"


def _initialize_hybrid_kernels():
    """Loads the host LAPACK (scipy's, as jaxlib's CPU kernels) and probes for MAGMA in the
    CUDA plugin's hybrid module, as JAX does before lowering to it; idempotent."""
    from jaxlib import gpu_solver

    gpu_solver.initialize_hybrid_kernels()


def _eig_cusolver_lowering(ctx, x, right):
    (aval,) = ctx.avals_in
    w_aval = ctx.avals_out[0]
    batch = aval.shape[:-2]
    mat = ShapedArray(aval.shape, aval.dtype)
    _, w, _, vr, info = ffi.ffi_call(
        "cusolver_geev_ffi", [x], [aval],
        [mat, w_aval, mat, mat, ShapedArray(batch, ffi.INFO)],
        {"left": False, "right": bool(right)})
    if right and not ffi.is_complex(aval.dtype):
        vr = _unpack_conjugate_pairs_hlo(w, vr, aval, w_aval.dtype)
    return _eig_outputs(ctx, info, w, None, vr, False, right)


def _unpack_conjugate_pairs_hlo(w, vr, aval, cdtype):
    """LAPACK's packed real eigenvectors -> complex ones: for a conjugate pair (j, j+1) of
    eigenvalues, columns j and j+1 hold the real and imaginary parts of v_j, and v_{j+1} =
    conj(v_j). Pair starts are where the running count of non-real eigenvalues is odd."""
    from jaxlib.mlir import ir

    rdtype = aval.dtype
    nd = aval.ndim
    vec_shape = aval.shape[:-1]
    i32 = lambda shape: ShapedArray(shape, ffi.INFO)
    cmp = lambda a, b, d, t="FLOAT": hlo.compare(a, b, hlo.ComparisonDirectionAttr.get(d),
                                                 compare_type=hlo.ComparisonTypeAttr.get(t))
    wi = hlo.imag(w)
    is_real = cmp(wi, ffi.full_like_aval(0, ShapedArray(vec_shape, rdtype)), "EQ")
    nonreal = hlo.convert(tensor_type(i32(vec_shape)), hlo.not_(is_real))
    # inclusive cumsum along the last axis as a matmul-free reduce_window
    n = aval.shape[-1]
    csum = _cumsum_last_hlo(nonreal, i32(vec_shape), n)
    two = ffi.full_like_aval(2, i32(vec_shape))
    one = ffi.full_like_aval(1, i32(vec_shape))
    pair_start = cmp(hlo.remainder(csum, two), one, "EQ", "SIGNED")
    bool_t = lambda shape: ir.RankedTensorType.get(shape, ir.IntegerType.get_signless(1))
    dims = ffi.dense_i64([*range(nd - 2), nd - 1])
    is_real_b = hlo.broadcast_in_dim(bool_t(aval.shape), is_real, dims)
    start_b = hlo.broadcast_in_dim(bool_t(aval.shape), pair_start, dims)
    zero = ffi.ir_constant(np.zeros((), rdtype))
    lo = lambda *p: ffi.dense_i64([0] * (nd - 1) + [p[0]])
    interior = ffi.dense_i64([0] * nd)
    left_shift = hlo.pad(vr, zero, lo(-1), lo(1), interior)   # column j holds column j+1
    right_shift = hlo.pad(vr, zero, lo(1), lo(-1), interior)  # column j holds column j-1
    re = hlo.select(hlo.or_(is_real_b, start_b), vr, right_shift)
    im = hlo.select(start_b, left_shift, hlo.negate(vr))
    im = hlo.select(is_real_b, ffi.full_like_aval(0, aval), im)
    return hlo.complex(re, im)


def _cumsum_last_hlo(x, aval, n):
    """Inclusive prefix sum of an i32 tensor along its last axis (a reduce_window)."""
    from jaxlib.mlir import ir

    nd = aval.ndim
    scalar_t = tensor_type(ShapedArray((), aval.dtype))
    op = hlo.ReduceWindowOp(
        [tensor_type(aval)], [x], [ffi.ir_constant(np.int32(0))],
        ffi.dense_i64([1] * (nd - 1) + [n]), window_strides=ffi.dense_i64([1] * nd),
        padding=ir.DenseIntElementsAttr.get(
            np.asarray([[0, 0]] * (nd - 1) + [[n - 1, 0]], np.int64)))
    block = op.regions[0].blocks.append(scalar_t, scalar_t)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.add(*block.arguments)])
    return op.results[0]


# jnp.linalg's ``_lu_solve``, JAX's ``lax.linalg.lu_solve``: a jit (a layer above lax), put
# here when minijax.numpy.linalg is imported (qr's JVP calls it, as JAX's does)
LU_SOLVE: list = []


def _lu_solve_lax(a, b, trans=0):
    """a^-1 b for square a (..., n, n) and b (..., n, k), via the LU of a (linear in b); a^-T b
    for ``trans`` 1, a^-H b for 2."""
    lu_, _, perm = lu_p.bind(a)
    return _lu_solve_factors(lu_, perm, b, trans)


def _lu_solve_factors(lu_, perm, b, trans, permute=_permute):
    """JAX's ``lu_solve`` core from the factors of P a = L U: the two triangular solves, with
    the permutation before them (trans 0) or its inverse after them (1: a^T, 2: a^H).
    ``permute(x, perm)``: ``x[..., perm, :]`` (jnp's indexing for ``jnp.linalg.solve``, as
    JAX's ``_lu_solve_core`` indexes)."""
    if trans == 0:
        x = triangular_solve(lu_, permute(b, perm), left_side=True, lower=True,
                             unit_diagonal=True)
        return triangular_solve(lu_, x, left_side=True, lower=False)
    conj = trans == 2
    x = triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
    x = triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True,
                         transpose_a=True, conjugate_a=conj)
    iota = broadcasted_iota(perm.dtype, perm.shape, perm.ndim - 1)
    _, inverse = sort_key_val(perm, iota, dimension=perm.ndim - 1)
    return permute(x, inverse)


def _eig_vec_jvp(w, v, da):
    # Nondegenerate perturbation theory (JAX's rule; Giles, NA-08-01, Sec. 3.1):
    # P = V^-1 dA V, dw = diag(P), dV = V (F * P) + V diag(c), F_ij = 1 / (w_j - w_i), with c
    # fixing LAPACK's normalization (unit 2-norm, real largest-magnitude component).

    n = w.shape[-1]
    eye = _eye(v.shape, v.dtype)
    f = sub(integer_pow(add(eye, sub(_row(w, n), _col(w, n))), -1), eye)
    p = _matmul(_lu_solve_lax(v, da), v)
    dw = _extract_diagonal(p)
    u = _matmul(v, mul(f, p))

    k = argmax(lax_abs(v), v.ndim - 2, np.int32)
    k_rows = broadcast_in_dim(k, v.shape, (*range(v.ndim - 2), v.ndim - 1))
    mask = _to(eq(broadcasted_iota(np.int32, v.shape, v.ndim - 2), k_rows), v.dtype)
    col_sum = lambda m: reduce_sum(m, (v.ndim - 2,))
    c = make_complex(neg(real(col_sum(mul(conj(v), u)))),
                     div(neg(imag(col_sum(mul(mask, u)))), real(col_sum(mul(mask, v)))))
    return dw, add(u, mul(v, _row(c, n)))


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
    (a,), (da,) = primals, tangents
    left, right = compute_left_eigenvectors, compute_right_eigenvectors
    if (left or right) and not enable_eigvec_derivs:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
            "input that JAX cannot check (see the enable_eigvec_derivs argument to "
            "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt "
            "in. See https://github.com/jax-ml/jax/issues/2748 for discussion.")
    # The eigenvalues' derivative reads the right eigenvectors. Higher derivatives of the
    # eigenvalues differentiate those, which is valid exactly where the eigenvalues'
    # own derivative is (simple eigenvalues), so the eigenvalue-only case opts in itself.
    outs = eig_p.bind(a, compute_left_eigenvectors=left, compute_right_eigenvectors=True,
                      enable_eigvec_derivs=enable_eigvec_derivs or not (left or right),
                      implementation=implementation)
    w, vr = outs[0], outs[-1]
    primal_out = [w] + ([outs[1]] if left else []) + ([vr] if right else [])
    if type(da) is ad.Zero:
        return primal_out, [ad.Zero.from_primal_value(p) for p in primal_out]
    da = _to(da, vr.dtype)
    if not (left or right):
        # diag(V^-1 dA V) = sum_j (V^-1 dA)_ij V_ji
        return primal_out, [reduce_sum(mul(_lu_solve_lax(vr, da), _T(vr)), (vr.ndim - 1,))]
    dw, dvr = _eig_vec_jvp(w, vr, da)
    tangent_out = [dw]
    if left:
        _, dvl = _eig_vec_jvp(conj(w), outs[1], _H(da))
        tangent_out.append(dvl)
    if right:
        tangent_out.append(dvr)
    return primal_out, tangent_out


eig_p = Primitive("eig", multiple_results=True)
eig_p.def_abstract_eval(_eig_abstract)
eig_p.def_lowering(_eig_lowering)
ad.primitive_jvps[eig_p] = _eig_jvp
eig_p.def_batching(_leading_batcher(eig_p))


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation: EigImplementation | None = None,
        use_magma: bool | None = None):
    """``[w, vl, vr]`` (vl / vr only when asked): complex eigenvalues and the left and right
    eigenvectors (columns, unit 2-norm, LAPACK's geev normalization) of general square
    matrices, with vr diag(w) = A vr and vl^H A = diag(w) vl^H. Failed matrices give NaNs.
    Eigenvalue derivatives are always available; eigenvector derivatives need
    ``enable_eigvec_derivs=True`` (valid for distinct eigenvalues only), as in JAX.
    ``implementation`` picks the solver as JAX's does (CPU takes LAPACK only, refused when the
    call is compiled); ``use_magma`` is its deprecated spelling (MAGMA or LAPACK)."""
    if use_magma is not None:
        warnings.warn("use_magma is deprecated, please use implementation=EigImplementation.MAGMA "
                      "instead.", DeprecationWarning, stacklevel=2)
        implementation = EigImplementation.MAGMA if use_magma else EigImplementation.LAPACK
    return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                      compute_right_eigenvectors=bool(compute_right_eigenvectors),
                      enable_eigvec_derivs=bool(enable_eigvec_derivs),
                      implementation=implementation)


# ------------------------------------------------------------------------------------------------
# CPU-only LAPACK reductions: Hessenberg (gehrd), Householder products (orgqr / ungqr) and the
# Schur decomposition (gees). JAX registers no GPU lowering for hessenberg and schur, so a GPU
# compile of either is refused, with JAX's message for a missing platform rule.


def _cpu_only(name, ctx):
    if ffi.platform_of(ctx) != "cpu":
        # JAX 0.10.2 refuses it too, in these words (its rule is registered for cpu only)
        raise NotImplementedError(
            f"MLIR translation rule for primitive '{name}' not found for platform "
            f"{ctx.module_ctx.platform}")


def _hessenberg_abstract(x):
    _check_matrix("hessenberg", x, square=True)
    return [ShapedArray(x.shape, x.dtype, x.weak_type),
            ShapedArray((*x.shape[:-2], max(x.shape[-1] - 1, 0)), x.dtype, x.weak_type)]


def _hessenberg_lowering(ctx, x):
    _cpu_only("hessenberg", ctx)
    (aval,) = ctx.avals_in
    a_aval, taus_aval = ctx.avals_out
    batch, n = aval.shape[:-2], aval.shape[-1]
    if n == 0:
        return [x, ffi.full_like_aval(0, taus_aval)]
    # ilo = 1, ihi = n: reduce the whole matrix (no prior balancing).
    h, taus, info = ffi.ffi_call(ffi.lapack_target("gehrd", aval.dtype), [x], [aval],
                                 [a_aval, taus_aval, ShapedArray(batch, ffi.INFO)],
                                 {"low": np.int32(1), "high": np.int32(n)}, aliases={0: 0})
    ok = ffi.info_ok(info, batch)
    return [ffi.nan_where_not_ok(ok, h, a_aval), ffi.nan_where_not_ok(ok, taus, taus_aval)]


hessenberg_p = Primitive("hessenberg", multiple_results=True)
hessenberg_p.def_abstract_eval(_hessenberg_abstract)
hessenberg_p.def_lowering(_hessenberg_lowering)
hessenberg_p.def_batching(_leading_batcher(hessenberg_p))


def hessenberg(a):
    """``(a, taus)``: the upper Hessenberg form of square matrices in the upper triangle and
    first subdiagonal of ``a``, the Householder reflectors below it, and their scalar factors
    ``taus`` (..., n - 1). CPU only."""
    return tuple(hessenberg_p.bind(a))


def _householder_product_abstract(a, taus):
    _check_matrix("householder_product", a)
    m, n = a.shape[-2:]
    if m < n:  # JAX's words
        raise ValueError("The first argument to householder_product must have at least as many "
                         f"rows as columns, got shape {(m, n)}")
    if taus.shape[-1:] and taus.shape[-1] > n:
        raise ValueError("The second argument to householder_product must not have more rows "
                         "than the minimum of the first argument's rows and columns.")
    if taus.shape[:-1] != a.shape[:-2] or not taus.shape:
        raise ValueError("householder_product needs taus of shape (..., k) with a's batch axes; "
                         f"got {a.str_short(True)} and {taus.str_short(True)}")
    if taus.dtype != a.dtype:
        raise TypeError(f"householder_product: a and taus must have one dtype, got {a.dtype} "
                        f"and {taus.dtype}")
    return ShapedArray(a.shape, a.dtype, a.weak_type and taus.weak_type)


def _householder_product_lowering(ctx, a, taus):
    a_aval, taus_aval = ctx.avals_in
    if a_aval.shape[-1] == 0:
        return a
    if ffi.platform_of(ctx) == "gpu":
        target = "cusolver_orgqr_ffi"
    else:
        target = ffi.lapack_target("ungqr" if ffi.is_complex(a_aval.dtype) else "orgqr",
                                   a_aval.dtype)
    (q,) = ffi.ffi_call(target, [a, taus], [a_aval, taus_aval], [a_aval], aliases={0: 0})
    return q


def _householder_product_batching(args, dims):
    size = batching.axis_size(args, dims)
    a, taus = (batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))
    return householder_product_p.bind(a, taus), 0


householder_product_p = Primitive("householder_product")
householder_product_p.def_abstract_eval(_householder_product_abstract)
householder_product_p.def_lowering(_householder_product_lowering)
householder_product_p.def_batching(_householder_product_batching)


def householder_product(a, taus):
    """The product H_1 ... H_k of the Householder reflectors stored below the diagonal of
    ``a`` (..., m, n) with scalar factors ``taus`` (..., k): its first n columns, (..., m, n)."""
    return householder_product_p.bind(a, taus)


def _schur_abstract(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _check_matrix("schur", x, square=True)
    out = ShapedArray(x.shape, x.dtype, x.weak_type)
    return [out, out] if compute_schur_vectors else [out]


def _schur_lowering(ctx, x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _cpu_only("schur", ctx)
    if sort_eig_vals:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            "The sort feature of LAPACK's gees routine is not implemented.")
    (aval,) = ctx.avals_in
    batch = aval.shape[:-2]
    if aval.shape[-1] == 0:
        return [x] * len(ctx.avals_out)
    w_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    info_aval = ShapedArray(batch, ffi.INFO)
    # Eigenvalues (real and imaginary parts for real input), the count of selected
    # eigenvalues, and info; the mode and sort options are LAPACK's characters.
    w_parts = [w_aval] if ffi.is_complex(aval.dtype) else [w_aval, w_aval]
    t, z, *_, info = ffi.ffi_call(
        ffi.lapack_target("gees", aval.dtype), [x], [aval],
        [aval, aval, *w_parts, info_aval, info_aval],
        {"mode": ffi.char("V" if compute_schur_vectors else "N"), "sort": ffi.char("N")},
        aliases={0: 0})
    ok = ffi.info_ok(info, batch)
    outs = [ffi.nan_where_not_ok(ok, t, aval)]
    if compute_schur_vectors:
        outs.append(ffi.nan_where_not_ok(ok, z, aval))
    return outs


schur_p = Primitive("schur", multiple_results=True)
schur_p.def_abstract_eval(_schur_abstract)
schur_p.def_lowering(_schur_lowering)
schur_p.def_batching(_leading_batcher(schur_p))


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """``(T, Z)`` with x = Z T Z^H, Z unitary and T upper (quasi-)triangular (2x2 diagonal
    blocks for complex-conjugate pairs of a real matrix); ``(T,)`` alone without
    ``compute_schur_vectors``. Sorting is not implemented, as in JAX. CPU only."""
    return tuple(schur_p.bind(x, compute_schur_vectors=bool(compute_schur_vectors),
                              sort_eig_vals=bool(sort_eig_vals),
                              select_callable=select_callable))


# ------------------------------------------------------------------------------------------------
# Tridiagonal reduction and solve (JAX's error messages: its generic linalg shape/dtype rules)


def _check_linalg_operands(name, avals, ranks, real_only=False, batched=True):
    """JAX's linalg shape rule (ranks, one batch rank; exact ranks where the op has no batch
    axes) then dtype rule (inexact, or real floating with ``real_only``; one dtype)."""
    for i, (aval, rank) in enumerate(zip(avals, ranks)):
        if aval.ndim < rank:
            raise TypeError(f"Input {i} to {name} must have rank at least {rank}, but got "
                            f"shape={aval.shape}")
        if not batched and aval.ndim != rank:
            raise TypeError(f"Input {i} to {name} must have a rank of exactly {rank}, but got "
                            f"shape={aval.shape}")
    if len({a.ndim - r for a, r in zip(avals, ranks)}) > 1:
        raise TypeError(f"All inputs to {name} must have the same number of batch dimensions, "
                        f"but got {[a.ndim - r for a, r in zip(avals, ranks)]} batch "
                        "dimensions for the inputs.")
    kind, kinds = (np.floating, "floating") if real_only else \
        (np.inexact, "floating, complexfloating")
    for i, aval in enumerate(avals):
        if not dtypes.issubdtype(aval.dtype, kind):
            raise TypeError(f"{name} does not accept dtype {np.dtype(aval.dtype).name} at "
                            f"position {i}. Accepted dtypes at position {i} are subtypes of "
                            f"{kinds}.")
    if len(avals) > 1:
        check_same_dtypes(name, avals)


def _tridiagonal_abstract(a, *, lower):
    _check_linalg_operands("tridiagonal", [a], [2])
    n = a.shape[-1]
    if a.shape[-2] != n or n == 0:
        raise ValueError("The input to tridiagonal must be a square matrix. Got shape "
                         f"{a.shape[-2:]}.")
    batch, real, weak = a.shape[:-2], _real_dtype(a.dtype), a.weak_type
    return [ShapedArray(a.shape, a.dtype, weak), ShapedArray((*batch, n), real, weak),
            ShapedArray((*batch, n - 1), real, weak), ShapedArray((*batch, n - 1), a.dtype, weak)]


def _tridiagonal_lowering(ctx, a, *, lower):
    (aval,) = ctx.avals_in
    batch = aval.shape[:-2]
    if ffi.platform_of(ctx) == "gpu":
        target, attrs = "cusolver_sytrd_ffi", {"lower": bool(lower)}
    else:
        base = "hetrd" if ffi.is_complex(aval.dtype) else "sytrd"
        target, attrs = ffi.lapack_target(base, aval.dtype), {"uplo": ffi.char("L" if lower
                                                                               else "U")}
    *outs, info = ffi.ffi_call(target, [a], [aval], [*ctx.avals_out, ShapedArray(batch, ffi.INFO)],
                               attrs, aliases={0: 0})
    ok = ffi.info_ok(info, batch)
    return [ffi.nan_where_not_ok(ok, x, out_aval) for x, out_aval in zip(outs, ctx.avals_out)]


# No JVP rule, as in JAX: differentiating it raises "Differentiation rule ... not implemented".
tridiagonal_p = Primitive("tridiagonal", multiple_results=True)
tridiagonal_p.def_abstract_eval(_tridiagonal_abstract)
tridiagonal_p.def_lowering(_tridiagonal_lowering)
tridiagonal_p.def_batching(_leading_batcher(tridiagonal_p))


def tridiagonal(a, *, lower: bool = True):
    """``(a, d, e, taus)``: the Hermitian matrices ``a`` reduced to tridiagonal form, read from
    the ``lower`` (or upper) triangle. The returned matrix keeps the diagonal and first sub-
    (super-)diagonal in that triangle with the Householder reflectors beyond them; ``d`` is the
    (real) diagonal, ``e`` the (real) off-diagonal and ``taus`` the reflectors' factors."""
    return tuple(tridiagonal_p.bind(a, lower=bool(lower)))


def _tridiagonal_solve_abstract(dl, d, du, b, *, perturb_singular):
    _check_linalg_operands("tridiagonal_solve", [dl, d, du, b], [1, 1, 1, 2])
    if dl.shape != d.shape or dl.shape != du.shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same "
                        "shape.")
    if dl.shape != b.shape[:-1]:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b "
                        "equal the dimensions of the diagonal arguments.")
    return ShapedArray(b.shape, b.dtype, all(x.weak_type for x in (dl, d, du, b)))


def _tridiagonal_solve_lax(dl, d, du, b, *, perturb_singular):
    """JAX's fallback (its GPU rule for m <= 2, so the rows are unrolled): the Thomas algorithm,
    a forward sweep eliminating the sub-diagonal, then back substitution, with JAX's
    arithmetic; batch axes are elementwise."""
    del perturb_singular  # the GPU rule sends perturbed systems to their own kernel
    m = d.shape[-1]
    rhs_shape = (*b.shape[:-2], b.shape[-1])
    diag = lambda x, i: squeeze(_slice_last(x, i, i + 1), (x.ndim - 1,))
    # a diagonal's entry i, broadcast over b's columns
    entry = lambda x, i: broadcast_in_dim(diag(x, i), rhs_shape, tuple(range(x.ndim - 1)))
    row = lambda i: squeeze(slice(b, [0] * (b.ndim - 2) + [i, 0],
                                  [*b.shape[:-2], i + 1, b.shape[-1]]), (b.ndim - 2,))
    cp, dp = [div(entry(du, 0), entry(d, 0))], [div(row(0), entry(d, 0))]
    for i in range(1, m):
        a = entry(dl, i)
        denom = sub(entry(d, i), mul(a, cp[-1]))
        cp.append(div(entry(du, i), denom))
        dp.append(div(sub(row(i), mul(a, dp[-1])), denom))
    xs = [dp[-1]]
    for i in range(m - 2, -1, -1):
        xs.insert(0, sub(dp[i], mul(cp[i], xs[0])))
    return concatenate([broadcast_in_dim(x, (*b.shape[:-2], 1, b.shape[-1]),
                                         (*range(b.ndim - 2), b.ndim - 1)) for x in xs],
                       b.ndim - 2)


def _lower_lax(fun):
    """A lowering rule emitting ``fun`` (lax ops) for a one-result primitive."""

    def rule(ctx, *args, **params):
        return lower_traced(ctx.module_ctx, lambda *xs: [fun(*xs, **params)], ctx.avals_in,
                            args)[0]

    return rule


def _tridiagonal_solve_lowering(ctx, dl, d, du, b, *, perturb_singular):
    b_aval = ctx.avals_in[-1]
    gpu = ffi.platform_of(ctx) == "gpu"
    if perturb_singular:
        # jaxlib's kernel perturbs tiny pivots of the pivoted LU and never fails
        target = "cu_tridiagonal_solve_perturbed" if gpu else "tridiagonal_solve_perturbed_ffi"
        (x,) = ffi.ffi_call(target, [dl, d, du, b], ctx.avals_in, [b_aval])
        return x
    if gpu:
        # As JAX: cuSPARSE's gtsv2 needs m >= 3; smaller systems take the lax fallback
        if b_aval.shape[-2] <= 2:
            return _lower_lax(_tridiagonal_solve_lax)(ctx, dl, d, du, b, perturb_singular=False)
        (x,) = ffi.ffi_call("cusparse_gtsv2_ffi", [dl, d, du, b], ctx.avals_in, [b_aval],
                            aliases={3: 0})
        return x
    batch = b_aval.shape[:-2]
    *_, x, info = ffi.ffi_call(ffi.lapack_target("gtsv", b_aval.dtype), [dl, d, du, b],
                               ctx.avals_in, [*ctx.avals_in, ShapedArray(batch, ffi.INFO)],
                               aliases={0: 0, 1: 1, 2: 2, 3: 3})
    return ffi.nan_where_not_ok(ffi.info_ok(info, batch), x, b_aval)


def _tridiagonal_product(dl, d, du, x):
    """A x for the tridiagonal A of (dl, d, du): the diagonal, then the neighbours' rows."""
    *batch, m, n = x.shape
    col = lambda v: broadcast_in_dim(v, x.shape, tuple(range(len(batch) + 1)))
    zero = full((), 0, x.dtype)
    no_pad = [(0, 0, 0)] * len(batch)
    x_up = pad(slice(x, [0] * x.ndim, [*batch, m - 1, n]), zero, [*no_pad, (1, 0, 0), (0, 0, 0)])
    x_dn = pad(slice(x, [0] * (x.ndim - 2) + [1, 0], x.shape), zero,
               [*no_pad, (0, 1, 0), (0, 0, 0)])
    # dl[0] and du[m - 1] lie outside A: they meet the zero padding
    return add(add(mul(col(d), x), mul(col(dl), x_up)), mul(col(du), x_dn))


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    # A x = b  =>  A x_dot = b_dot - A_dot x
    *diags, _ = primals
    *diags_dot, b_dot = tangents
    ans = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    rhs = b_dot
    if not all(type(t) is ad.Zero for t in diags_dot):
        matvec = _tridiagonal_product(*map(ad.instantiate_zeros, diags_dot), ans)
        rhs = ad.add_tangents(b_dot, neg(matvec))
    return ans, tridiagonal_solve_p.bind(*diags, ad.instantiate_zeros(rhs),
                                         perturb_singular=perturb_singular)


def _slice_last(x, start, stop):
    return slice(x, [0] * (x.ndim - 1) + [start], [*x.shape[:-1], stop])


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    # Linear in b only; A^T has du shifted down one place as its sub-diagonal and dl shifted up
    assert not any(map(ad.is_undefined_primal, (dl, d, du))) and ad.is_undefined_primal(b)
    if type(ct) is ad.Zero:
        return [None, None, None, ad.Zero(b.aval)]
    last = du.ndim - 1
    dl_t = concatenate([full_like(_slice_last(du, du.shape[-1] - 1, du.shape[-1]), 0),
                        _slice_last(du, 0, du.shape[-1] - 1)], last)
    du_t = concatenate([_slice_last(dl, 1, dl.shape[-1]), full_like(_slice_last(dl, 0, 1), 0)],
                       last)
    return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct,
                                                       perturb_singular=perturb_singular)]


def _tridiagonal_solve_batching(args, dims, *, perturb_singular):
    dl, d, du, b = args
    if all(dim is batching.not_mapped for dim in dims[:3]):
        # JAX's fold: shared diagonals solve one wider b, the batch joining its columns
        return batching.fold_batch(
            lambda b: tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=perturb_singular),
            b, dims[3], b.ndim - 2, joins_next=True)
    size = batching.axis_size(args, dims)
    args = [batching.bdim_at_front(x, dim, size) for x, dim in zip(args, dims)]
    return tridiagonal_solve_p.bind(*args, perturb_singular=perturb_singular), 0


tridiagonal_solve_p = Primitive("tridiagonal_solve")
tridiagonal_solve_p.def_abstract_eval(_tridiagonal_solve_abstract)
tridiagonal_solve_p.def_lowering(_tridiagonal_solve_lowering)
ad.primitive_jvps[tridiagonal_solve_p] = _tridiagonal_solve_jvp
ad.primitive_transposes[tridiagonal_solve_p] = _tridiagonal_solve_transpose
tridiagonal_solve_p.def_batching(_tridiagonal_solve_batching)


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """X with A X = B for the tridiagonal A of sub-diagonal ``dl`` (dl[..., 0] is ignored),
    diagonal ``d`` and super-diagonal ``du`` (du[..., m - 1] is ignored), each (..., m), and
    B (..., m, n). ``perturb_singular`` perturbs tiny pivots so a singular A gives a finite X;
    otherwise a singular A gives NaNs."""
    return tridiagonal_solve_p.bind(dl, d, du, b,
                                    perturb_singular=bool(perturb_singular))


# ------------------------------------------------------------------------------------------------
# Symmetric product and Cholesky rank-1 update: lax compositions on every platform (JAX's own
# rule except on CUDA, where it calls cuSOLVER's syrk and its own update kernel). Neither has a
# JVP rule, as in JAX; cholesky_update has no batching rule either.


def _symmetric_product_abstract(a, c, *, alpha, beta):
    _check_linalg_operands("symmetric_product", [a, c], [2, 2], real_only=True)
    if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]:
        # JAX 0.10.2's words, its name for the op included
        raise ValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a "
                         f"square matrix of shape (n, n). Got shapes {a.shape[-2:]} and "
                         f"{c.shape[-2:]}.")
    return ShapedArray(c.shape, c.dtype, a.weak_type and c.weak_type)


def _symmetric_product_lax(a, c, *, alpha, beta):
    nb = a.ndim - 2
    dims = (((nb + 1,), (nb + 1,)), (tuple(range(nb)), tuple(range(nb))))
    a_at = dot_general(a, a, dims, precision=Precision.HIGHEST)
    return add(mul(full((), alpha, a_at.dtype), a_at), mul(full((), beta, c.dtype), c))


symmetric_product_p = Primitive("symmetric_product")
symmetric_product_p.def_abstract_eval(_symmetric_product_abstract)
symmetric_product_p.def_lowering(_lower_lax(_symmetric_product_lax))
symmetric_product_p.def_batching(_front_batcher(symmetric_product_p))


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1., beta: float = 0.,
                      symmetrize_output: bool = False):
    """alpha A A^T + beta C for A (..., m, n) and symmetric C (..., m, m): only the lower
    triangle is meant (other platforms' kernels leave the upper one alone), unless
    ``symmetrize_output`` mirrors it into the upper triangle."""
    result = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        result = add(_tril(result), _T(_tril(result, -1)))
    return result


def _cholesky_update_abstract(r, w):
    _check_linalg_operands("cholesky_update", [r, w], [2, 1], real_only=True, batched=False)
    if r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
        raise ValueError("Rank-1 update to Cholesky decomposition takes a square matrix and a "
                         f"vector of the same size as input. Got shapes {r.shape} and "
                         f"{w.shape} instead")
    return ShapedArray(r.shape, r.dtype, r.weak_type and w.weak_type)


def _cholesky_update_lax(r, w):
    """R' with R'^T R' = R^T R + w w^T: a Givens rotation per row k zeroes w[k] against R[k, k]
    (LAPACK's drotg scaling), rotating the rest of row k and of w with it."""
    n = w.shape[0]
    zero, one = full((), 0, r.dtype), full((), 1, r.dtype)
    row = lambda x, k: squeeze(slice(x, [k, 0], [k + 1, n]), (0,))
    at = lambda v, k: squeeze(slice(v, [k], [k + 1]), (0,))
    rows = []
    for k in range(n):
        x, y = at(row(r, k), k), at(w, k)
        ax, ay = lax_abs(x), lax_abs(y)
        scale = select(gt(ax, ay), ax, ay)
        xs, ys = div(x, scale), div(y, scale)
        rh = div(one, sqrt(add(integer_pow(xs, 2), integer_pow(ys, 2))))
        # y == 0: no rotation (JAX's cond; the scaled branch would give 0/0 where x is 0 too)
        c = select(eq(y, zero), one, mul(xs, rh))
        s = select(eq(y, zero), zero, mul(neg(ys), rh))
        r_k = row(r, k)
        rows.append(sub(mul(c, r_k), mul(s, w)))
        w = add(mul(c, w), mul(s, r_k))
    return concatenate([broadcast_in_dim(x, (1, n), (1,)) for x in rows], 0)


cholesky_update_p = Primitive("cholesky_update")
cholesky_update_p.def_abstract_eval(_cholesky_update_abstract)
cholesky_update_p.def_lowering(_lower_lax(_cholesky_update_lax))


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of A + w w^T from A's upper factor R (A = R^T R), in O(n^2):
    for one (n, n) matrix and (n,) vector (no batching, as in JAX)."""
    return cholesky_update_p.bind(r_matrix, w_vector)


# ------------------------------------------------------------------------------------------------
# ormqr: Q (from Householder reflectors) times a matrix, without forming Q. LAPACK's ormqr/unmqr
# on CPU, cuSOLVER's on GPU (JAX's lax fallback is for other platforms); no JVP, as in JAX.


def _ormqr_abstract(a, taus, c, *, left, transpose):
    _check_linalg_operands("ormqr", [a, taus, c], [2, 1, 2])
    m = a.shape[-2]
    if left and c.shape[-2] != m:
        raise ValueError("ormqr with left=True expects c to have the same number of rows as the "
                         f"Householder matrix a. Got a shape {a.shape[-2:]} and c shape "
                         f"{c.shape[-2:]}.")
    if not left and c.shape[-1] != m:
        raise ValueError("ormqr with left=False expects c to have the same number of columns as "
                         f"the Householder matrix a has rows. Got a shape {a.shape[-2:]} and c "
                         f"shape {c.shape[-2:]}.")
    return ShapedArray(c.shape, c.dtype, a.weak_type and taus.weak_type and c.weak_type)


def _ormqr_lowering(ctx, a, taus, c, *, left, transpose):
    a_aval = ctx.avals_in[0]
    if ffi.platform_of(ctx) == "gpu":
        target = "cusolver_ormqr_ffi"
    else:
        target = ffi.lapack_target("unmqr" if ffi.is_complex(a_aval.dtype) else "ormqr",
                                   a_aval.dtype)
    (out,) = ffi.ffi_call(target, [a, taus, c], ctx.avals_in, ctx.avals_out,
                          {"left": bool(left), "transpose": bool(transpose)}, aliases={2: 0})
    return out


ormqr_p = Primitive("ormqr")
ormqr_p.def_abstract_eval(_ormqr_abstract)
ormqr_p.def_lowering(_ormqr_lowering)
ormqr_p.def_batching(_front_batcher(ormqr_p))


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
    """Q C (``left``) or C Q, with Q^H for ``transpose``, where Q is the product of the
    Householder reflectors below the diagonal of ``a`` (..., m, n) with factors ``taus``
    (..., k) (geqrf's output); the result has c's shape."""
    return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))


# ------------------------------------------------------------------------------------------------
# Polar decomposition x = u h by the QR-based dynamically weighted Halley iteration (QDWH):
# JAX's jax._src.tpu.linalg.qdwh step for step, in lax ops. Nakatsukasa, Bai and Gygi, SIAM J.
# Matrix Anal. Appl. 31(5), 2010. Scaled so that its singular values lie in [l, 1], u is driven
# to the unitary factor by u <- e u + (a - e) u (I + c u^H u)^-1, e = b / c, with weights
# (a, b, c) chosen from the lower bound l, which depends on nothing but eps: the schedule is
# computed in Python. While c is large the inverse comes from the QR factorization of
# [sqrt(c) u; I], then from the Cholesky factor of I + c u^H u; once l has reached 1 Halley's
# weights (3, 1, 3) repeat until u moves less than cbrt(5 eps).

_QDWH_CHOLESKY_CUTOFF = 100


def _qdwh_scale(s, x):
    """s x for a 0-d s of x's dtype."""
    return mul(broadcast_in_dim(s, x.shape, ()), x)


def _qdwh_conj(x):
    return conj(x) if ffi.is_complex(x.dtype) else x


def _qdwh_mask(x, dims, alternative=None):
    """x where each index is below ``dims`` (the true shape of a padded matrix), else
    ``alternative`` (zeros)."""
    mask = None
    for axis, d in enumerate(dims):
        bound = broadcast_in_dim(convert_element_type(d, np.int32), x.shape, ())
        keep = lt(broadcasted_iota(np.int32, x.shape, axis), bound)
        mask = keep if mask is None else bitwise_and(mask, keep)
    return select(mask, x, full_like(x, 0) if alternative is None else alternative)


def _qdwh_frobenius(x):
    sq = real(mul(x, conj(x))) if ffi.is_complex(x.dtype) else mul(x, x)
    return sqrt(reduce_sum(sq, (0, 1)))


def _qdwh_norm_1(x, axis):
    """The largest absolute sum along ``axis`` (0: the 1-norm, 1: the inf-norm), at least 0
    (jnp.linalg.norm's amax(initial=0))."""
    sums = reduce_sum(lax_abs(x), (axis,))
    return lax_max(reduce_max(sums, (0,)), full((), 0, sums.dtype))


def _qdwh_use_qr(u, m, n, params, dynamic):
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    big_m, big_n = u.shape
    eye = _eye((big_n, big_n), u.dtype)
    top = _qdwh_scale(sqrt_c, u)
    if dynamic:  # [sqrt(c) u; I] with I right below the true m rows
        y = dynamic_update_slice_in_dim(pad(top, np.zeros((), u.dtype), [(0, big_n, 0), (0, 0, 0)]),
                                        eye, m, 0)
    else:
        y = concatenate([top, eye], 0)
    q, _ = qr(y, full_matrices=False)
    q1 = slice(q, (0, 0), (big_m, big_n))
    q2 = dynamic_slice_in_dim(q, m, big_n, 0) if dynamic else slice(
        q, (big_m, 0), (big_m + big_n, big_n))
    if dynamic:
        q1, q2 = _qdwh_mask(q1, (m, n)), _qdwh_mask(q2, (n, n))
    return add(_qdwh_scale(e, u), _qdwh_scale(a_minus_e_by_sqrt_c, _matmul(q1, _H(q2))))


def _qdwh_use_cholesky(u, m, n, params, dynamic):
    a_minus_e, c, e = params
    big_n = u.shape[1]
    eye = _eye((big_n, big_n), u.dtype)
    x = add(_qdwh_scale(c, _matmul(_H(u), u)), eye)
    if dynamic:  # the identity in the padding keeps x positive definite
        x = _qdwh_mask(x, (n, n), eye)
    y = cholesky(x, symmetrize_input=False)  # lower, x = y y^H
    z = _qdwh_conj(triangular_solve(y, _T(u), left_side=True, lower=True, conjugate_a=True))
    z = _H(triangular_solve(y, z, left_side=True, lower=True, transpose_a=True,
                            conjugate_a=True))
    return add(_qdwh_scale(e, u), _qdwh_scale(a_minus_e, z))


def _qdwh_schedule(eps, max_iterations):
    """JAX's weights, in Python floats: (QR steps, Cholesky steps) as rows of
    (a - e) / sqrt(c), sqrt(c), e and of a - e, c, e."""
    l, tol_l = eps, 10.0 * eps / 2.0
    qr_coefs, chol_coefs = [], []
    k = 0
    while l + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        e = b / c
        if c > _QDWH_CHOLESKY_CUTOFF:
            sqrt_c = c ** (1 / 2)
            qr_coefs.append(((a - e) / sqrt_c, sqrt_c, e))
        else:
            chol_coefs.append((a - e, c, e))
    return qr_coefs, chol_coefs


def _qdwh(x, m, n, max_iterations, eps, dynamic):
    if eps is None:
        eps = float(dtypes.finfo(x.dtype).eps)
    tol_l = 10.0 * eps / 2.0
    real_dtype = _real_dtype(x.dtype)
    # as jnp.cbrt of the Python float: computed in the canonical float type
    tol_norm = _to(cbrt(full((), tol_l, dtypes.canonicalize_dtype(np.float64))), real_dtype)
    # sqrt(||x||_1 ||x||_inf) >= ||x||_2: the scaled singular values are at most 1
    one_norm, inf_norm = _qdwh_norm_1(x, 0), _qdwh_norm_1(x, 1)
    alpha_inverse = mul(rsqrt(one_norm), rsqrt(inf_norm))
    alpha_inverse = select(eq(one_norm, full((), 0, real_dtype)), full((), 1, real_dtype),
                           alpha_inverse)
    u = _qdwh_scale(_to(alpha_inverse, x.dtype), x)
    qr_coefs, chol_coefs = _qdwh_schedule(eps, max_iterations)

    def step(update_fn, u, params):
        # a Python number (Halley's weights) acts as a weakly typed one: x's dtype
        return update_fn(u, m, n, [full((), p, x.dtype) if isinstance(p, (int, float)) else p
                                   for p in params], dynamic)

    def moved(u, u_prev):
        return gt(_qdwh_frobenius(sub(u, u_prev)), tol_norm)

    def iterate(u, coefs, update_fn, test_convergence):
        if not coefs:
            return u, True
        table = np.asarray(coefs, np.float64).astype(x.dtype)

        def body(k, state):
            u_prev, _ = state
            row = dynamic_index_in_dim(table, k, keepdims=False)
            u = step(update_fn, u_prev, [squeeze(slice(row, (j,), (j + 1,)), (0,))
                                         for j in range(3)])
            return u, moved(u, u_prev) if test_convergence else True

        return fori_loop(0, len(coefs), body, (u, True))

    u, _ = iterate(u, qr_coefs, _qdwh_use_qr, test_convergence=False)
    u, is_not_converged = iterate(u, chol_coefs, _qdwh_use_cholesky, test_convergence=True)

    # l has converged: Halley's weights (3, 1, 3) until u has too, or max_iterations
    halley = (3 - 1 / 3, 3, 1 / 3)

    def body(state):
        k, u_prev, _ = state
        u = step(_qdwh_use_cholesky, u_prev, halley)
        return k + 1, u, moved(u, u_prev)

    num_iters, u, is_not_converged = while_loop(
        lambda state: bitwise_and(state[2], lt(state[0], np.int32(max_iterations))), body,
        (len(qr_coefs) + len(chol_coefs), u, is_not_converged))
    # one Newton-Schulz step restores orthonormality to working accuracy
    u = sub(_qdwh_scale(full((), 1.5, x.dtype), u),
            _matmul(_qdwh_scale(full((), 0.5, x.dtype), u), _matmul(_H(u), u)))
    h = _matmul(_H(u), x)
    h = div(add(h, _H(h)), full(h.shape, 2, h.dtype))
    return u, h, num_iters, bitwise_not(is_not_converged)


class Hooks:
    """What this module needs from the layers above, installed by them at import (they sit
    above lax, which therefore never imports them): ``jit`` (``minijax.jitting``'s), which
    stages qdwh as one program, as JAX's qdwh is ``api.jit``-decorated."""

    jit = None


def qdwh(x, *, is_hermitian: bool = False, max_iterations: int | None = None,
         eps: float | None = None, dynamic_shape: tuple[int, int] | None = None):
    """``(u, h, num_iters, is_converged)``: the polar decomposition x = u h of a full-rank
    (M, N) matrix, M >= N, u with orthonormal columns and h Hermitian positive semi-definite,
    by JAX's QDWH iteration (at most ``max_iterations`` steps, 10 by default; ``eps``, the
    dtype's by default, sets the schedule and the tolerance cbrt(5 eps)). ``dynamic_shape``
    (m, n) is the true shape of a matrix padded up to (M, N). ``is_hermitian`` is unused, as
    in JAX. Jitted with the three others static, as JAX's."""
    return _qdwh_jitted()(x, is_hermitian=is_hermitian, max_iterations=max_iterations,
                          eps=eps, dynamic_shape=dynamic_shape)


@functools.cache
def _qdwh_jitted():
    _qdwh_traced.__name__ = "qdwh"  # the jit equation's name, as JAX's
    return Hooks.jit(_qdwh_traced, static_argnames=("is_hermitian", "max_iterations", "eps"))


def _qdwh_traced(x, *, is_hermitian, max_iterations, eps, dynamic_shape):
    del is_hermitian  # JAX's too: kept for backward compatibility
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    big_m, big_n = x.shape
    if big_m < big_n:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    dynamic = dynamic_shape is not None
    if dynamic:
        m, n = dynamic_shape
        x = _qdwh_mask(x, (m, n))
    else:
        m, n = big_m, big_n
    return _qdwh(x, m, n, max_iterations, eps, dynamic)

# Sharding rules (operands split over Explicit mesh axes): each input's matrix dimensions whole
for _p, _ranks in ((cholesky_p, (2,)), (triangular_solve_p, (2, 2)), (lu_p, (2,)),
                   (lu_pivots_to_permutation_p, (1,)), (geqrf_p, (2,)), (geqp3_p, (2, 1)),
                   (qr_p, (2,)), (eigh_p, (2,)), (svd_p, (2,)), (eig_p, (2,)),
                   (hessenberg_p, (2,)), (householder_product_p, (2, 1)), (schur_p, (2,)),
                   (tridiagonal_p, (2,)), (tridiagonal_solve_p, (1, 1, 1, 2)),
                   (symmetric_product_p, (2, 2)), (cholesky_update_p, (2, 1)),
                   (ormqr_p, (2, 1, 2))):
    _p.sharding_rule = sharding_rules.linalg(_p.name, _ranks)
