"""Prints the JAX 0.10.2 values tests/test_fidelity_r12_c.py holds (run under /work/venv_jax:
XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python THIS)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

print(jax.__version__)
nan, inf = float("nan"), float("inf")
x0 = jnp.asarray(np.array(
    [[[nan, -1.02, inf], [nan, -0.64, -0.42], [1.08, nan, 3.4e38]],
     [[-0.33, -0.6, -1.57], [-0.39, 2.16, 0.24], [3.4e38, -inf, 0.74]]], np.float32))
x1 = jnp.asarray(np.array([[[False, True, True], [True, False, True], [True, False, True]]]))


def f(x0, x1):
    return jnp.sum(jnp.where(x1, jnp.min(x0, axis=0, keepdims=True), x1))


g = jax.vmap(jax.grad(f), (2, 1))
print("chooser jit", np.asarray(jax.jit(g)(x0, x1)).ravel().tolist())
print("chooser eager", np.asarray(g(x0, x1)).ravel().tolist())

mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
t = np.ones(2, np.float32)
for name, body in [("concat", lambda x: lax.concatenate([x[:1], x * x], 0)),
                   ("user_concat", lambda x: lax.concatenate([t, x], 0))]:
    fn = (lambda x: jax.jvp(body, (x,), (t,))[1]) if name == "concat" else body
    for check in (True, False):
        try:
            r = jax.shard_map(lambda x: lax.psum(fn(x), "d"), mesh=mesh, in_specs=jax.P("d"),
                              out_specs=jax.P(), check_vma=check)(jnp.arange(4.0))
            print(name, check, np.asarray(r).tolist())
        except ValueError as e:
            print(name, check, "ValueError", str(e)[:80])

z = jnp.array([0.7 + 1.1j, 0.5], jnp.complex64)
h = lambda z: jnp.real(jnp.sum(jnp.sin(z) * jnp.sin(z)))
print("remat", np.asarray(jax.grad(h)(z)).tolist())
try:
    jax.grad(jax.checkpoint(h, policy=jax.checkpoint_policies.everything_saveable))(z)
except TypeError as e:
    print("remat everything_saveable TypeError", e)
