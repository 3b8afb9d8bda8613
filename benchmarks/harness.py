"""The comparison harness every benchmark here shares.

A benchmark is a ``MEASURE`` source string run as ``python -c MEASURE <framework>`` in a fresh
process: it imports ``minijax as jax`` or the real ``jax`` (which lives in its own environment,
never in minijax's, given by ``--jax-python``) and prints one JSON object of metrics on its last
line. Rounds alternate between the frameworks so both see the same machine load; we print
medians and minijax / JAX.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Source text MEASURE programs splice in (they run as ``python -c``): milliseconds per call of
# ``fn()``, best of 5 blocks of ``n`` calls each ending in ``block_until_ready``.
PER_CALL_MS = r'''
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
'''


def run_once(measure, python, framework, platform_name):
    gpu = platform_name in ("gpu", "cuda")
    env = dict(os.environ, MINIJAX_PLATFORMS="gpu" if gpu else "cpu",
               JAX_PLATFORMS="cuda" if gpu else "cpu", PYTHONPATH=REPO)
    res = subprocess.run([python, "-c", measure, framework], capture_output=True, text=True,
                         env=env)
    if res.returncode != 0:
        raise RuntimeError(f"{framework} run failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(measure, default_rounds=3):
    """Parse ``--jax-python/--rounds/--platform``, run the rounds, print the table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--jax-python", default=None,
                    help="a Python interpreter that has jax installed")
    ap.add_argument("--rounds", type=int, default=default_rounds)
    ap.add_argument("--platform", default="cpu", choices=["cpu", "gpu", "cuda"])
    args = ap.parse_args()
    frameworks = [("minijax", sys.executable)]
    if args.jax_python:
        frameworks.append(("jax", args.jax_python))
    results = {name: [] for name, _ in frameworks}
    for _ in range(args.rounds):
        for name, python in frameworks:
            results[name].append(run_once(measure, python, name, args.platform))
    print(f"machine: {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, platform {args.platform}")
    keys = list(results["minijax"][0])
    width = max(len(k) for k in keys) + 2
    header = f"{'metric':{width}s}" + "".join(f"{n:>14s}" for n, _ in frameworks)
    if len(frameworks) == 2:
        header += f"{'minijax/jax':>14s}"
    print(header)
    for k in keys:
        med = {n: statistics.median(r[k] for r in results[n]) for n, _ in frameworks}
        line = f"{k:{width}s}" + "".join(f"{med[n]:14.4g}" for n, _ in frameworks)
        if len(frameworks) == 2:
            line += f"{med['minijax'] / med['jax']:14.2f}"
        print(line)
