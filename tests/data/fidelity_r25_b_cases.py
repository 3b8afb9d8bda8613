"""Cases of tests/test_fidelity_r25_b.py, evaluated under JAX 0.10.2 by
record_fidelity_r25_b.py and under minijax by the test (``jax``, ``jnp``, ``np``, ``lax``,
``special`` in scope)."""

# Printed jaxprs (make_jaxpr) that are JAX's, equation for equation.
JAXPRS = [
    "jax.make_jaxpr(special.dawsn)(np.float32(0.7))",
    "jax.make_jaxpr(special.erfcx)(np.float32(0.7))",
    "jax.make_jaxpr(special.gamma)(np.float32(0.7))",
    "jax.make_jaxpr(special.gammasgn)(np.float32(0.7))",
    "jax.make_jaxpr(special.log_ndtr)(np.float32(0.7))",
    "jax.make_jaxpr(lambda x: special.log_ndtr(x, 0))(np.float32(-12.0))",
    "jax.make_jaxpr(special.poch)(np.float32(0.7), np.float32(2.5))",
    "jax.make_jaxpr(special.beta)(np.float32(0.7), np.float32(2.5))",
    "jax.make_jaxpr(special.owens_t)(np.float32(0.7), np.float32(2.5))",
    "jax.make_jaxpr(special.fresnel)(np.float32(0.7))",
    "jax.make_jaxpr(special.hyp1f1)(np.float32(0.7), np.float32(2.5), np.float32(0.3))",
    "jax.make_jaxpr(jax.grad(special.dawsn))(np.float32(0.7))",
    "jax.make_jaxpr(jax.grad(special.erfcx))(np.float32(0.7))",
    "jax.make_jaxpr(jax.grad(special.log_ndtr))(np.float32(0.7))",
    "jax.make_jaxpr(jax.grad(special.poch, argnums=1))(np.float32(0.7), np.float32(2.5))",
    # the jnp pieces under them: signbit, a list of traced values, a copy, an identity broadcast
    "jax.make_jaxpr(jnp.signbit)(np.float16(1.0))",
    "jax.make_jaxpr(lambda x: jnp.array([x > 0, x < 1]))(1.0)",
    "jax.make_jaxpr(lambda x: jnp.array([x] * 20))(1.0)",
    "jax.make_jaxpr(lambda x: jnp.array(x, dtype=jnp.int32))(1.0)",
    "jax.make_jaxpr(jax.grad(lambda x: jnp.array(x) * 2))(1.0)",
    "jax.make_jaxpr(lambda x: jnp.expand_dims(x, ()) * lax.broadcast_in_dim(x, (3,), (0,)))"
    "(np.ones(3, np.float32))",
]

_GRID = ("np.array([0.0, -0.0, 1e-30, 0.5, -0.5, 1.0, 2.5, -3.0, 6.0, 30.0, 1e30, np.inf, "
         "-np.inf, np.nan], np.float32)")
_H, _A = f"np.repeat({_GRID}, 14)", f"np.tile({_GRID}, 14)"

# Values (dtype and elements), float32.
VALUES = [
    f"special.owens_t({_H}, {_A})",
    f"jax.vmap(jax.grad(special.owens_t, argnums=(0, 1)))({_H}, {_A})",
    f"special.log_ndtr({_GRID} * 4)",
    f"jax.vmap(jax.grad(special.log_ndtr))({_GRID} * 4)",
    f"special.dawsn({_GRID})",
    f"special.erfcx({_GRID})",
    f"special.fresnel({_GRID})",
    f"special.poch({_GRID}, {_GRID}[::-1])",
    f"jnp.signbit({_GRID}.astype(np.float16))",
]

# Errors: type and message (minijax appends the user's line after a newline: compared before it)
ERRORS = [
    "special.hyp2f1(1.0, 2.0, 3.0, 0.5 + 0.1j)",
    "special.log_ndtr(np.float32(1.0), 3.0)",
    "special.log_ndtr(np.float16(1.0))",
]
