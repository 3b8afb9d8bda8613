"""The cases of tests/test_fidelity_r18_w.py, shared with tests/data/record_fidelity_r18_w.py:
expressions evaluated after SETUP: ``t`` is a NumPy constant closed over by the jitted ``f`` and
``g``, ``c`` an Array closed over by ``h``."""

SETUP = """
t = np.array([1.5, -2.0, 0.25], np.float32)
x = jnp.array([2.0, 3.0, -1.0], jnp.float32)
f = jax.jit(lambda x: x * t)
g = jax.jit(lambda x: jnp.sin(x) * t + t)
c = jnp.arange(3.0)
h = jax.jit(lambda x, *, k, n: x * c * k + n, static_argnames="n")
"""
JAXPRS = [
    "jax.make_jaxpr(f)(x)",
    "jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(x)",
    "jax.make_jaxpr(lambda x: jax.jvp(g, (x,), (x,)))(x)",
    "jax.make_jaxpr(lambda x: jax.linearize(f, x)[1](x))(x)",
    "jax.make_jaxpr(lambda x: h(x, k=2.0, n=1))(x)",
]
VALUES = [
    "jax.jvp(f, (x,), (x,))",
    "jax.jvp(jax.jit(lambda x: jax.jvp(g, (x,), (t,))), (x,), (x,))",
    "jax.grad(lambda x: g(x).sum())(x)",
    "jax.vmap(g)(jnp.stack([x, 2 * x]))",
    "jax.jit(jax.grad(lambda x: jax.jit(g)(x).sum()))(x)",
    "jax.linearize(g, x)[1](x)",
    "jax.jvp(lambda x: h(x, k=2.0, n=1), (x,), (x,))",
]
