"""Training steps of the 64-layer MLP and the 12-layer transformer of grad_trace.py, whole.

Each step is one ``jit`` of loss + ``grad`` + optimizer update (SGD for the MLP, Adam for
the transformer, written in plain jnp/tree_map so both frameworks run the same code), with the
parameters (and Adam's state) donated. Rows, per model:

- ``*_step_trace_lower_s``: ``jit(step).lower(...)`` of a fresh function (trace, JVP, partial
  eval, transpose, StableHLO; no XLA compile), best of N.
- ``*_step_compile_s``: ``lowered.compile()`` of that module (XLA only), best of N fresh modules
  (no persistent cache is configured in these processes).
- ``*_step_ms``: one steady-state step (cached, parameters donated and fed back), best of 5
  blocks of calls ending in ``block_until_ready``.

``BENCH_QUICK=1`` (set by ``run_all.py --quick``) shrinks the models (4-layer MLP, 1-layer
transformer) and the repetitions: a smoke test, not a measurement.

    python benchmarks/train_steps.py [--jax-python /path/to/venv/bin/python] [--rounds 3]
"""

from __future__ import annotations

import harness  # benchmarks/harness.py (the script's own folder is on sys.path)
from models_src import MODELS

MEASURE = r'''
import json, os, sys, time
FRAMEWORK = sys.argv[1]
if FRAMEWORK == "jax":
    import jax, jax.numpy as jnp
else:
    import minijax as jax, minijax.numpy as jnp
import numpy as np

QUICK = os.environ.get("BENCH_QUICK") == "1"
MLP_LAYERS, TF_LAYERS = (4, 1) if QUICK else (64, 12)
REPS = 1 if QUICK else 3
rng = np.random.default_rng(0)
tree_map = jax.tree_util.tree_map

def timed_stages(make_step, args, donate):
    """Best trace+lower and best compile seconds over fresh functions; returns the last one."""
    lower_t, compile_t = [], []
    for _ in range(REPS):
        fn = jax.jit(make_step(), donate_argnums=donate)
        t0 = time.perf_counter()
        lowered = fn.lower(*args)
        t1 = time.perf_counter()
        compiled = lowered.compile()
        t2 = time.perf_counter()
        lower_t.append(t1 - t0)
        compile_t.append(t2 - t1)
    return min(lower_t), min(compile_t)

def step_ms(step, state, rest, n):
    state = step(state, *rest)      # compile + warm up
    jax.block_until_ready(state)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            state = step(state, *rest)
        jax.block_until_ready(state)
        best = min(best, (time.perf_counter() - t0) / n * 1e3)
    return best
''' + MODELS + r'''

def make_mlp_step():
    def step(params, x, y):
        g = jax.grad(mlp_loss)(params, x, y)
        return tree_map(lambda p, d: p - 0.01 * d, params, g)
    return step

def make_tf_step():
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
    def step(state, x, y):
        params, m, v, t = state
        g = jax.grad(tf_loss)(params, x, y)
        t = t + 1
        m = tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
        v = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        params = tree_map(lambda p, m, v: p - lr * (m / c1) / (jnp.sqrt(v / c2) + eps),
                          params, m, v)
        return params, m, v, t
    return step

def tf_state():
    zeros = tree_map(lambda p: np.zeros_like(p), tf_params)
    return jax.device_put((tf_params, zeros, zeros, np.float32(0)))

out = {}
mlp_args = (jax.device_put(mlp_params), xb, yb)
out["mlp64_step_trace_lower_s"], out["mlp64_step_compile_s"] = timed_stages(
    make_mlp_step, mlp_args, (0,))
out["mlp64_step_ms"] = step_ms(jax.jit(make_mlp_step(), donate_argnums=0),
                               jax.device_put(mlp_params), (xb, yb), 50 if QUICK else 1000)
out["transformer12_step_trace_lower_s"], out["transformer12_step_compile_s"] = timed_stages(
    make_tf_step, (tf_state(), tokens, target), (0,))
out["transformer12_step_ms"] = step_ms(jax.jit(make_tf_step(), donate_argnums=0), tf_state(),
                                       (tokens, target), 10 if QUICK else 200)
print(json.dumps(out))
'''


if __name__ == "__main__":
    harness.main(MEASURE)
