"""Records real JAX's results for tests/test_shard_map_vma.py (run with the JAX venv:
XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python THIS). JAX 0.10.2."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:4]), ("d",))
x = (np.arange(32, dtype=np.float32).reshape(8, 4) / 10.0 - 1.5)
y = np.sin(np.arange(8, dtype=np.float32)).reshape(8, 1)
w = (np.arange(4, dtype=np.float32).reshape(4, 1) / 4.0 - 0.3)
b = np.float32(0.1) * np.ones((1,), np.float32)


def step(w, b, x, y):
    def loss(w, b):
        return jnp.mean((jnp.tanh(x @ w) + b - y) ** 2)
    val, (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1))(w, b)
    return w - 0.1 * gw, b - 0.1 * gb, lax.pmean(val, "d")


f = jax.jit(jax.shard_map(step, mesh=mesh, in_specs=(P(), P(), P("d"), P("d")),
                          out_specs=(P(), P(), P())))
for _ in range(3):
    w, b, l = f(w, b, x, y)
    print("loss", repr(float(l)))
print("w", np.asarray(w).ravel().tolist())
print("b", np.asarray(b).ravel().tolist())
