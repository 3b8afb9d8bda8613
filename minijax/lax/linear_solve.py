"""``a^-1 b`` (or ``a^-T b``) from a given LU of ``a``, differentiated as JAX's
``custom_linear_solve`` (the form ``jnp.linalg.solve``/``inv`` take in JAX).

``lu_linear_solve_p(a, lu, perm, b, transpose=...)`` solves with the factors only; ``a`` is an
operand for the derivative alone. Its JVP is ``dx = solve(a, db - da x)`` and its transpose in
``b`` the transposed solve, both this primitive again, so no derivative of any order goes
through the factorization (an LU holding infs has NaN derivatives even where ``a^-1`` is
finite) and the factors' own tangents are ignored, as JAX ignores its solve's constants.
"""

from __future__ import annotations

import numpy as np

from minijax.core import MemorySpace, Primitive, ShapedArray, check_memory_spaces, get_aval
from minijax.interpreters import ad, batching
from minijax.interpreters.mlir import lower_traced
from minijax.lax.dot import Precision, dot_general
from minijax.lax.elementwise import neg, sub
from minijax.lax.linalg import _lu_solve_factors

__all__ = ["lu_linear_solve", "lu_linear_solve_p"]


def _solve_with_factors(a, lu, perm, b, *, transpose):
    """JAX's ``lu_solve`` with trans=0 (``a^-1 b``) or trans=1 (``a^-T b``), P a = L U."""
    del a
    return _lu_solve_factors(lu, perm, b, 1 if transpose else 0)


def _lowering(ctx, *values, transpose):
    return lower_traced(ctx.module_ctx, lambda *xs: [_solve_with_factors(*xs, transpose=transpose)],
                        ctx.avals_in, values)[0]


def _abstract(a, lu, perm, b, *, transpose):
    # JAX's custom_linear_solve returns the aval of its right-hand side, weak type included
    return ShapedArray(b.shape, b.dtype, b.weak_type)


def _matvec_tangent(da, x, transpose):
    """``da x`` (``da^T x`` for the transposed solve): the matvec's tangent in ``a``, with
    JAX's HIGHEST-precision dot."""
    nb = da.ndim - 2
    batch = tuple(range(nb))
    contract = nb if transpose else nb + 1
    return dot_general(da, x, (((contract,), (nb,)), (batch, batch)),
                       precision=Precision.HIGHEST)


def _jvp(primals, tangents, *, transpose):
    a, lu, perm, b = primals
    da, _, _, db = tangents  # the factors' tangents are ignored, as JAX's solve consts
    x = lu_linear_solve_p.bind(a, lu, perm, b, transpose=transpose)
    if type(da) is ad.Zero and type(db) is ad.Zero:
        return x, ad.Zero.from_primal_value(x)
    if type(da) is ad.Zero:
        rhs = db
    else:
        mt = _matvec_tangent(da, x, transpose)
        rhs = neg(mt) if type(db) is ad.Zero else sub(db, mt)
    return x, lu_linear_solve_p.bind(a, lu, perm, rhs, transpose=transpose)


def _transpose(ct, a, lu, perm, b, *, transpose):
    if ad.is_undefined_primal(a) or ad.is_undefined_primal(lu):
        raise ValueError("lu_linear_solve is linear in b only; a and its factors must be known")
    if type(ct) is ad.Zero:
        return [None, None, None, ad.Zero(b.aval)]
    return [None, None, None, lu_linear_solve_p.bind(a, lu, perm, ct, transpose=not transpose)]


def _batching(args, dims, *, transpose):
    a, lu, perm, b = args
    if all(d is batching.not_mapped for d in dims[:3]):
        # as JAX's triangular_solve batching: the batch joins b's columns
        return batching.fold_batch(
            lambda b: lu_linear_solve_p.bind(a, lu, perm, b, transpose=transpose),
            b, dims[3], b.ndim - 1)
    size = batching.axis_size(args, dims)
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    return lu_linear_solve_p.bind(*args, transpose=transpose), 0


lu_linear_solve_p = Primitive("lu_linear_solve")
lu_linear_solve_p.def_abstract_eval(_abstract)
lu_linear_solve_p.def_lowering(_lowering)
lu_linear_solve_p.def_batching(_batching)
ad.primitive_jvps[lu_linear_solve_p] = _jvp
ad.primitive_transposes[lu_linear_solve_p] = _transpose


def lu_linear_solve(a, lu, perm, b, *, transpose=False):
    """``a^-1 b`` (``a^-T b`` when ``transpose``) for ``b`` (..., n, k), given ``P a = L U``
    packed in ``lu`` with the row permutation ``perm``; batch dimensions must match."""
    _check_memory_spaces(get_aval(a), get_aval(b))
    return lu_linear_solve_p.bind(a, lu, perm, b, transpose=bool(transpose))


def _check_memory_spaces(a, b):
    """JAX's errors for operands outside device memory. Its ``custom_linear_solve`` first
    traces the matvec, a ``dot_general`` of one matrix of ``a`` with one column of ``b`` (its
    solve is vmapped over the batch and b's columns), so ``a`` and ``b`` in different memories
    are that dot's error; both in host memory, its ``lu_solve`` then gathers a column (as
    (n, 1)) with the permutation's device indices."""
    n = a.shape[-1]
    check_memory_spaces("dot_general", [a.update(shape=a.shape[-2:]),
                                        b.update(shape=b.shape[-2:-1])])
    if b.memory_space is not MemorySpace.Device:
        check_memory_spaces("gather", [b.update(shape=(n, 1)),
                                       ShapedArray((n, 1), np.dtype(np.int32))])
