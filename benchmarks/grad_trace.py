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

# --- 64-layer MLP
mlp_params = [(rng.normal(size=(32, 32)).astype(np.float32) / 6, np.zeros(32, np.float32))
              for _ in range(64)]
xb = rng.normal(size=(16, 32)).astype(np.float32)
yb = rng.normal(size=(16, 32)).astype(np.float32)

def mlp_layer(h, w, b):
    return jnp.tanh(h @ w + b)

def make_mlp(remat=False):
    layer = jax.checkpoint(mlp_layer, policy=jax.checkpoint_policies.dots_saveable) if remat \
        else mlp_layer
    def loss(params, x, y):
        h = x
        for w, b in params:
            h = layer(h, w, b)
        return jnp.mean((h - y) ** 2)
    return loss

# --- 12-layer transformer
D, H, F, S = 64, 4, 256, 32

def dense(*shape):
    return (rng.normal(size=shape) / np.sqrt(shape[0])).astype(np.float32)

tf_params = [dict(ln1=np.ones(D, np.float32), ln2=np.ones(D, np.float32), wq=dense(D, D),
                  wk=dense(D, D), wv=dense(D, D), wo=dense(D, D), w1=dense(D, F), w2=dense(F, D))
             for _ in range(2 if QUICK else 12)]
tokens = rng.normal(size=(S, D)).astype(np.float32)
target = rng.normal(size=(S, D)).astype(np.float32)

def layernorm(x, g):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * g

def block(x, p):
    h = layernorm(x, p["ln1"])
    q = (h @ p["wq"]).reshape(S, H, D // H).transpose(1, 0, 2)
    k = (h @ p["wk"]).reshape(S, H, D // H).transpose(1, 0, 2)
    v = (h @ p["wv"]).reshape(S, H, D // H).transpose(1, 0, 2)
    att = jax.nn.softmax(q @ k.transpose(0, 2, 1) / np.sqrt(D // H), axis=-1)
    x = x + (att @ v).transpose(1, 0, 2).reshape(S, D) @ p["wo"]
    h = layernorm(x, p["ln2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

def make_tf():
    def loss(params, x, y):
        for p in params:
            x = block(x, p)
        return jnp.mean((x - y) ** 2)
    return loss

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
