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

# S5 (s14049-359): no DCE rule for while, so a used while keeps its dead carries
xs = sh(np.arange(4.0, dtype=np.float32))
r = jax.jit(lambda x: jax.lax.while_loop(
    lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0, c[2] + 1.0),
    (0, x, jnp.zeros(4)))[2])(xs)
print("while_dead_carry", r.tolist(), type(r.sharding).__name__, r.sharding.spec)


@jax.custom_vjp
def cv(a, b):
    return a * b


cv.defvjp(lambda a, b: (a * b, (a, b)), lambda r, g: (g * r[1], g * r[0]))


def body(i, c):
    c1, c2 = c
    return jnp.sin(c1) * 2.0, cv(c2, c2)


x, y = jnp.array([0.3, -1.2]), jnp.array([0.5, 2.0])
try:
    jax.jit(lambda x, y, n: jax.jvp(lambda x, y: jax.lax.fori_loop(0, n, body, (x, y))[0],
                                    (x, y), (x, y)))(x, y, 2)
except Exception as e:  # noqa: BLE001
    print("traced_fori_custom_vjp", type(e).__name__, e)
