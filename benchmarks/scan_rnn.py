"""A 1000-step tanh RNN under ``lax.scan``, differentiated: ``jit(value_and_grad(loss))``.

Hidden size 64, input size 32, 1000 steps, loss = mean of the final hidden state plus the mean
of every step's output. Rows:

- ``trace_lower_s``: ``jit(f).lower(...)`` of a fresh function: trace, JVP + partial eval +
  transpose of the scan, StableHLO emission (no XLA compile). Independent of the step count,
  since the scan stays one while loop (forward) plus one (backward).
- ``first_call_s``: the first call of a fresh jitted function: trace, lower, XLA compile, run.
- ``jit_ms``: one steady-state call (cached; block_until_ready).

Same harness as per_example_grads.py: ``import minijax as jax`` vs, with ``--jax-python``, the
real JAX in its own environment; rounds alternate and we report medians and minijax / JAX.

    python benchmarks/scan_rnn.py [--jax-python /path/to/venv/bin/python] [--rounds 3]
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
    from jax import lax
else:
    import minijax as jax, minijax.numpy as jnp
    from minijax import lax
import numpy as np

STEPS, HIDDEN, INPUT = 1000, 64, 32
rng = np.random.default_rng(0)
params = {"wh": (rng.normal(size=(HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32),
          "wx": (rng.normal(size=(INPUT, HIDDEN)) / np.sqrt(INPUT)).astype(np.float32),
          "b": np.zeros(HIDDEN, np.float32)}
params = jax.device_put(params)
xs = jax.device_put(rng.normal(size=(STEPS, INPUT)).astype(np.float32))

def loss(params, xs):
    def step(h, x):
        h = jnp.tanh(h @ params["wh"] + x @ params["wx"] + params["b"])
        return h, h.sum()
    h, ys = lax.scan(step, jnp.zeros(HIDDEN, jnp.float32), xs)
    return h.mean() + ys.mean()

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

out = {}
t0 = time.perf_counter()
jax.jit(jax.value_and_grad(lambda p, x: loss(p, x))).lower(params, xs)
out["trace_lower_s"] = time.perf_counter() - t0
t0 = time.perf_counter()
fast = jax.jit(jax.value_and_grad(loss))
jax.block_until_ready(fast(params, xs))
out["first_call_s"] = time.perf_counter() - t0
out["jit_ms"] = per_call_ms(lambda: fast(params, xs), 20)
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
