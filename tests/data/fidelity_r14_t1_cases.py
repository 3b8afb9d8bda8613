"""Cases of tests/test_fidelity_r14_t1.py: weak types of cotangents (triage_14000_r R3-R5).

Each case is a source string over ``jax``, ``jnp``, ``lax``, ``np`` evaluated as is under JAX
(tests/data/record_fidelity_r14_t1.py) and under minijax (the test).
"""
CASES = [
    # R3 (s14000-292, s14034-103): a weak init the body makes strong of the same dtype
    "jax.vjp(lambda c: lax.fori_loop(0, 3, lambda i, c: jnp.heaviside(jnp.float32(-3), c), c),"
    " -0.33)[1](np.float32(1))[0]",
    "jax.vjp(lambda c: lax.scan(lambda c, x: (x, None), c, jnp.ones(3))[0], -0.33)[1]"
    "(np.float32(1))[0]",
    "jax.vjp(jax.jit(lambda c: lax.scan(lambda c, x: (x, None), c, jnp.ones(1))[0]), -0.33)[1]"
    "(np.float32(1))[0]",
    "jax.vjp(lambda c: lax.scan(lambda c, x: (jnp.clip(c, 1, -1), None), c, jnp.ones(3),"
    " reverse=True)[0], -1.496)[1](np.float32(1))[0]",
    "jax.vjp(lambda x: lax.scan(lambda c, _: (lax.convert_element_type(c, jnp.float32) * 2,"
    " None), x, length=2)[0], -0.5)[1](np.float32(1))[0]",
    "jax.grad(lambda x: lax.scan(lambda c, _: (c * np.float32(2), None), x, length=2)[0])(-0.5)",
    "lax.scan(lambda c, x: (x, None), -0.33, jnp.ones(3))[0]",
    "lax.fori_loop(0, 3, lambda i, c: jnp.heaviside(jnp.float32(-3), c), -0.33)",
    "lax.while_loop(lambda c: c < 3, lambda c: c + np.float32(1), 0.0)",
    "lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, 0)",
    "jax.grad(lambda x: lax.scan(lambda c, _: (c * 2.0, None), x, length=2)[0])(-0.5)",
    # R4 (s14042-291): slice transpose pads with JAX's _const(ct, 0)
    "jax.grad(lambda x: jnp.tile(x, (2,)).at[2].get())(0.0)",
    "jax.grad(lambda x: jnp.broadcast_to(x, (2,))[1])(0.0)",
    "jax.grad(lambda x: jnp.ravel(x)[0])(-0.5)",
    "jax.grad(lambda x: lax.slice(x, (), ()))(-0.5)",
    "jax.grad(lambda x: lax.slice(x[None], (0,), (1,))[0])(-0.5)",
    "jax.grad(lambda x: lax.dynamic_slice(jnp.broadcast_to(x, (2,)), (1,), (1,))[0])(-0.5)",
    # R5 (s14043-292): gather transpose scatters into strong zeros
    "jax.vjp(lambda x: jnp.take(jnp.ravel(x), -1, mode='wrap'), -0.5)[1](np.float32(1))[0]",
    "jax.grad(lambda x: jnp.take(jnp.ravel(x), -1, mode='clip') * np.float32(1))(-0.5)",
    "jax.jit(jax.grad(jax.checkpoint(lambda x: jnp.take(jnp.ravel(x), -1, mode='wrap'))))(-0.5)",
    "jax.grad(lambda x: jnp.broadcast_to(x, (3,))[jnp.array([0, 2])].sum())(-0.5)",
]
