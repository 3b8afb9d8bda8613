"""Cases of tests/test_fidelity_r19_h.py: JAX 0.10.2 public names added in run 23000.

Each case is a source string over ``jax``, ``jnp``, ``np`` and ``A`` (alphas), evaluated as is
under JAX (tests/data/record_fidelity_r19_h.py) and under minijax (the test)."""
import numpy as np

SETUP = "A = jnp.array([0.5, 1.0, 2.0, 7.5])\n"

CASES = [
    # random.random_gamma_p: JAX's primitive, bound on typed keys (as random.gamma binds it)
    "jax.random.random_gamma_p.name",
    "jax.random.random_gamma_p.bind(jax.random.key(0), A, log_space=False)",
    "jax.random.random_gamma_p.bind(jax.random.split(jax.random.key(1), 4), A, log_space=True)",
    "jax.jit(lambda k, a: jax.random.random_gamma_p.bind(k, a, log_space=False))("
    "jax.random.key(2), A)",
    "jax.vmap(lambda k: jax.random.random_gamma_p.bind(k, A, log_space=False))("
    "jax.random.split(jax.random.key(3), 2))",
    "jax.grad(lambda a: jax.random.random_gamma_p.bind(jax.random.key(4), a, "
    "log_space=False).sum())(A)",
    "jax.random.random_gamma_p.multiple_results",
]


def describe(x, tree_leaves):
    """Each leaf's dtype, shape and value, JSON-ready (a bool or str as itself)."""
    out = []
    for leaf in tree_leaves(x):
        if isinstance(leaf, (bool, str)):
            out.append(leaf)
            continue
        value = np.asarray(leaf)
        out.append([str(value.dtype), list(value.shape), value.astype(np.float64).tolist()])
    return out
