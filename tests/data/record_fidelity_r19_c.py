"""Records JAX's outcomes for tests/test_fidelity_r19_c.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r19_c.py \
        > tests/data/fidelity_r19_c_jax.json

The cases are built by ``cases(jax)``, which the test calls with minijax: reverse mode over
the JVP of a scan whose known consts (a strong tangent) are weaker in the body than outside.
"""
import json


def describe(tree, leaves):
    """Each leaf's dtype, weak type and bytes (hex)."""
    return [[str(x.dtype), bool(x.aval.weak_type if hasattr(x, "aval") else x.weak_type),
             x.__array__().tobytes().hex()] for x in leaves(tree)]


def cases(jax):
    import numpy as np
    jnp, lax = jax.numpy, jax.lax

    @jax.custom_jvp
    def safe_log(x):
        return jnp.log(jnp.maximum(x, 1e-3))

    @safe_log.defjvp
    def _safe_log_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return safe_log(x), jnp.where(x > 1e-3, t / jnp.maximum(x, 1e-3), 0.0)

    pred = jnp.asarray(False)

    def s23045_85(x1, x3):  # the record, without the harness's empty x0
        def body(i, c):
            return jnp.exp(safe_log(lax.select(pred, c, x3)))
        return lax.fori_loop(0, 1, body, x1)

    def with_ys(x1, x3):  # a scan of two steps with ys, its const mixed in by add
        def body(c, _):
            out = jnp.exp(jnp.log(jnp.maximum(c + x3, 1e-3)))
            return out, out * 2.0
        return lax.scan(body, x1, None, length=2)

    def jvp_of(f):  # Python-float primals, strong float32 tangents
        return lambda x1, x3: jax.jvp(f, (x1, x3), (np.float32(0.7), np.float32(0.7)))

    def loss(f):
        return lambda x1, x3: sum(jnp.sum(x) for x in jax.tree_util.tree_leaves(jvp_of(f)(x1, x3)))

    def linearized(f):
        out, lin = jax.linearize(jvp_of(f), 0.19, 0.5)
        return out, lin(np.float32(1.0), np.float32(1.0))

    def pulled_back(f):
        out, pullback = jax.vjp(jvp_of(f), 0.19, 0.5)
        return pullback(out)

    return {
        "s23045_85_value_and_grad": lambda: jax.value_and_grad(
            loss(s23045_85), argnums=(0, 1))(-0.19122321903705597, -0.5),
        "s23045_85_grad_strong_const": lambda: jax.grad(
            loss(s23045_85), argnums=(0, 1))(-0.19122321903705597, np.float32(-0.5)),
        "ys_grad": lambda: jax.grad(loss(with_ys), argnums=(0, 1))(0.19, 0.5),
        "ys_linearize": lambda: linearized(with_ys),
        "ys_vjp": lambda: pulled_back(with_ys),
    }


if __name__ == "__main__":
    import jax
    print(json.dumps({"jax_version": jax.__version__,
                      "cases": {name: describe(thunk(), jax.tree_util.tree_leaves)
                                for name, thunk in cases(jax).items()}}, indent=1))
