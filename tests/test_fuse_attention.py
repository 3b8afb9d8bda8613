"""Automatic attention fusion (``minijax/transforms/fuse_attention.py``).

On the CPU the matcher is checked on jaxprs: what it rewrites into the cuDNN primitives (their
params: scale, mask type, bias) and what it refuses, with the reason it logs. The plumbing
around the kernel (layouts, scales, masks, the backward's wiring, vmap, scan) is checked with
numbers: a reference kernel written with jnp, with the cuDNN kernels' operands and results, is
registered for the CPU, and jit's fused programs are compared with the unfused ones (flag off).
The tests marked ``gpu`` (``MINIJAX_TEST_GPU=1``) run the real cuDNN kernels through jit and
compare forward and gradients with the unfused program within bf16 tolerance.
"""

import logging
import os

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.config import config_context
from minijax.nn import cudnn_attention
from minijax.transforms import fuse_attention as fa
from minijax.transforms import find_eqns

ON_GPU = os.environ.get("MINIJAX_TEST_GPU") == "1"
gpu = pytest.mark.skipif(not ON_GPU, reason="runs the cuDNN kernels: MINIJAX_TEST_GPU=1 on a GPU")
cpu_only = pytest.mark.skipif(ON_GPU, reason="swaps the cuDNN kernel for a jnp "
                              "reference, meaningful only where no GPU runs the real one")

BF = jnp.bfloat16
B, T, N, H = 2, 8, 2, 8
CAUSAL = np.tril(np.ones((T, T), bool))
HOPPER = fa.Kernel(cudnn_attention.fmha_fwd_p, cudnn_attention.fmha_bwd_p,
                   lambda: ((9, 0), 91900), cudnn_attention._MASKED_BIAS,
                   tuple(cudnn_attention._DTYPES))


# ------------------------------------------------------------------------------------------------
# Attention as users write it


def einsum_btnh(q, k, v):
    """benchmarks/gpu_train.py's: einsum, constant causal mask, jax.nn.softmax in f32."""
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / np.sqrt(q.shape[-1])
    s = jnp.where(np.tril(np.ones(s.shape[-2:], bool)), s, -1e9)
    a = minijax.nn.softmax(s, axis=-1).astype(q.dtype)
    return jnp.einsum("bhqk,bkhd->bqhd", a, v)


def matmul_bnth(q, k, v):
    """BNTH with ``@``, the scale on q, softmax written out with the max subtracted."""
    q = q * (q.shape[-1] ** -0.5)
    s = q @ jnp.swapaxes(k, -1, -2)
    e = jnp.exp(s - jnp.max(s, axis=-1, keepdims=True))
    return (e / jnp.sum(e, axis=-1, keepdims=True)) @ v


def dot_general_bias(q, k, v, bias):
    """dot_general on BTNH, an additive bias (B, 1, T, S), no max subtraction."""
    s = lax.dot_general(q, k, (((3,), (3,)), ((0, 2), (0, 2)))) * 0.5 + bias
    e = jnp.exp(s)
    p = e / jnp.sum(e, axis=-1, keepdims=True)
    return lax.dot_general(p, v, (((3,), (1,)), ((0, 1), (0, 2))))


def padded(q, k, v, valid):
    """A where-style padding mask from a (B, S) bool input, -inf fill, causal too."""
    s = jnp.einsum("btnh,bsnh->bnts", q, k) / 4.0
    s = jnp.where(valid[:, None, None, :], s, -jnp.inf)
    s = jnp.where(np.tril(np.ones(s.shape[-2:], bool)), s, jnp.finfo(s.dtype).min)
    return jnp.einsum("bnts,bsnh->btnh", minijax.nn.softmax(s, axis=-1), v)


def _qkv(dtype=BF, shape=(B, T, N, H), seed=0):
    rng = np.random.default_rng(seed)
    return [jnp.asarray(rng.normal(size=shape).astype(np.float32), dtype) for _ in range(3)]


def _bnth(x):
    return jnp.swapaxes(x, 1, 2)


def _fused(fn, *args, kernel=HOPPER):
    closed = minijax.make_jaxpr(fn)(*args)
    return fa.fuse_attention_pass(kernel)(closed)


def _calls(closed, name="cudnn_fmha_fwd"):
    return find_eqns(closed, name)


# ------------------------------------------------------------------------------------------------
# What the matcher rewrites


def test_einsum_causal_softmax():
    new = _fused(einsum_btnh, *_qkv())
    (call,) = _calls(new)
    assert call.params["mask_type"] == "CAUSAL" and not call.params["has_bias"]
    assert call.params["scale"] == pytest.approx(H ** -0.5)
    assert not call.params["is_training"]
    assert not find_eqns(new, {"exp", "reduce_max", "dot_general"})
    # BTNH goes in as it is: no transpose before the kernel
    assert call.invars[0].aval.shape == (B, T, N, H)


def test_bnth_matmul_scale_on_q():
    q, k, v = (_bnth(x) for x in _qkv())
    (call,) = _calls(_fused(matmul_bnth, q, k, v))
    assert call.params["mask_type"] == "NO_MASK" and not call.params["has_bias"]
    assert call.params["scale"] == float(np.asarray(H ** -0.5, BF))  # the program's bf16 scale
    assert call.invars[0].aval.shape == (B * N, T, 1, H)  # BNTH folded into the batch


def test_additive_bias_and_padding_mask():
    q, k, v = _qkv()
    bias = jnp.zeros((B, 1, T, T), BF)
    (call,) = _calls(_fused(dot_general_bias, q, k, v, bias))
    assert call.params["has_bias"] and call.params["scale"] == 0.5
    valid = jnp.asarray(np.arange(T)[None, :] < np.array([[T], [T // 2]]))
    (call,) = _calls(_fused(padded, q, k, v, valid))
    assert call.params["mask_type"] == "CAUSAL" and call.params["has_bias"]
    assert call.params["scale"] == 0.25


def test_grad_rewrites_forward_and_backward():
    q, k, v = _qkv()

    def loss(q, k, v):
        return jnp.sum(einsum_btnh(q, k, v).astype(jnp.float32) ** 2)

    new = _fused(minijax.grad(loss, argnums=(0, 1, 2)), q, k, v)
    (fwd,) = _calls(new)
    (bwd,) = _calls(new, "cudnn_fmha_bwd")
    assert fwd.params["is_training"] and bwd.params["mask_type"] == "CAUSAL"
    assert not find_eqns(new, {"exp", "dot_general"})


def test_vmap_and_scan_bodies():
    q, k, v = _qkv()
    qs, ks, vs = (jnp.stack([x, x]) for x in (q, k, v))
    (call,) = _calls(_fused(minijax.vmap(einsum_btnh), qs, ks, vs))
    assert call.invars[0].aval.shape == (2 * B, T, N, H)  # vmap's axis joins the batch

    def layers(q, k, v):
        def body(x, _):
            return einsum_btnh(x, k, v), None
        return lax.scan(body, q, None, length=3)[0]

    (call,) = _calls(_fused(layers, q, k, v))
    assert call.params["mask_type"] == "CAUSAL"


# ------------------------------------------------------------------------------------------------
# What it refuses, and says so


def _refusal(caplog, fn, *args):
    caplog.clear()
    with config_context("jax_log_compiles", True), caplog.at_level(logging.WARNING, "minijax"):
        new = _fused(fn, *args)
    assert not _calls(new)
    (msg,) = [r.getMessage() for r in caplog.records if "fuse_attention" in r.getMessage()]
    return msg


def test_refusals_name_the_reason(caplog):
    q, k, v = _qkv()
    assert "dtype float32" in _refusal(caplog, einsum_btnh, *_qkv(np.float32))
    assert "head dim 12" in _refusal(caplog, einsum_btnh, *_qkv(shape=(B, T, N, 12)))

    def returns_probabilities(q, k, v):
        s = jnp.einsum("btnh,bsnh->bnts", q, k)
        p = minijax.nn.softmax(s, axis=-1)
        return jnp.einsum("bnts,bsnh->btnh", p, v), p

    assert "outputs of this jaxpr" in _refusal(caplog, returns_probabilities, q, k, v)

    def zero_fill(q, k, v):
        s = jnp.where(CAUSAL, jnp.einsum("btnh,bsnh->bnts", q, k), 0.0)
        return jnp.einsum("bnts,bsnh->btnh", minijax.nn.softmax(s, axis=-1), v)

    assert "where" in _refusal(caplog, zero_fill, q, k, v)

    def scaled_by_input(q, k, v):
        s = jnp.einsum("btnh,bsnh->bnts", q, k) * v[0, 0, 0, 0]
        return jnp.einsum("bnts,bsnh->btnh", minijax.nn.softmax(s, axis=-1), v)

    assert "non-constant" in _refusal(caplog, scaled_by_input, q, k, v)

    def learned_bias(q, k, v, bias):
        return minijax.value_and_grad(lambda b: jnp.sum(dot_general_bias(q, k, v, b)))(bias)

    bias = jnp.zeros((B, 1, T, T), BF)
    assert "read" in _refusal(caplog, learned_bias, q, k, v, bias)

    def grad_of_scan(q, k, v):  # the scan body's probabilities cross to the reverse scan
        def body(x, _):
            return einsum_btnh(x, k, v), None
        return minijax.grad(lambda q: jnp.sum(lax.scan(body, q, None, length=2)[0]))(q)

    # refused either way: scan's partial eval hoists the mask's loop-invariant fill out of the
    # body (as JAX's), so the matcher meets that first
    reason = _refusal(caplog, grad_of_scan, q, k, v)
    assert "outputs of this jaxpr" in reason or "not a constant" in reason


def test_explicit_xla_implementation_is_not_fused(caplog):
    q, k, v = _qkv()

    def in_xla_scope(q, k, v):  # how nn.dot_product_attention(implementation="xla") traces
        with minijax.named_scope(fa.XLA_SCOPE):
            return einsum_btnh(q, k, v)

    assert "implementation='xla'" in _refusal(caplog, in_xla_scope, q, k, v)
    grad_in_scope = minijax.grad(lambda q: jnp.sum(in_xla_scope(q, k, v).astype(jnp.float32)))
    assert not _calls(_fused(grad_in_scope, q), {"cudnn_fmha_fwd", "cudnn_fmha_bwd"})

    def nn_xla(q, k, v):
        return minijax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="xla")

    closed = minijax.make_jaxpr(nn_xla)(q, k, v)
    assert all(fa.XLA_SCOPE in e.source_info.name_stack
               for e in find_eqns(closed, {"dot_general", "exp"}))
    assert not _calls(_fused(nn_xla, q, k, v))

    def user_scope(q, k, v):  # hand-written attention in a user's own scope stays fusable
        with minijax.named_scope("attention"):
            return einsum_btnh(q, k, v)

    (call,) = _calls(_fused(user_scope, q, k, v))
    assert call.params["mask_type"] == "CAUSAL"


def test_not_a_softmax_is_left_alone(caplog):
    def wrong_normalizer(q, k, v):  # each row divided by the sums of the other rows
        e = jnp.exp(jnp.einsum("btnh,bsnh->bnts", q, k))
        return jnp.einsum("bnts,bsnh->btnh", e / jnp.sum(e, axis=-1)[..., None, :], v)

    with config_context("jax_log_compiles", True), caplog.at_level(logging.WARNING, "minijax"):
        assert not _calls(_fused(wrong_normalizer, *_qkv()))
    assert not [r for r in caplog.records if "fuse_attention" in r.getMessage()]


def test_log_names_the_rewrite(caplog):
    with config_context("jax_log_compiles", True), caplog.at_level(logging.WARNING, "minijax"):
        _fused(einsum_btnh, *_qkv())
    (msg,) = [r.getMessage() for r in caplog.records if "fuse_attention" in r.getMessage()]
    assert "fused (forward)" in msg and "causal" in msg and "test_fuse_attention.py" in msg


# ------------------------------------------------------------------------------------------------
# Numbers through jit, with a reference kernel standing in for cuDNN's


def _reference(q, k, v, bias, scale, mask_type):
    s = jnp.einsum("btnh,bsnh->bnts", q, k, preferred_element_type=jnp.float32) * scale
    if bias is not None:
        s = s + bias.astype(jnp.float32)
    if mask_type == "CAUSAL":
        s = jnp.where(np.tril(np.ones(s.shape[-2:], bool)), s, -1e30)
    lse = minijax.nn.logsumexp(s, axis=-1)
    p = jnp.exp(s - lse[..., None]).astype(v.dtype)
    return jnp.einsum("bnts,bsnh->btnh", p, v), lse


class _Counted:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def bind(self, *args, **params):
        self.calls += 1
        return self.fn(*args, **params)


def _ref_fwd(q, k, v, *bias, scale, mask_type, sliding_window, has_bias, is_training):
    out, lse = _reference(q, k, v, bias[0] if has_bias else None, scale, mask_type)
    return [out, lse] if is_training else [out]


def _ref_bwd(q, k, v, stats, d_out, *rest, scale, mask_type, sliding_window, has_bias):
    bias = rest[0] if has_bias else None
    _, pull = minijax.vjp(lambda q, k, v: _reference(q, k, v, bias, scale, mask_type)[0],
                          q, k, v)
    return list(pull(d_out)) + ([jnp.zeros_like(bias)] if has_bias else [])


@pytest.fixture
def reference_kernel(monkeypatch):
    kernel = fa.Kernel(_Counted(_ref_fwd), _Counted(_ref_bwd), lambda: ((9, 0), 91900),
                       {np.dtype(np.float32): -2.0 ** 41},
                       (np.dtype(np.float32),))
    monkeypatch.setitem(fa._KERNELS, "cpu", kernel)
    return kernel


def _compare(fn, args, kernel, fwd_calls, bwd_calls=0, atol=2e-5):
    want = minijax.tree_util.tree_map(np.asarray, _unfused(fn, args))
    got = minijax.jit(fn)(*args)
    assert (kernel.fwd.calls, kernel.bwd.calls) == (fwd_calls, bwd_calls)
    for g, w in zip(minijax.tree_util.tree_leaves(got), minijax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), w, atol=atol, rtol=1e-4)


def _unfused(fn, args):
    with config_context("minijax_fuse_attention", False):
        return minijax.jit(fn)(*args)


def _grads(fn):
    def loss(*args):
        out = fn(*args)
        return jnp.sum(out * jnp.cos(out))
    return minijax.grad(loss, argnums=(0, 1, 2))


@cpu_only
def test_forward_through_jit(reference_kernel):
    q, k, v = _qkv(np.float32)
    _compare(einsum_btnh, (q, k, v), reference_kernel, 1)
    _compare(matmul_bnth, (_bnth(q), _bnth(k), _bnth(v)), reference_kernel, 2)


@cpu_only
@pytest.mark.parametrize("layout", ["btnh", "bnth"])
def test_gradients_through_jit(reference_kernel, layout):
    q, k, v = _qkv(np.float32)
    if layout == "btnh":
        _compare(_grads(einsum_btnh), (q, k, v), reference_kernel, 1, 1)
    else:
        _compare(_grads(matmul_bnth), (_bnth(q), _bnth(k), _bnth(v)), reference_kernel, 1, 1)


@cpu_only
def test_masks_and_bias_through_jit(reference_kernel):
    q, k, v = _qkv(np.float32)
    valid = jnp.asarray(np.arange(T)[None, :] < np.array([[T], [T // 2]]))
    _compare(padded, (q, k, v, valid), reference_kernel, 1)
    bias = jnp.asarray(np.random.default_rng(1).normal(size=(B, 1, T, T)), np.float32)
    _compare(dot_general_bias, (q, k, v, bias), reference_kernel, 2)


@cpu_only
def test_v_computed_just_before(reference_kernel):
    # p·v traced as dot_general(v, p): v's own convert stays, only the pattern is replaced
    q, k, v = _qkv(np.float32)
    _compare(lambda q, k, v: einsum_btnh(q, k, v.astype(jnp.float32)),
             (q, k, v.astype(np.float16)), reference_kernel, 1, atol=1e-3)


@cpu_only
def test_vmap_of_grad_through_jit(reference_kernel):
    q, k, v = (jnp.stack([x, 2 * x]) for x in _qkv(np.float32))
    _compare(minijax.vmap(_grads(einsum_btnh)), (q, k, v), reference_kernel, 1, 1)


@cpu_only
def test_switched_off(reference_kernel):
    q, k, v = _qkv(np.float32)
    with config_context("minijax_fuse_attention", False):
        minijax.jit(einsum_btnh)(q, k, v)
    assert reference_kernel.fwd.calls == 0
    minijax.jit(einsum_btnh)(q, k, v)  # the flag is part of jit's key: this one retraces
    assert reference_kernel.fwd.calls == 1


# ------------------------------------------------------------------------------------------------
# The cuDNN kernels (GPU)


@gpu
@pytest.mark.parametrize("fn", [einsum_btnh, matmul_bnth, padded])
def test_cudnn_matches_unfused(fn):
    q, k, v = _qkv(shape=(2, 128, 4, 64))
    args = (q, k, v)
    if fn is matmul_bnth:
        args = (_bnth(q), _bnth(k), _bnth(v))
    elif fn is padded:  # the bias path: the second sequence has 100 valid keys
        args = (q, k, v, jnp.asarray(np.arange(128)[None, :] < np.array([[128], [100]])))
    text = minijax.jit(_grads(fn)).lower(*args).compile().as_text()
    assert "__cudnn$fmha" in text
    for got, want in [(minijax.jit(fn)(*args), _unfused(fn, args)),
                      *zip(minijax.jit(_grads(fn))(*args), _unfused(_grads(fn), args))]:
        got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
        np.testing.assert_allclose(got, want, atol=2e-2 * max(1.0, np.abs(want).max()),
                                   rtol=2e-2)
