"""``dot_product_attention(..., implementation="cudnn")``: XLA's cuDNN fused-attention calls.

On the CPU (CI) the GPU is stood in for by patching ``gpu_capability``, and programs are lowered
for CUDA without compiling: their custom calls are compared with the ones real JAX 0.11.2
emitted for the same programs (``tests/data/cudnn_attention_jax.json``, recorded by
``tests/data/record_cudnn_attention.py``), and the refusals with JAX's conditions. The tests
marked ``gpu`` run the kernels (``MINIJAX_TEST_GPU=1`` on a CUDA machine) and compare outputs and
gradients with ``implementation="xla"``.
"""

import json
import os

import numpy as np
import pytest
from jaxlib.mlir import ir

import minijax
import minijax.numpy as jnp
from minijax.lowering.stablehlo import context, lower_jaxpr, module_to_text
from minijax.nn import cudnn_attention
from minijax.nn.cudnn_attention import CudnnAttentionUnsupported
from tests.cudnn_attention_cases import CASES, build

ON_GPU = os.environ.get("MINIJAX_TEST_GPU") == "1"
gpu = pytest.mark.skipif(not ON_GPU, reason="runs the cuDNN kernels: MINIJAX_TEST_GPU=1 on a GPU")
cpu_only = pytest.mark.skipif(ON_GPU, reason="checks the behaviour without a GPU")
DATA = os.path.join(os.path.dirname(__file__), "data", "cudnn_attention_jax.json")
dpa = minijax.nn.dot_product_attention


@pytest.fixture
def hopper(monkeypatch):
    """Trace as on an H100 with cuDNN 9.19 (what the recorded JAX programs ran on)."""
    monkeypatch.setattr(cudnn_attention, "gpu_capability", lambda: ((9, 0), 91900))


def _cuda_text(fn, *args):
    return module_to_text(lower_jaxpr(minijax.make_jaxpr(fn)(*args), platform="cuda").module)


def _custom_calls(text):
    """Each custom call of ``main`` as a comparable dict (the backend config parsed)."""
    calls = []
    with context():
        module = ir.Module.parse(text)
        main = [op for op in module.body.operations
                if ir.StringAttr(op.attributes["sym_name"]).value == "main"][0]
        for op in main.regions[0].blocks[0].operations:
            if op.operation.name != "stablehlo.custom_call":
                continue
            attrs = op.attributes
            calls.append(dict(
                target=ir.StringAttr(attrs["call_target_name"]).value,
                api_version=str(attrs["api_version"]),
                config=json.loads(ir.StringAttr(attrs["backend_config"]).value),
                operands=[str(v.type) for v in op.operands],
                results=[str(r.type) for r in op.results],
                operand_layouts=str(attrs["operand_layouts"]),
                result_layouts=str(attrs["result_layouts"]),
            ))
    return calls


# ------------------------------------------------------------------------------------------------
# The lowering against real JAX's


def test_recorded_jax_version():
    with open(DATA) as f:
        assert json.load(f)["jax_version"] == "0.11.2"


@pytest.mark.parametrize("name", sorted(CASES))
def test_custom_calls_match_jax(name, hopper):
    with open(DATA) as f:
        want = _custom_calls(json.load(f)["cases"][name])
    fn, args = build(minijax, CASES[name])
    got = _custom_calls(_cuda_text(fn, *args))
    if name == "fwd_window_left":
        # local_window_size=(16, 0) without is_causal: JAX passes NO_MASK and its kernel then
        # attends to later keys too (t - 16 <= s only); minijax adds the causal mask that a
        # right window of 0 means (tests/test_cudnn_attention.py::test_gpu_matches_xla).
        assert want[0]["config"]["cudnn_fmha_backend_config"]["mask_type"] == "NO_MASK"
        want[0]["config"]["cudnn_fmha_backend_config"]["mask_type"] = "CAUSAL"
    assert [c["target"] for c in got] == [c["target"] for c in want]
    for g, w in zip(got, want):
        assert g == w


def test_lowering_transposes_bnth_results_to_btnh(hopper):
    fn, args = build(minijax, CASES["fwd_causal"])
    text = _cuda_text(fn, *args)
    assert "stablehlo.transpose" in text and "dims = [0, 2, 1, 3]" in text


# ------------------------------------------------------------------------------------------------
# What reaches the kernel: mask type, window, scale, bias


def _fwd_eqn(fn, *args):
    jaxpr = minijax.make_jaxpr(fn)(*args).jaxpr
    call = [e for e in jaxpr.eqns if e.primitive.name == "custom_vjp_call"]
    assert len(call) == 1
    (eqn,) = [e for e in call[0].params["call_jaxpr"].eqns
              if e.primitive.name == "cudnn_fmha_fwd"]
    return eqn


def _qkv(dtype=jnp.bfloat16, B=2, T=8, N=4, K=4, H=16, S=None):
    S = T if S is None else S
    return (jnp.zeros((B, T, N, H), dtype), jnp.zeros((B, S, K, H), dtype),
            jnp.zeros((B, S, K, H), dtype))


@pytest.mark.parametrize("causal,q_len,kv_len,expected", [
    (False, False, False, "NO_MASK"), (True, False, False, "CAUSAL"),
    (False, True, False, "PADDING"), (True, False, True, "PADDING_CAUSAL"),
])
def test_mask_type(hopper, causal, q_len, kv_len, expected):
    q, k, v = _qkv()
    lens = jnp.asarray([3, 8], jnp.int32)
    eqn = _fwd_eqn(lambda q, k, v: dpa(
        q, k, v, is_causal=causal, query_seq_lengths=lens if q_len else None,
        key_value_seq_lengths=lens if kv_len else None, implementation="cudnn"), q, k, v)
    assert eqn.params["mask_type"] == expected
    # padding takes both lengths (the missing one filled with the full length), as JAX
    assert len(eqn.invars) == (5 if expected.startswith("PADDING") else 3)


@pytest.mark.parametrize("window,causal,lens,expected,mask_type", [
    ((3, 0), False, False, 4, "CAUSAL"), ((3, 2), True, False, 4, "CAUSAL"),
    (5, True, False, 6, "CAUSAL"), (None, True, False, 0, "CAUSAL"),
    ((3, 0), False, True, 4, "PADDING_CAUSAL"), (None, False, False, 0, "NO_MASK")])
def test_sliding_window_is_left_plus_one(hopper, window, causal, lens, expected, mask_type):
    lengths = jnp.asarray([3, 8], jnp.int32) if lens else None
    eqn = _fwd_eqn(lambda q, k, v: dpa(q, k, v, is_causal=causal, local_window_size=window,
                                       query_seq_lengths=lengths, implementation="cudnn"),
                   *_qkv())
    assert eqn.params["sliding_window"] == expected
    # a right window of 0 is the causal mask (the kernel's window has no right bound)
    assert eqn.params["mask_type"] == mask_type


def test_scale_default_and_given(hopper):
    q, k, v = _qkv(H=16)
    eqn = _fwd_eqn(lambda q, k, v: dpa(q, k, v, implementation="cudnn"), q, k, v)
    assert eqn.params["scale"] == 0.25
    eqn = _fwd_eqn(lambda q, k, v: dpa(q, k, v, scale=0.5, implementation="cudnn"), q, k, v)
    assert eqn.params["scale"] == 0.5


def test_boolean_mask_becomes_additive_bias(hopper):
    q, k, v = _qkv()
    mask = jnp.asarray(np.tri(8, dtype=bool))[None, None]
    eqn = _fwd_eqn(lambda q, k, v: dpa(q, k, v, mask=mask, implementation="cudnn"), q, k, v)
    assert eqn.params["has_bias"] and eqn.invars[3].aval.shape == (1, 1, 8, 8)
    # the bias the kernel sees: 0 where kept, JAX's -2**41 (bf16) where masked
    bias = cudnn_attention._combine_bias_and_mask(None, mask, jnp.bfloat16)
    np.testing.assert_array_equal(np.asarray(bias.astype(jnp.float32))[0, 0],
                                  np.where(np.tri(8), 0.0, -2.0 ** 41))


def test_no_gradient_for_integer_and_absent_operands(hopper):
    q, k, v = _qkv()
    lens = jnp.asarray([3, 8], jnp.int32)
    grads = minijax.eval_shape(minijax.grad(
        lambda q, k, v: jnp.sum(dpa(q, k, v, is_causal=True, query_seq_lengths=lens,
                                    implementation="cudnn").astype(jnp.float32)),
        argnums=(0, 1, 2)), q, k, v)
    assert [g.shape for g in grads] == [q.shape, k.shape, v.shape]


def test_forward_mode_is_refused_as_in_jax(hopper):
    q, k, v = _qkv()
    with pytest.raises(TypeError, match="forward-mode"):
        _cuda_text(lambda q: minijax.jvp(
            lambda q: dpa(q, k, v, implementation="cudnn"), (q,), (q,)), q)


def test_vmap_folds_into_the_batch_axis(hopper):
    q, k, v = _qkv()
    stack = lambda x: jnp.stack([x, x, x])
    fn = minijax.vmap(lambda q, k, v: dpa(q, k, v, is_causal=True, implementation="cudnn"))
    jaxpr = minijax.make_jaxpr(fn)(stack(q), stack(k), stack(v)).jaxpr
    inner = jaxpr.eqns[0].params["call_jaxpr"]
    (eqn,) = [e for e in inner.eqns if e.primitive.name == "cudnn_fmha_fwd"]
    assert eqn.invars[0].aval.shape == (6, 8, 4, 16)
    assert jaxpr.outvars[0].aval.shape == (3, 2, 8, 4, 16)


def test_vmap_of_grad_gives_a_shared_bias_its_per_example_cotangent(hopper):
    q, k, v = _qkv()
    bias = jnp.zeros((1, 4, 8, 8), jnp.bfloat16)
    loss = lambda q, b: jnp.sum(dpa(q, k, v, b, implementation="cudnn").astype(jnp.float32))
    out = minijax.eval_shape(minijax.vmap(minijax.grad(loss, argnums=(0, 1)), (0, None)),
                             jnp.stack([q, q, q]), bias)
    assert out[0].shape == (3, 2, 8, 4, 16) and out[1].shape == (3, 1, 4, 8, 8)


# ------------------------------------------------------------------------------------------------
# Implementation choice and refusals (JAX's conditions)


def test_default_implementation_is_xla_as_in_jax(hopper):
    q, k, v = _qkv()
    jaxpr = minijax.make_jaxpr(lambda q, k, v: dpa(q, k, v, is_causal=True))(q, k, v)
    assert "cudnn" not in str(jaxpr)


def test_unknown_implementation():
    with pytest.raises(ValueError, match="Unsupported implementation option: flash"):
        dpa(*_qkv(), implementation="flash")


@cpu_only
def test_without_a_gpu_cudnn_is_refused():
    with pytest.raises(CudnnAttentionUnsupported, match="cuDNN is not detected") as e:
        dpa(*_qkv(), implementation="cudnn")
    # JAX raises RuntimeError here, NotImplementedError / ValueError for the kernel's limits
    assert isinstance(e.value, RuntimeError) and isinstance(e.value, ValueError)


@cpu_only
def test_compiling_for_the_cpu_is_refused(hopper):
    with pytest.raises(CudnnAttentionUnsupported, match="only on a CUDA GPU.*'cpu'"):
        minijax.jit(lambda q, k, v: dpa(q, k, v, implementation="cudnn"))(*_qkv())


@pytest.mark.parametrize("dtype,shape_kw,kw,exc,match,capability", [
    (jnp.float32, {}, {}, CudnnAttentionUnsupported, "Q must be fp16/bf16", (9, 0)),
    (jnp.bfloat16, dict(H=12), {}, CudnnAttentionUnsupported,
     "head dim must be <= 256 and a multiple of 8, but got 12", (9, 0)),
    (jnp.bfloat16, dict(H=264), {}, CudnnAttentionUnsupported, "<= 256", (9, 0)),
    (jnp.bfloat16, dict(H=192), {}, CudnnAttentionUnsupported, "<= 128", (8, 0)),
    (jnp.bfloat16, {}, {}, CudnnAttentionUnsupported, "compute capability 8.0", (7, 5)),
    (jnp.bfloat16, {}, dict(local_window_size=(2, 2)), ValueError,
     "cuDNN doesn't support right window: 2 when causal mask is not used", (9, 0)),
    (jnp.bfloat16, {}, dict(local_window_size=(-1, 0)), ValueError,
     "Require sliding_window_length > 0, got 0", (9, 0)),
    (jnp.float32, {}, dict(mask=jnp.ones((1, 1, 8, 8), bool)), ValueError,
     "Unsupported dtype for inputs", (9, 0)),
    (jnp.bfloat16, {}, dict(bias=jnp.zeros((1, 1, 8, 1), jnp.bfloat16)), ValueError,
     "Bias must have same seq length as QKV, got 8 and 1", (9, 0)),
    (jnp.bfloat16, {}, dict(bias=jnp.zeros((1, 1, 8, 8), jnp.float32)), ValueError,
     "Bias must have the dtype of QKV", (9, 0)),
])
def test_refusals(monkeypatch, dtype, shape_kw, kw, exc, match, capability):
    monkeypatch.setattr(cudnn_attention, "gpu_capability", lambda: (capability, 91900))
    q, k, v = _qkv(dtype, **shape_kw)
    with pytest.raises(exc, match=match):
        minijax.make_jaxpr(lambda q, k, v: dpa(q, k, v, implementation="cudnn", **kw))(q, k, v)


def test_right_window_refused_with_padding_even_when_causal(hopper):
    lens = jnp.asarray([3, 8], jnp.int32)
    with pytest.raises(ValueError, match="right window: 2"):
        dpa(*_qkv(), is_causal=True, query_seq_lengths=lens, local_window_size=(4, 2),
            implementation="cudnn")


def test_bias_with_odd_sequence_refused_for_training_only(hopper):
    q, k, v = _qkv(T=8, S=7)
    bias = jnp.zeros((1, 4, 8, 7), jnp.bfloat16)
    fn = lambda q: dpa(q, k, v, bias, implementation="cudnn")
    minijax.make_jaxpr(fn)(q)  # inference: fine
    with pytest.raises(CudnnAttentionUnsupported, match="Unsupported sequence length Q 8, KV 7"):
        minijax.make_jaxpr(minijax.grad(lambda q: jnp.sum(fn(q).astype(jnp.float32))))(q)


# ------------------------------------------------------------------------------------------------
# On the GPU: the kernels against the XLA computation


def _rand(rng, shape, dtype):
    return jnp.asarray(rng.standard_normal(shape).astype(np.float32), dtype)


def _close(got, want, tol):
    got = np.asarray(jnp.asarray(got, jnp.float32))
    want = np.asarray(jnp.asarray(want, jnp.float32))
    assert got.shape == want.shape
    scale = max(float(np.max(np.abs(want))), 1e-3)
    err = float(np.max(np.abs(got - want))) / scale
    assert err < tol, f"max error {err:.3g} of the largest value {scale:.3g}"


GPU_CASES = {
    "causal": dict(is_causal=True),
    "padding": dict(seqlens=True),
    "padding_causal": dict(seqlens=True, is_causal=True),
    "bias": dict(bias=(1, 4, 64, 64)),
    "bias_per_batch": dict(bias=(2, 4, 64, 64)),
    "mask": dict(mask=True),
    "gqa": dict(kv_heads=2, is_causal=True),
    "mqa": dict(kv_heads=1),
    "window_causal": dict(is_causal=True, window=(8, 0)),
    "window_left_only": dict(window=(8, 0)),  # causal by its right window of 0
    "window_left_only_padding": dict(window=(8, 0), seqlens=True),
    "fp16": dict(dtype=jnp.float16, is_causal=True),
    "cross_lengths": dict(S=128),
}


@gpu
@pytest.mark.parametrize("name", sorted(GPU_CASES))
def test_gpu_matches_xla(name):
    case = GPU_CASES[name]
    dtype = case.get("dtype", jnp.bfloat16)
    B, T, N, H = 2, 64, 4, 64
    S, K = case.get("S", T), case.get("kv_heads", N)
    rng = np.random.default_rng(0)
    q, k, v = _rand(rng, (B, T, N, H), dtype), _rand(rng, (B, S, K, H), dtype), \
        _rand(rng, (B, S, K, H), dtype)
    bias = _rand(rng, case["bias"], dtype) if "bias" in case else None
    mask = jnp.asarray(rng.random((B, 1, T, S)) < 0.7) if case.get("mask") else None
    lens = dict(query_seq_lengths=jnp.asarray([40, 64], jnp.int32),
                key_value_seq_lengths=jnp.asarray([50, 64], jnp.int32)) \
        if case.get("seqlens") else {}
    ct = _rand(rng, (B, T, N, H), jnp.float32)

    def loss(impl):
        def f(q, k, v, b):
            out = dpa(q, k, v, b, mask, is_causal=case.get("is_causal", False),
                      local_window_size=case.get("window"), implementation=impl, **lens)
            return jnp.sum(out.astype(jnp.float32) * ct), out
        return f

    argnums = (0, 1, 2, 3) if bias is not None else (0, 1, 2)
    results = {impl: minijax.jit(minijax.value_and_grad(loss(impl), argnums, has_aux=True))(
        q, k, v, bias) for impl in ("cudnn", "xla")}
    (_, out), grads = results["cudnn"]
    (_, out_ref), grads_ref = results["xla"]
    tol = 2e-2 if dtype == jnp.bfloat16 else 5e-3
    _close(out, out_ref, tol)
    for g, g_ref in zip(grads, grads_ref):
        _close(g, g_ref, 2 * tol)


@gpu
def test_gpu_vmap_and_grad_with_a_shared_bias():
    rng = np.random.default_rng(1)
    q = _rand(rng, (3, 2, 64, 4, 64), jnp.bfloat16)
    k = _rand(rng, (2, 64, 4, 64), jnp.bfloat16)
    v = _rand(rng, (2, 64, 4, 64), jnp.bfloat16)
    bias = _rand(rng, (1, 4, 64, 64), jnp.bfloat16)

    def per_example(impl):
        def loss(q, b):
            out = dpa(q, k, v, b, is_causal=True, implementation=impl)
            return jnp.sum(out.astype(jnp.float32) ** 2)
        return minijax.jit(minijax.vmap(minijax.grad(loss, argnums=(0, 1)), (0, None)))

    got, want = per_example("cudnn")(q, bias), per_example("xla")(q, bias)
    for g, w in zip(got, want):
        _close(g, w, 4e-2)


@gpu
def test_gpu_eager_call_and_leading_axes_dropped():
    rng = np.random.default_rng(2)
    q, k, v = (_rand(rng, (64, 4, 64), jnp.bfloat16) for _ in range(3))  # no batch axis
    _close(dpa(q, k, v, is_causal=True, implementation="cudnn"),
           dpa(q, k, v, is_causal=True, implementation="xla"), 2e-2)
