"""Prints JAX's values held by tests/test_fidelity_r12_b.py (run under /work/venv_jax with JAX
0.10.2 on CPU: `/work/venv_jax/bin/python tests/data/record_fidelity_r12_b.py`)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

X = np.float32(0.005192937329411507)
T = np.float32(0.7)


def f(x):
    return lax.sin(x) / lax.sin(x)  # `/` is jnp.true_divide, jitted with inline=True


def third(x, t):
    return jax.jvp(jax.grad(jax.grad(f)), (x,), (t,))[1]


def jvp_jvp_grad(x):
    t = jnp.float32(0.7)
    return jax.jvp(lambda y: jax.jvp(jax.grad(f), (y,), (t,))[1], (x,), (t,))[1]


def jvp_jvp_jvp(x):
    t = jnp.float32(0.7)
    return jax.jvp(lambda y: jax.jvp(lambda z: jax.jvp(f, (z,), (t,))[1], (y,), (t,))[1],
                   (x,), (t,))[1]


def case_11016_258():
    x0 = np.array([[0.005192937329411507, 0.259591668844223, 0.6539704203605652]], np.float32)
    w = np.linspace(0.5, 1.5, 6).reshape(1, 3, 2).astype(np.float32)

    def inner(x):
        t2 = jnp.stack([jnp.cumprod(x, axis=1)] * 2, axis=-1)
        return jnp.sum(t2 / t2 * w) + jnp.sum(t2 * w)

    w3 = np.linspace(0.5, 1.5, 3).reshape(1, 3).astype(np.float32)
    outer = jax.grad(lambda x: jnp.sum(jax.grad(inner)(x) * w3))
    return jax.jvp(outer, (x0,), (w3 * np.float32(0.7),))[1]


print("eager third", repr(float(third(jnp.asarray(X), T))))
print("jit third, tangent a closed-over scalar Array",
      repr(float(jax.jit(lambda x: third(x, jnp.float32(0.7)))(X))))
print("jit third, tangent an argument", repr(float(jax.jit(third)(X, T))))
print("jit jvp(jvp(grad))", repr(float(jax.jit(jvp_jvp_grad)(X))))
print("jit jvp(jvp(jvp))", repr(float(jax.jit(jvp_jvp_jvp)(X))))
print("s11016-258 reduced", case_11016_258().tolist())
print("jax", jax.__version__)
