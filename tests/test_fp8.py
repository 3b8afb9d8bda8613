"""FP8 matmuls with delayed scaling (``minijax/transforms/fp8.py``).

On the CPU (XLA emulates the FP8 converts): which matmuls become FP8 and the shape of what
they become in the jaxpr; the forward and both gradients against the same quantization done in
NumPy with ml_dtypes; the amax-history and scale update against its definition; a small MLP's
loss and gradients within FP8 tolerance of f32 once the scales have warmed up. The test marked
``gpu`` (``MINIJAX_TEST_GPU=1``) checks that XLA makes cuBLASLt FP8 GEMMs of the program.
"""

import os

import ml_dtypes
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.transforms import find_eqns, fp8

ON_GPU = os.environ.get("MINIJAX_TEST_GPU") == "1"
H = 4  # amax history length
RNG = np.random.default_rng(0)
X = RNG.normal(size=(8, 16)).astype(np.float32)
W = (RNG.normal(size=(16, 32)) / 4).astype(np.float32)
C = RNG.normal(size=(8, 32)).astype(np.float32)  # the output's cotangent: loss = sum(y * C)
E4M3, E5M2 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2


def one_matmul(x, w):
    return jnp.sum((x @ w) * C)


def _qdq(a, scale, fmt):
    fmax = float(ml_dtypes.finfo(fmt).max)
    return np.clip(a / scale, -fmax, fmax).astype(fmt).astype(np.float32) * scale


def _state(sx, sw, sg):
    return [{k: {"amax_history": np.zeros(H, np.float32), "scale": np.float32(s)}
             for k, s in (("x", sx), ("w", sw), ("g", sg))}]


def test_sites_are_weight_matmuls():
    def attention_like(x, w):
        h = x @ w  # a site: w is an input
        s = h @ h.T  # two computed values: stays as written
        return jnp.sum(s @ h) + jnp.sum(x.T @ x)  # x.T is an input through a transpose

    closed = minijax.make_jaxpr(attention_like)(X, W)
    dots = [i for i, e in enumerate(closed.jaxpr.eqns) if e.primitive.name == "dot_general"]
    assert len(dots) == 4
    assert fp8.find_sites(closed) == [dots[0], dots[3]]
    assert len(fp8.autocast(attention_like, history_length=H).init(X, W)) == 2


def test_jaxpr_structure_forward_and_backward():
    f = fp8.autocast(one_matmul, history_length=H)
    state = f.init(X, W)
    fwd = minijax.make_jaxpr(f)(X, state, W)
    (call,) = [e for e in find_eqns(fwd, "custom_vjp_call")  # the matmul's, not the state hold
               if find_eqns(e.params["call_jaxpr"], "dot_general")]
    body = call.params["call_jaxpr"]
    converts = [e.params["new_dtype"] for e in find_eqns(body, "convert_element_type")]
    assert converts.count(np.dtype(E4M3)) == 2 and np.dtype(E5M2) not in converts
    (dot,) = find_eqns(body, "dot_general")
    # both operands dequantized in f32 and contracted on their minor axis ("NT")
    assert dot.params["dimension_numbers"] == (((1,), (1,)), ((), ()))
    assert dot.params["preferred_element_type"] == np.float32
    assert [a.aval.dtype for a in dot.invars] == [np.float32, np.float32]
    (tr,) = find_eqns(body, "transpose")
    assert tr.invars[0].aval.dtype == E4M3  # the weight is transposed in FP8
    assert not find_eqns(fwd, "dot_general") or all(
        e in find_eqns(body, "dot_general") for e in find_eqns(fwd, "dot_general"))

    grad = minijax.make_jaxpr(minijax.grad(f, argnums=(0, 1, 2)))(X, state, W)
    converts = [e.params["new_dtype"] for e in find_eqns(grad, "convert_element_type")]
    assert np.dtype(E5M2) in converts
    # every backward product reads operands dequantized in f32
    for e in find_eqns(grad, "dot_general"):
        assert [a.aval.dtype for a in e.invars] == [np.float32, np.float32]


# The NumPy references multiply the dequantized values exactly in f32. On a Hopper GPU, XLA
# runs these products as cuBLASLt FP8 GEMMs (padded to 16 rows), whose tensor cores accumulate
# with fewer bits than f32: 1.4e-4 relative off on an H100, with the quantized operands equal
# bit for bit to NumPy's.
FP8_GEMM_RTOL = 5e-4 if ON_GPU else 1e-5


def test_forward_and_gradients_match_numpy_quantization():
    sx, sw, sg = 0.01, 0.004, 0.02
    f = fp8.autocast(one_matmul, history_length=H)
    state = _state(sx, sw, sg)
    xd, wd, gd = _qdq(X, sx, E4M3), _qdq(W, sw, E4M3), _qdq(C, sg, E5M2)
    out, (dx, new_state, dw) = minijax.jit(minijax.value_and_grad(f, argnums=(0, 1, 2)))(
        X, state, W)
    np.testing.assert_allclose(out, np.sum((xd @ wd) * C), rtol=FP8_GEMM_RTOL)
    np.testing.assert_allclose(dx, gd @ wd.T, rtol=FP8_GEMM_RTOL, atol=1e-6)
    np.testing.assert_allclose(dw, xd.T @ gd, rtol=FP8_GEMM_RTOL, atol=1e-6)
    # inference: the forward alone, at the state's scales
    np.testing.assert_allclose(f(X, state, W), np.sum((xd @ wd) * C), rtol=FP8_GEMM_RTOL)
    # the quantization is real: f32 differs by more than rounding
    assert abs(float(out) - np.sum((X @ W) * C)) > 1e-4 * abs(np.sum((X @ W) * C))


def test_backward_matmuls_take_the_default_precision_as_the_forward_does():
    # on a GPU, precision "highest" is what keeps f32 matmuls out of TF32
    f = fp8.autocast(one_matmul, history_length=H)
    with minijax.default_matmul_precision("highest"):
        grad = minijax.make_jaxpr(minijax.grad(f, argnums=(0, 1, 2)))(X, f.init(X, W), W)
    dots = find_eqns(grad, "dot_general")
    assert len(dots) == 3
    assert all(e.params["precision"] == (minijax.lax.Precision.HIGHEST,) * 2 for e in dots)


def test_quantized_operands_are_materialized_behind_a_barrier():
    # XLA's GPU compiler otherwise fuses the quantizing and dequantizing converts into the dot
    # and computes other numbers than the FP8 round trip (3% off on an H200, real JAX alike)
    f = fp8.autocast(one_matmul, history_length=H)
    (call,) = [e for e in find_eqns(minijax.make_jaxpr(f)(X, f.init(X, W), W), "custom_vjp_call")
               if find_eqns(e.params["call_jaxpr"], "dot_general")]
    barriers = find_eqns(call.params["call_jaxpr"], "optimization_barrier")
    assert sorted(str(e.outvars[0].aval.dtype) for e in barriers) == ["float8_e4m3fn"] * 2


def test_amax_history_and_scale_update():
    f = minijax.jit(minijax.grad(fp8.autocast(one_matmul, history_length=H), argnums=1))
    state = _state(1.0, 1.0, 1.0)
    seen = {"x": [], "w": [], "g": []}
    fmax = {"x": 448.0, "w": 448.0, "g": 57344.0}
    for k in (1.0, 3.0, 0.5, 2.0, 0.25, 1.0):
        state = f(X * k, state, W * k)
        for name, a in (("x", X * k), ("w", W * k), ("g", C)):
            seen[name].insert(0, np.abs(a).max())
            hist = np.array((seen[name] + [0.0] * H)[:H], np.float32)
            np.testing.assert_allclose(state[0][name]["amax_history"], hist, rtol=1e-6)
            np.testing.assert_allclose(state[0][name]["scale"], hist.max() / fmax[name],
                                       rtol=1e-6)
    # the 3.0 step has left the history (length 4): the scale follows the newer maxima
    assert float(state[0]["x"]["scale"]) == pytest.approx(2.0 * np.abs(X).max() / 448.0)


def test_update_keeps_scale_on_empty_or_nonfinite_history():
    meta = {"amax_history": np.zeros(H, np.float32), "scale": np.float32(0.5)}
    new = minijax.jit(fp8.update_meta, static_argnums=2)(meta, np.float32(0.0), fp8.E4M3)
    assert float(new["scale"]) == 0.5
    new = minijax.jit(fp8.update_meta, static_argnums=2)(meta, np.float32(np.inf), fp8.E4M3)
    assert float(new["scale"]) == 0.5


def test_dead_and_stopped_matmuls_keep_a_usable_state():
    def f(x, w):
        dead = x @ w  # noqa: F841 - never read: not a site
        stopped = minijax.lax.stop_gradient(x @ w)  # no gradient: its state comes back as it was
        return jnp.sum(stopped) + one_matmul(x, w)

    g = fp8.autocast(f, history_length=H)
    state = g.init(X, W)
    assert len(state) == 2
    state = minijax.jit(minijax.grad(g, argnums=1))(X, state, W)
    assert float(state[0]["x"]["scale"]) == 1.0  # init's, unchanged
    np.testing.assert_array_equal(state[0]["g"]["amax_history"], np.zeros(H, np.float32))
    sx, sw = float(state[1]["x"]["scale"]), float(state[1]["w"]["scale"])
    assert sx == pytest.approx(np.abs(X).max() / 448.0)
    expected = (np.sum(_qdq(X, 1.0, E4M3) @ _qdq(W, 1.0, E4M3))  # the stopped site's scale 1
                + np.sum((_qdq(X, sx, E4M3) @ _qdq(W, sw, E4M3)) * C))
    np.testing.assert_allclose(minijax.jit(g)(X, state, W), expected, rtol=FP8_GEMM_RTOL)


def _mlp_loss(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = minijax.nn.relu(h @ w + b)
    w, b = params[-1]
    return jnp.mean((h @ w + b - y) ** 2)


def test_mlp_loss_and_grads_within_fp8_tolerance_of_f32():
    widths = [16, 32, 32, 8]
    params = [(jnp.asarray(RNG.normal(size=(m, n)) / np.sqrt(m), jnp.float32),
               jnp.zeros(n, jnp.float32)) for m, n in zip(widths[:-1], widths[1:])]
    x, y = X, RNG.normal(size=(8, 8)).astype(np.float32)
    f = fp8.autocast(_mlp_loss, history_length=H)
    state = f.init(params, x, y)
    assert len(state) == 3
    step = minijax.jit(minijax.value_and_grad(f, argnums=(0, 1)))
    for _ in range(2):  # the first step runs at scale 1; it sets the scales for the next
        loss, (grads, state) = step(params, state, x, y)
    ref_loss, ref_grads = minijax.value_and_grad(_mlp_loss)(params, x, y)
    np.testing.assert_allclose(loss, ref_loss, rtol=0.05)
    for (gw, gb), (rw, rb) in zip(grads, ref_grads):
        for g, r in ((gw, rw), (gb, rb)):
            g, r = np.ravel(g), np.ravel(r)
            cos = g @ r / (np.linalg.norm(g) * np.linalg.norm(r))
            assert cos > 0.99, cos
            np.testing.assert_allclose(np.linalg.norm(g), np.linalg.norm(r), rtol=0.1)


def test_bf16_model_keeps_its_dtypes():
    x, w = jnp.asarray(X, jnp.bfloat16), jnp.asarray(W, jnp.bfloat16)
    f = fp8.autocast(lambda x, w: jnp.sum((x @ w).astype(jnp.float32)), history_length=H)
    state = f.init(x, w)
    dx, st, dw = minijax.grad(f, argnums=(0, 1, 2))(x, state, w)
    assert dx.dtype == dw.dtype == jnp.bfloat16
    assert st[0]["g"]["amax_history"].dtype == np.float32


def test_bf16_matmuls_dequantize_in_bf16_and_write_bf16():
    # cuBLASLt has no f32 x f32 -> bf16 GEMM: only bf16-dequantized operands let XLA's FP8
    # GEMM write bf16 itself, with no f32 result and cast pass
    x, w = jnp.asarray(X, jnp.bfloat16), jnp.asarray(W, jnp.bfloat16)
    # a bf16 cotangent: XLA's GPU compiler drops an f32 -> bf16 -> f32 round trip (excess
    # precision), so the product's cotangent is C itself there, bf16(C) on the CPU
    ct = C.astype(ml_dtypes.bfloat16).astype(np.float32)
    f = fp8.autocast(lambda x, w: jnp.sum((x @ w).astype(jnp.float32) * ct), history_length=H)
    state = _state(0.01, 0.004, 0.02)  # none of them a bf16 number
    grad = minijax.make_jaxpr(minijax.value_and_grad(f, argnums=(0, 2)))(x, state, w)
    dots = find_eqns(grad, "dot_general")
    assert len(dots) == 3
    for e in dots:
        assert [a.aval.dtype for a in e.invars] == [jnp.bfloat16] * 2
        assert e.params["preferred_element_type"] == jnp.bfloat16
    # quantized at each scale, dequantized at the scale rounded to bf16 (the CPU also rounds
    # each dequantized value and the output to bf16)
    xd, wd, gd = (_qdq(np.asarray(a, np.float32), s, fmt) * float(ml_dtypes.bfloat16(s)) / s
                  for a, s, fmt in ((x, 0.01, E4M3), (w, 0.004, E4M3), (ct, 0.02, E5M2)))
    # elementwise: a sum like the loss cancels, magnifying bf16's rounding
    y = minijax.jit(fp8.autocast(lambda x, w: x @ w, history_length=H))(x, state, w)
    _, (dx, dw) = minijax.jit(minijax.value_and_grad(f, argnums=(0, 2)))(x, state, w)
    for got, ref in ((y, xd @ wd), (dx, gd @ wd.T), (dw, xd.T @ gd)):
        assert got.dtype == jnp.bfloat16
        np.testing.assert_allclose(np.asarray(got, np.float32), ref, atol=1e-2 * np.abs(ref).max())


def test_wrong_state_is_an_error():
    f = fp8.autocast(one_matmul, history_length=H)
    with pytest.raises(ValueError, match="1 FP8 matmuls"):
        f(X, [], W)


@pytest.mark.skipif(not ON_GPU, reason="XLA's GEMM rewriter: MINIJAX_TEST_GPU=1 on a Hopper GPU")
def test_xla_emits_cublaslt_fp8_gemms():
    # benchmarks/fp8_gpu.py's MLP at a quarter of its widths: at much smaller sizes XLA gives
    # no GEMM to cuBLAS at all; a loss like sum(x @ w) would let XLA's simplifier reduce the
    # product away
    widths, batch = (1024, 2048, 2048, 2048, 256), 2048
    params = [(jnp.asarray(RNG.normal(size=(m, n)) / np.sqrt(m), jnp.bfloat16),
               jnp.zeros(n, jnp.bfloat16)) for m, n in zip(widths[:-1], widths[1:])]
    x = jnp.asarray(RNG.normal(size=(batch, widths[0])), jnp.bfloat16)
    y = jnp.asarray(RNG.normal(size=(batch, widths[-1])), jnp.bfloat16)
    f = fp8.autocast(_mlp_loss, history_length=H)
    step = minijax.jit(minijax.grad(f, argnums=(0, 1)))
    hlo = step.lower(params, f.init(params, x, y), x, y).compile().as_text()
    fp8_gemms = hlo.count('custom_call_target="__cublas$lt$matmul$f8"')
    # 4 forwards, 4 weight gradients, 3 input gradients, none left in bf16/f32
    assert fp8_gemms >= 10, fp8_gemms
    assert hlo.count('custom_call_target="__cublas$') == fp8_gemms
