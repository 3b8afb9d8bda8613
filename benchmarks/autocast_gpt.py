"""Training-step throughput of the char transformer (examples/char_transformer.py) in f32 and
under ``minijax.transforms.autocast`` (bf16 matmuls, f32 accumulation).

    python benchmarks/autocast_gpt.py --d-model 1024 --layers 8 --heads 16 --context 512 \\
        --batch 16                      # a GPU-sized model
    python benchmarks/autocast_gpt.py --d-model 64 --layers 2 --heads 4 --context 64 --batch 8

The whole step (forward, backward, Adam) is one jitted program; autocast rewrites the
value_and_grad jaxpr, so the backward matmuls are bf16 too. Matmul FLOPs are counted from the
step's jaxpr (2 * M * N * K per dot_general, scan bodies times their length) and divided by the
median step time.
"""

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "examples"))

import _common  # noqa: E402
import char_transformer as ct  # noqa: E402

import minijax  # noqa: E402
from minijax import random, transforms  # noqa: E402


def matmul_flops(closed, times=1):
    total = 0
    for eqn in closed.eqns:
        subs = [s for _, s in transforms.sub_jaxprs(eqn.params)]
        if eqn.primitive.name == "scan":
            total += matmul_flops(subs[0], times * eqn.params["length"])
        elif subs:
            total += max(matmul_flops(s, times) for s in subs)
        elif eqn.primitive.name == "dot_general":
            (lc, _), _ = eqn.params["dimension_numbers"]
            k = math.prod(eqn.invars[0].aval.shape[d] for d in lc)
            total += times * 2 * math.prod(eqn.outvars[0].aval.shape) * k
    return total


def make_step(loss):
    @minijax.jit
    def step(params, opt, x, y):
        value, grads = loss(params, x, y)
        params, opt = _common.adam_update(grads, opt, params, 1e-3)
        return params, opt, value
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d-model", type=int, default=512)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--context", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    ct.D_MODEL, ct.LAYERS, ct.HEADS = args.d_model, args.layers, args.heads
    ct.CONTEXT = args.context
    vocab = 96
    rng = np.random.default_rng(0)
    x = rng.integers(0, vocab, (args.batch, args.context)).astype(np.int32)
    y = rng.integers(0, vocab, (args.batch, args.context)).astype(np.int32)
    print(f"device: {minijax.devices()[0]}; d_model {args.d_model}, layers {args.layers}, heads "
          f"{args.heads}, context {args.context}, batch {args.batch}")
    vg = minijax.value_and_grad(ct.loss_fn)
    for name, loss in (("f32", vg), ("autocast bf16", transforms.autocast(vg))):
        params = ct.init_params(random.PRNGKey(0), vocab)
        opt = _common.adam_init(params)
        step = make_step(loss)
        flops = matmul_flops(minijax.make_jaxpr(step)(params, opt, x, y))
        t0 = time.perf_counter()
        params, opt, value = step(params, opt, x, y)
        value.block_until_ready()
        compile_s = time.perf_counter() - t0
        for _ in range(args.warmup):
            params, opt, value = step(params, opt, x, y)
        value.block_until_ready()
        times = []
        for _ in range(args.steps):
            t0 = time.perf_counter()
            params, opt, value = step(params, opt, x, y)
            value.block_until_ready()
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        print(f"  {name:14s} step {med * 1e3:9.3f} ms  matmul {flops / 1e9:8.2f} GFLOP  "
              f"{flops / med / 1e12:7.3f} TFLOP/s  (first call {compile_s:.1f} s, "
              f"loss {float(value):.3f})")


if __name__ == "__main__":
    main()
