"""Every benchmark of issue 9 in one command: a table on stdout, everything in JSON.

    python benchmarks/run_all.py [--jax-python /work/jaxenv/bin/python] [--rounds 3]
                                 [--platform gpu] [--peak-tflops 989] [--json out.json]
                                 [--quick] [--only train_steps,scan_rnn]

Workloads (each a ``MEASURE`` string of its own module, run by ``harness.run_once`` in a fresh
process per framework and round; rounds alternate minijax, JAX, minijax ... so both see the
same machine load; the table shows medians and minijax / JAX):

- ``dispatch``: cached tiny jitted call (µs), eager ops (µs), trace+lower of a 64-layer MLP.
- ``grad_trace``: trace+lower of ``jit(grad)`` of the 64-layer MLP and 12-layer transformer.
- ``train_steps``: trace+lower, XLA compile and steady-state time of a whole training step
  (grad + optimizer, donated) of both models.
- ``per_example_grads``: ``vmap(grad)`` per-example gradients, jit and eager.
- ``scan_rnn``: ``value_and_grad`` of a 1000-step RNN under ``lax.scan``.
- ``gpu_train`` (with ``--platform gpu``, or at tiny sizes with ``--quick``): the MLP step
  (f32, bf16) and the GPT step (bf16) with TFLOP/s and MFU.

``--quick`` sets ``BENCH_QUICK=1`` for the workloads (small models, few repetitions) and runs one
round: a smoke test that every workload runs and the JSON is complete, not a measurement.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402

CPU_WORKLOADS = ["dispatch", "grad_trace", "train_steps", "per_example_grads", "scan_rnn"]
GPU_WORKLOADS = ["gpu_train"]


def _versions(jax_python):
    import jaxlib

    out = {"python": platform.python_version(), "jaxlib": jaxlib.__version__}
    if jax_python:
        res = subprocess.run(
            [jax_python, "-c", "import jax, jaxlib, platform; "
             "print(jax.__version__, jaxlib.__version__, platform.python_version())"],
            capture_output=True, text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"))
        if res.returncode == 0:
            jv, jlv, pv = res.stdout.split()
            out.update(jax=jv, jax_jaxlib=jlv, jax_python=pv)
    return out


def _machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f
                         if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"node": platform.node(), "cpu": model, "cores": os.cpu_count()}


def _summarise(rounds):
    """``{metric: {framework: median, framework + "_rounds": [...], "ratio": m/j}}``."""
    metrics = {}
    names = [n for n in ("minijax", "jax") if rounds.get(n)]
    for key in rounds["minijax"][0] if rounds.get("minijax") else []:
        row = {}
        for n in names:
            vals = [r[key] for r in rounds[n] if key in r]
            if vals:
                row[n] = statistics.median(vals)
                row[n + "_rounds"] = vals
        if "minijax" in row and row.get("jax"):
            row["ratio"] = row["minijax"] / row["jax"]
        metrics[key] = row
    return metrics


def _print_table(results, frameworks):
    rows = [(w, k, row) for w, res in results.items() for k, row in res["metrics"].items()]
    width = max([len(f"{w}.{k}") for w, k, _ in rows] + [20]) + 2
    header = f"{'workload.metric':{width}s}" + "".join(f"{n:>12s}" for n in frameworks)
    if "jax" in frameworks:
        header += f"{'minijax/jax':>13s}"
    print(header)
    for w, k, row in rows:
        line = f"{w + '.' + k:{width}s}"
        line += "".join(f"{row[n]:12.4g}" if n in row else f"{'-':>12s}" for n in frameworks)
        if "ratio" in row:
            line += f"{row['ratio']:13.2f}"
        print(line)
    for w, res in results.items():
        for n, err in res.get("errors", {}).items():
            print(f"{w}: {n} failed: {err.strip().splitlines()[-1] if err.strip() else err}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jax-python", default=None,
                    help="a Python interpreter with jax installed (its own environment)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--platform", default="cpu", choices=["cpu", "gpu", "cuda"])
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes, one round, GPU workloads included (a smoke test)")
    ap.add_argument("--only", default=None, help="comma-separated workload names")
    ap.add_argument("--peak-tflops", type=float, default=None,
                    help="bf16 dense peak for MFU (f32 uses half); default: device-kind table")
    ap.add_argument("--json", default=None, help="write every figure here")
    args = ap.parse_args(argv)

    gpu = args.platform in ("gpu", "cuda")
    workloads = CPU_WORKLOADS + (GPU_WORKLOADS if gpu or args.quick else [])
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - set(CPU_WORKLOADS + GPU_WORKLOADS)
        if unknown:
            ap.error(f"unknown workloads {sorted(unknown)}")
        workloads = [w for w in CPU_WORKLOADS + GPU_WORKLOADS if w in wanted]
    rounds = 1 if args.quick else args.rounds
    frameworks = [("minijax", sys.executable)] + (
        [("jax", args.jax_python)] if args.jax_python else [])

    os.environ["BENCH_QUICK"] = "1" if args.quick else "0"
    if args.peak_tflops:
        os.environ["BENCH_PEAK_TFLOPS"] = str(args.peak_tflops)
    modules = {w: importlib.import_module(w) for w in workloads}
    for mod in modules.values():
        os.environ.update(getattr(mod, "measure_env", dict)())

    raw = {w: {n: [] for n, _ in frameworks} for w in workloads}
    errors = {w: {} for w in workloads}
    t_start, load_start = time.time(), list(os.getloadavg())
    for r in range(rounds):
        for w in workloads:
            for name, python in frameworks:
                if name in errors[w]:
                    continue
                t0 = time.perf_counter()
                try:
                    raw[w][name].append(
                        harness.run_once(modules[w].MEASURE, python, name, args.platform))
                except RuntimeError as e:
                    errors[w][name] = str(e)
                print(f"[round {r + 1}/{rounds}] {w} {name}: {time.perf_counter() - t0:.1f} s",
                      file=sys.stderr, flush=True)

    results = {}
    for w in workloads:
        results[w] = {"metrics": _summarise(raw[w])}
        if errors[w]:
            results[w]["errors"] = errors[w]
    machine = _machine()
    machine["loadavg_start"], machine["loadavg_end"] = load_start, list(os.getloadavg())
    report = {
        "command": " ".join([os.path.relpath(sys.argv[0])] + list(argv or sys.argv[1:])),
        "date": datetime.date.today().isoformat(),
        "platform": args.platform,
        "quick": args.quick,
        "rounds": rounds,
        "wall_s": time.time() - t_start,
        "machine": machine,
        "versions": _versions(args.jax_python),
        "results": results,
    }
    print(f"machine: {machine['cpu']}, {machine['cores']} cores, load "
          f"{machine['loadavg_start'][0]:.1f} -> {machine['loadavg_end'][0]:.1f}; "
          f"versions {report['versions']}; platform {args.platform}, {rounds} round(s)")
    _print_table(results, [n for n, _ in frameworks])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 1 if any(errors.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
