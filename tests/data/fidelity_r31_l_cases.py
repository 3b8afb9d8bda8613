"""Cases of tests/test_fidelity_r31_l.py: the printed jaxprs of grad (and vmap of grad) through
jnp.pad and jnp.cumprod, whose linearized jits return the zero padding tangents as residuals
(JAX's `0.0:f32[]` outputs of the known jit), with a few of their values, evaluated by JAX 0.10.2
(the recorder) and by minijax. Each is an expression over SETUP's names giving a JSON-able
outcome.
"""

SETUP = """
x = jnp.array([0.5, -1.25, 2.0], jnp.float32)
m = jnp.array([[0.5, -1.25, 2.0], [1.0, 3.0, -0.5]], jnp.float32)
def jaxprs(f):
    return [str(jax.make_jaxpr(jax.grad(f))(x)), str(jax.make_jaxpr(jax.vmap(jax.grad(f)))(m))]
F = {
    "pad": lambda v: jnp.sum(jnp.pad(v, 1) ** 2),
    "pad_const": lambda v: jnp.sum(jnp.pad(v, (2, 1), constant_values=1.5) * v[0]),
    "cumprod": lambda v: jnp.sum(jnp.cumprod(v, axis=0)),
}
def vals():
    return [[round(float(u), 4) for u in jax.grad(f)(x)] for f in F.values()]
"""

CASES = [f"jaxprs(F[{k!r}])" for k in ("pad", "pad_const", "cumprod")] + [
    "str(jax.make_jaxpr(jax.grad(lambda v: jnp.sum(jax.jit(lambda u: jnp.pad(u, 1))(v) ** 3)))(x))",
    "vals()",
]
