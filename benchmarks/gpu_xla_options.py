"""XLA options for minijax's GPU compiles (issue 23): a sweep on the fused einsum GPT step.

Runs ``fuse_attention_gpu.py``'s program (``gpu_train.py``'s GPT step with the attention written
out, which minijax fuses into cuDNN's kernels; step time, TFLOP/s, MFU and the first call:
trace, lower, compile and one step) with minijax only, one fresh process per XLA option set
(``XLA_FLAGS`` is read once per process), the sets alternating within each repeat so that all
see the same machine. Before the sweep, one CPU-only process parses every candidate flag: XLA
aborts on an unknown flag and names it, so a set with a flag this jaxlib lacks is skipped and
reported instead of run.

Each run appends one JSON line to ``--out``; the table gives, per set, the median step time,
the step time / the ``base`` set's step time of the same repeat (per repeat, then the median),
and the first call.

    PYTHONPATH=. python3 benchmarks/gpu_xla_options.py --platform gpu --repeats 2 \
        --out benchmarks/results/gpu_xla_options.jsonl

``BENCH_QUICK=1 ... --platform cpu`` runs the same code on a CPU in seconds (a smoke test).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import fuse_attention_gpu
import gpu_train
import harness

# (name, XLA flags). ``base`` is minijax's own default (lowering/backends.py GPU_XLA_OPTIONS: GEMMs
# through cuBLAS); each other set changes one thing. ``triton_gemms`` is XLA's (and JAX's) default.
CANDIDATES = [
    ("base", ""),
    ("triton_gemms", "--xla_gpu_enable_triton_gemm=true"),
    ("cublaslt", "--xla_gpu_enable_cublaslt=true"),
    ("cudnn_gemm_fusion_2", "--xla_gpu_cudnn_gemm_fusion_level=2"),
    ("command_buffers_all", "--xla_gpu_enable_command_buffer=FUSION,CUBLAS,CUBLASLT,CUSTOM_CALL,"
                            "CUDNN"),
    ("no_command_buffers", "--xla_gpu_enable_command_buffer="),
    ("cudnn_layer_norm", "--xla_gpu_enable_cudnn_layer_norm=true"),
    ("latency_hiding", "--xla_gpu_enable_latency_hiding_scheduler=true"),
    ("no_split_k", "--xla_gpu_enable_split_k_autotuning=false"),
]

# The GPT parameters drawn in float32 (the measured program is the same; its time does not depend
# on the values): 4x less host time per process than gpu_train.py's float64 draws.
_F64_INIT = "rng.normal(size=shape).astype(np.float32) * scale"
assert _F64_INIT in fuse_attention_gpu.MEASURE
MEASURE = fuse_attention_gpu.MEASURE.replace(
    _F64_INIT, "rng.standard_normal(size=shape, dtype=np.float32) * np.float32(scale)")

_PARSE_ONLY = ("import minijax, minijax.numpy as jnp; "
               "print(minijax.jit(lambda x: x + 1)(jnp.ones(2)))")
_UNKNOWN = re.compile(r"Unknown flags? in XLA_FLAGS: (.*)")


def _flag_names(flags):
    return [f.split("=", 1)[0] for f in flags.split()]


def unknown_flags(python):
    """The candidate flags this jaxlib does not know (one CPU process; XLA names them all)."""
    first = {}
    for _, flags in CANDIDATES:
        for f in flags.split():
            first.setdefault(f.split("=", 1)[0], f)
    env = dict(os.environ, XLA_FLAGS=" ".join(first.values()), MINIJAX_PLATFORMS="cpu",
               JAX_PLATFORMS="cpu", PYTHONPATH=harness.REPO)
    res = subprocess.run([python, "-c", _PARSE_ONLY], capture_output=True, text=True, env=env)
    m = _UNKNOWN.search(res.stderr)
    if res.returncode != 0 and not m:
        raise RuntimeError(f"the flag check failed:\n{res.stderr[-2000:]}")
    return set(_flag_names(m.group(1))) if m else set()


def run_config(python, flags, platform_name, timeout):
    """One fresh minijax process of the GPT step under ``flags`` (added to any XLA_FLAGS)."""
    gpu = platform_name in ("gpu", "cuda")
    env = dict(os.environ, MINIJAX_PLATFORMS="gpu" if gpu else "cpu",
               JAX_PLATFORMS="cuda" if gpu else "cpu", PYTHONPATH=harness.REPO,
               XLA_FLAGS=" ".join(filter(None, [os.environ.get("XLA_FLAGS", ""), flags])))
    try:
        res = subprocess.run([python, "-c", MEASURE, "minijax"],
                             capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    if res.returncode != 0:
        return {"error": res.stderr.strip()[-500:]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--platform", default="gpu", choices=["cpu", "gpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--configs", default=",".join(name for name, _ in CANDIDATES))
    ap.add_argument("--timeout", type=float, default=150.0, help="seconds per process")
    ap.add_argument("--out", default=None, help="append one JSON line per run here")
    ap.add_argument("--deadline", type=float, default=None,
                    help="start no run after this many seconds (the table shows those done)")
    args = ap.parse_args()
    os.environ.update(gpu_train.measure_env(), BENCH_WORKLOADS="gpt")
    python = sys.executable
    wanted = args.configs.split(",")
    configs = [(n, f) for n, f in CANDIDATES if n in wanted]
    unknown = unknown_flags(python)
    for name, flags in configs:
        if unknown & set(_flag_names(flags)):
            print(f"skipped {name}: this jaxlib has no {sorted(unknown & set(_flag_names(flags)))}")
    configs = [(n, f) for n, f in configs if not unknown & set(_flag_names(f))]
    runs = []
    start = time.perf_counter()
    for repeat, (name, flags) in itertools.product(range(args.repeats), configs):
        if args.deadline is not None and time.perf_counter() - start > args.deadline:
            print(f"deadline: {name} of repeat {repeat} and the runs after it not started")
            break
        r = run_config(python, flags, args.platform, args.timeout)
        r.update(config=name, flags=flags, repeat=repeat)
        runs.append(r)
        print(json.dumps(r), flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(r) + "\n")
    print(f"\nmachine: {platform.node()}, platform {args.platform}, "
          f"{args.repeats} repeats, processes alternating")
    print("| XLA options | flags | step ms (each repeat) | / base (each repeat) | TFLOP/s "
          "| first call s (each repeat) |")
    print("|---|---|---:|---:|---:|---:|")
    base = {r["repeat"]: r["gpt_bf16_step_ms"] for r in runs
            if r["config"] == "base" and "error" not in r}
    for name, flags in configs:
        mine = [r for r in runs if r["config"] == name]
        ok = [r for r in mine if "error" not in r]
        if not ok:
            print(f"| {name} | `{flags}` | failed: {mine[0]['error'][-200:]!r} | | | |")
            continue
        steps = [r["gpt_bf16_step_ms"] for r in ok]
        rel = [r["gpt_bf16_step_ms"] / base[r["repeat"]] for r in ok if r["repeat"] in base]
        first = [r["gpt_bf16_first_call_s"] for r in ok]
        print(f"| {name} | `{flags}` | {statistics.median(steps):.2f} "
              f"({' / '.join(f'{s:.2f}' for s in steps)}) | "
              + (f"{statistics.median(rel):.4f} ({' / '.join(f'{x:.4f}' for x in rel)})"
                 if rel else "") + " | "
              f"{statistics.median(r['gpt_bf16_tflops'] for r in ok):.0f} | "
              f"{statistics.median(first):.1f} ({' / '.join(f'{s:.1f}' for s in first)}) |")


if __name__ == "__main__":
    main()
