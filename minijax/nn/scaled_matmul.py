"""``nn.scaled_matmul``: the block-scaled batched matmul ``(B, M, K) x (B, N, K) -> (B, M, N)``
of JAX 0.10.2, each operand multiplied by its scales repeated over blocks of ``K``; and
``nn.scaled_dot_general``, a ``dot_general`` whose operands are quantized to a block-scaled
format (``nn.get_scaled_dot_general_config``: mxfp8 or nvfp4) and multiplied so, with the
gradients quantized too (JAX's custom_vjp, step for step, so the values are JAX's).

As in JAX it is one primitive that only a CUDA GPU lowers: to XLA's ``__op$block_scaled_dot``
custom call (which XLA runs on cuDNN's block-scaled kernels where the GPU has them, else
dequantizes and contracts in ``preferred_element_type``); compiling it for the CPU is refused
with JAX's error. It batches (vmap folds the batch axis into ``B``) and has no derivative.
"""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.core import Primitive, ShapedArray
from minijax.custom_derivatives import custom_vjp
from minijax.interpreters import batching
from minijax.lax.linalg_ffi import platform_of
from minijax.lowering.stablehlo import tensor_type

__all__ = ["get_scaled_dot_general_config", "scaled_dot_general", "scaled_matmul"]


def _abstract(a, b, a_scales, b_scales, *, preferred_element_type):
    return ShapedArray((a.shape[0], a.shape[1], b.shape[1]), preferred_element_type)


# XLA's names of the dequantization type (JAX's table: only these output dtypes lower)
_DEQUANTIZE_TYPE = {np.dtype(dtypes.bfloat16): "BF16", np.dtype(np.float16): "F16",
                    np.dtype(np.float32): "F32"}


def _lowering(ctx, a, b, a_scales, b_scales, *, preferred_element_type):
    if platform_of(ctx) != "gpu":
        # JAX 0.10.2 refuses it too, in these words (its rule is registered for cuda and rocm)
        raise NotImplementedError(
            "MLIR translation rule for primitive 'scaled_matmul' not found for platform "
            f"{ctx.module_ctx.platform}")
    config = {"scaled_dot_backend_config": {
        "lhs_batch_dimensions": [0], "rhs_batch_dimensions": [0],
        "dequantize_type": _DEQUANTIZE_TYPE[np.dtype(preferred_element_type)]}}

    def row_major(ndim):
        return ir.DenseIntElementsAttr.get(np.arange(ndim - 1, -1, -1, dtype=np.int64),
                                           type=ir.IndexType.get())

    (out,) = ctx.avals_out
    return hlo.CustomCallOp(
        [tensor_type(out)], [a, b, a_scales, b_scales], "__op$block_scaled_dot",
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 2),
        backend_config=ir.StringAttr.get(json.dumps(config)),
        operand_layouts=ir.ArrayAttr.get([row_major(3)] * 4),
        result_layouts=ir.ArrayAttr.get([row_major(3)])).result


def _batching(args, dims, *, preferred_element_type):
    """The vmapped axis (at the front) folded into each operand's batch dimension ``B``."""
    size = batching.axis_size(args, dims)
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    folded = [jnp.reshape(x, (-1, *x.shape[2:])) for x in args]
    out = scaled_matmul_p.bind(*folded, preferred_element_type=preferred_element_type)
    return jnp.reshape(out, (size, -1, *out.shape[1:])), 0


# JAX's jaxprs name it scaled_matmul_wrapper (the primitive its CUDA rule expands)
scaled_matmul_p = Primitive("scaled_matmul_wrapper")
scaled_matmul_p.def_abstract_eval(_abstract)
scaled_matmul_p.def_lowering(_lowering)
scaled_matmul_p.def_batching(_batching)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """``einsum('BMK,BNK->BMN', lhs * repeat(lhs_scales), rhs * repeat(rhs_scales))``, each
    scale repeated over a block of ``K // K_scales`` elements (JAX's checks and words)."""
    a, b, a_scales, b_scales = lhs, rhs, lhs_scales, rhs_scales
    if not all(x.ndim == 3 for x in (a, b, a_scales, b_scales)):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    (B_a, M, K_a), (B_b, N, K_b) = a.shape, b.shape
    if K_a != K_b or B_a != B_b:
        raise ValueError(
            "scaled_matmul requires inputs a and b to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {a.shape} and {b.shape}")
    (B_as, M_s, K_as), (B_bs, N_s, K_bs) = a_scales.shape, b_scales.shape
    if K_as != K_bs or B_as != B_bs:
        raise ValueError(
            "scaled_matmul requires scales to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {a_scales.shape} and {b_scales.shape}")
    if M_s != M or N_s != N:
        raise ValueError(
            "scaled_matmul requires scales to match non-contract dimensions of inputs, but got "
            f"shapes a: {a.shape}, b: {b.shape}, a_scales: {a_scales.shape}, b_scales: "
            f"{b_scales.shape}")
    dtype = dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
    return scaled_matmul_p.bind(a, b, a_scales, b_scales, preferred_element_type=dtype)


# ------------------------------------------------------------------------------------------------
# scaled_dot_general


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
    """How an operand is quantized: ``block_size`` elements of ``data_type`` share one scale
    of ``scale_type`` (nvfp4 divides by ``global_scale`` first)."""
    mode: str
    block_size: int
    data_type: object
    scale_type: object
    global_scale: object
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None):
    """The quantization config of ``mode`` ('mxfp8' or 'nvfp4') for ``scaled_dot_general``
    (its formats as scalar types, as JAX's)."""
    if mode == "nvfp4":
        return BlockScaleConfig(
            mode="nvfp4", block_size=16, data_type=dtypes.float4_e2m1fn.type,
            scale_type=dtypes.float8_e4m3fn.type, infer_only=False,
            global_scale=jnp.ones((1,), np.float32) if global_scale is None else global_scale)
    if mode == "mxfp8":
        return BlockScaleConfig(
            mode="mxfp8", block_size=32, data_type=dtypes.float8_e4m3fn.type,
            scale_type=dtypes.float8_e8m0fnu.type, global_scale=None, infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


def _to_3d(x, contracting, batch):
    """``x`` transposed to (batch, kept, contracting) dims and reshaped to ``(B, M, K)``."""
    kept = [d for d in range(x.ndim) if d not in contracting and d not in batch]
    batch = [d for d in range(x.ndim) if d in batch]
    contracting = [d for d in range(x.ndim) if d in contracting]
    # JAX's sizes: np.prod, so no kept dims is a float 1.0, which reshape refuses (TypeError)
    shape = (np.prod([x.shape[d] for d in batch], dtype=int),
             np.prod([x.shape[d] for d in kept]), np.prod([x.shape[d] for d in contracting]))
    return jnp.reshape(jnp.transpose(x, batch + kept + contracting), shape)


def _dot_shape(lhs_shape, rhs_shape, lhs_dn, rhs_dn):
    """dot_general's output shape: batch dims, then lhs's kept, then rhs's kept."""
    (lc, lb), (rc, rb) = lhs_dn, rhs_dn
    return (*(n for i, n in enumerate(lhs_shape) if i in lb),
            *(n for i, n in enumerate(lhs_shape) if i not in lc and i not in lb),
            *(n for i, n in enumerate(rhs_shape) if i not in rc and i not in rb))


def _e8m0_rounding_up(x):
    """The float32 ``x`` as float8_e8m0fnu bits (uint8): its exponent, rounded up unless the
    mantissa is zero (or x is subnormal at most half the smallest normal)."""
    bits = x.astype(np.float32).view(np.uint32)
    exp, mant = bits >> 23, bits & 0x7FFFFF
    round_up = (mant > 0) & (exp != 0xFE) & ~((exp == 0) & (mant <= 0x400000))
    return jnp.where(round_up, exp + 1, exp).astype(np.uint8)


def _e8m0_to(x, dtype):
    """float8_e8m0fnu bits (uint8) as ``dtype``: 2**(x - 127), a zero one replaced by the
    smallest step JAX uses (2**-15 for float16, else 2**-127)."""
    value = (x.astype(np.uint32) << 23).view(np.float32)
    tiny = 2.0 ** -15 if dtype == np.float16 else 2.0 ** -127
    return jnp.where(value == 0, jnp.array(tiny, np.float32), value).astype(dtype)


def _max_of(dtype, like):
    return np.asarray(dtypes.finfo(dtype).max).astype(like)


def _quantize(x, config):
    """(x in ``config.data_type``, one ``config.scale_type`` scale per block of its last
    axis), the block's scale being its largest magnitude over the format's largest value."""
    shape = x.shape
    block = config.block_size
    assert shape[-1] >= block and shape[-1] % block == 0  # JAX's check, an AssertionError too
    x = x.reshape(shape[:-1] + (shape[-1] // block, block))
    top = _max_of(config.data_type, x.dtype)

    def block_scales(v):
        return jnp.max(jnp.abs(v), axis=-1, keepdims=True) / top

    if config.mode == "mxfp8":
        assert config.global_scale is None
        assert config.scale_type == dtypes.float8_e8m0fnu
        scales = _e8m0_rounding_up(block_scales(x))
        scaled = x / _e8m0_to(scales, x.dtype)
    elif config.mode == "nvfp4":
        assert config.scale_type == dtypes.float8_e4m3fn
        assert config.global_scale.dtype == np.float32
        x = x / config.global_scale
        scales = jnp.clip(block_scales(x), 0, _max_of(config.scale_type, x.dtype))
        scales = lax.optimization_barrier(scales.astype(config.scale_type))
        scaled = x / scales.astype(np.float32)
    else:
        raise ValueError(f"Unrecognized mode: {config.mode}.")
    quantized = jnp.clip(scaled, -top, top).astype(config.data_type).reshape(shape)
    return quantized, jnp.reshape(scales, scales.shape[:-1]).view(config.scale_type)


def _scaled_matmul_3d(a, b, a_scales, b_scales, preferred_element_type):
    """JAX's scaled_matmul_wrapper: no checks beyond equal K."""
    assert a.shape[2] == b.shape[2]
    dtype = dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
    return scaled_matmul_p.bind(a, b, a_scales, b_scales, preferred_element_type=dtype)


def _forward(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    if preferred_element_type is None:
        preferred_element_type = dtypes.result_type(lhs, rhs)
    else:
        preferred_element_type = dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_q, lhs_scales = _quantize(_to_3d(lhs, lc, lb), configs[0])
    rhs_q, rhs_scales = _quantize(_to_3d(rhs, rc, rb), configs[1])
    nvfp4 = configs[0].mode == "nvfp4"
    out = _scaled_matmul_3d(lhs_q, rhs_q, lhs_scales, rhs_scales,
                            np.float32 if nvfp4 else preferred_element_type)
    if nvfp4:  # the global scales come back in float32, then the requested type
        out = (out * (configs[0].global_scale * configs[1].global_scale)).astype(
            preferred_element_type)
    return jnp.reshape(out, _dot_shape(lhs.shape, rhs.shape, (lc, lb), (rc, rb)))


def _grad_lhs(g, x, y, dimension_numbers, preferred_element_type, configs, swap_ans=False):
    """The cotangent of ``x`` in ``dot_general(x, y)`` (or of ``y`` in ``dot_general(y, x)``
    with ``swap_ans``): ``g`` contracted with ``y`` over y's kept dims, quantized (nvfp4:
    in full precision), then transposed back to x's axis order."""
    (xc, yc), (xb, yb) = dimension_numbers
    x_kept = [d for d in range(x.ndim) if d not in xc and d not in xb]
    y_kept = [d for d in range(y.ndim) if d not in yc and d not in yb]
    nb = len(xb)
    ans_batch = tuple(range(nb))
    if swap_ans:
        ans_y = tuple(range(nb, nb + len(y_kept)))
    else:
        ans_y = tuple(range(nb + len(x_kept), nb + len(x_kept) + len(y_kept)))
    xc_by_y = list(np.take(xc, np.argsort(yc)))
    out_axes = np.argsort(list(xb) + x_kept + xc_by_y)
    y_dn, g_dn = (y_kept, yb), (ans_y, ans_batch)
    y_3d, g_3d = _to_3d(y, *y_dn), _to_3d(g, *g_dn)
    if configs[0].mode != "nvfp4":
        g_q, g_scales = _quantize(g_3d, configs[0])
        y_q, y_scales = _quantize(y_3d, configs[1])
        out = _scaled_matmul_3d(g_q, y_q, g_scales, y_scales, preferred_element_type)
    else:
        out = jnp.matmul(g_3d, jnp.permute_dims(y_3d, (0, 2, 1)),
                         preferred_element_type=preferred_element_type)
    out = jnp.reshape(out, _dot_shape(g.shape, y.shape, g_dn, y_dn))
    return lax.transpose(out, tuple(int(a) for a in out_axes))


def _scaled_dot_fwd(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    return _forward(lhs, rhs, dimension_numbers, preferred_element_type, configs), (lhs, rhs)


def _scaled_dot_bwd(dimension_numbers, preferred_element_type, configs, res, g):
    lhs, rhs = res
    (lc, rc), (lb, rb) = dimension_numbers
    grad_lhs = _grad_lhs(g, lhs, rhs, dimension_numbers, preferred_element_type,
                         [configs[2], configs[1]])
    grad_rhs = _grad_lhs(g, rhs, lhs, ((rc, lc), (rb, lb)), preferred_element_type,
                         [configs[2], configs[0]], swap_ans=True)
    if configs[2].mode == "nvfp4":
        # JAX's straight-through estimator: an element clipped by the forward quantization
        # gets no gradient
        assert rhs.dtype == lhs.dtype
        limit = (_max_of(configs[0].data_type, lhs.dtype)
                 * _max_of(configs[0].scale_type, lhs.dtype))
        grad_lhs = jnp.where(jnp.abs(lhs) <= configs[0].global_scale * limit, grad_lhs, 0)
        grad_rhs = jnp.where(jnp.abs(rhs) <= configs[1].global_scale * limit, grad_rhs, 0)
    return grad_lhs, grad_rhs


_scaled_dot = custom_vjp(_forward, nondiff_argnums=(2, 3, 4))
_scaled_dot.defvjp(_scaled_dot_fwd, _scaled_dot_bwd)

_OUT_TYPES = (np.dtype(np.float32), np.dtype(dtypes.bfloat16), np.dtype(np.float16))


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """``lax.dot_general`` of the operands quantized by ``configs`` (lhs, rhs and the
    gradient's; plain ``dot_general`` when None), multiplied with ``scaled_matmul``."""
    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning)
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers,
                               preferred_element_type=preferred_element_type)
    if preferred_element_type not in _OUT_TYPES:
        # JAX's message, its placeholder unfilled
        raise TypeError("Only support preferred_element_type in (f32, bf16, f16), but got "
                        "{preferred_element_type}")
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = tuple(lc), tuple(rc), tuple(lb), tuple(rb)
    # an operand without batch dims gets a trailing one of size 1 (squeezed from the output)
    unbatched = lb == () or rb == ()
    if lb == ():
        lhs, lb = jnp.expand_dims(lhs, lhs.ndim), (lhs.ndim,)
    if rb == ():
        rhs, rb = jnp.expand_dims(rhs, rhs.ndim), (rhs.ndim,)
    out = _scaled_dot(lhs, rhs, ((lc, rc), (lb, rb)), preferred_element_type, configs)
    return jnp.squeeze(out, axis=0) if unbatched else out
