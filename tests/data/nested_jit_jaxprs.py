"""Records how JAX prints nested jits (tests/test_nested_jit.py compares minijax's text).

    /work/venv_jax/bin/python tests/data/nested_jit_jaxprs.py  # writes nested_jit_jaxprs.json
"""
import json
import os

import jax
import jax.numpy as jnp


def f(x, y):
    return x * y + 1


g = jax.jit(lambda x, n: x ** n, static_argnums=1)

CASES = {  # name -> (function, argument)
    "sin_times_2": (lambda x: jax.jit(jnp.sin)(x) * 2, 1.0),
    "literal_operand": (lambda x: jax.jit(f)(x, 2.0) * 2, 1.0),
    "grad": (lambda x: jax.grad(jax.jit(jnp.sin))(x), 1.0),
    "jit_in_jit": (lambda x: jax.jit(lambda a: jax.jit(jnp.cos)(a))(x), 1.0),
    "static_argnums": (lambda x: g(x, 3), 1.0),
    "vmap": (jax.vmap(jax.jit(jnp.sin)), jnp.ones(3)),
    "jvp": (lambda x: jax.jvp(jax.jit(jnp.sin), (x,), (x,)), 1.0),
    "linearize": (lambda x: jax.linearize(jax.jit(jnp.sin), x)[1](x), 1.0),
    "donated": (lambda x: jax.jit(jnp.sin, donate_argnums=0)(x), jnp.ones(3)),
}

if __name__ == "__main__":
    out = {"jax_version": jax.__version__,
           "cases": {k: str(jax.make_jaxpr(fn)(x)) for k, (fn, x) in CASES.items()}}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nested_jit_jaxprs.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
