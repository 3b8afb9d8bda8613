"""Foundation benchmarks: jit dispatch, eager op dispatch, and trace+lower of a 64-layer MLP.

The same measurement code runs with ``import minijax as jax`` and, when a Python with the real
JAX is given (``--jax-python``; JAX lives in its own environment, never in minijax's), with
``import jax``. Rounds alternate between the two so both see the same machine load; we report
the median per framework and the ratio minijax / JAX.

    python benchmarks/dispatch.py [--jax-python /path/to/venv/bin/python] [--rounds 5]
                                  [--platform gpu]
"""

from __future__ import annotations

import harness  # benchmarks/harness.py (the script's own folder is on sys.path)

MEASURE = r"""
import json, os, sys, time
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MINIJAX_PLATFORMS", "cpu")
QUICK = os.environ.get("BENCH_QUICK") == "1"   # run_all.py --quick: a smoke test
FRAMEWORK = sys.argv[1]
if FRAMEWORK == "jax":
    import jax, jax.numpy as jnp
else:
    import minijax as jax, minijax.numpy as jnp
import numpy as np

def per_call_us(fn, n):
    n = max(1, n // 50) if QUICK else n
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best

out = {}
x = jnp.arange(8, dtype=jnp.float32)
f = jax.jit(lambda x: x * 2 + 1)
f(x).block_until_ready()
out["jit_dispatch_us"] = per_call_us(lambda: f(x), 20000)
jax.block_until_ready(f(x))

out["eager_op_us"] = per_call_us(lambda: jnp.sin(x), 5000)
out["eager_mul_scalar_us"] = per_call_us(lambda: x * 2.0, 5000)
out["eager_add_arrays_us"] = per_call_us(lambda: x + x, 5000)
out["eager_sum_us"] = per_call_us(lambda: x.sum(), 5000)
m = jnp.ones((32, 32), jnp.float32)
out["eager_matmul_32_us"] = per_call_us(lambda: m @ m, 5000)

def mlp_loss(params, x, y):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.mean((h - y) ** 2)

rng = np.random.default_rng(0)
params = [(rng.normal(size=(32, 32)).astype(np.float32), np.zeros(32, np.float32))
          for _ in range(64)]
xb = rng.normal(size=(16, 32)).astype(np.float32)
yb = rng.normal(size=(16, 32)).astype(np.float32)
times = []
for _ in range(1 if QUICK else 7):
    g = jax.jit(lambda p, a, b: mlp_loss(p, a, b))   # a fresh function: no cache
    t0 = time.perf_counter()
    g.lower(params, xb, yb)
    times.append(time.perf_counter() - t0)
out["mlp64_trace_lower_s"] = min(times)
print(json.dumps(out))
"""


if __name__ == "__main__":
    harness.main(MEASURE, default_rounds=5)
