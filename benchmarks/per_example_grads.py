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

import harness  # benchmarks/harness.py (the script's own folder is on sys.path)

MEASURE = r'''
import json, os, sys, time
QUICK = os.environ.get("BENCH_QUICK") == "1"   # run_all.py --quick: a smoke test
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

''' + harness.PER_CALL_MS + r'''

per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
out = {}
t0 = time.perf_counter()
fast = jax.jit(per_example)
jax.block_until_ready(fast(params, xs, ys))
out["first_call_s"] = time.perf_counter() - t0
out["jit_ms"] = per_call_ms(lambda: fast(params, xs, ys), 5 if QUICK else 200)
out["eager_ms"] = per_call_ms(lambda: per_example(params, xs, ys), 1 if QUICK else 3)
print(json.dumps(out))
'''


if __name__ == "__main__":
    harness.main(MEASURE)
