"""Cases of tests/test_fidelity_r29_lead.py: the jaxprs of jnp functions built on a custom_jvp
function, whose name JAX prints in the ``custom_jvp_call`` equation (``sinc``'s
``_sinc_maclaurin``, ``i0``'s ``_i0``), and their values and derivatives, evaluated by JAX
0.10.2 (the recorder) and by minijax. Each is an expression over SETUP's names giving a
JSON-able outcome.
"""

SETUP = """
def jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))
def values(out):
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
xs = jnp.array([-2.5, -0.0, 0.0, 0.75, 3.0], jnp.float32)
"""

CASES = [
    "jaxpr(jnp.sinc, 1.0)",
    "jaxpr(jnp.i0, 1.0)",
    "jaxpr(jax.grad(jnp.i0), 1.0)",
    "values(jnp.sinc(xs))",
    "values(jax.vmap(jax.grad(jax.grad(jnp.sinc)))(xs))",
    "values(jnp.i0(xs))",
    "values(jax.vmap(jax.grad(jnp.i0))(xs))",
]
