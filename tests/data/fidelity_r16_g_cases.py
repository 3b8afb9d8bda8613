"""Cases of tests/test_fidelity_r16_g.py: weak types of a scan's cotangents (triage_17000_r R3,
triage_14000_r R3; tools/difftest/triage_19000_g.md).

Each case is a source string over ``jax``, ``jnp``, ``lax``, ``np`` evaluated as is under JAX
(tests/data/record_fidelity_r16_g.py) and under minijax (the test).
"""
_BODY = "lambda c, _: (np.float32(-.25) + c * 0, None)"
CASES = [
    # triage_17000_r R3 (s17106-66): a weak carry the body makes strong through a weak
    # intermediate keeps a weak cotangent
    f"jax.vjp(lambda c: lax.scan({_BODY}, c, None, length=2)[0], -2.36)[1](np.float32(1))[0]",
    f"jax.vjp(jax.jit(lambda c: lax.scan({_BODY}, c, None, length=2)[0]), -2.36)[1]"
    "(np.float32(1))[0]",
    f"jax.grad(lambda c: lax.scan({_BODY}, c, None, length=2)[0])(-2.36)",
    f"jax.vjp(jax.checkpoint(lambda c: lax.scan({_BODY}, c, None, length=2)[0]), -2.36)[1]"
    "(np.float32(1))[0]",
    "jax.vjp(lambda c: lax.fori_loop(0, 2, lambda i, c: np.float32(-.25) + c * 0, c), -2.36)[1]"
    "(np.float32(1))[0]",
    "jax.vjp(lambda c: lax.scan(lambda c, _: (jax.jit(lambda c: jnp.float32(-.25) + c * 0)(c),"
    " None), c, None, length=2)[0], -2.36)[1](np.float32(1))[0]",
    # triage_14000_r R3's probes (s14000-292, s14034-103): a convert of the weak carry binder
    # itself, in a nested jit too, transposes to the strong carry cotangent's type
    "jax.vjp(lambda c: lax.fori_loop(0, 3, lambda i, c: jnp.heaviside(jnp.float32(-3), c), c),"
    " -0.33)[1](np.float32(1))[0]",
    "jax.vjp(lambda c: lax.scan(lambda c, _: (jnp.clip(c, 1, -1), None), c, None, length=3,"
    " reverse=True)[0], -1.496)[1](np.float32(1))[0]",
    "jax.vjp(lambda c, y: lax.scan(lambda c, _: ((c[0] * 2.0, c[1] * c[0]), None), (c, y),"
    " None, length=3)[0], -0.5, np.float32(2))[1]((np.float32(1), np.float32(1)))",
    "jax.vjp(lambda c, y: lax.scan(lambda c, _: ((c[0] * 2.0, c[1] * c[0]), None), (c, y),"
    " None, length=3)[0][1], -0.5, np.float32(2))[1](np.float32(1))",
    # the body's transpose sees the cotangents' own types: strong through a weak jit
    "jax.vjp(lambda c: lax.scan(lambda c, _: (jax.jit(lambda c: c * 2.0)(c), None), c, None,"
    " length=2)[0], -1.5)[1](np.float32(1))[0]",
    "jax.vjp(lambda c: lax.scan(lambda c, _: (jax.jit(lambda c: c * 2.0)(c), None), c, None,"
    " length=2)[0], -1.5)[1](1.0)[0]",
    "jax.vjp(lambda xs: lax.scan(lambda c, x: (c, x * 2.0), 0.0, xs)[1],"
    " jnp.broadcast_to(-0.5, (3,)))[1](np.ones(3, np.float32))[0]",
    # an xs binder is typed as its accumulator outside (weak here)
    "jax.vjp(lambda xs: lax.scan(lambda c, x: (c + lax.convert_element_type(x, jnp.float32),"
    " None), 0.0, xs)[0], jnp.broadcast_to(-0.5, (3,)))[1](np.float32(1))[0]",
    # outside a loop a jit's weak operand stays weak
    "jax.vjp(jax.jit(lambda c: jnp.heaviside(jnp.float32(-3), c)), -0.33)[1](np.float32(1))[0]",
]
