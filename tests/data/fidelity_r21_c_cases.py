"""Cases of tests/test_fidelity_r21_c.py: ``jnp.arange``'s values (JAX computes ``start + step *
iota`` after casting start and step to the result dtype, not NumPy's arange), ``jnp.diagonal``'s
gradient weak type for a weak 3-D input (a gather, as JAX indexes ``a[..., i, j]``),
``convert_element_type`` of a constant folded by NumPy under a staging trace, ``full`` of big
ints and non-finite values, ``logspace``/``geomspace`` as JAX computes them, and random's complex normal and logistic
samples bit for bit. Each source is
evaluated with ``jax``, ``jnp``, ``lax``, ``np`` and the names of SETUP in scope."""

SETUP = """
def jaxpr_text(f, *args):
    return str(jax.make_jaxpr(f)(*args))
w3 = jnp.broadcast_to(2.0, (2, 3, 3))
random = jax.random
k42 = random.PRNGKey(42)
def err(f):
    try:
        f()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return "no error"
"""

CASES = [
    "jnp.arange(0.1, 2.0, 0.1)",
    "jnp.arange(0.3, 5.7)",
    "jnp.arange(-1.5, 3.3, 0.7)",
    "jnp.arange(0, 1, 0.1)",
    "jnp.arange(1, 10, 3)",
    "jnp.arange(10, 0, -3)",
    "jnp.arange(7.3)",
    "jnp.arange(0.1, 1.0, 0.1, dtype=jnp.float16)",
    "jnp.arange(0.1, 3.0, 0.3, dtype=jnp.bfloat16)",
    "jnp.arange(1, 5, dtype=jnp.float16)",
    "jnp.arange(2.5, 9, 1.5, dtype=jnp.int32)",
    "jnp.arange(2.5, 9, dtype=jnp.int32)",
    "jnp.arange(1e8, 1e8 + 100, 7.0)",
    "jnp.arange(jnp.int8(3), 9)",
    "jax.jit(lambda: jnp.arange(0.3, 5.7, 0.45))()",
    "jaxpr_text(lambda: jnp.arange(1, 7, 2))",
    "jaxpr_text(lambda x: x + jnp.arange(2, 5), 1)",
    "jax.grad(lambda a: jnp.diagonal(a).sum())(w3)",
    "jax.grad(lambda a: jnp.diagonal(a, 1, 1, 2).sum())(w3)",
    "jax.grad(lambda a: jnp.linalg.diagonal(a, offset=-1).sum())(w3)",
    "jnp.diagonal(w3, -1, 0, 2)",
    "jax.jit(lambda: lax.convert_element_type(float('inf'), jnp.int32))()",
    "jax.jit(lambda: lax.convert_element_type(np.float32('nan'), jnp.int32))()",
    "jax.jit(lambda x: x + lax.convert_element_type(np.array(-np.inf), jnp.int32))(1)",
    "lax.convert_element_type(float('inf'), jnp.int32)",
    "jaxpr_text(lambda x: x + lax.convert_element_type(3, jnp.float32), 1.0)",
    "jaxpr_text(lambda x: x + lax.convert_element_type(np.int64(2), jnp.float32), 1.0)",
    "jaxpr_text(lambda x: x + lax.convert_element_type(1 + 2j, jnp.complex64), 1.0)",
    "jnp.full(2, 2**40, dtype=jnp.float16)",
    "jnp.full(2, 2**40)",
    "jnp.full(2, -2**31 - 5, dtype=jnp.int32)",
    "jnp.full(2, 2**70, dtype=jnp.float32)",
    "jnp.full(3, np.inf, dtype=jnp.int32)",
    "jnp.full(3, -np.inf, dtype=jnp.int16)",
    "jnp.full(3, np.nan, dtype=jnp.uint8)",
    "jax.jit(lambda: jnp.full(3, np.inf, dtype=jnp.int32))()",
    "lax.full((2,), np.float32(np.inf), jnp.int32)",
    "jnp.full_like(jnp.ones(2, jnp.int32), np.inf)",
    "jnp.full_like(jnp.ones(2), 2**40, dtype=jnp.float16)",
    "jnp.logspace(0.1, 3.3, 9)",
    "jnp.logspace(0, 2, 5, dtype=jnp.int32)",
    "jnp.logspace(0.1, 2.3, 6, dtype=jnp.float16)",
    "jnp.logspace(0, 3, 4, base=jnp.array(2))",
    "jnp.logspace(1, 2, 3, endpoint=False, dtype=jnp.bfloat16)",
    "jnp.geomspace(0.3, 71.0, 9)",
    "jnp.geomspace(-1, -1000, 4)",
    "jnp.geomspace(1, 256, 9, dtype=jnp.int32)",
    "jnp.geomspace(jnp.array([1., 1000.]), jnp.array([27., 1.]), 4, axis=1)",
    "jnp.geomspace(0.5, 7.1, 5, dtype=jnp.float16)",
    "jnp.geomspace(1 + 1j, 10 + 10j, 3)",
    "jax.grad(lambda a: jnp.geomspace(a, 10., 4).sum())(2.)",
    "random.normal(k42, (6,), jnp.complex64)",
    "jax.jit(lambda k: random.normal(k, (6,), jnp.complex64))(k42)",
    "jax.vmap(lambda k: random.normal(k, (3,), jnp.complex64))(random.split(k42, 2))",
    "random.logistic(k42, (5,))",
    "random.logistic(k42, (3,), jnp.float16)",
    "err(lambda: random.categorical(k42, jnp.array([0.1, 2., -1.]), shape=(4,), replace=False))",
    "str(hasattr(random, 'shuffle'))",
]


def describe(x, leaves):
    """JSON-able: text as itself, else each leaf's dtype, weak type, shape and bytes."""
    import numpy as np
    if isinstance(x, str):
        return x
    out = []
    for leaf in leaves(x):
        a = np.asarray(leaf)
        out.append([str(a.dtype), bool(getattr(leaf, "weak_type", False)), list(a.shape),
                    a.tobytes().hex()])
    return out
