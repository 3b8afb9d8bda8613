"""What every training example shares: flags, a progress bar, Adam, data parallelism, a plot.

Kept in one place so each example reads as its model and its training loop only. Optional
dependencies (tqdm, matplotlib) are used when installed and replaced by small fallbacks (a
text progress bar; no plot) when not, so the examples run with minijax alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import tree_util

# ------------------------------------------------------------------------------------------------
# command line


def parse_args(description, *, steps, quick_steps, argv=None, extra=None):
    """The flags all examples take. `--quick` is CI's short mode: few steps, and the example
    still asserts that it learned (a weaker bar, stated by each example)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--steps", type=int, default=None,
                   help=f"training steps (default {steps}; {quick_steps} with --quick)")
    p.add_argument("--quick", action="store_true", help="short run for CI / a smoke test")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out-dir", default=os.path.join(os.path.dirname(__file__), "out"),
                   help="where the loss-curve PNG goes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")
    p.add_argument("--profile", metavar="DIR", default=None,
                   help="write a profiler trace of steps 10-20 to DIR (TensorBoard / Perfetto)")
    if extra is not None:
        extra(p)
    args = p.parse_args(argv)
    if args.steps is None:
        args.steps = quick_steps if args.quick else steps
    return args


def describe_devices():
    """One line saying where the example runs: minijax picks GPU when the CUDA plugin is
    installed, as JAX does, and the CPU otherwise."""
    devs = minijax.local_devices()
    print(f"backend: {minijax.default_backend()}  devices: {len(devs)} x {devs[0].device_kind}")


# Dense (no sparsity) tensor-core peaks per device in TFLOP/s, (bf16, tf32), spec-sheet figures,
# by a substring of the device kind. f32 matmuls run as TF32 on these GPUs by default.
PEAK_TFLOPS = {
    "H100 80GB HBM3": (989.4, 494.7),    # H100 SXM5
    "H100 PCIe": (756.5, 378.0),
    "H100 NVL": (835.5, 417.6),
    "H200": (989.4, 494.7),
    "A100": (312.0, 156.0),
}


def peak_tflops(device_kind, dtype_name):
    """The peak for MFU: ``MINIJAX_PEAK_TFLOPS`` (bf16; half of it for f32) when set, else the
    table's entry for ``device_kind``; None when unknown (a CPU), so no MFU is claimed."""
    if os.environ.get("MINIJAX_PEAK_TFLOPS"):
        bf16 = float(os.environ["MINIJAX_PEAK_TFLOPS"])
        return bf16 if dtype_name in ("bfloat16", "bf16") else bf16 / 2
    for name, (bf16, tf32) in PEAK_TFLOPS.items():
        if name in device_kind:
            return bf16 if dtype_name in ("bfloat16", "bf16") else tf32
    return None


# ------------------------------------------------------------------------------------------------
# progress


class _TextBar:
    """tqdm's small subset the examples use (update, set_postfix, close), printed on one line."""

    def __init__(self, total, desc, disable):
        self.total, self.desc, self.n, self.disable = total, desc, 0, disable
        self.postfix, self.start, self._last = "", time.perf_counter(), 0.0

    def update(self, n=1):
        self.n += n
        now = time.perf_counter()
        if not self.disable and (now - self._last > 0.5 or self.n == self.total):
            self._last = now
            width = 24
            done = int(width * self.n / max(self.total, 1))
            rate = self.n / max(now - self.start, 1e-9)
            sys.stdout.write(f"\r{self.desc}: [{'#' * done}{'.' * (width - done)}] "
                             f"{self.n}/{self.total} {rate:.1f}it/s {self.postfix}")
            sys.stdout.flush()

    def set_postfix(self, **kw):
        self.postfix = ", ".join(f"{k}={v}" for k, v in kw.items())

    def close(self):
        if not self.disable:
            sys.stdout.write("\n")


def progress(total, desc, disable=False):
    """A tqdm bar when tqdm is installed, else the text fallback (same three methods)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return _TextBar(total, desc, disable)
    return tqdm(total=total, desc=desc, disable=disable, dynamic_ncols=True)


class Throughput:
    """Examples (or tokens) per second over the steps since the last report. Reads the loss
    only when reporting: converting a device value to float waits for the device, so doing it
    every step would serialize host and device."""

    def __init__(self):
        self.t, self.count = time.perf_counter(), 0

    def add(self, n):
        self.count += n

    def rate(self):
        now = time.perf_counter()
        r = self.count / max(now - self.t, 1e-9)
        self.t, self.count = now, 0
        return r


class ProfileWindow:
    """Profiles a window of training steps, after the first compile so the trace shows the
    steady state. Each iteration: ``with window.step(i, state): state = train_step(...)``;
    after the loop, ``window.close(state)``. ``state`` (the previous step's outputs) is waited
    for before the trace stops, so the window's device work is inside it. Each step is a
    StepTraceAnnotation, which TensorBoard's profile plugin groups by step number."""

    def __init__(self, log_dir, start=10, stop=20):
        self.log_dir, self.start, self.stop, self.active = log_dir, start, stop, False

    def step(self, i, state):
        if self.log_dir is None:
            return _NoAnnotation
        from minijax import profiler

        if i == self.start:
            profiler.start_trace(self.log_dir, create_perfetto_trace=True)
            self.active = True
        elif i == self.stop:
            self.close(state)
        return profiler.StepTraceAnnotation("train", step_num=i) if self.active else _NoAnnotation

    def close(self, state):
        if self.active:
            from minijax import profiler

            minijax.block_until_ready(state)
            profiler.stop_trace()
            self.active = False
            print(f"profile of steps {self.start}-{self.stop - 1}: {self.log_dir}")


class _NoAnnotationType:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NoAnnotation = _NoAnnotationType()


# ------------------------------------------------------------------------------------------------
# Adam, written with minijax ops (pytrees of parameters in, pytrees out; jit it with the step)


def adam_init(params):
    zeros = tree_util.tree_map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": jnp.zeros((), jnp.int32)}


def adam_update(grads, state, params, lr, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.0):
    """One Adam(W) step: bias-corrected first/second moment estimates; decoupled weight decay."""
    t = state["t"] + 1
    m = tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
    v = tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], grads)
    tf = t.astype(jnp.float32)
    scale = lr * jnp.sqrt(1 - b2**tf) / (1 - b1**tf)

    def step(p, m, v):
        return p - scale * m / (jnp.sqrt(v) + eps) - lr * weight_decay * p

    params = tree_util.tree_map(step, params, m, v)
    return params, {"m": m, "v": v, "t": t}


# ------------------------------------------------------------------------------------------------
# data parallelism over all local devices (a no-op on one device)


def shard_batch(*arrays):
    """Puts each array's leading (batch) axis across all local devices when there are several
    and the batch divides evenly; jit then runs the step data-parallel, XLA inserting the
    gradient all-reduce. Parameters stay replicated (committed nowhere, so jit broadcasts
    them). On one device the arrays are simply moved to it."""
    devs = minijax.local_devices()
    n = len(devs)
    if n == 1 or any(a.shape[0] % n for a in arrays):
        return tuple(minijax.device_put(a) for a in arrays)
    from minijax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(devs), ("data",))
    return tuple(minijax.device_put(a, NamedSharding(mesh, PartitionSpec("data"))) for a in arrays)


# ------------------------------------------------------------------------------------------------
# learning checks and the loss curve


def smoothed(values, window):
    values = np.asarray(values, np.float64)
    window = max(1, min(window, len(values)))
    return np.convolve(values, np.ones(window) / window, mode="valid")


def assert_loss_dropped(losses, factor, what="loss"):
    """The mean loss of the last tenth of the run is below `factor` times the mean of the
    first steps (at most 10: a long run's first tenth would already be trained): the example
    fails loudly (and CI with it) if it did not learn."""
    k0, k1 = max(1, min(10, len(losses) // 10)), max(1, len(losses) // 10)
    first, last = float(np.mean(losses[:k0])), float(np.mean(losses[-k1:]))
    print(f"{what}: first {k0} steps {first:.4f} -> last {k1} steps {last:.4f}")
    assert np.isfinite(last) and last < factor * first, (
        f"{what} did not drop enough: {first:.4f} -> {last:.4f} (wanted < {factor} x)")


def save_loss_curve(losses, path, title, extra_curves=None):
    """Writes the loss curve (raw and smoothed; plus any `extra_curves` {label: (steps, values)})
    as a PNG. Returns the path, or None when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed: files only
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no loss-curve PNG (pip install -e '.[examples]')")
        return None
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    steps = np.arange(1, len(losses) + 1)
    ax.plot(steps, losses, alpha=0.3, label="loss")
    window = max(1, len(losses) // 50)
    if window > 1:
        ax.plot(steps[window - 1:], smoothed(losses, window), label=f"loss ({window}-step mean)")
    for label, (xs, ys) in (extra_curves or {}).items():
        ax.plot(xs, ys, marker="o", label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print(f"loss curve: {path}")
    return path
