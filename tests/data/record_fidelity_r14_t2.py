"""Prints what JAX 0.10.2 gives for tests/test_fidelity_r14_t2.py (run under real JAX:
XLA_FLAGS=--xla_force_host_platform_device_count=2 /work/venv_jax/bin/python
tests/data/record_fidelity_r14_t2.py)."""
import numpy as np

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

print("jax", jax.__version__)
mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
sh = lambda a, spec=P("d"): jax.device_put(a, NamedSharding(mesh, spec))  # noqa: E731

# S3 (s14032-16, s14058-164): sort's JVP gathers the tangent by the sort permutation
x = np.array([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]], np.float32)
W = np.linspace(0.5, 1.5, 6).reshape(2, 3).astype(np.float32)
g = jax.jit(jax.grad(lambda x: jnp.sum(jnp.sort(x, axis=0) * W)))(sh(x))
print("sort_grad", g.tolist(), g.dtype, type(g.sharding).__name__, g.sharding.spec)
v = np.array([3.0, 1.0, 2.0, 1.0], np.float32)
j = jax.jit(jax.jacfwd(jnp.sort))(sh(v))
print("sort_jacfwd", j.tolist(), type(j.sharding).__name__, j.sharding.spec)
print(jax.make_jaxpr(lambda x: jax.jvp(jnp.sort, (x,), (x,)))(v))
