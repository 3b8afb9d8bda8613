"""Cases of tests/test_fidelity_r30_g.py: the printed jaxprs of ``grad`` and ``vmap(grad)`` of
jnp/nn elementwise and reduction functions (JVP rules' operand order and structure, jnp
implementations' equations), and the TypeError naming a missing operand of a binary ufunc,
evaluated by JAX 0.10.2 (the recorder) and by minijax. Each is an expression over SETUP's
names giving a JSON-able outcome.
"""

SETUP = """
x = jnp.array([0.5, -1.25, 2.0], jnp.float32)
m = jnp.array([[0.5, -1.25, 2.0], [1.0, 3.0, -0.5]], jnp.float32)
def outcome(thunk):
    try:
        return thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
def unary(name):
    f = getattr(jnp, name)
    return lambda v: jnp.sum(f(v))
def binary(name):
    f = getattr(jnp, name)
    return lambda v: jnp.sum(f(v, v[::-1]))
def jaxprs(f):
    return [outcome(lambda: str(jax.make_jaxpr(jax.grad(f))(x))),
            outcome(lambda: str(jax.make_jaxpr(jax.vmap(jax.grad(f)))(m)))]
def missing_operand(name):
    return outcome(lambda: getattr(jnp, name)(1.0))
"""

CASES = [f"jaxprs(unary({n!r}))" for n in ("tan", "arccos", "arctan", "arccosh", "arctanh")]
CASES += [f"jaxprs(binary({n!r}))"
          for n in ("power", "float_power", "remainder", "fmod", "nextafter")]
CASES += [
    "jaxprs(lambda v: jnp.sum(jax.lax.pow(v, jnp.array([0, 2, 3]))))",
    "jaxprs(lambda v: jnp.sum(jax.lax.pow(v, 3)))",
]
CASES += [
    "jaxprs(lambda v: jnp.sum(jax.nn.elu(v)))",
    "jaxprs(lambda v: jnp.sum(jax.nn.selu(v)))",
    "jaxprs(lambda v: jnp.sum(jax.nn.gelu(v, approximate=False)))",
    "jaxprs(lambda v: jnp.sum(jnp.nanmean(v, axis=0)))",
    "jaxprs(lambda v: jnp.sum(jnp.nansum(v, axis=0)))",
    "jaxprs(lambda v: jnp.sum(jnp.nanmax(v, axis=0)))",
    "jaxprs(lambda v: jnp.sum(jnp.nanmin(v)))",
    "jaxprs(lambda v: jnp.sum(jnp.diff(v) ** 2))",
    "jaxprs(lambda v: jnp.sum(jnp.diff(v, n=2, prepend=1.0)))",
    "jaxprs(lambda v: jnp.sum(jnp.sort(v) * jnp.arange(3)))",
    "jaxprs(lambda v: jnp.sum(jnp.median(v, axis=0)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda v: jax.jvp(jnp.sort, (v,), (v,)))(x)))",
    "jaxprs(lambda v: jnp.sum(jnp.cross(v, v[::-1])))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a, b: jnp.cross(a, b, axis=0))(m.T, m.T)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a, b: jnp.cross(a, b))(m[:, :2], m)))",
    "jaxprs(lambda v: jnp.sum(jnp.convolve(v, v)))[0]",
    "outcome(lambda: str(jax.make_jaxpr(jax.grad(lambda a: jnp.sum(jnp.correlate(a, m[0, :2],"
    " mode='full'))))(x)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jnp.convolve(a, m[1], mode='same'))(x)))",
    "outcome(lambda: str(jax.make_jaxpr(jax.grad(lambda a: jnp.sum(jnp.correlate(m[0, :2], a,"
    " mode='full'))))(x)))",
]
CASES += [f"missing_operand({n!r})" for n in (
    "add", "multiply", "subtract", "maximum", "minimum", "equal", "not_equal", "bitwise_and",
    "left_shift", "float_power", "nextafter", "logical_and", "logical_or", "logical_xor",
    "greater_equal", "greater", "less_equal", "less", "true_divide", "arctan2", "logaddexp")]
