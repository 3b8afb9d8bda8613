"""minijax in two minutes: make_jaxpr, jit, lowering to StableHLO and XLA's HLO, eager ops.

    python examples/quickstart.py

Runs on the CPU out of the box; with the jaxlib CUDA plugin installed it uses the GPU.
"""

import time

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax


def banner(title):
    print(f"\n=== {title} " + "=" * max(0, 70 - len(title)))


def predict(params, x):
    """A two-layer MLP."""
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(x @ w1 + b1)
    return h @ w2 + b2


def loss(params, x, y):
    logits = predict(params, x)
    return -jnp.mean(jnp.sum(minijax.nn.log_softmax(logits) * y, axis=-1))


def main():
    banner("devices")
    print("backend:", minijax.default_backend(), "devices:", minijax.devices())

    banner("eager ops run on the device, one compiled program per op")
    x = jnp.arange(6.0).reshape(2, 3)
    print("x =", x)
    print("jnp.sin(x) * 2 =", jnp.sin(x) * 2)
    print("x.sum(axis=0) =", x.sum(axis=0), " x.T.shape =", x.T.shape, " x[1, ::-1] =", x[1, ::-1])

    banner("make_jaxpr: the program minijax traces")
    print(minijax.make_jaxpr(lambda v: jnp.sin(v) * 2)(jnp.ones(3)))

    rng = np.random.default_rng(0)
    params = [
        (jnp.asarray(rng.normal(size=(4, 16)).astype(np.float32) * 0.5), jnp.zeros(16)),
        (jnp.asarray(rng.normal(size=(16, 3)).astype(np.float32) * 0.5), jnp.zeros(3)),
    ]
    xb = jnp.asarray(rng.normal(size=(8, 4)).astype(np.float32))
    yb = minijax.nn.one_hot(jnp.asarray(rng.integers(0, 3, size=8)), 3)
    print(minijax.make_jaxpr(loss)(params, xb, yb))

    banner("jit: trace once, compile with XLA, call fast")
    fast_loss = minijax.jit(loss)
    t0 = time.perf_counter()
    value = fast_loss(params, xb, yb)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(100):
        value = fast_loss(params, xb, yb)
    value.block_until_ready()
    per_call = (time.perf_counter() - t0) / 100
    print(f"loss = {float(value):.4f}  (first call {first * 1e3:.1f} ms incl. compile, "
          f"then {per_call * 1e6:.1f} us per call)")
    print("eager and jit agree:", np.allclose(float(loss(params, xb, yb)), float(value), rtol=1e-5))

    banner("lower: the StableHLO module (first lines)")
    lowered = minijax.jit(lambda v: lax.add(jnp.sin(v) * 2, 1.0)).lower(jnp.ones(3))
    print("\n".join(lowered.as_text().splitlines()[:12]))

    banner("compile: XLA's optimized HLO (first lines)")
    compiled = lowered.compile()
    print("\n".join(compiled.as_text().splitlines()[:8]))
    print("compiled(ones) =", compiled(jnp.ones(3)))


if __name__ == "__main__":
    main()
