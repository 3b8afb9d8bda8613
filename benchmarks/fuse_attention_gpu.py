"""Automatic attention fusion on a GPU (issue 23): ``gpu_train.py``'s GPT step, side by side.

Runs ``gpu_train.py``'s GPT workload (bf16, d_model 2048, 12 layers, seq 1024, batch 8) in
fresh processes, rounds alternating between the frameworks:

- ``einsum``: the attention written out (einsum, where, softmax). minijax fuses it into cuDNN's
  kernels by itself (``minijax_fuse_attention``, on by default); JAX runs it as written;
- ``einsum_nofuse``: the same, minijax with ``MINIJAX_FUSE_ATTENTION=0`` (minijax only);
- ``cudnn``: both call ``nn.dot_product_attention(..., implementation="cudnn")``.

Besides ``gpu_train.py``'s step time, TFLOP/s and MFU, each process reports
``gpt_bf16_first_call_s``: the first call of the jitted step (trace, lower, compile, one step).

    PYTHONPATH=. python3 benchmarks/fuse_attention_gpu.py --jax-python python3 --rounds 1
"""

from __future__ import annotations

import argparse
import os
import statistics

import gpu_train
import harness

_FIRST_CALL = "def time_steps(step, state, rest, n):\n    state = step(state, *rest)\n"
_TIMED_FIRST_CALL = ("def time_steps(step, state, rest, n):\n"
                     "    t0 = time.perf_counter()\n"
                     "    state = step(state, *rest)\n"
                     "    jax.block_until_ready(state)\n"
                     "    out['gpt_bf16_first_call_s'] = time.perf_counter() - t0\n")
assert _FIRST_CALL in gpu_train.MEASURE
MEASURE = gpu_train.MEASURE.replace(_FIRST_CALL, _TIMED_FIRST_CALL)

CONFIGS = [  # (name, environment, frameworks)
    ("einsum", {}, ("minijax", "jax")),
    ("einsum_nofuse", {"MINIJAX_FUSE_ATTENTION": "0"}, ("minijax",)),
    ("cudnn", {"BENCH_ATTENTION": "cudnn"}, ("minijax", "jax")),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jax-python", required=True)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--configs", default=",".join(c[0] for c in CONFIGS))
    args = ap.parse_args()
    os.environ.update(gpu_train.measure_env(), BENCH_WORKLOADS="gpt")
    wanted = args.configs.split(",")
    pythons = {"minijax": "python3", "jax": args.jax_python}
    results = {}
    base = dict(os.environ)
    for _ in range(args.rounds):
        for name, env, frameworks in CONFIGS:
            if name not in wanted:
                continue
            os.environ.clear()
            os.environ.update(base, **env)
            for fw in frameworks:
                r = harness.run_once(MEASURE, pythons[fw], fw, "gpu")
                results.setdefault((name, fw), []).append(r)
                print(name, fw, r, flush=True)
    os.environ.clear()
    os.environ.update(base)
    med = {key: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
           for key, rs in results.items()}
    print("\n| attention | framework | step ms | TFLOP/s | MFU | first call s |")
    print("|---|---|---:|---:|---:|---:|")
    for (name, fw), m in med.items():
        print(f"| {name} | {fw} | {m['gpt_bf16_step_ms']:.2f} | {m['gpt_bf16_tflops']:.0f} | "
              f"{m.get('gpt_bf16_mfu', float('nan')):.3f} | {m['gpt_bf16_first_call_s']:.1f} |")
    fused = med.get(("einsum", "minijax"))
    for key in [("einsum", "jax"), ("cudnn", "jax"), ("cudnn", "minijax"),
                ("einsum_nofuse", "minijax")]:
        if fused and key in med:
            print(f"minijax einsum (fused) / {key[1]} {key[0]}: step "
                  f"{fused['gpt_bf16_step_ms'] / med[key]['gpt_bf16_step_ms']:.3f}, first call "
                  f"{fused['gpt_bf16_first_call_s'] / med[key]['gpt_bf16_first_call_s']:.3f}")
    if ("cudnn", "minijax") in med and ("cudnn", "jax") in med:
        print(f"explicit cudnn minijax / jax: "
              f"{med[('cudnn', 'minijax')]['gpt_bf16_step_ms'] / med[('cudnn', 'jax')]['gpt_bf16_step_ms']:.3f}")


if __name__ == "__main__":
    main()
