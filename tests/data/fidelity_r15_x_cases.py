"""Cases of tests/test_fidelity_r15_x.py: the typed Python scalars that ``checkpoint`` returns
(JAX's TypedInt/TypedFloat/TypedComplex, run 18000's s18003-104).

Each case is a source string over ``jax``, ``jnp``, ``lax``, ``np`` and ``T`` (a checkpoint of
``lambda x: 0.5``), ``I`` (of ``lambda x: 3``) and ``C`` (of ``lambda x: 1j``), evaluated as is
under JAX (tests/data/record_fidelity_r15_x.py) and under minijax (the test).
"""
import numpy as np

SETUP = ("T = jax.checkpoint(lambda x: 0.5)(1.)\n"
         "I = jax.checkpoint(lambda x: 3)(1.)\n"
         "C = jax.checkpoint(lambda x: 1j)(1.)\n")

CASES = [
    # s18003-104 reduced: the harness reads .dtype of checkpoint(value_and_grad(...))'s value
    "jax.checkpoint(jax.value_and_grad(lambda x: 0.0))(jnp.ones(3))",
    "jax.checkpoint(lambda x: (0.0, x * 2.0))(1.)",
    "jax.checkpoint(lambda x: jax.checkpoint(lambda y: 0.25)(x))(1.)",
    "jax.checkpoint(lambda x: True)(1.)",
    "T", "I", "C", "T + 1", "I * 2",
    "jnp.asarray(T)", "jnp.array(I)", "jnp.asarray(C)", "jnp.asarray(T, jnp.bfloat16)",
    "T * jnp.ones(2, jnp.bfloat16)", "jnp.add(T, 1)", "jnp.ones(2, jnp.uint8) + I",
    "jnp.full((2,), T)", "jnp.where(True, T, jnp.ones(2, jnp.float16))",
    "jnp.result_type(T, jnp.bfloat16)", "jnp.issubdtype(T.dtype, jnp.inexact)",
    "lax.add(T, 1.0)", "lax.add(I, 1)", "jnp.arange(5)[I]",
    "jax.jit(lambda a: a)(T)", "jax.vmap(lambda a, b: a * b, in_axes=(None, 0))(T, jnp.ones(2))",
    "jax.grad(lambda a: a * 2.0)(T)", "jax.jvp(lambda a: a * 2.0, (T,), (T,))",
    "jax.vjp(lambda a: a * 2.0, 1.0)[1](T)",
    "jax.grad(lambda x: jax.checkpoint(lambda y: 0.0)(x))(1.)",
    "jax.value_and_grad(lambda x: jax.checkpoint(lambda y: 0.0)(x))(1.)",
    "jax.jit(lambda x: jax.checkpoint(lambda y: 0.25)(x))(1.)",
    "str(jax.make_jaxpr(lambda x: x + T)(1.))",
]


def describe(x, tree_leaves):
    """Each leaf's Python type name, dtype, weak type and value, JSON-ready."""
    out = []
    for leaf in tree_leaves(x):
        if isinstance(leaf, (str, np.dtype)):
            out.append(["str", str(leaf)])
            continue
        weak = getattr(getattr(leaf, "aval", None), "weak_type", None)
        is_array = hasattr(leaf, "shape") and not isinstance(leaf, (int, float, complex))
        value = np.asarray(complex(leaf) if isinstance(leaf, complex) else leaf)
        value = np.stack([value.real, value.imag]) if np.iscomplexobj(value) else value
        out.append([type(leaf).__name__ if not is_array else "Array",
                    str(getattr(leaf, "dtype", None)), weak if is_array else None,
                    value.tolist()])
    return out
