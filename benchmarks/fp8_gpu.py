"""FP8 training steps on a Hopper GPU (issue 23 item 3): bf16 vs ``transforms.fp8.autocast``.

Stages, each printing one JSON line (and appending it to ``--out``):

- ``hlo``: how many cuBLASLt FP8 GEMMs (``__cublas$lt$matmul$f8``) and other GEMMs XLA made
  of the FP8 MLP step (each layer's forward, input gradient and weight gradient should be one);
- ``mlp``: ``gpu_train.py``'s MLP step (batch 8192, widths 4096-8192-8192-8192-1024, relu,
  bf16, SGD), bf16 vs FP8 (all four layers' matmuls), step ms and TFLOP/s (FLOPs as
  ``gpu_train.py`` counts them: the same for both);
- ``gpt``: ``gpu_train.py``'s GPT step (bf16, d_model 2048, 16 heads, 12 layers, seq 1024,
  batch 8, vocab 32000, attention written out and fused by jit into cuDNN, SGD), bf16 vs FP8
  (the 49 weight matmuls: qkv, out, mlp in/out of each block, the head);
- ``profile``: the GPU kernels of 3 steps of each of the MLP's and the GPT's bf16 and FP8
  steps, from a profiler trace: ms per step by kernel (the top ones and the total), and the
  FP8 steps' optimized HLO written into the folder ``BENCH_HLO_DIR`` names, if set;
- ``loss``: the same GPT at ``--loss-size`` trained for ``--steps`` steps with Adam on a
  synthetic task that learns (each next token is a fixed random permutation of the previous
  one with probability 1/2, else uniform: ``loss_floor`` is the best loss), bf16 vs FP8,
  the mean loss of the last 20 steps and their ratio.

Steps are jitted with their state donated; step times are the median of 5 blocks of steps.

    PYTHONPATH=. python3 benchmarks/fp8_gpu.py [--stages hlo,mlp,gpt,loss] [--out f.jsonl]

``BENCH_QUICK=1`` shrinks every model (a CPU smoke test, not a measurement).
"""

from __future__ import annotations

import argparse
import collections
import glob
import gzip
import json
import os
import statistics
import tempfile
import time

import numpy as np

import minijax as jax
import minijax.numpy as jnp
import minijax.profiler
from minijax.transforms import fp8

QUICK = os.environ.get("BENCH_QUICK") == "1"
BF = jnp.bfloat16
tree_map = jax.tree_util.tree_map
FP8_GEMM = "__cublas$lt$matmul$f8"


def time_steps(step, state, rest, n):
    state = step(*state, *rest)
    jax.block_until_ready(state)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            state = step(*state, *rest)
        jax.block_until_ready(state)
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times), state


def sgd_steps(loss, lr):
    """``(bf16 step, fp8 step, fp8 loss)``; the steps map ``(params[, fp8 state], *batch)`` to
    the same (updated)."""
    def update(params, g):
        return tree_map(lambda p, d: p - jnp.asarray(lr, p.dtype) * d, params, g)

    def bf16_step(params, *batch):
        return (update(params, jax.grad(loss)(params, *batch)),)

    fp8_loss = fp8.autocast(loss)

    def fp8_step(params, state, *batch):
        g, state = jax.grad(fp8_loss, argnums=(0, 1))(params, state, *batch)
        return update(params, g), state

    return (jax.jit(bf16_step, donate_argnums=0), jax.jit(fp8_step, donate_argnums=(0, 1)),
            fp8_loss)


# --- MLP (gpu_train.py's)
B, WIDTHS = (256, [128, 256, 256, 256, 64]) if QUICK else (8192, [4096, 8192, 8192, 8192, 1024])


def mlp_setup():
    rng = np.random.default_rng(0)
    params = [(jnp.asarray(rng.normal(size=(m, n)) / np.sqrt(m), BF), jnp.zeros(n, BF))
              for m, n in zip(WIDTHS[:-1], WIDTHS[1:])]
    x = jnp.asarray(rng.normal(size=(B, WIDTHS[0])), BF)
    y = jnp.asarray(rng.normal(size=(B, WIDTHS[-1])), BF)

    def mlp_loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jax.nn.relu(h @ w + b)
        w, b = params[-1]
        return jnp.mean(((h @ w + b) - y).astype(jnp.float32) ** 2)

    mn = [m * n for m, n in zip(WIDTHS[:-1], WIDTHS[1:])]
    return params, (x, y), mlp_loss, 6 * B * sum(mn) - 2 * B * mn[0]


def stage_hlo():
    params, batch, loss, _ = mlp_setup()
    _, fp8_step, fp8_loss = sgd_steps(loss, 0.01)
    state = fp8_loss.init(params, *batch)
    hlo = fp8_step.lower(params, state, *batch).compile().as_text()
    if os.environ.get("BENCH_HLO_OUT"):  # a file for the optimized HLO
        with open(os.environ["BENCH_HLO_OUT"], "w") as f:
            f.write(hlo)
    return {"mlp_fp8_sites": len(state), "mlp_fp8_gemms": hlo.count(FP8_GEMM),
            "mlp_all_gemm_calls": hlo.count("__cublas$")}


def stage_mlp():
    params, batch, loss, flops = mlp_setup()
    bf16_step, fp8_step, fp8_loss = sgd_steps(loss, 0.01)
    out = {}
    state = fp8_loss.init(params, *batch)
    s, (params, state) = time_steps(fp8_step, (params, state), batch, 3 if QUICK else 20)
    out["mlp_fp8_step_ms"], out["mlp_fp8_tflops"] = s * 1e3, flops / s / 1e12
    s, (params,) = time_steps(bf16_step, (params,), batch, 3 if QUICK else 20)
    out["mlp_bf16_step_ms"], out["mlp_bf16_tflops"] = s * 1e3, flops / s / 1e12
    out["mlp_speedup"] = out["mlp_bf16_step_ms"] / out["mlp_fp8_step_ms"]
    return out


# --- GPT (gpu_train.py's)
def gpt_setup(D, HEADS, L, S, BATCH, V, seed=0):
    rng = np.random.default_rng(seed)

    def init(shape, scale):
        return jnp.asarray(rng.normal(size=shape).astype(np.float32) * scale, BF)

    params = dict(
        emb=init((V, D), 0.02), pos=init((S, D), 0.01), lnf=jnp.ones(D, BF),
        head=init((D, V), 0.02),
        blocks=[dict(ln1=jnp.ones(D, BF), ln2=jnp.ones(D, BF), wqkv=init((D, 3 * D), D ** -0.5),
                     wo=init((D, D), D ** -0.5 / np.sqrt(2 * L)), w1=init((D, 4 * D), D ** -0.5),
                     w2=init((4 * D, D), (4 * D) ** -0.5 / np.sqrt(2 * L)))
                for _ in range(L)])

    def layernorm(x, g):
        x32 = x.astype(jnp.float32)
        m = jnp.mean(x32, axis=-1, keepdims=True)
        v = jnp.mean((x32 - m) ** 2, axis=-1, keepdims=True)
        return ((x32 - m) * jax.lax.rsqrt(v + 1e-5)).astype(BF) * g

    causal = np.tril(np.ones((S, S), bool))

    def block(x, p):
        h = layernorm(x, p["ln1"])
        q, k, v = jnp.split(h @ p["wqkv"], 3, axis=-1)
        q, k, v = (t.reshape(BATCH, S, HEADS, D // HEADS) for t in (q, k, v))
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / np.sqrt(D // HEADS)
        s = jnp.where(causal, s, -1e9)
        a = jax.nn.softmax(s, axis=-1).astype(BF)
        o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(BATCH, S, D)
        x = x + o @ p["wo"]
        h = layernorm(x, p["ln2"])
        return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

    def loss(params, inputs, labels):
        x = params["emb"][inputs] + params["pos"]
        for p in params["blocks"]:
            x = block(x, p)
        logits = (layernorm(x, params["lnf"]) @ params["head"]).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))

    n_matmul = L * (D * 3 * D + D * D + 2 * D * 4 * D) + D * V
    T = BATCH * S
    return params, loss, 6 * n_matmul * T + 12 * L * D * S * T


GPT = (64, 4, 2, 32, 2, 256) if QUICK else (2048, 16, 12, 1024, 8, 32000)


def stage_gpt():
    params, loss, flops = gpt_setup(*GPT)
    batch = gpt_batch()
    bf16_step, fp8_step, fp8_loss = sgd_steps(loss, 1e-3)
    out = {}
    state = fp8_loss.init(params, *batch)
    t0 = time.perf_counter()
    s, (params, state) = time_steps(fp8_step, (params, state), batch, 2 if QUICK else 10)
    out["gpt_fp8_sites"] = len(state)
    out["gpt_fp8_step_ms"], out["gpt_fp8_tflops"] = s * 1e3, flops / s / 1e12
    out["gpt_fp8_total_s"] = time.perf_counter() - t0
    s, (params,) = time_steps(bf16_step, (params,), batch, 2 if QUICK else 10)
    out["gpt_bf16_step_ms"], out["gpt_bf16_tflops"] = s * 1e3, flops / s / 1e12
    out["gpt_speedup"] = out["gpt_bf16_step_ms"] / out["gpt_fp8_step_ms"]
    return out


def gpt_batch():
    _, _, _, S, BATCH, V = GPT
    tokens = jnp.asarray(np.random.default_rng(1).integers(0, V, size=(BATCH, S + 1)), jnp.int32)
    return tokens[:, :-1], tokens[:, 1:]


def kernel_times(step, state, rest, n=3, top=25):
    """The GPU kernels of ``n`` steps from a profiler trace, ``{"total": ms per step, "top":
    [[name, ms per step, launches per step], ...]}`` (the ``top`` costliest), and the state."""
    state = step(*state, *rest)
    jax.block_until_ready(state)
    with tempfile.TemporaryDirectory() as d:
        with minijax.profiler.trace(d) as t:
            for _ in range(n):
                state = step(*state, *rest)
            jax.block_until_ready(state)
        (path,) = glob.glob(os.path.join(t.run_dir, "*.trace.json.gz"))
        with gzip.open(path) as f:
            events = json.load(f)["traceEvents"]
    devices = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
               and "GPU" in str(e.get("args", {}).get("name", ""))}
    ms, count = collections.Counter(), collections.Counter()
    for e in events:
        if e.get("ph") == "X" and e.get("pid") in devices:
            ms[e["name"]] += e["dur"] / 1e3 / n
            count[e["name"]] += 1 / n
    return {"total": round(sum(ms.values()), 3),
            "top": [[k[:120], round(v, 3), round(count[k], 1)] for k, v in ms.most_common(top)]
            }, state


def stage_profile():
    out = {}
    hlo_dir = os.environ.get("BENCH_HLO_DIR")
    params, batch, loss, _ = mlp_setup()
    gparams, gloss, _ = gpt_setup(*GPT)
    for name, p, b, f in (("mlp", params, batch, loss), ("gpt", gparams, gpt_batch(), gloss)):
        bf16_step, fp8_step, fp8_loss = sgd_steps(f, 1e-3)
        state = fp8_loss.init(p, *b)
        if hlo_dir:
            with open(os.path.join(hlo_dir, f"{name}_fp8.hlo.txt"), "w") as fh:
                fh.write(fp8_step.lower(p, state, *b).compile().as_text())
        out[f"{name}_fp8_kernels"], (p, _) = kernel_times(fp8_step, (p, state), b)
        out[f"{name}_bf16_kernels"], _ = kernel_times(bf16_step, (p,), b)
    return out


def synthetic_batches(V, S, BATCH, steps, seed=2):
    """Next token = perm[previous] with probability 1/2, else uniform."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(V)
    toks = np.empty((steps, BATCH, S + 1), np.int32)
    toks[:, :, 0] = rng.integers(0, V, size=(steps, BATCH))
    for t in range(1, S + 1):
        follow = rng.random((steps, BATCH)) < 0.5
        toks[:, :, t] = np.where(follow, perm[toks[:, :, t - 1]],
                                 rng.integers(0, V, size=(steps, BATCH)))
    return toks


def adam(lr=1e-3, b1=0.9, b2=0.95, eps=1e-8):
    def init(params):
        z = tree_map(lambda p: jnp.zeros(p.shape, jnp.float32), params)
        return (z, z, jnp.zeros((), jnp.float32))

    def update(params, g, opt):
        m, v, t = opt
        t = t + 1
        m = tree_map(lambda m, g: b1 * m + (1 - b1) * g.astype(jnp.float32), m, g)
        v = tree_map(lambda v, g: b2 * v + (1 - b2) * jnp.square(g.astype(jnp.float32)), v, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        params = tree_map(lambda p, m, v: (p.astype(jnp.float32) - lr * (m / c1) / (
            jnp.sqrt(v / c2) + eps)).astype(p.dtype), params, m, v)
        return params, (m, v, t)

    return init, update


def stage_loss(size, steps):
    D, HEADS, L, S, BATCH, V = size
    data = synthetic_batches(V, S, BATCH, steps)
    opt_init, opt_update = adam()
    p1, p2 = 0.5 + 0.5 / V, 0.5 / V  # the next token's distribution given the previous
    out = {"loss_size": list(size), "loss_steps": steps,
           "loss_floor": float(-p1 * np.log(p1) - (V - 1) * p2 * np.log(p2))}
    for mode in ("bf16", "fp8"):
        params, loss, _ = gpt_setup(*size, seed=0)
        opt = opt_init(params)
        if mode == "bf16":
            @jax.jit
            def step(params, opt, toks):
                val, g = jax.value_and_grad(loss)(params, toks[:, :-1], toks[:, 1:])
                params, opt = opt_update(params, g, opt)
                return params, opt, val
            carry = (params, opt)
        else:
            fp8_loss = fp8.autocast(loss)

            @jax.jit
            def step(params, opt, state, toks):
                val, (g, state) = jax.value_and_grad(fp8_loss, argnums=(0, 1))(
                    params, state, toks[:, :-1], toks[:, 1:])
                params, opt = opt_update(params, g, opt)
                return params, opt, state, val
            carry = (params, opt, fp8_loss.init(params, data[0, :, :-1], data[0, :, 1:]))
        losses = []
        t0 = time.perf_counter()
        for i in range(steps):
            *carry, val = step(*carry, jnp.asarray(data[i]))
            losses.append(val)
        losses = [float(v) for v in losses]
        out[f"loss_{mode}_first"] = losses[0]
        out[f"loss_{mode}_last20"] = float(np.mean(losses[-20:]))
        out[f"loss_{mode}_s"] = time.perf_counter() - t0
        out[f"loss_{mode}_curve"] = [round(v, 4) for v in losses[::25]]
    out["loss_ratio"] = out["loss_fp8_last20"] / out["loss_bf16_last20"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stages", default="hlo,mlp,gpt,loss")
    ap.add_argument("--out", default=None)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--loss-size", default="64,4,2,32,4,256" if QUICK else
                    "1024,8,4,256,16,4096", help="D,HEADS,L,S,BATCH,V")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.loss_size.split(","))
    dev = jax.devices()[0]
    print(json.dumps({"device": getattr(dev, "device_kind", str(dev))}), flush=True)
    for stage in args.stages.split(","):
        t0 = time.perf_counter()
        r = stage_loss(size, args.steps) if stage == "loss" else globals()[f"stage_{stage}"]()
        r = {"stage": stage, "stage_s": round(time.perf_counter() - t0, 1), **r}
        line = json.dumps(r)
        print(line, flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(line + "\n")


if __name__ == "__main__":
    main()
