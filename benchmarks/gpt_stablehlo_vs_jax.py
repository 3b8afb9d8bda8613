"""The program each framework hands XLA for ``gpu_train.py``'s GPT step, op by op (issue 23).

Lowers the GPT training step of ``gpu_train.py`` (attention written out; ``BENCH_QUICK`` sizes
unless ``--full``) with minijax and with JAX (``--jax-python``) on the CPU, and prints, per op
kind, how many each emits: in the StableHLO (JAX outlines a few helpers, ``_where``,
``log_softmax``, ``take_along_axis``, as private functions counted once each) and in the HLO
after XLA's optimizations (CPU pipeline: dead code gone, constants folded).

    PYTHONPATH=. python3 benchmarks/gpt_stablehlo_vs_jax.py --jax-python /work/venv_jax/bin/python
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

import gpu_train
import harness

_STEP = "    step = jax.jit(gpt_step, donate_argnums=0)\n"
assert _STEP in gpu_train.MEASURE
# The step lowered (and compiled) instead of timed: its texts go to the files in argv[2:4].
MEASURE = gpu_train.MEASURE.replace(_STEP, _STEP + (
    "    lowered = step.lower(gpt, inputs, labels)\n"
    "    open(sys.argv[2], 'w').write(lowered.as_text())\n"
    "    open(sys.argv[3], 'w').write(lowered.compile().as_text())\n"
    "    raise SystemExit\n"))

_STABLEHLO_OP = re.compile(r'(?:= |^\s*)"?([a-z_]+\.[a-z_]+)')
_HLO_OP = re.compile(r"= \S+ ([a-z][a-z0-9\-]*)\(")


def op_counts(text, pattern):
    return collections.Counter(m.group(1) for line in text.splitlines()
                               if (m := pattern.search(line)))


def lower(framework, python, quick):
    env = dict(os.environ, **gpu_train.measure_env(), BENCH_WORKLOADS="gpt",
               BENCH_QUICK="1" if quick else "0", MINIJAX_PLATFORMS="cpu", JAX_PLATFORMS="cpu",
               PYTHONPATH=harness.REPO)
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, "stablehlo.mlir"), os.path.join(tmp, "optimized.hlo")]
        subprocess.run([python, "-c", MEASURE, framework, *paths], env=env, check=True)
        return [open(p).read() for p in paths]


def table(title, ours, theirs):
    print(f"\n{title}\n| op | minijax | JAX |\n|---|---:|---:|")
    for op in sorted(set(ours) | set(theirs)):
        mark = "" if ours[op] == theirs[op] else " *"
        print(f"| {op}{mark} | {ours[op]} | {theirs[op]} |")
    print(f"| total | {sum(ours.values())} | {sum(theirs.values())} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jax-python", required=True)
    ap.add_argument("--full", action="store_true", help="the benchmark's sizes (slow on a CPU)")
    args = ap.parse_args()
    mine = lower("minijax", sys.executable, not args.full)
    jaxs = lower("jax", args.jax_python, not args.full)
    table("StableHLO ops (* where the counts differ)",
          op_counts(mine[0], _STABLEHLO_OP), op_counts(jaxs[0], _STABLEHLO_OP))
    table("HLO instructions after XLA's optimizations (CPU)",
          op_counts(mine[1], _HLO_OP), op_counts(jaxs[1], _HLO_OP))


if __name__ == "__main__":
    main()
