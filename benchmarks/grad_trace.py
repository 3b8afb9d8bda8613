"""Trace + lower time of ``jit(grad(loss))``: the line users write most, staged end to end.

Rows (each: a fresh ``jit(grad(loss))`` per repetition so no cache helps, then
``.lower(...)`` = tracing the JVP, partial evaluation, transposition into one jaxpr, plus
StableHLO emission; no XLA compile; best of N):

- ``mlp64_grad_trace_lower_s``: a 64-layer tanh MLP (32 wide, batch 16), mean-squared loss.
- ``transformer12_grad_trace_lower_s``: a 12-layer pre-layernorm transformer (d_model 64,
  4 heads, MLP 256, sequence 32), mean-squared loss on its output.
- ``mlp64_remat_grad_trace_lower_s``: the MLP with every layer under ``checkpoint``
  (dots_saveable), for the cost of the remat machinery.

The same code runs with ``import minijax as jax`` and, when a Python with the real JAX is
given (``--jax-python``), with ``import jax``; rounds alternate between the two.

    python benchmarks/grad_trace.py [--jax-python /path/to/venv/bin/python] [--rounds 3]
"""

from __future__ import annotations

import harness  # benchmarks/harness.py (the script's own folder is on sys.path)
from models_src import MODELS

MEASURE = r'''
import json, os, sys, time
QUICK = os.environ.get("BENCH_QUICK") == "1"   # run_all.py --quick: one repetition, 2 layers
FRAMEWORK = sys.argv[1]
if FRAMEWORK == "jax":
    import jax, jax.numpy as jnp
else:
    import minijax as jax, minijax.numpy as jnp
import numpy as np

rng = np.random.default_rng(0)

def best_lower(make_fn, args, n):
    times = []
    for _ in range(1 if QUICK else n):
        fn = jax.jit(jax.grad(make_fn()))  # a fresh function: no cache
        t0 = time.perf_counter()
        fn.lower(*args)
        times.append(time.perf_counter() - t0)
    return min(times)

MLP_LAYERS, TF_LAYERS = 64, (2 if QUICK else 12)
''' + MODELS + r'''

def make_mlp(remat=False):
    return make_mlp_loss(jax.checkpoint(mlp_layer, policy=jax.checkpoint_policies.dots_saveable)
                         if remat else mlp_layer)

def make_tf():
    return tf_loss

out = {}
out["mlp64_grad_trace_lower_s"] = best_lower(make_mlp, (mlp_params, xb, yb), 7)
out["transformer12_grad_trace_lower_s"] = best_lower(make_tf, (tf_params, tokens, target), 5)
out["mlp64_remat_grad_trace_lower_s"] = best_lower(lambda: make_mlp(True), (mlp_params, xb, yb),
                                                   5)
# the programs must be right: one step of each agrees with the eager gradient
g_jit = jax.jit(jax.grad(make_tf()))(tf_params, tokens, target)
g_eager = jax.grad(make_tf())(tf_params, tokens, target)
assert np.allclose(np.asarray(g_jit[0]["wq"]), np.asarray(g_eager[0]["wq"]), rtol=2e-3, atol=1e-5)
print(json.dumps(out))
'''


if __name__ == "__main__":
    harness.main(MEASURE)
