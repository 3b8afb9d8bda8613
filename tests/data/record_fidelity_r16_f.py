"""Records JAX's outcomes for tests/test_fidelity_r16_f.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r16_f.py \
        > tests/data/fidelity_r16_f_jax.json

Each case is a source line evaluated with ``jax``, ``jnp``, ``lax``, ``np`` and ``x`` (below);
the test evaluates the same lines under minijax.
"""
import json

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

SETUP = "x = jnp.arange(3.0)\nf32 = jnp.float32\nf0 = np.zeros((2,), jax.dtypes.float0)\n"

CASES = [
    # jacfwd of a bool output: the float0-to-bool cast of its block fails where it is run...
    "jax.jacfwd(lambda x: x > 0)(x)",
    "jax.jit(jax.jacfwd(lambda x: x > 0))(x)",
    "jax.grad(lambda x: jnp.sum(jax.jacfwd(lambda x: x > 0)(x).astype(f32)) + jnp.sum(x))(x)",
    "jax.jit(jax.value_and_grad(lambda x: jnp.sum(jax.jacfwd(lambda x: x > 0)(x).astype(f32))"
    " + jnp.sum(x)))(x)",
    "jax.jit(lambda x: jax.jacfwd(lambda x: (x > 0, jnp.sin(x)))(x))(x)",
    # ...and is dead code under jit otherwise (s19005-462, s17012-23)
    "jax.jit(jax.grad(lambda x: jnp.sum(jax.jacfwd(lambda x: x > 0)(x).astype(f32))"
    " + jnp.sum(x)))(x)",
    "jax.jit(lambda x: jax.jacfwd(lambda x: (x > 0, jnp.sin(x)))(x)[1])(x)",
    "jax.jit(jax.vmap(lambda x: jax.jacfwd(lambda x: (x > 0, x * x))(x)[1]))(x[:, None])",
    "jax.jit(jax.grad(lambda x: jnp.sum(jax.jacfwd(lambda x: {'a': x[:1] > 0, 'b': x * x})(x)['b'])"
    "))(x)",
    # an integer output's block is its float0 tangent cast: zeros of its dtype and weak type
    "jax.jacfwd(lambda x: jnp.floor(x).astype(jnp.int32))(x)",
    "jax.jit(jax.jacfwd(lambda x: (x * 2, 3)))(x)",
    # the cast itself, eagerly and under jit
    "lax.convert_element_type(f0, jnp.int32)",
    "lax.convert_element_type(f0, jnp.bool_)",
    "jax.jit(lambda x: lax.convert_element_type(f0, jnp.bool_))(x)",
]


def describe(thunk):
    try:
        out = thunk()
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ["error", type(e).__name__, str(e)]
    return ["ok", [[str(leaf.dtype), list(leaf.shape), bool(leaf.aval.weak_type),
                    np.asarray(leaf).tolist()] for leaf in jax.tree_util.tree_leaves(out)]]


if __name__ == "__main__":
    env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(SETUP, env)
    print(json.dumps({"jax_version": jax.__version__, "setup": SETUP,
                      "cases": [[src, describe(lambda: eval(src, env))] for src in CASES]},
                     indent=1))
