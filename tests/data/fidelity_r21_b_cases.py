"""Cases of tests/test_fidelity_r21_b.py, evaluated by JAX 0.10.2 (the recorder) and by minijax.

LOWERED: programs whose ``jit(...).lower(...).as_text()`` is compared whole (their op bodies are
the same in both; the differences were the module's and main's attributes). Each is an
expression over SETUP's names giving the Lowered object.
ERRORS: integer-only axis options given a list (or a tuple): the error's type and message.
TYPED: host values JAX returns as its TypedNdArray (float0 zeros of gradients and tangents,
NumPy values through stop_gradient): type name, repr, dtype, shape.
"""

SETUP = """
import warnings
from functools import partial
x3 = jnp.ones(3)
x23 = jnp.ones((2, 3))
class Foo:
    def __init__(self, a, b):
        self.a, self.b = a, b
jax.tree_util.register_pytree_node(Foo, lambda f: ((f.a, f.b), None), lambda _, c: Foo(*c))
mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ('x',))
xs = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec('x'))
def lowered_text(lowered):
    return lowered.as_text()
def donation_warnings(f, *args):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        text = f.lower(*args).as_text()
    return [text, [str(m.message) for m in w]]
def error(f):
    try:
        f()
    except Exception as e:
        return [type(e).__name__, str(e).splitlines()[0]]
    return None
def typed(x):
    return [type(x).__name__, repr(x), str(np.dtype(x.dtype)), list(np.shape(x))]
"""

LOWERED = [
    "jax.jit(lambda a: a + 1).lower(1.0)",
    "jax.jit(lambda a: (a + 1, {'a': a, 'b': [a * 2]})).lower(1.0)",
    "jax.jit(lambda a: Foo(a, [a])).lower(1.0)",
    "jax.jit(lambda a: (a, None, ())).lower(1.0)",
    "jax.jit(lambda a, *, k: (a, k)).lower(1.0, k=2.0)",
    "jax.jit(lambda a: None).lower(1.0)",
    "jax.jit(lambda a, b: a * b, static_argnums=1).lower(x3, 2)",
    "jax.jit(lambda a: jax.jit(jnp.sin)(a)).lower(1.0)",
    "jax.jit(jax.grad(lambda a, b: a * 1.0, argnums=(0, 1), allow_int=True)).lower(1.0, 2)",
    "jax.jit(lambda a, b: a + b, donate_argnums=0).lower(x3, x3)",
    "jax.jit(lambda a, b: (a + b, a * b), donate_argnums=(0, 1)).lower(x3, x3)",
    "jax.jit(lambda a, b: (a.reshape(6), b), donate_argnums=0).lower(x23, 1.0)",
    "jax.jit(lambda a: a.astype(jnp.int32), donate_argnums=0).lower(x23)",
    "jax.jit(lambda a: a * 2, in_shardings=xs, out_shardings=xs).lower(jnp.ones(8))",
    "jax.jit(lambda a: a * 2, in_shardings=xs, out_shardings=xs, donate_argnums=0)"
    ".lower(jnp.ones(8))",
    "jax.jit(lambda a, b: (a * 2, b), in_shardings=(xs, xs), out_shardings=(xs, None), "
    "donate_argnums=(0, 1)).lower(jnp.ones(8), jnp.ones(8))",
    "jax.jit(lambda a: a * 2, in_shardings=xs, donate_argnums=0).lower(jnp.ones(8))",
]

# the unusable donation: JAX drops it with a warning (the argument stays alive)
DONATION = "donation_warnings(jax.jit(lambda a: a.sum(), donate_argnums=0), x3)"

ERRORS = [
    "error(lambda: jnp.argmax(x23, axis=[0]))",
    "error(lambda: jax.jit(lambda a: jnp.argmax(a, axis=[0]))(x23))",
    "error(lambda: jnp.argmin(x23, axis=[0]))",
    "error(lambda: jnp.argmax(x23, axis=(0,)))",
    "error(lambda: jnp.argmin(x23, axis=1.0))",
    "error(lambda: jnp.cumulative_sum(x23, axis=[0]))",
    "error(lambda: jax.jit(lambda a: jnp.cumulative_sum(a, axis=[0]))(x23))",
    "error(lambda: jnp.cumulative_prod(x23, axis=[0]))",
    "error(lambda: jnp.cumulative_sum(jnp.float32(1), axis=[0]))",
    "error(lambda: jnp.cumulative_prod(x23))",
    "error(lambda: jnp.vecdot(x23, x23, axis=[0]))",
    "error(lambda: jax.jit(lambda a: jnp.vecdot(a, a, axis=[0]))(x23))",
    "error(lambda: jnp.vecdot(x23, x23, axis=(0,)))",
    "error(lambda: jnp.linalg.vecdot(x23, x23, axis=[0]))",
    "error(lambda: jnp.vecdot(x23, jnp.ones((2, 4))))",
    "error(lambda: jnp.swapaxes(x23, [0], 1))",
    "error(lambda: jnp.unstack(x23, axis=[0]))",
    "error(lambda: jnp.nanargmax(x23, axis=[0]))",
    "error(lambda: jnp.cumsum(x23, axis=[0]))",
    "error(lambda: jax.lax.cumsum(x23, axis=[0]))",
    "error(lambda: jax.lax.cummax(x23, axis=-1))",
    "error(lambda: jax.jit(lambda a: jax.lax.cumprod(a, axis=2))(x23))",
    # a float0 TypedNdArray into jnp: JAX's check_no_float0s
    "error(lambda: jnp.add(jax.grad(lambda a, b: a * 1.0, argnums=1, allow_int=True)"
    "(1.0, jnp.arange(3)), 1))",
    "error(lambda: jnp.sin(jax.grad(lambda a, b: a * 1.0, argnums=1, allow_int=True)(1.0, 2)))",
    "error(lambda: jax.grad(lambda a, b: a * 1.0, argnums=1, allow_int=True)(1.0, 2) * x3)",
]

# results that are no errors: the integer forms JAX's operator.index accepts
VALUES = [
    "jnp.argmax(jnp.arange(6.0).reshape(2, 3), axis=np.int64(1))",
    "jnp.argmin(jnp.arange(6.0).reshape(2, 3), axis=np.array(0))",
    "jnp.cumulative_sum(jnp.arange(6.0).reshape(2, 3), axis=1, include_initial=True)",
    "jnp.vecdot(jnp.arange(6.0).reshape(2, 3), jnp.ones((2, 3)), axis=np.array(0))",
    "jax.lax.cumsum(jnp.arange(6.0).reshape(2, 3), axis=1.0)",
    # an integer input's jacrev block: its float0 rows become its integer zeros
    "jax.jacrev(lambda a, b: a * b, argnums=1, allow_int=True)(jnp.ones(3), jnp.arange(3))",
    "jax.jacrev(lambda d: d['a'] * d['b'], allow_int=True)"
    "({'a': jnp.ones(2), 'b': np.arange(2, dtype=np.int16)})['b']",
]

TYPED = [
    "typed(jax.grad(lambda a, b: a * 1.0, argnums=1, allow_int=True)(1.0, 2))",
    "typed(jax.grad(lambda a, b: a.sum(), argnums=1, allow_int=True)(jnp.ones(2), "
    "jnp.zeros((2, 2), jnp.int32)))",
    "typed(jax.grad(lambda a, b: a * 1.0, argnums=1, allow_int=True)(1.0, True))",
    "typed(jax.jit(jax.grad(lambda a, b: a * 1.0, argnums=1, allow_int=True))(1.0, 2))",
    "typed(jax.jvp(lambda a: (a * 2).astype(jnp.int32), (1.0,), (1.0,))[1])",
    "typed(jax.vjp(lambda a, b: a * b, jnp.ones(3), jnp.arange(3))[1](jnp.ones(3))[1])",
    "typed(jax.linearize(lambda a: (a * 2).astype(jnp.int32), 1.0)[1](1.0))",
    "typed(jax.grad(lambda d: d['a'] * 1.0, allow_int=True)({'a': 1.0, 'b': 3})['b'])",
    "typed(jax.vmap(jax.grad(lambda a, b: a * 1.0, argnums=1, allow_int=True), "
    "in_axes=(None, 0))(1.0, jnp.arange(3)))",
    "typed(jax.checkpoint(lambda v: (v, np.arange(3.0, dtype=np.float32)))(1.0)[1])",
    "typed(jax.lax.stop_gradient(np.arange(3.0)))",
    "typed(jax.lax.stop_gradient(np.arange(3)))",
    "typed(jax.lax.stop_gradient(np.float32(1.0)))",
    "typed(jax.lax.stop_gradient(np.ones((2, 2), np.float16)))",
    "typed(jax.lax.stop_gradient(np.bool_(True)))",
    "typed(jax.jvp(lambda v: jax.lax.stop_gradient(np.ones(2, np.float32)), (1.0,), (1.0,))[0])",
    "typed(jax.lax.stop_gradient(np.arange(3.0))[1:])",
    "typed(np.asarray(jax.grad(lambda a, b: a * 1.0, argnums=1, allow_int=True)(1.0, 2)))",
    "typed(jax.lax.stop_gradient(np.arange(3.0)) + 1)",
    "typed(jnp.sin(jax.lax.stop_gradient(np.arange(3.0, dtype=np.float32))))",
    "[jax.lax.stop_gradient(x3) is x3, jax.lax.stop_gradient(jnp.arange(3)).dtype.name]",
    "str(jax.make_jaxpr(lambda a, b: (jax.lax.stop_gradient(a), jax.lax.stop_gradient(b)))"
    "(jnp.arange(3), 1.0))",
]
