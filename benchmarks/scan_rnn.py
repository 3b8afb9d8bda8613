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

import harness  # benchmarks/harness.py (the script's own folder is on sys.path)

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

''' + harness.PER_CALL_MS + r'''

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


if __name__ == "__main__":
    harness.main(MEASURE)
