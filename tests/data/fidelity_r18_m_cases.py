"""Cases of tests/test_fidelity_r18_m.py (run 20000's s20023-109, bug h3 of
tools/difftest/triage_20000_h.md; triage in tools/difftest/triage_21000_m.md): inside a jaxpr
being built, ``jnp.asarray``/``jnp.array``/``real``/``conj``/``positive`` of a Python or NumPy
scalar are the literal JAX's ``lax.stage`` makes (``2.0:f32[]``), not a constvar, and a
conversion of one folds into a new literal; a checkpoint body returning one gives back the
typed Python scalar (``TypedFloat``; a bool stays a bool), as does its ``stop_gradient`` of a
Python float.

Each case is a source string over ``jax``, ``jnp``, ``lax`` and ``np``, evaluated as is under
JAX (tests/data/record_fidelity_r18_m.py) and under minijax (the test).
"""

CASES = [
    # s20023-109 reduced: jnp.real of a closed-over Python float, returned by a checkpoint
    "jax.checkpoint(lambda y: jnp.real(-0.03987479209899902),"
    " policy=jax.checkpoint_policies.checkpoint_dots)(1.)",
    "jax.checkpoint(lambda y: (jnp.asarray(-0.5), jnp.array(3), jnp.asarray(True)))(1.)",
    "jax.checkpoint(lambda y: (jnp.conj(1.5), jnp.positive(2), jnp.asarray(1 + 2j)))(1.)",
    "jax.checkpoint(lambda y: (lax.stop_gradient(-0.5), lax.stop_gradient(y)))(1.)",
    "jax.checkpoint(lambda y: jnp.array(2.0, ndmin=1))(1.)",
    "jax.jvp(jax.checkpoint(lambda y: (jnp.asarray(-0.5), y)), (1.0,), (1.0,))",
    "jax.linearize(jax.checkpoint(lambda y: (jnp.asarray(-0.5), y)), 1.0)[0]",
    "jax.vjp(jax.checkpoint(lambda y: (jnp.asarray(-0.5), y)), 1.0)[0]",
    "jax.vmap(jax.checkpoint(lambda y: (jnp.asarray(-0.5), y)))(jnp.ones(2))",
    "jax.jit(lambda y: (jnp.asarray(-0.5), jnp.asarray(True)))(1.)",
    "jax.jit(jax.checkpoint(lambda y: (jnp.asarray(2.0), lax.stop_gradient(2.0))))(1.)",
    "jax.grad(jax.checkpoint(lambda y: jnp.asarray(2.0) * y))(1.)",
    "lax.cond(True, lambda: jnp.asarray(2.0), lambda: jnp.asarray(3.0))",
    "lax.scan(lambda c, x: (c, jnp.asarray(2.0)), 0.0, jnp.ones(2))",
    "jnp.asarray(-0.5)",
    "str(jax.make_jaxpr(lambda y: jnp.asarray(2.0) + y)(jnp.ones(3)))",
    "str(jax.make_jaxpr(lambda y: (jnp.array(3), jnp.asarray(True), jnp.asarray(1 + 2j)))(1.))",
    "str(jax.make_jaxpr(lambda y: (jnp.real(-0.5), jnp.conj(-0.5), jnp.positive(-0.5)))(1.))",
    "str(jax.make_jaxpr(lambda y: (jnp.asarray(2.0, jnp.bfloat16), jnp.asarray(np.float32(2)),"
    " jnp.asarray(np.array(2.0)), jnp.asarray(2, jnp.float32)))(1.))",
    "str(jax.make_jaxpr(lambda y: (lax.convert_element_type(jnp.asarray(2.5), jnp.int32),"
    " jnp.asarray(2.0).astype(jnp.bfloat16), jnp.sin(2.0), lax.stop_gradient(-0.5)))(1.))",
    "str(jax.make_jaxpr(lambda y: jax.vmap(lambda z: jnp.asarray(2.0) * z)(y))(jnp.ones(3)))",
    "str(jax.make_jaxpr(jax.grad(lambda z: jnp.asarray(2.0) * z))(1.))",
    "str(jax.make_jaxpr(lambda y: jax.jvp(lambda z: jnp.asarray(2.0) * z, (y,), (y,)))(1.))",
]
