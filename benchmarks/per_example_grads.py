"""Per-example gradients of a small MLP: ``vmap(grad(loss), in_axes=(None, 0, 0))``.

Batch 256, a tanh MLP 64 -> 128 -> 128 -> 10 with a mean-squared loss per example. Rows:

- ``jit_ms``: one call of the jitted per-example-gradient function (cached; block_until_ready).
- ``first_call_s``: the first call of a fresh jitted function: trace, lower, XLA compile, run.
- ``eager_ms``: the same without jit (vmap and grad interpret every primitive op by op).

The same measurement code runs with ``import minijax as jax`` and, when a Python with the real
JAX is given (``--jax-python``; JAX lives in its own environment, never in minijax's), with
``import jax``; rounds alternate between the two and we report medians and minijax / JAX.

    python benchmarks/per_example_grads.py [--jax-python /path/to/venv/bin/python] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

MEASURE = r'''
import json, sys, time
FRAMEWORK = sys.argv[1]
if FRAMEWORK == "jax":
    import jax, jax.numpy as jnp
else:
    import minijax as jax, minijax.numpy as jnp
import numpy as np

BATCH, SIZES = 256, [64, 128, 128, 10]
rng = np.random.default_rng(0)
params = [(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
          for m, n in zip(SIZES[:-1], SIZES[1:])]
params = jax.device_put(params)
xs = jax.device_put(rng.normal(size=(BATCH, SIZES[0])).astype(np.float32))
ys = jax.device_put(rng.normal(size=(BATCH, SIZES[-1])).astype(np.float32))

def loss(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return jnp.mean((h @ w + b - y) ** 2)

def per_call_ms(fn, n):
    jax.block_until_ready(fn())
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            out = fn()
        jax.block_until_ready(out)
        best = min(best, (time.perf_counter() - t0) / n * 1e3)
    return best

per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
out = {}
t0 = time.perf_counter()
fast = jax.jit(per_example)
jax.block_until_ready(fast(params, xs, ys))
out["first_call_s"] = time.perf_counter() - t0
out["jit_ms"] = per_call_ms(lambda: fast(params, xs, ys), 200)
out["eager_ms"] = per_call_ms(lambda: per_example(params, xs, ys), 3)
print(json.dumps(out))
'''


def run_once(python, framework, platform_name):
    gpu = platform_name in ("gpu", "cuda")
    env = dict(
        os.environ,
        MINIJAX_PLATFORMS="gpu" if gpu else "cpu",
        JAX_PLATFORMS="cuda" if gpu else "cpu",
    )
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    res = subprocess.run(
        [python, "-c", MEASURE, framework], capture_output=True, text=True, env=env
    )
    if res.returncode != 0:
        raise RuntimeError(f"{framework} run failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--jax-python", default=None, help="a Python interpreter that has jax installed"
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--platform", default="cpu", choices=["cpu", "gpu", "cuda"])
    args = ap.parse_args()
    frameworks = [("minijax", sys.executable)]
    if args.jax_python:
        frameworks.append(("jax", args.jax_python))
    results = {name: [] for name, _ in frameworks}
    for _ in range(args.rounds):
        for name, python in frameworks:
            results[name].append(run_once(python, name, args.platform))
    print(
        f"machine: {platform.node()} {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, platform {args.platform}"
    )
    header = f"{'metric':16s}" + "".join(f"{n:>14s}" for n, _ in frameworks)
    if len(frameworks) == 2:
        header += f"{'minijax/jax':>14s}"
    print(header)
    for k in results["minijax"][0]:
        med = {n: statistics.median(r[k] for r in results[n]) for n, _ in frameworks}
        line = f"{k:16s}" + "".join(f"{med[n]:14.4g}" for n, _ in frameworks)
        if len(frameworks) == 2:
            line += f"{med['minijax'] / med['jax']:14.2f}"
        print(line)


if __name__ == "__main__":
    main()
