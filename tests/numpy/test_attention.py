"""``nn.dot_product_attention`` against a NumPy reference: masks, causal, bias, grouped-query
attention, sequence lengths, local windows; under jit, grad (finite differences) and vmap."""

import ml_dtypes
import numpy as np
import pytest

import minijax
from minijax import nn
from minijax.test_util import check_grads

F32 = np.float32


def ref_attention(q, k, v, bias=None, mask=None, scale=None, is_causal=False, q_len=None,
                  kv_len=None, window=None):
    """Per (batch, head, query) loops in float64, masked logits at -0.7 * finfo(f32).max."""
    unbatched = q.ndim == 3
    if unbatched:
        q, k, v = q[None], k[None], v[None]
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    G = N // K
    scale = 1 / np.sqrt(H) if scale is None else scale
    bias = None if bias is None else np.broadcast_to(np.asarray(bias, np.float64), (B, N, T, S))
    mask = None if mask is None else np.broadcast_to(mask, (B, N, T, S))
    if isinstance(window, int):
        window = (window, window)
    out = np.zeros((B, T, N, v.shape[-1]))
    for b in range(B):
        for n in range(N):
            kh = n // G
            for t in range(T):
                logits = scale * (k[b, :, kh] @ q[b, t, n])
                if bias is not None:
                    logits = logits + bias[b, n, t]
                keep = np.ones(S, bool)
                if mask is not None:
                    keep &= mask[b, n, t]
                if is_causal:
                    keep &= np.arange(S) <= t
                if window is not None:
                    keep &= (t - window[0] <= np.arange(S)) & (np.arange(S) <= t + window[1])
                if kv_len is not None:
                    keep &= np.arange(S) < kv_len[b]
                if q_len is not None and t >= q_len[b]:
                    continue  # padded query rows are zero
                logits = np.where(keep, logits, -0.7 * np.finfo(F32).max)
                p = np.exp(logits - logits.max())
                out[b, t, n] = (p / p.sum()) @ v[b, :, kh]
    return out[0] if unbatched else out


def qkv(B=2, T=5, S=6, N=4, K=2, H=8, seed=0, dtype=F32):
    r = np.random.RandomState(seed)
    shape = lambda L, heads: ((B,) if B else ()) + (L, heads, H)  # noqa: E731
    return tuple(r.randn(*shape(L, h)).astype(dtype) for L, h in ((T, N), (S, K), (S, K)))


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, np.float64), b, rtol=tol, atol=tol)


@pytest.mark.parametrize("K", [1, 2, 4])
def test_plain_and_gqa(K):
    q, k, v = qkv(K=K)
    out = nn.dot_product_attention(q, k, v)
    assert out.shape == q.shape and out.dtype == F32
    close(out, ref_attention(q, k, v))


def test_unbatched():
    q, k, v = qkv(B=0)
    out = nn.dot_product_attention(q, k, v, is_causal=True)
    assert out.shape == q.shape
    close(out, ref_attention(q, k, v, is_causal=True))


def test_scale_causal_bias_mask():
    q, k, v = qkv()
    r = np.random.RandomState(1)
    bias = r.randn(2, 4, 5, 6).astype(F32)
    mask = r.rand(2, 1, 5, 6) > 0.3
    out = nn.dot_product_attention(q, k, v, bias, mask, scale=0.5, is_causal=True)
    close(out, ref_attention(q, k, v, bias, mask, scale=0.5, is_causal=True))


def test_broadcast_bias_and_head_mask():
    q, k, v = qkv()
    r = np.random.RandomState(2)
    bias = r.randn(1, 1, 5, 6).astype(F32)
    mask = r.rand(1, 4, 5, 6) > 0.5
    close(nn.dot_product_attention(q, k, v, bias=bias, mask=mask),
          ref_attention(q, k, v, bias, mask))


def test_seq_lengths_and_window():
    q, k, v = qkv()
    ql, kvl = np.array([3, 5], np.int32), np.array([4, 2], np.int32)
    out = nn.dot_product_attention(q, k, v, query_seq_lengths=ql, key_value_seq_lengths=kvl)
    close(out, ref_attention(q, k, v, q_len=ql, kv_len=kvl))
    assert np.all(np.asarray(out)[0, 3:] == 0)
    for window in (1, (2, 0), (0, 3)):
        close(nn.dot_product_attention(q, k, v, local_window_size=window, is_causal=True),
              ref_attention(q, k, v, window=window, is_causal=True))


def test_fully_masked_row_is_uniform_not_nan():
    q, k, v = qkv()
    mask = np.ones((1, 1, 5, 6), bool)
    mask[..., 2, :] = False
    out = np.asarray(nn.dot_product_attention(q, k, v, mask=mask))
    assert np.isfinite(out).all()
    mean = np.repeat(v.mean(axis=1), 2, axis=1)  # query heads 2g, 2g+1 share kv head g
    np.testing.assert_allclose(out[:, 2], mean, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_low_precision(dtype):
    q, k, v = qkv(dtype=dtype)
    out = nn.dot_product_attention(q, k, v, is_causal=True)
    assert out.dtype == np.dtype(dtype)
    close(out, ref_attention(q, k, v, is_causal=True), tol=3e-2)
    # logits are accumulated in float32 and the softmax runs in float32
    jaxpr = str(minijax.make_jaxpr(lambda *a: nn.dot_product_attention(*a))(q, k, v))
    assert "preferred_element_type=float32" in jaxpr and "exp" in jaxpr


def test_jit_matches_eager():
    q, k, v = qkv()
    ql = np.array([4, 2], np.int32)
    f = lambda q, k, v, ql: nn.dot_product_attention(  # noqa: E731
        q, k, v, is_causal=True, query_seq_lengths=ql, local_window_size=(2, 1))
    np.testing.assert_allclose(minijax.jit(f)(q, k, v, ql), f(q, k, v, ql), rtol=1e-6,
                               atol=1e-6)


def test_grads_match_finite_differences():
    q, k, v = qkv(B=1, T=3, S=4, N=2, K=1, H=4)
    bias = np.random.RandomState(3).randn(1, 2, 3, 4).astype(F32)
    mask = np.array([[True, True, False, True]] * 3)[None, None]

    def f(q, k, v, bias):
        return nn.dot_product_attention(q, k, v, bias, mask, is_causal=True)

    check_grads(f, (q, k, v, bias), order=1, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)
    check_grads(f, (q, k, v, bias), order=1, modes=("rev",), atol=2e-2, rtol=2e-2, jit=True)


def test_vmap_equals_stacking():
    q, k, v = qkv(B=3, T=4, S=4, N=2, K=2, H=4)
    f = lambda q, k, v: nn.dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
    out = minijax.vmap(f)(q, k, v)  # each example unbatched (T, N, H)
    stacked = np.stack([np.asarray(f(q[i], k[i], v[i])) for i in range(3)])
    np.testing.assert_allclose(out, stacked, rtol=1e-6, atol=1e-6)
    out = minijax.vmap(f, in_axes=(0, None, None))(q, k[0], v[0])
    stacked = np.stack([np.asarray(f(q[i], k[0], v[0])) for i in range(3)])
    np.testing.assert_allclose(out, stacked, rtol=1e-6, atol=1e-6)


def test_errors():
    q, k, v = qkv()
    # no GPU here (a float32 refusal on one): JAX's error types, see test_cudnn_attention.py
    with pytest.raises(NotImplementedError, match="cuDNN is not detected|Q must be fp16/bf16"):
        nn.dot_product_attention(q, k, v, implementation="cudnn")
    with pytest.raises(ValueError, match="Unsupported implementation"):
        nn.dot_product_attention(q, k, v, implementation="flash")
    np.testing.assert_allclose(nn.dot_product_attention(q, k, v, implementation="xla"),
                               nn.dot_product_attention(q, k, v))
    with pytest.raises(ValueError, match="multiple of key/value heads"):
        nn.dot_product_attention(*qkv(N=3, K=2))
    with pytest.raises(ValueError, match="mask dtype"):
        nn.dot_product_attention(q, k, v, mask=np.ones((5, 6), np.int32))
    with pytest.raises(ValueError, match="value"):
        nn.dot_product_attention(q, k, v[:, :3])
