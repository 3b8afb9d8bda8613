"""``dot_product_attention``: scaled dot-product attention as ``jax.nn.dot_product_attention``.

The computation is JAX's XLA implementation: two einsums (dot_general) around a softmax. The
logits are computed with float32 accumulation (``preferred_element_type``) for float16/bfloat16
inputs, masked with a large negative number (``-0.7 * finfo.max``, so a fully masked row gives a
uniform distribution rather than NaN, as JAX), and the softmax always runs in float32; the
probabilities are cast back to the key's dtype for the second einsum.

Grouped-query attention (N query heads over K key/value heads, N a multiple of K) reshapes the
query to (B, T, K, G, H) and contracts against the shared key/value heads; JAX does the same with
a vmap over G, which is the same dot_general after batching. Masks and biases are (B, N, T, S)
up to broadcasting (size-1 axes allowed).

``implementation="cudnn"`` runs XLA's cuDNN fused attention kernels instead
(``minijax.nn.cudnn_attention``): float16/bfloat16 on a CUDA GPU, causal and padding masks
in the kernel, a boolean mask folded into the additive bias, a left window only. As in JAX,
``implementation=None`` is the XLA computation.
"""

from __future__ import annotations

import contextlib

import numpy as np

from minijax import numpy as jnp
from minijax.nn import cudnn_attention
from minijax.nn.functions import softmax
from minijax.source_info import extend_name_stack
from minijax.transforms import fuse_attention

__all__ = ["dot_product_attention"]


def _ensure_4d(t):
    t = jnp.asarray(t)
    if t.ndim < 4:
        t = jnp.reshape(t, (1,) * (4 - t.ndim) + t.shape)
    return t


def _check(t, shape, dtype, name):
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {np.dtype(dtype).name}, but got "
                         f"{t.dtype.name}")
    for want, got in zip(shape, t.shape):
        if want != -1 and want != got:
            raise ValueError(f"{name} shape should be {tuple(shape)}: but got {t.shape}")


def _grouped(t, K, G):
    """A (B, N or 1, T, S) mask or bias as (B, K or 1, G or 1, T, S)."""
    if t is None:
        return None
    tb, tn, tt, ts = t.shape
    if tn == 1:
        return jnp.reshape(t, (tb, 1, 1, tt, ts))
    if tn != K * G:
        raise ValueError(f"mask/bias head axis must be 1 or {K * G} (query heads), got {tn}")
    return jnp.reshape(t, (tb, K, G, tt, ts))


def _combined_mask(mask, is_causal, q_seqlen, kv_seqlen, window, T, S):
    """The boolean (B?, K?, G?, T, S) mask of kept logits, or None when nothing is masked."""
    masks = [] if mask is None else [mask]
    q_pos = np.arange(T)[:, None]
    k_pos = np.arange(S)[None, :]
    if is_causal:
        masks.append(jnp.asarray(k_pos <= q_pos))
    if window is not None:
        left, right = window
        masks.append(jnp.asarray((q_pos <= k_pos + left) & (q_pos >= k_pos - right)))
    if q_seqlen is not None:
        masks.append(jnp.arange(T)[None, None, None, :, None]
                     < q_seqlen[:, None, None, None, None])
    if kv_seqlen is not None:
        masks.append(jnp.arange(S)[None, None, None, None, :]
                     < kv_seqlen[:, None, None, None, None])
    if not masks:
        return None
    out = masks[0]
    for m in masks[1:]:
        out = jnp.logical_and(out, m)
    return out


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                   window):
    B, T, N, H = query.shape
    _, S, K, _ = key.shape
    G = N // K
    query = jnp.reshape(query, (B, T, K, G, H))
    logits_dtype = jnp.promote_types(query.dtype, jnp.float32)
    logits = jnp.einsum("btkgh,bskh->bkgts", query, key, preferred_element_type=logits_dtype)
    if isinstance(scale, (int, float)):  # a weak-typed literal, not a hoisted constant
        logits = logits * float(scale)
    else:
        logits = logits * jnp.asarray(scale, logits.dtype)
    if bias is not None:
        logits = (logits + _grouped(bias, K, G)).astype(logits.dtype)
    keep = _combined_mask(_grouped(mask, K, G), is_causal, q_seqlen, kv_seqlen, window, T, S)
    if keep is not None:
        large_negative = jnp.asarray(-0.7 * jnp.finfo(logits.dtype).max, logits.dtype)
        logits = jnp.where(keep, logits, large_negative)
    probs = softmax(logits.astype(jnp.float32), axis=-1).astype(key.dtype)
    encoded = jnp.einsum("bkgts,bskh->btkgh", probs, value)
    if q_seqlen is not None:
        valid = jnp.arange(T)[None, :] < q_seqlen[:, None]
        encoded = encoded * valid[:, :, None, None, None].astype(encoded.dtype)
    return jnp.reshape(encoded, (B, T, N, value.shape[-1]))


def _attention_cudnn(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                     window):
    capability, cudnn_version = cudnn_attention.gpu_capability()
    B, T = query.shape[:2]
    S = key.shape[1]
    use_padding = q_seqlen is not None or kv_seqlen is not None
    if use_padding:
        if q_seqlen is None:
            q_seqlen = jnp.full((B,), T, dtype=np.int32)
        if kv_seqlen is None:
            kv_seqlen = jnp.full((B,), S, dtype=np.int32)
    if is_causal:
        mask_type = "PADDING_CAUSAL" if use_padding else "CAUSAL"
    else:
        mask_type = "PADDING" if use_padding else "NO_MASK"
    sliding_window = None
    if window is not None:
        left, right = window
        # cuDNN's window bounds the keys on the left only (t - left <= s), so a right window
        # of 0 needs the causal mask too. JAX 0.11.2 leaves it out and its kernel then
        # attends to every later key (measured on an H100): we keep the documented meaning.
        if right == 0 or mask_type == "CAUSAL":
            sliding_window = left + 1
            if not is_causal:
                mask_type = "PADDING_CAUSAL" if use_padding else "CAUSAL"
        else:
            raise ValueError(f"cuDNN doesn't support right window: {right} "
                             "when causal mask is not used.")
    return cudnn_attention.fused_attention(
        query, key, value, bias, mask, q_seqlen, kv_seqlen, scale=scale, mask_type=mask_type,
        sliding_window_length=sliding_window, capability=capability,
        cudnn_version=cudnn_version)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None):
    """Scaled dot-product attention, ``softmax(scale * Q K^T + bias, masked) V``.

    ``query`` is (B, T, N, H), ``key``/``value`` are (B, S, K, H) with N a multiple of K
    (grouped-query attention), or all without the batch axis. ``bias`` and the boolean ``mask``
    broadcast to (B, N, T, S) (True keeps a logit). ``scale`` defaults to ``1 / sqrt(H)``;
    ``is_causal`` keeps key positions ``s <= t``; ``query_seq_lengths`` /
    ``key_value_seq_lengths`` (int32 (B,)) mask padding (padded query rows give zeros);
    ``local_window_size`` (an int or ``(left, right)``) keeps ``t - left <= s <= t + right``.
    ``implementation``: None or 'xla' (the XLA computation), or 'cudnn' (the cuDNN fused
    kernel: float16/bfloat16, a CUDA GPU of compute capability 8.0+, head dim a multiple of 8
    up to 256 (128 before Hopper), a ``local_window_size`` right part of 0 unless causal
    without seq lengths; anything else raises a ValueError).
    """
    output_shape = jnp.asarray(query).shape
    query_arr, key_arr, value_arr = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = _ensure_4d(bias) if bias is not None else None
    mask = _ensure_4d(mask) if mask is not None else None
    if query_seq_lengths is not None:
        query_seq_lengths = jnp.asarray(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    elif local_window_size is not None:
        local_window_size = tuple(int(w) for w in local_window_size)

    B, S, K, H = key_arr.shape
    _check(value_arr, [B, S, K, H], key_arr.dtype, "value")
    _check(query_arr, [B, -1, -1, H], key_arr.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(np.bool_), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(query_seq_lengths, [B], np.dtype(np.int32), "query_seq_lengths")
    _check(key_value_seq_lengths, [B], np.dtype(np.int32), "key_value_seq_lengths")
    if query_arr.shape[-2] % K != 0:
        raise ValueError("The number of query heads must be a multiple of key/value heads, but "
                         f"got {query_arr.shape[-2]} vs {K}")
    scale_val = float(1.0 / np.sqrt(H)) if scale is None else scale

    if implementation == "cudnn":
        out = _attention_cudnn(query_arr, key_arr, value_arr, bias, mask, is_causal, scale_val,
                               query_seq_lengths, key_value_seq_lengths, local_window_size)
        return jnp.reshape(out, output_shape)
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    # an explicit "xla" is kept out of jit's attention fusion (fuse_attention.XLA_SCOPE)
    scope = (extend_name_stack(fuse_attention.XLA_SCOPE) if implementation == "xla"
             else contextlib.nullcontext())
    with scope:
        out = _attention_xla(query_arr, key_arr, value_arr, bias, mask, is_causal, scale_val,
                             query_seq_lengths, key_value_seq_lengths, local_window_size)
    return jnp.reshape(out, output_shape)
