"""Device kernels of two profiler traces side by side: where one framework's step spends its
GPU time that the other's does not.

    BENCH_PROFILE_DIR=/tmp/prof python benchmarks/gpu_train.py --platform gpu \
        --jax-python python3 --rounds 1
    python benchmarks/kernel_table.py /tmp/prof/minijax_gpt_bf16 /tmp/prof/jax_gpt_bf16

Each argument is a ``log_dir`` given to ``profiler.trace`` (its newest run is read) or a
``*.trace.json.gz`` file. Kernels are grouped by name with XLA's numeric suffixes removed
(``loop_multiply_fusion.12`` -> ``loop_multiply_fusion``), so the same fusion kind in both
programs lands on one row; time is summed over all traced steps of the device's streams.
"""

from __future__ import annotations

import argparse
import collections
import glob
import gzip
import json
import os
import re


def trace_file(path):
    if path.endswith(".json.gz"):
        return path
    files = glob.glob(os.path.join(path, "plugins", "profile", "*", "*.trace.json.gz"))
    if not files:
        raise SystemExit(f"no *.trace.json.gz under {path}/plugins/profile")
    return max(files, key=os.path.getmtime)


def device_kernels(path):
    """{kernel group: (total µs, count)} over the events of the device processes
    (process names like ``/device:GPU:0``) or, on the CPU, of XLA's kernel threads."""
    with gzip.open(trace_file(path), "rb") as f:
        events = json.load(f)["traceEvents"]
    device_pids = {e["pid"] for e in events
                   if e.get("ph") == "M" and e.get("name") == "process_name"
                   and "/device:" in str(e.get("args", {}).get("name", ""))}
    # On the CPU client there is no device process: its kernels run on XLA's Eigen threads.
    cpu_kernel_threads = {(e["pid"], e.get("tid")) for e in events
                          if e.get("ph") == "M" and e.get("name") == "thread_name"
                          and str(e.get("args", {}).get("name", "")).startswith("tf_XLAEigen")}
    totals = collections.defaultdict(lambda: [0.0, 0])
    for e in events:
        if e.get("ph") != "X":
            continue
        if e.get("pid") in device_pids or (e.get("pid"), e.get("tid")) in cpu_kernel_threads:
            group = re.sub(r"([._]\d+)+$", "", e["name"])
            totals[group][0] += float(e.get("dur", 0.0))
            totals[group][1] += 1
    return totals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    a, b = device_kernels(args.a), device_kernels(args.b)
    name_a, name_b = (os.path.basename(os.path.normpath(p)) for p in (args.a, args.b))
    rows = sorted(set(a) | set(b), key=lambda k: -abs(a.get(k, [0])[0] - b.get(k, [0])[0]))
    print(f"total device time: {name_a} {sum(v[0] for v in a.values()) / 1e3:.2f} ms, "
          f"{name_b} {sum(v[0] for v in b.values()) / 1e3:.2f} ms")
    print(f"{'kernel (largest differences first)':60s} {name_a + ' µs':>14s} {'n':>5s} "
          f"{name_b + ' µs':>14s} {'n':>5s}")
    for k in rows[: args.top]:
        ta, na = a.get(k, (0.0, 0))
        tb, nb = b.get(k, (0.0, 0))
        print(f"{k[:60]:60s} {ta:14.0f} {na:5d} {tb:14.0f} {nb:5d}")


if __name__ == "__main__":
    main()
