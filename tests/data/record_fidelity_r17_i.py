"""Records JAX's outcomes for tests/test_fidelity_r17_i.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r17_i.py \
        > tests/data/fidelity_r17_i_jax.json

Each case is a source line evaluated with ``jax``, ``jnp``, ``lax`` and ``np``; the test
evaluates the same lines with minijax.
"""
import json

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

# vmap of a lax binary op whose per-example operands differ in rank, the lower-rank one
# unbatched by the inner vmap (s20019-559): an enclosing vmap that maps it pads it
CASES = [
    "jax.vmap(jax.vmap(lax.rem, (None, -1)), (0, -1))(jnp.arange(1., 7.).reshape(2, 3), "
    "jnp.arange(1., 7.).reshape(1, 3, 1, 2) + 0.5)",
    "jax.vmap(jax.vmap(lax.add, (None, 0)), (0, 0))(jnp.arange(6.).reshape(2, 3), "
    "jnp.arange(12.).reshape(2, 2, 1, 3))",
    "jax.jit(jax.vmap(jax.vmap(lax.mul, (None, 0)), (0, 0)))(jnp.arange(6.).reshape(2, 3), "
    "jnp.arange(24.).reshape(2, 4, 1, 3))",
    "jax.grad(lambda a, b: jax.vmap(jax.vmap(lax.mul, (None, 0)), (0, 0))(a, b).sum(), (0, 1))("
    "jnp.arange(6.).reshape(2, 3), jnp.arange(24.).reshape(2, 4, 1, 3))",
    "jax.jvp(lambda a, b: jax.vmap(jax.vmap(lax.mul, (None, 0)), (0, 0))(a, b), "
    "(jnp.arange(6.).reshape(2, 3), jnp.ones((2, 4, 1, 3))), "
    "(jnp.ones((2, 3)), jnp.arange(24.).reshape(2, 4, 1, 3)))",
    # refused: no enclosing vmap maps the unbatched lower-rank operand, or sizes then clash
    "jax.vmap(lax.add, (None, 0))(jnp.arange(3.), jnp.ones((2, 1, 3)))",
    "jax.vmap(jax.vmap(lax.add, (None, 0)), (None, 0))(jnp.arange(3.), jnp.ones((2, 2, 1, 3)))",
    "jax.vmap(jax.vmap(lax.sub, (None, 0)), (1, 0))(jnp.arange(6.).reshape(3, 2), "
    "jnp.ones((2, 4, 5, 3)))",
]


def describe(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the outcome is the error's type
        return {"error": type(e).__name__}
    return [{"dtype": str(leaf.dtype), "shape": list(leaf.shape), "weak": leaf.weak_type,
             "value": np.asarray(leaf).ravel().tolist()}
            for leaf in jax.tree_util.tree_leaves(out)]


if __name__ == "__main__":
    env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    print(json.dumps({"jax_version": jax.__version__,
                      "cases": [[src, describe(lambda: eval(src, env))] for src in CASES]},
                     indent=1))
