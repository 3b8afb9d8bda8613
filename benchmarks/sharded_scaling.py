"""Scaling of examples/sharded_training.py over 1..N devices (issues 7 and 11).

Runs the example once per configuration, each in its own process (a clean allocator, so the
peak memory is that run's), with ``--bench --json`` and collects the summaries into one table:

- data parallelism on n = 1, 2, 4, 8 devices (those that exist), weak scaling: the global batch
  is ``--per-device-batch`` x n, so each device does the same work; speedup = tokens/s over the
  1-device run's, efficiency = speedup / n (issue 11's target: >= 0.9 at 4 and 8; issue 7's:
  speedup >= 1.9 on 2);
- tensor parallelism over all n devices of the model axis (n = 2, 4, 8), same global batch;
- FSDP over n devices (n = 2, 4, 8), same global batch;
- with ``--multiprocess``: data parallelism on n devices as an n-process job (one GPU per
  process, NCCL between processes; one CPU device each, gloo), the multi-host setup;
- with ``--big``: ``--preset 6b`` (6.4 B parameters; its f32 parameters and Adam moments alone
  are 77 GB; ``examples/sharded_training.py --preset 6b --plan --num-devices 1`` shows it does
  not fit one GPU) with FSDP over 8 devices.

    python benchmarks/sharded_scaling.py --devices 1,2 --preset 300m --out results/
    python benchmarks/sharded_scaling.py --devices 1,2,4,8 --big
    MINIJAX_NUM_CPU_DEVICES=4 python benchmarks/sharded_scaling.py --devices 1,2,4 --preset quick

The table (Markdown) goes to stdout, every run's JSON summary to ``--out``/scaling.json.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "sharded_training.py")


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_example(flags, out_dir, name, timeout, processes=1, platform="cpu"):
    """One run of the example; its summary dict, or ``{"error": ...}`` with the output's tail
    (a run that fails, e.g. out of memory, is a row of the table, not the end of the sweep).
    ``processes > 1``: a multi-process job on this host, one device per process (a GPU each,
    NCCL between them; a CPU device each, gloo), process 0 writing the summary."""
    path = os.path.join(out_dir, f"{name}.json")
    cmd = [sys.executable, EXAMPLE, "--bench", "--no-progress", "--json", path, *flags]
    cmds, env = [cmd], None
    if processes > 1:
        port = _free_port()
        cmds = [cmd + ["--coordinator", f"127.0.0.1:{port}", "--num-processes", str(processes),
                       "--process-id", str(r)]
                + (["--local-device-ids", str(r)] if platform == "gpu" else [])
                for r in range(processes)]
        env = dict(os.environ, MINIJAX_NUM_CPU_DEVICES="1")  # CPU: one device per process
    print("$", " ".join(cmds[0][1:]), flush=True)
    t0 = time.perf_counter()
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for c in cmds]
    try:
        outs = [p.communicate(timeout=timeout) for p in procs]
    except subprocess.TimeoutExpired:
        return {"name": name, "flags": flags, "error": f"timed out after {timeout} s"}
    finally:
        for p in procs:  # a peer may hang in a collective when another failed
            if p.poll() is None:
                p.kill()
                p.wait()
    failed = [(out, err) for p, (out, err) in zip(procs, outs) if p.returncode]
    print(outs[0][0][-600:], failed[0][1][-2000:] if failed else "", flush=True)
    if failed:
        out, err = failed[0]
        tail = (err or out).strip().splitlines()[-1:] or ["?"]
        return {"name": name, "flags": flags, "error": tail[0][:300]}
    with open(path) as f:
        out = json.load(f)
    out.update(name=name, flags=flags, wall_s=time.perf_counter() - t0)
    return out


def configurations(device_counts, preset, per_device_batch, steps, big, multiprocess):
    """``(name, flags, processes)`` of every run, the 1-device data-parallel baseline first."""
    common = ["--preset", preset, "--steps", str(steps)]
    runs = []
    for n in device_counts:
        batch = ["--batch", str(per_device_batch * n)]
        runs.append((f"dp{n}", ["--parallel", "dp", *batch, "--num-devices", str(n), *common],
                     1))
        if n > 1:
            runs.append((f"tp{n}", ["--parallel", "tp", "--model-parallel", str(n), *batch,
                                    "--num-devices", str(n), *common], 1))
            runs.append((f"fsdp{n}", ["--parallel", "fsdp", *batch, "--num-devices", str(n),
                                      *common], 1))
            if multiprocess:
                runs.append((f"dp{n}-mp", ["--parallel", "dp", *batch, *common], n))
    if big:
        runs.append(("fsdp8_6b", ["--parallel", "fsdp", "--preset", "6b", "--num-devices", "8",
                                  "--steps", str(steps)], 1))
    return runs


def table(results):
    """Markdown rows; speedup and efficiency against the 1-device data-parallel run."""
    base = next((r for r in results if r["name"] == "dp1" and "error" not in r), None)
    rows = ["| run | devices | mesh (data×model) | global batch | step ms | tokens/s | speedup "
            "| efficiency "
            "| MFU | peak GiB/device | XLA estimate GiB | compile s |",
            "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        if "error" in r:
            rows.append(f"| {r['name']} | | | | | | | | | | | error: {r['error']} |")
            continue
        speedup = r["tokens_per_s"] / base["tokens_per_s"] if base else float("nan")
        mesh = "×".join(str(v) for v in r["mesh"].values())
        peak = r["memory_peak_bytes"]
        rows.append(
            f"| {r['name']} | {r['devices']} | {mesh} | {r['config']['batch']} "
            f"| {r['step_ms']:.2f} | {r['tokens_per_s']:,.0f} | {speedup:.2f} "
            f"| {speedup / r['devices']:.2f} "
            f"| {'n/a' if r['mfu'] is None else format(r['mfu'], '.3f')} "
            f"| {'n/a' if peak is None else format(peak / 2**30, '.2f')} "
            f"| {r['memory_estimate_bytes'] / 2**30:.2f} | {r['compile_s']:.1f} |")
    return "\n".join(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--devices", default="1,2,4,8",
                   help="device counts to run on (those above the local count are skipped)")
    p.add_argument("--preset", default="300m")
    p.add_argument("--per-device-batch", type=int, default=16)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--big", action="store_true", help="also the 6b model with FSDP on 8")
    p.add_argument("--multiprocess", action="store_true",
                   help="also data parallelism as an n-process job, one device per process")
    p.add_argument("--only", default=None, help="comma-separated run names (dp1,tp2,...)")
    p.add_argument("--timeout", type=int, default=500, help="seconds per run")
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "scaling"))
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    import minijax  # only to count the devices; each run is its own process

    available = len(minijax.local_devices())
    counts = [n for n in map(int, args.devices.split(",")) if n <= available]
    print(f"{available} x {minijax.local_devices()[0].device_kind}; running on {counts}")
    runs = configurations(counts, args.preset, args.per_device_batch, args.steps,
                          args.big and available >= 8, args.multiprocess)
    if args.only:
        runs = [r for r in runs if r[0] in args.only.split(",")]
    platform = minijax.default_backend()
    results = [run_example(flags, args.out, name, args.timeout, procs, platform)
               for name, flags, procs in runs]
    with open(os.path.join(args.out, "scaling.json"), "w") as f:
        json.dump({"runs": results}, f, indent=1)
    print()
    print(table(results))
    return results


if __name__ == "__main__":
    main()
