"""GPU training steps with achieved TFLOP/s and MFU (issue 9): an MLP step and a GPT step.

- ``mlp_{f32,bf16}_*``: batch 8192, widths 4096 -> 8192 -> 8192 -> 8192 -> 1024, relu, mean
  squared loss, SGD; parameters and activations in the named dtype (f32 matmuls run as XLA's
  default precision, i.e. TF32 on H100, as in JAX). FLOPs: forward 2*B*sum(m*n), backward twice
  that less the input gradient of the first layer (not needed): 6*B*sum(m*n) - 2*B*m0*n0.
- ``gpt_bf16_*``: a GPT-style decoder in bf16 (parameters, activations; layernorm, softmax and
  the cross-entropy in f32), d_model 2048, 16 heads, 12 layers, MLP 4x, sequence 1024, batch 8,
  vocab 32000, learned positions, untied output head, causal attention written out (einsum,
  mask, softmax), SGD. FLOPs per step as PaLM's MFU counts them: 6*N*T + 12*L*d*S*T (N the
  matmul parameters, T = batch*seq tokens; the attention scores and values counted in full).

Each step is one jit with the parameters donated; ``*_step_ms`` is the median of 5 blocks of
steps ending in ``block_until_ready``; ``*_tflops`` = FLOPs / step time; ``*_mfu`` = TFLOP/s /
peak, the peak from ``BENCH_PEAK_TFLOPS`` (bf16; f32 uses half of it, TF32 dense) or from the
device-kind table below (dense spec figures, not measured: the issue measured ~800 TFLOP/s of
bf16 matmul on an H100 SXM, so an MFU of 0.8 is about the ceiling).

``BENCH_PROFILE_DIR=dir`` also traces 3 steps of each workload with the profiler
(``dir/<framework>_<workload>``); ``benchmarks/kernel_table.py`` then compares the two
frameworks' device kernels.

``BENCH_WORKLOADS=gpt`` (or ``mlp``) runs one of the two.

``BENCH_ATTENTION=cudnn`` (or ``xla``) computes the GPT step's attention with
``jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation=...)`` instead of
writing it out: ``cudnn`` is XLA's cuDNN fused (flash) attention kernel.

``BENCH_QUICK=1`` shrinks both models to a few hundred wide so the code runs on a CPU in
seconds (smoke tests of the workload, not measurements).

    python benchmarks/gpu_train.py --platform gpu [--jax-python python3] [--rounds 3]
"""

from __future__ import annotations

import os
import sys

import harness  # benchmarks/harness.py (the script's own folder is on sys.path)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "examples"))
from _common import PEAK_TFLOPS  # noqa: E402 - one table of GPU peaks (the examples' MFU too)

MEASURE = r'''
import json, os, statistics, sys, time
FRAMEWORK = sys.argv[1]
if FRAMEWORK == "jax":
    import jax, jax.numpy as jnp
else:
    import minijax as jax, minijax.numpy as jnp
import numpy as np

QUICK = os.environ.get("BENCH_QUICK") == "1"
WORKLOADS = os.environ.get("BENCH_WORKLOADS", "mlp,gpt").split(",")
ATTENTION = os.environ.get("BENCH_ATTENTION")  # None: attention written out
PEAKS = json.loads(os.environ.get("BENCH_PEAK_TABLE", "{}"))
tree_map = jax.tree_util.tree_map
device = jax.devices()[0]
kind = getattr(device, "device_kind", "")

def peak(dtype):
    if os.environ.get("BENCH_PEAK_TFLOPS"):
        bf16 = float(os.environ["BENCH_PEAK_TFLOPS"])
        return bf16 if dtype == "bf16" else bf16 / 2
    for name, (bf16, tf32) in PEAKS.items():
        if name in kind:
            return bf16 if dtype == "bf16" else tf32
    return float("nan")

def time_steps(step, state, rest, n):
    state = step(state, *rest)
    jax.block_until_ready(state)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            state = step(state, *rest)
        jax.block_until_ready(state)
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times), state  # the state: the donated input is gone

def profile_steps(name, step, state, rest):
    """With ``BENCH_PROFILE_DIR`` set, 3 more steps under the profiler into
    ``$BENCH_PROFILE_DIR/<framework>_<name>`` (compare with benchmarks/kernel_table.py)."""
    root = os.environ.get("BENCH_PROFILE_DIR")
    if not root:
        return state
    with jax.profiler.trace(os.path.join(root, f"{FRAMEWORK}_{name}")):
        for _ in range(3):
            state = step(state, *rest)
        jax.block_until_ready(state)
    return state

out = {}

def report(name, seconds, flops, dtype):
    tflops = flops / seconds / 1e12
    out[name + "_step_ms"] = seconds * 1e3
    out[name + "_tflops"] = tflops
    if peak(dtype) == peak(dtype):  # known (not NaN): no MFU without a peak
        out[name + "_mfu"] = tflops / peak(dtype)

# --- MLP
B, WIDTHS = (256, [128, 256, 256, 256, 64]) if QUICK else (8192, [4096, 8192, 8192, 8192, 1024])
rng = np.random.default_rng(0)
for dname, dtype in (("f32", jnp.float32), ("bf16", jnp.bfloat16)) if "mlp" in WORKLOADS else ():
    params = [(jnp.asarray(rng.normal(size=(m, n)) / np.sqrt(m), dtype), jnp.zeros(n, dtype))
              for m, n in zip(WIDTHS[:-1], WIDTHS[1:])]
    x = jnp.asarray(rng.normal(size=(B, WIDTHS[0])), dtype)
    y = jnp.asarray(rng.normal(size=(B, WIDTHS[-1])), dtype)

    def mlp_loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jax.nn.relu(h @ w + b)
        w, b = params[-1]
        return jnp.mean(((h @ w + b) - y).astype(jnp.float32) ** 2)

    def mlp_step(params, x, y):
        g = jax.grad(mlp_loss)(params, x, y)
        return tree_map(lambda p, d: p - jnp.asarray(0.01, p.dtype) * d, params, g)

    mn = [m * n for m, n in zip(WIDTHS[:-1], WIDTHS[1:])]
    flops = 6 * B * sum(mn) - 2 * B * mn[0]
    step = jax.jit(mlp_step, donate_argnums=0)
    seconds, params = time_steps(step, params, (x, y), 3 if QUICK else 20)
    report(f"mlp_{dname}", seconds, flops, dname)
    params = profile_steps(f"mlp_{dname}", step, params, (x, y))
    del params, step

# --- GPT
if "gpt" in WORKLOADS:
    if QUICK:
        D, HEADS, L, S, BATCH, V = 64, 4, 2, 32, 2, 256
    else:
        D, HEADS, L, S, BATCH, V = 2048, 16, 12, 1024, 8, 32000
    BF = jnp.bfloat16

    def init(shape, scale):
        return jnp.asarray(rng.normal(size=shape).astype(np.float32) * scale, BF)

    gpt = dict(
        emb=init((V, D), 0.02), pos=init((S, D), 0.01), lnf=jnp.ones(D, BF),
        head=init((D, V), 0.02),
        blocks=[dict(ln1=jnp.ones(D, BF), ln2=jnp.ones(D, BF), wqkv=init((D, 3 * D), D ** -0.5),
                     wo=init((D, D), D ** -0.5 / np.sqrt(2 * L)), w1=init((D, 4 * D), D ** -0.5),
                     w2=init((4 * D, D), (4 * D) ** -0.5 / np.sqrt(2 * L)))
                for _ in range(L)])
    tokens = jnp.asarray(rng.integers(0, V, size=(BATCH, S + 1)), jnp.int32)
    inputs, labels = tokens[:, :-1], tokens[:, 1:]

    def layernorm(x, g):
        x32 = x.astype(jnp.float32)
        m = jnp.mean(x32, axis=-1, keepdims=True)
        v = jnp.mean((x32 - m) ** 2, axis=-1, keepdims=True)
        return ((x32 - m) * jax.lax.rsqrt(v + 1e-5)).astype(BF) * g

    causal = np.tril(np.ones((S, S), bool))

    def gpt_block(x, p):
        h = layernorm(x, p["ln1"])
        q, k, v = jnp.split(h @ p["wqkv"], 3, axis=-1)
        q, k, v = (t.reshape(BATCH, S, HEADS, D // HEADS) for t in (q, k, v))
        if ATTENTION:
            o = jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation=ATTENTION)
            o = o.reshape(BATCH, S, D)
        else:
            s = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / np.sqrt(D // HEADS)
            s = jnp.where(causal, s, -1e9)
            a = jax.nn.softmax(s, axis=-1).astype(BF)
            o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(BATCH, S, D)
        x = x + o @ p["wo"]
        h = layernorm(x, p["ln2"])
        return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

    def gpt_loss(params, inputs, labels):
        x = params["emb"][inputs] + params["pos"]
        for p in params["blocks"]:
            x = gpt_block(x, p)
        logits = (layernorm(x, params["lnf"]) @ params["head"]).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))

    def gpt_step(params, inputs, labels):
        g = jax.grad(gpt_loss)(params, inputs, labels)
        return tree_map(lambda p, d: p - jnp.asarray(1e-3, p.dtype) * d, params, g)

    n_matmul = L * (D * 3 * D + D * D + 2 * D * 4 * D) + D * V
    T = BATCH * S
    flops = 6 * n_matmul * T + 12 * L * D * S * T
    step = jax.jit(gpt_step, donate_argnums=0)
    seconds, gpt = time_steps(step, gpt, (inputs, labels), 2 if QUICK else 10)
    report("gpt_bf16", seconds, flops, "bf16")
    gpt = profile_steps("gpt_bf16", step, gpt, (inputs, labels))

print(json.dumps(out))
'''


def measure_env():
    """The environment ``MEASURE`` reads the device-kind peak table from."""
    import json

    return {"BENCH_PEAK_TABLE": json.dumps(PEAK_TFLOPS)}


if __name__ == "__main__":
    os.environ.update(measure_env())
    harness.main(MEASURE)
