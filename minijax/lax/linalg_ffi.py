"""Emitting the LAPACK (CPU) and cuSOLVER (GPU) custom calls that ``minijax.lax.linalg`` lowers to.

jaxlib ships the kernels as typed-FFI handlers (``lapack_spotrf_ffi``, ``cusolver_potrf_ffi``
...); ``minijax.lowering.backends`` registers them with the clients. Here we only build the
``stablehlo.custom_call`` ops, the way JAX's ``jax/_src/lax/linalg.py`` does:

- the matrices are column-major (layout ``(r-2, r-1, r-3, ..., 0)``, leading axes batch), other
  operands/results row-major; the kernels loop over the batch dimensions themselves;
- attributes go in an ``mhlo.backend_config`` dictionary (``api_version=1`` with a DictAttr is
  XLA's typed FFI); LAPACK takes characters as u8 (``uplo='L'``), cuSOLVER takes booleans;
- kernels report failure per matrix in an ``info`` i32 result; JAX returns NaNs for those
  matrices instead of raising (there is no raising inside a compiled program), and so do we.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import ShapedArray
from minijax.lowering.stablehlo import dense_i64, full_like_aval, ir_constant, tensor_type

LAPACK_DTYPES = {np.dtype(t): c for t, c in
                 ((np.float32, "s"), (np.float64, "d"), (np.complex64, "c"), (np.complex128, "z"))}
INFO = np.dtype(np.int32)


def check_kernel_dtype(dtype):
    """The kernels take float32/64 and complex64/128 only. As JAX (jaxlib's
    ``build_lapack_fn_target``) the refusal of float16/bfloat16 comes at lowering, not
    tracing: an unused factorization inside jit is dropped before it, and raises nothing."""
    dtype = np.dtype(dtype)
    if dtype not in LAPACK_DTYPES:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(KeyError(dtype.type), f"Unsupported dtype {dtype}.")


def lapack_target(base, dtype):
    """``lapack_spotrf_ffi`` for ``base="potrf"`` and float32 (jaxlib 0.10.2 and 0.11.2 alike)."""
    check_kernel_dtype(dtype)
    return f"lapack_{LAPACK_DTYPES[np.dtype(dtype)]}{base}_ffi"


def is_complex(dtype):
    return np.dtype(dtype).kind == "c"


def platform_of(ctx):
    """'cpu' or 'gpu': which library's kernels this module is being compiled for."""
    return "gpu" if ctx.module_ctx.platform in ("gpu", "cuda") else "cpu"


def _layout(ndim, column_major):
    if column_major and ndim >= 2:
        dims = (ndim - 2, ndim - 1, *range(ndim - 3, -1, -1))
    else:
        dims = tuple(range(ndim - 1, -1, -1))
    return ir.DenseIntElementsAttr.get(np.asarray(dims, np.int64), type=ir.IndexType.get())


def _attr(value):
    if isinstance(value, ir.Attribute):
        return value
    if isinstance(value, (bool, np.bool_)):
        return ir.BoolAttr.get(bool(value))
    if isinstance(value, np.uint8):
        return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), int(value))
    if isinstance(value, (np.int32, int)):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value))
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    raise TypeError(f"no FFI attribute for {value!r}")


def char(c):
    """A LAPACK character option, as the FFI handlers take it (u8)."""
    return np.uint8(ord(c))


def ffi_call(target, operands, avals_in, avals_out, attrs=None, aliases=None,
             column_major=True, num_non_batch_dims=2):
    """One typed-FFI custom call; returns its results. Operands and results of the largest rank
    are the (batched) matrices and get the column-major layout; ``aliases`` maps an operand
    index to the result that reuses its buffer (LAPACK factorizes in place)."""
    for aval in avals_in:  # cuSOLVER's targets are named without a dtype: check here too
        if dtypes.issubdtype(aval.dtype, np.inexact):
            check_kernel_dtype(aval.dtype)
    max_rank = max(a.ndim for a in avals_in)
    lay = lambda a: _layout(a.ndim, column_major and a.ndim == max_rank)
    # A single result is not a tuple: its alias names no tuple index.
    alias_attrs = [hlo.OutputOperandAlias.get([out] if len(avals_out) > 1 else [], inp, [])
                   for inp, out in (aliases or {}).items()]
    op = hlo.CustomCallOp(
        [tensor_type(a) for a in avals_out], list(operands), target,
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        backend_config=ir.StringAttr.get(""),
        operand_layouts=ir.ArrayAttr.get([lay(a) for a in avals_in]),
        result_layouts=ir.ArrayAttr.get([lay(a) for a in avals_out]),
        output_operand_aliases=ir.ArrayAttr.get(alias_attrs),
    )
    op.attributes["mhlo.backend_config"] = ir.DictAttr.get(
        {k: _attr(v) for k, v in (attrs or {}).items()})
    # Tells XLA's SPMD partitioner and Shardy that the leading axes are independent problems
    # (as JAX): without the rule Shardy propagates no sharding through the call.
    num_batch = max_rank - num_non_batch_dims
    op.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(num_batch))})
    op.attributes["sdy.sharding_rule"] = _batch_sharding_rule(num_batch, avals_in, avals_out)
    return list(op.results)


def _batch_sharding_rule(num_batch, avals_in, avals_out):
    """JAX's ``_build_sdy_sharding_rule``: the leading ``num_batch`` axes of every operand and
    result are one factor each, shared by all; every other axis is a factor of its own."""
    sizes = []

    def factor(size):
        sizes.append(int(size))
        return len(sizes) - 1

    batch = []

    def mapping(aval):
        dims = []
        nb = num_batch if num_batch and aval.ndim >= num_batch else 0
        for j, size in enumerate(aval.shape):
            if j < nb:
                if j == len(batch):
                    batch.append(factor(size))
                index = batch[j]
            else:
                index = factor(size)
            dims.append(sdy.DimMappingAttr.get(factor_indices=[index]))
        return sdy.TensorMappingAttr.get(dim_mappings=dims)

    operands = [mapping(a) for a in avals_in]
    results = [mapping(a) for a in avals_out]
    return sdy.OpShardingRuleAttr.get(factor_sizes=sizes, operand_mappings=operands,
                                      result_mappings=results, is_custom=True)


# ------------------------------------------------------------------------------------------------
# Small HLO helpers for the lowerings


def info_ok(info, batch, direction="EQ"):
    """``info == 0`` (or ``>= 0``) as a bool tensor of the batch shape."""
    zero = full_like_aval(0, ShapedArray(batch, INFO))
    return hlo.compare(info, zero, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))


def nan_where_not_ok(ok, x, aval):
    """``x`` with every matrix (vector) of a failed batch entry replaced by NaNs."""
    batch = ok.type.shape
    pred = hlo.broadcast_in_dim(ir.RankedTensorType.get(aval.shape, ir.IntegerType.get_signless(1)),
                                ok, dense_i64(range(len(batch))))
    nan = np.nan + 1j * np.nan if is_complex(aval.dtype) else np.nan
    return hlo.select(pred, x, full_like_aval(nan, aval))


def triangle_mask(shape, lower, k=0):
    """A bool tensor of ``shape`` (..., m, n): True on the kept triangle (offset ``k``)."""
    i32 = ShapedArray(shape, INFO)
    rows = hlo.iota(tensor_type(i32), ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                         len(shape) - 2))
    cols = hlo.iota(tensor_type(i32), ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                         len(shape) - 1))
    # lower: col - row <= k; upper: col - row >= k
    diff = hlo.subtract(cols, rows)
    direction = "LE" if lower else "GE"
    return hlo.compare(diff, full_like_aval(k, i32), hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))


def keep_triangle(x, aval, lower, k=0):
    return hlo.select(triangle_mask(aval.shape, lower, k), x, full_like_aval(0, aval))


def slice_last2(x, aval, rows, cols):
    """``x[..., :rows, :cols]``."""
    limit = (*aval.shape[:-2], rows, cols)
    out = aval.update(shape=limit)
    starts, strides = dense_i64([0] * aval.ndim), dense_i64([1] * aval.ndim)
    return hlo.slice(x, starts, dense_i64(limit), strides), out


def pad_cols(x, aval, cols):
    """``x`` with zero columns appended up to ``cols`` columns."""
    zero = ir_constant(np.zeros((), aval.dtype))
    hi = [0] * (aval.ndim - 1) + [cols - aval.shape[-1]]
    out = aval.update(shape=(*aval.shape[:-1], cols))
    x = hlo.pad(x, zero, dense_i64([0] * aval.ndim), dense_i64(hi), dense_i64([0] * aval.ndim))
    return x, out


# ------------------------------------------------------------------------------------------------
# LU pivots (row swaps, applied in order) -> a permutation


def _cmp(a, b, direction):
    return hlo.compare(a, b, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))


def pivots_to_permutation(pivots, batch, k, m):
    """``perm`` (batch..., m) i32 from 0-based ``pivots`` (batch..., k): start from the identity
    and swap ``perm[i]`` with ``perm[pivots[i]]`` for i = 0..k-1. Swaps are sequential, so this
    is one ``stablehlo.while`` over (batch entry, i) pairs with scalar dynamic slices: O(k) work
    per matrix, whatever k is (no unrolling, so compile time does not grow with n).

    A pivot out of [0, m) (only a user's, never LAPACK's) acts as in JAX's loop, which indexes
    ``perm[j]`` and sets ``perm.at[j]``: a negative j counts from the end, the read clamps and
    the write is dropped."""
    nb = int(np.prod(batch, dtype=np.int64)) if batch else 1
    flat_piv_aval = ShapedArray((nb, k), INFO)
    flat_perm_aval = ShapedArray((nb, m), INFO)
    piv = hlo.reshape(tensor_type(flat_piv_aval), pivots)
    perm0 = hlo.iota(tensor_type(flat_perm_aval),
                     ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1))
    if nb * k == 0:  # no swaps; the loop's size-1 slices would not fit an empty operand
        return hlo.reshape(tensor_type(ShapedArray((*batch, m), INFO)), perm0)
    scalar_t = tensor_type(ShapedArray((), INFO))
    t0 = ir_constant(np.int32(0))
    loop = hlo.WhileOp([scalar_t, tensor_type(flat_perm_aval), tensor_type(flat_piv_aval)],
                       [t0, perm0, piv])
    cond = loop.regions[0].blocks.append(scalar_t, tensor_type(flat_perm_aval),
                                         tensor_type(flat_piv_aval))
    with ir.InsertionPoint(cond):
        hlo.return_([_cmp(cond.arguments[0], ir_constant(np.int32(nb * k)), "LT")])
    body = loop.regions[1].blocks.append(scalar_t, tensor_type(flat_perm_aval),
                                         tensor_type(flat_piv_aval))
    with ir.InsertionPoint(body):
        t, perm, pv = body.arguments
        kk = ir_constant(np.int32(k))
        b, i = hlo.divide(t, kk), hlo.remainder(t, kk)
        one_by_one = dense_i64([1, 1])
        p = hlo.reshape(scalar_t, hlo.dynamic_slice(pv, [b, i], one_by_one))
        zero, mm = ir_constant(np.int32(0)), ir_constant(np.int32(m))
        p = hlo.select(_cmp(p, zero, "LT"), hlo.add(p, mm), p)
        in_range = hlo.and_(_cmp(p, zero, "GE"), _cmp(p, mm, "LT"))
        x = hlo.dynamic_slice(perm, [b, i], one_by_one)
        y = hlo.dynamic_slice(perm, [b, p], one_by_one)  # the start index clamps
        perm = hlo.dynamic_update_slice(perm, y, [b, i])
        # out of range, write back what the (clamped) slot holds: the update is dropped
        kept = hlo.dynamic_slice(perm, [b, p], one_by_one)
        x = hlo.reshape(x.type, hlo.select(in_range, hlo.reshape(scalar_t, x),
                                           hlo.reshape(scalar_t, kept)))
        perm = hlo.dynamic_update_slice(perm, x, [b, p])
        hlo.return_([hlo.add(t, ir_constant(np.int32(1))), perm, pv])
    return hlo.reshape(tensor_type(ShapedArray((*batch, m), INFO)), loop.results[1])
