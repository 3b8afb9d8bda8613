"""cuDNN fused (flash) attention: XLA's ``__cudnn$fmha*`` custom calls, as JAX emits them.

Two primitives carry every rule:

- ``cudnn_fmha_fwd``: operands ``q, k, v[, bias][, q_seqlen, kv_seqlen]`` (BTNH / BSKH, bias
  4-D with the query heads, seq lengths when the mask type pads); results the output (BTNH)
  and, when ``is_training``, the softmax statistics (B, N, T) in float32 that the backward
  kernel needs;
- ``cudnn_fmha_bwd``: the forward's operands, then ``stats, out, d_out``; results ``dq, dk,
  dv[, dbias]``.

``fused_attention`` wraps them in a ``custom_vjp`` (as JAX does): the primal call runs the
inference kernel, reverse mode the training kernel then the backward one. Forward mode is
refused, as in JAX. Under ``vmap`` the rules fold the mapped axes into the batch axis.

The custom-call contract (read from XLA's cuDNN rewriter and JAX's
``jax/_src/cudnn/fused_attention_stablehlo.py``): ``api_version`` 2, a JSON ``backend_config``
holding ``cudnn_fmha_backend_config`` (scale, mask type, the two (or four, backward) GEMMs'
dot dimension numbers over the BTNH operands, the (B, N, T, S) intermediate shape, dropout and
seed, sliding window), row-major operands, and results in BNTH shape whose layout makes them
BTNH in memory, transposed back to BTNH logically; a last u8[0] workspace result is dropped.
"""

from __future__ import annotations

import functools
import importlib
import json
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import numpy as jnp
from minijax.core import Primitive, ShapedArray
from minijax.custom_derivatives import custom_vjp
from minijax.interpreters import batching
from minijax.lax.linalg_ffi import platform_of
from minijax.lowering import backends
from minijax.lowering.stablehlo import dense_i64, tensor_type
from minijax.transforms import fuse_attention

__all__ = ["fused_attention", "gpu_capability", "MASK_TYPES"]

MASK_TYPES = ("NO_MASK", "PADDING", "CAUSAL", "PADDING_CAUSAL")
_PADDED = ("PADDING", "PADDING_CAUSAL")
_DTYPES = {np.dtype(jnp.bfloat16): "BF16", np.dtype(np.float16): "F16"}
# A masked logit becomes this additive bias; cuDNN mishandles the difference of two larger
# negatives, hence not -inf nor finfo.min (JAX's values).
_MASKED_BIAS = {np.dtype(jnp.bfloat16): -2.0 ** 41, np.dtype(np.float16): -2.0 ** 15}


class CudnnAttentionUnsupported(ValueError, NotImplementedError):
    """A shape, dtype or device the cuDNN kernel cannot take. JAX raises NotImplementedError
    (RuntimeError when no cuDNN is found) for these; this is both, and a ValueError."""


class _Config(NamedTuple):
    scale: float
    mask_type: str
    sliding_window: int  # 0: none; else keys s with t - window < s (cuDNN's convention)


# ------------------------------------------------------------------------------------------------
# The device


def gpu_capability():
    """``(compute capability, cuDNN version)`` of the default backend's first GPU, e.g.
    ``((9, 0), 91900)``; raises ``CudnnAttentionUnsupported`` when that backend is not CUDA."""
    backend = backends.get_backend()
    if backend.platform != "gpu":
        raise CudnnAttentionUnsupported(
            f"cuDNN is not detected: implementation='cudnn' needs a CUDA GPU, and the default "
            f"backend is {backend.platform!r}")
    device = backend.devices()[0]
    capability = tuple(int(x) for x in device.compute_capability.split("."))
    _, cuda_major = backends._find_cuda_plugin()
    versions = importlib.import_module(f"jax_cuda{cuda_major}_plugin._versions")
    return capability, int(versions.cudnn_get_version())


# ------------------------------------------------------------------------------------------------
# Checks (JAX's, in JAX's order; messages as JAX's where it has one)


def _check_layout(query, key, value, bias):
    if query.dtype not in _DTYPES:
        raise CudnnAttentionUnsupported(
            f"Q must be fp16/bf16/fp8_e4m3fn/fp8_e5m2, got {query.dtype} (minijax's cuDNN "
            "attention takes float16 and bfloat16)")
    if not query.dtype == key.dtype == value.dtype:
        raise ValueError(f"QKV dtype must be same, got {query.dtype}, {key.dtype}, "
                         f"{value.dtype}")
    qB, qT, _, qH = query.shape
    kB, kS, kN, kH = key.shape
    vB, vS, vN, _ = value.shape
    if not qB == kB == vB:
        raise ValueError(f"QKV batch must be same, got {qB}, {kB}, {vB}")
    if qH != kH:
        raise ValueError(f"QK must have same head dim, got {qH} vs {kH}")
    if kN != vN:
        raise ValueError(f"KV must have same number of heads, got {kN} vs {vN}")
    if kS != vS:
        raise ValueError(f"KV must have same seq length, got {kS} vs {vS}")
    if bias is not None:
        _, _, bT, bS = bias.shape
        if bT != qT or bS != vS:
            raise ValueError(f"Bias must have same seq length as QKV, got {bT} and {bS}")
        bB, bN = bias.shape[:2]
        if bB not in (1, qB) or bN not in (1, query.shape[2]):
            raise ValueError(f"Bias batch and head axes must be 1 or those of the query "
                             f"({qB}, {query.shape[2]}), got {bias.shape}")
        if bias.dtype != query.dtype:
            raise ValueError(f"Bias must have the dtype of QKV ({query.dtype}), got "
                             f"{bias.dtype}")


def _check_flash(query, capability, cudnn_version):
    qH = query.shape[-1]
    if capability < (8, 0):
        raise CudnnAttentionUnsupported(
            f"cuDNN flash attention needs a GPU of compute capability 8.0 or newer, got "
            f"{'.'.join(map(str, capability))}")
    if capability == (10, 3) and cudnn_version < 91100:
        raise CudnnAttentionUnsupported(
            "Compute capability 10.3 requires cuDNN version >= 9.11.")
    h_max = 256 if capability >= (9, 0) else 128
    if not (qH <= h_max and qH % 8 == 0):
        raise CudnnAttentionUnsupported(
            f"The head dim must be <= {h_max} and a multiple of 8, but got {qH}.")


# ------------------------------------------------------------------------------------------------
# The primitives


def _operand_roles(has_bias, mask_type):
    roles = ["q", "k", "v"]
    if has_bias:
        roles.append("bias")
    if mask_type in _PADDED:
        roles += ["q_seqlen", "kv_seqlen"]
    return roles


def _fwd_abstract(q, k, v, *rest, scale, mask_type, sliding_window, has_bias, is_training):
    B, T, N, _ = q.shape
    out = ShapedArray((B, T, N, v.shape[-1]), q.dtype)
    if not is_training:
        return [out]
    return [out, ShapedArray((B, N, T), np.dtype(np.float32))]


def _bwd_abstract(q, k, v, stats, d_out, *rest, scale, mask_type, sliding_window, has_bias):
    outs = [ShapedArray(a.shape, a.dtype) for a in (q, k, v)]
    if has_bias:
        outs.append(ShapedArray(rest[0].shape, rest[0].dtype))
    return outs


def _minor_to_major(dims):
    return ir.DenseIntElementsAttr.get(np.asarray(dims, np.int64), type=ir.IndexType.get())


def _row_major(ndim):
    return _minor_to_major(range(ndim - 1, -1, -1))


_BTNH_IN_MEMORY = (3, 1, 2, 0)  # the layout of a (B, N, T, H) result stored as BTNH
_TO_BTNH = (0, 2, 1, 3)


def _dot_dims(lhs_contracting, rhs_contracting, lhs_batch, rhs_batch):
    return {"lhs_contracting_dimensions": [str(lhs_contracting)],
            "rhs_contracting_dimensions": [str(rhs_contracting)],
            "lhs_batch_dimensions": [str(d) for d in lhs_batch],
            "rhs_batch_dimensions": [str(d) for d in rhs_batch]}


def _backend_config(q_aval, k_aval, cfg, is_bwd):
    """XLA's ``CudnnfMHABackendConfig`` as JSON, for BTNH query and BSKH key/value."""
    B, T, N, _ = q_aval.shape
    S = k_aval.shape[1]
    fmha = {
        "algorithm": {"algo_id": "0", "math_type": "TENSOR_OP_MATH",
                      "tuning_knobs": {"17": "1", "24": "0"}, "is_cudnn_frontend": True,
                      "workspace_size": "0"},
        "fmha_scale": cfg.scale,
        "intermediate_tensor_shape": {
            "element_type": _DTYPES[np.dtype(q_aval.dtype)],
            "dimensions": [str(B), str(N), str(T), str(S)],
            "tuple_shapes": [],
            "layout": {"dim_level_types": [], "dim_unique": [], "dim_ordered": [],
                       "minor_to_major": ["3", "2", "1", "0"], "tiles": [],
                       "element_size_in_bits": "0", "memory_space": "0",
                       "index_primitive_type": "PRIMITIVE_TYPE_INVALID",
                       "pointer_primitive_type": "PRIMITIVE_TYPE_INVALID",
                       "dynamic_shape_metadata_prefix_bytes": "0"},
            "is_dynamic_dimension": [False] * 4,
        },
        "is_flash_attention": True,
        "mask_type": cfg.mask_type,
    }
    # The GEMMs over BTNH/BSKH operands and (B, N, T, S) probabilities:
    if is_bwd:
        fmha["bmm1_grad_gemm1_dot_dimension_numbers"] = _dot_dims(2, 1, (0, 1), (0, 2))  # dP^T Q
        fmha["bmm1_grad_gemm2_dot_dimension_numbers"] = _dot_dims(3, 1, (0, 1), (0, 2))  # dP K
        fmha["bmm2_grad_gemm1_dot_dimension_numbers"] = _dot_dims(2, 1, (0, 1), (0, 2))  # P^T dO
        fmha["bmm2_grad_gemm2_dot_dimension_numbers"] = _dot_dims(3, 3, (0, 2), (0, 2))  # dO V^T
    else:
        fmha["bmm1_dot_dimension_numbers"] = _dot_dims(3, 3, (0, 2), (0, 2))  # Q K^T
        fmha["bmm2_dot_dimension_numbers"] = _dot_dims(3, 1, (0, 1), (0, 2))  # P V
    fmha.update(dropout_rate=0.0, seed=42, sliding_window_length=cfg.sliding_window,
                max_seg_per_batch=1, is_paged_attention=False)
    return json.dumps({"operation_queue_id": "0", "cudnn_fmha_backend_config": fmha})


def _custom_call(target, operands, operand_avals, result_types, result_layouts, config):
    return hlo.CustomCallOp(
        result_types, list(operands), target,
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 2),
        backend_config=ir.StringAttr.get(config),
        operand_layouts=ir.ArrayAttr.get([_row_major(a.ndim) for a in operand_avals]),
        result_layouts=ir.ArrayAttr.get(result_layouts),
    ).results


def _require_cuda(ctx, name):
    if platform_of(ctx) != "gpu":
        raise CudnnAttentionUnsupported(
            f"{name}: implementation='cudnn' runs only on a CUDA GPU; this program is being "
            f"compiled for {ctx.module_ctx.platform!r}")


def _workspace_type():
    return ir.RankedTensorType.get((0,), ir.IntegerType.get_unsigned(8))


def _bnth_type(aval):
    B, T, N, H = aval.shape
    return tensor_type(ShapedArray((B, N, T, H), aval.dtype))


def _fwd_lowering(ctx, *operands, scale, mask_type, sliding_window, has_bias, is_training):
    _require_cuda(ctx, "cudnn_fmha_fwd")
    cfg = _Config(scale, mask_type, sliding_window)
    q_aval, k_aval = ctx.avals_in[:2]
    types = [_bnth_type(ctx.avals_out[0])]
    layouts = [_minor_to_major(_BTNH_IN_MEMORY)]
    if is_training:
        types.append(tensor_type(ctx.avals_out[1]))
        layouts.append(_row_major(3))
    types.append(_workspace_type())
    layouts.append(_row_major(1))
    target = "__cudnn$fmhaScaleBiasSoftmax" if has_bias else "__cudnn$fmhaSoftmax"
    res = _custom_call(target, operands, ctx.avals_in, types, layouts,
                       _backend_config(q_aval, k_aval, cfg, is_bwd=False))
    outs = [hlo.transpose(res[0], dense_i64(_TO_BTNH))]
    if is_training:
        outs.append(res[1])
    return outs


def _bwd_lowering(ctx, *operands, scale, mask_type, sliding_window, has_bias):
    _require_cuda(ctx, "cudnn_fmha_bwd")
    cfg = _Config(scale, mask_type, sliding_window)
    types = [_bnth_type(a) for a in ctx.avals_out[:3]]
    layouts = [_minor_to_major(_BTNH_IN_MEMORY)] * 3
    if has_bias:
        types.append(tensor_type(ctx.avals_out[3]))
        layouts.append(_row_major(4))
    types.append(_workspace_type())
    layouts.append(_row_major(1))
    target = ("__cudnn$fmhaScaleBiasSoftmaxBackward" if has_bias
              else "__cudnn$fmhaSoftmaxBackward")
    res = _custom_call(target, operands, ctx.avals_in, types, layouts,
                       _backend_config(ctx.avals_in[0], ctx.avals_in[1], cfg, is_bwd=True))
    outs = [hlo.transpose(r, dense_i64(_TO_BTNH)) for r in res[:3]]
    if has_bias:
        outs.append(res[3])
    return outs


fmha_fwd_p = Primitive("cudnn_fmha_fwd", multiple_results=True)
fmha_fwd_p.def_abstract_eval(_fwd_abstract)
fmha_fwd_p.def_lowering(_fwd_lowering)

fmha_bwd_p = Primitive("cudnn_fmha_bwd", multiple_results=True)
fmha_bwd_p.def_abstract_eval(_bwd_abstract)
fmha_bwd_p.def_lowering(_bwd_lowering)


# ------------------------------------------------------------------------------------------------
# vmap: the mapped axis joins the batch axis (the kernels take one batch axis)


def _fold(x, d, size):
    """``x`` with its mapped axis (broadcast when unmapped) merged into its leading axis."""
    x = batching.bdim_at_front(x, d, size)
    return jnp.reshape(x, (x.shape[0] * x.shape[1],) + x.shape[2:])


def _fold_bias(bias, d, size, batch):
    """The bias folded like the query: its (V, 1 or B, ...) axes as V * B."""
    bias = batching.bdim_at_front(bias, d, size)
    bias = jnp.broadcast_to(bias, (size, batch) + bias.shape[2:])
    return jnp.reshape(bias, (size * batch,) + bias.shape[2:])


def _unfold(x, size):
    return jnp.reshape(x, (size, x.shape[0] // size) + x.shape[1:])


def _per_example_batch(x, d):
    return x.shape[1 if d == 0 else 0] if d is not batching.not_mapped else x.shape[0]


def _fwd_batching(args, dims, *, has_bias, mask_type, **params):
    size = batching.axis_size(args, dims)
    batch = _per_example_batch(args[0], dims[0])
    folded = []
    for role, x, d in zip(_operand_roles(has_bias, mask_type), args, dims):
        if role == "bias" and not (d is batching.not_mapped and x.shape[0] == 1):
            folded.append(_fold_bias(x, d, size, batch))
        elif role == "bias":
            folded.append(x)  # one bias for every batch entry: cuDNN broadcasts it
        else:
            folded.append(_fold(x, d, size))
    outs = fmha_fwd_p.bind(*folded, has_bias=has_bias, mask_type=mask_type, **params)
    return [_unfold(o, size) for o in outs], [0] * len(outs)


def _bwd_batching(args, dims, *, has_bias, **params):
    size = batching.axis_size(args, dims)
    batch = _per_example_batch(args[0], dims[0])
    # operands: q, k, v, stats, d_out[, bias], out[, seq lengths]
    folded = [_fold_bias(x, d, size, batch) if has_bias and i == 5 else _fold(x, d, size)
              for i, (x, d) in enumerate(zip(args, dims))]
    grads = [_unfold(g, size) for g in fmha_bwd_p.bind(*folded, has_bias=has_bias, **params)]
    if has_bias and _per_example_batch(args[5], dims[5]) == 1:
        # a bias shared by the batch entries: its cotangent sums theirs
        grads[3] = jnp.sum(grads[3], axis=1, keepdims=True)
    return grads, [0] * len(grads)


fmha_fwd_p.def_batching(_fwd_batching)
fmha_bwd_p.def_batching(_bwd_batching)


# ------------------------------------------------------------------------------------------------
# Differentiation: the training kernel's statistics feed the backward kernel


def _bind_fwd(query, key, value, bias, q_seqlen, kv_seqlen, cfg, is_training):
    operands = [query, key, value]
    if bias is not None:
        operands.append(bias)
    if cfg.mask_type in _PADDED:
        operands += [q_seqlen, kv_seqlen]
    return fmha_fwd_p.bind(*operands, scale=cfg.scale, mask_type=cfg.mask_type,
                           sliding_window=cfg.sliding_window, has_bias=bias is not None,
                           is_training=is_training)


@functools.partial(custom_vjp, nondiff_argnums=(6,))
def _fmha(query, key, value, bias, q_seqlen, kv_seqlen, cfg):
    return _bind_fwd(query, key, value, bias, q_seqlen, kv_seqlen, cfg, is_training=False)[0]


def _fmha_fwd(query, key, value, bias, q_seqlen, kv_seqlen, cfg):
    T, S = query.shape[1], key.shape[1]
    if bias is not None and (T % 2 != 0 or S % 2 != 0):  # the backward kernel's condition
        raise CudnnAttentionUnsupported(f"Unsupported sequence length Q {T}, KV {S}.")
    out, stats = _bind_fwd(query, key, value, bias, q_seqlen, kv_seqlen, cfg, is_training=True)
    return out, (query, key, value, bias, q_seqlen, kv_seqlen, stats, out)


def _fmha_bwd(cfg, res, d_out):
    query, key, value, bias, q_seqlen, kv_seqlen, stats, out = res
    # The backward kernel's operand order: q, k, v, stats, dO[, bias], O[, seq lengths].
    operands = [query, key, value, stats, d_out]
    if bias is not None:
        operands.append(bias)
    operands.append(out)
    if cfg.mask_type in _PADDED:
        operands += [q_seqlen, kv_seqlen]
    grads = fmha_bwd_p.bind(*operands, scale=cfg.scale, mask_type=cfg.mask_type,
                            sliding_window=cfg.sliding_window, has_bias=bias is not None)
    d_bias = grads[3] if bias is not None else None
    return grads[0], grads[1], grads[2], d_bias, None, None


_fmha.defvjp(_fmha_fwd, _fmha_bwd)


# ------------------------------------------------------------------------------------------------
# The entry point


def _combine_bias_and_mask(bias, mask, dtype):
    """The additive bias cuDNN takes: ``bias`` plus 0 / a large negative for ``mask``."""
    if mask is not None:
        if np.dtype(dtype) not in _MASKED_BIAS:
            raise ValueError("Unsupported dtype for inputs.")
        mask = jnp.where(mask, jnp.asarray(0, dtype), jnp.asarray(_MASKED_BIAS[np.dtype(dtype)],
                                                                   dtype))
    if bias is None:
        return mask
    return bias if mask is None else bias + mask


def fused_attention(query, key, value, bias, mask, q_seqlen, kv_seqlen, *, scale, mask_type,
                    sliding_window_length, capability, cudnn_version):
    """Attention through the cuDNN kernels: ``query`` (B, T, N, H), ``key``/``value``
    (B, S, K, H), ``bias``/``mask`` 4-D or None, int32 (B,) seq lengths (required for the
    padding mask types), ``mask_type`` one of ``MASK_TYPES``, ``sliding_window_length`` None or
    the number of keys up to and including the query's position that it sees;
    ``capability``/``cudnn_version`` as ``gpu_capability()`` gives them."""
    if mask_type not in MASK_TYPES:
        raise ValueError(f"Unexpected mask type: {mask_type}")
    if mask_type in _PADDED and (q_seqlen is None or kv_seqlen is None):
        raise ValueError("Require q_seqlen and kv_seqlen to generate padding mask")
    if sliding_window_length is not None and sliding_window_length <= 0:
        raise ValueError(f"Require sliding_window_length > 0, got {sliding_window_length}")
    bias = _combine_bias_and_mask(bias, mask, query.dtype)
    _check_layout(query, key, value, bias)
    _check_flash(query, capability, cudnn_version)
    cfg = _Config(float(scale), mask_type, int(sliding_window_length or 0))
    return _fmha(query, key, value, bias, q_seqlen, kv_seqlen, cfg)


# jit's automatic attention fusion replaces attention written by hand by these kernels on a GPU.
fuse_attention.register_kernel("gpu", fuse_attention.Kernel(
    fmha_fwd_p, fmha_bwd_p, gpu_capability, _MASKED_BIAS, tuple(_DTYPES)))
