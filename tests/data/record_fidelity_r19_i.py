"""Records JAX's outcomes for tests/test_fidelity_r19_i.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r19_i.py \
        > tests/data/fidelity_r19_i_jax.json

The cases are built by ``cases(jax)``, which the test calls with minijax (64-bit dtypes on):
the gradient of ``random.gamma`` in alpha, and the incomplete gamma functions near x ~ a,
where igamma's power series needs thousands of terms (tools/difftest/triage_23000_i.md).
float64 alphas stop at 1e10: at 1e20 JAX's series was still running after 3 minutes.
"""
import json

ALPHAS = {"float32": [1e-3, 0.5, 1.5, 10.0, 1e3, 1e4, 1e5, 1e6, 3e6, 1e7, 1e8, 1e10, 1e20,
                      1e30, 3.4e38],
          "float64": [1e-3, 0.5, 1.5, 10.0, 1e3, 1e4, 1e5, 1e6, 3e6, 1e7, 1e8, 1e10]}


def describe(tree, leaves):
    """Each leaf's dtype, weak type and bytes (hex)."""
    return [[str(x.dtype), bool(x.aval.weak_type), x.__array__().tobytes().hex()]
            for x in leaves(tree)]


def cases(jax):
    import numpy as np
    lax, random = jax.lax, jax.random

    def gamma_vjp(dtype):  # the samples and d(sample)/d(alpha), one per alpha
        alphas = np.array(ALPHAS[dtype], dtype)
        out, pullback = jax.vjp(
            lambda a: random.gamma(random.PRNGKey(0), a, dtype=dtype), alphas)
        return out, pullback(np.ones_like(alphas))

    def igammas():  # x just below a: the series' value and derivative modes, ~5 sqrt(a) terms
        a = np.array([1e6, 1e7, 1e8])
        return lax.igamma(a, a * 0.9995), lax.igamma_grad_a(a, a * 0.9995)

    return {"gamma_vjp_float32": lambda: gamma_vjp("float32"),
            "gamma_vjp_float64": lambda: gamma_vjp("float64"),
            "igammas_float64": igammas}


if __name__ == "__main__":
    import jax
    jax.config.update("jax_enable_x64", True)
    print(json.dumps({"jax_version": jax.__version__,
                      "cases": {name: describe(thunk(), jax.tree_util.tree_leaves)
                                for name, thunk in cases(jax).items()}}, indent=1))
