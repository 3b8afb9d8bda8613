"""Attention programs lowered by both minijax and real JAX, to compare their cuDNN custom calls.

``build(jx, case)`` works for ``jx`` = ``minijax`` or ``jax`` (the same API): it returns the
function and its (zero) arguments. ``tests/data/record_cudnn_attention.py`` records JAX's
StableHLO for each case; ``tests/test_cudnn_attention.py`` compares minijax's against it.
"""

import numpy as np

B, T, N, H = 2, 128, 4, 64

CASES = {
    "fwd_causal": dict(is_causal=True),
    "fwd_plain_fp16": dict(dtype="float16"),
    "fwd_padding": dict(seqlens=True),
    "fwd_padding_causal_gqa": dict(seqlens=True, is_causal=True, kv_heads=2),
    "fwd_gqa_window": dict(kv_heads=2, is_causal=True, window=(16, 3)),
    "fwd_window_left": dict(window=(16, 0)),
    "fwd_bias_mask": dict(bias=(1, N, T, T), mask=(B, 1, T, T)),
    "fwd_mask": dict(mask=(1, 1, T, T)),
    "grad_causal_padding": dict(is_causal=True, seqlens=True, grad=True),
    "grad_bias": dict(bias=(1, N, T, T), grad=True),
    "grad_gqa_fp16": dict(kv_heads=1, dtype="float16", is_causal=True, grad=True),
    "vmap_causal": dict(is_causal=True, vmap=True),
}


def build(jx, case):
    jnp = jx.numpy
    dtype = jnp.dtype(case.get("dtype", "bfloat16"))
    K = case.get("kv_heads", N)
    q = jnp.zeros((B, T, N, H), dtype)
    kv = jnp.zeros((B, T, K, H), dtype)
    args = [q, kv, kv]
    names = ["q", "k", "v"]
    if "bias" in case:
        args.append(jnp.zeros(case["bias"], dtype))
        names.append("bias")
    if "mask" in case:
        args.append(jnp.asarray(np.tri(T, dtype=bool) | np.eye(T, k=1, dtype=bool)
                                ).reshape((1, 1, T, T)) & jnp.ones(case["mask"], bool))
        names.append("mask")
    if case.get("seqlens"):
        args += [jnp.asarray([100, 128], jnp.int32), jnp.asarray([90, 128], jnp.int32)]
        names += ["query_seq_lengths", "key_value_seq_lengths"]

    def attention(*xs):
        kw = dict(zip(names, xs))
        return jx.nn.dot_product_attention(
            kw.pop("q"), kw.pop("k"), kw.pop("v"), kw.pop("bias", None), kw.pop("mask", None),
            is_causal=case.get("is_causal", False), local_window_size=case.get("window"),
            implementation="cudnn", **kw)

    fn = attention
    if case.get("grad"):
        n_diff = 4 if "bias" in case else 3

        def fn(*xs):
            loss = lambda *ds: jnp.sum(attention(*ds, *xs[n_diff:]).astype(jnp.float32))
            return jx.grad(loss, argnums=tuple(range(n_diff)))(*xs[:n_diff])
    if case.get("vmap"):
        fn = jx.vmap(attention)
        args = [jnp.stack([a, a]) for a in args]
    return fn, args
