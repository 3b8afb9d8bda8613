"""Cases of tests/test_fidelity_r18_s.py (run 22000, helper s), shared with the recorder
tests/data/record_fidelity_r18_s.py: ``cases(jax)`` maps a name to a function of no arguments
whose result's leaves are compared bit for bit."""
import numpy as np


def cases(jax):
    jnp, lax, nn = jax.numpy, jax.lax, jax.nn

    def standardize_outer():
        # s22013-377: JAX lowers the nested jits (standardize, clip) as calls; XLA fuses the
        # inlined program otherwise and keeps the bfloat16 primal in float32
        x1 = np.array([[-np.inf, -0.0136108, 0.0520019], [0.0522460, 0.0356445, 0.0507812],
                       [-0.0, -0.119140, -np.inf]], np.float32).astype(jnp.bfloat16)
        x2 = np.array([-0.8662905, 1.3736262, 0.2333856], np.float32)
        f = jax.jit(lambda a, b: jnp.outer(nn.standardize(a, axis=1), b))
        return jax.jacfwd(f, argnums=(0, 1))(x1, x2)

    def fori_atan2_hessian():
        # s22053-101: a scan's transpose adds each iteration's terms to the running cotangent
        # of a linear const in JAX's order
        x = np.array([[0.02079465], [-0.09925627], [-0.00399014]], np.float32).reshape(1, 3)
        t = np.array([[0.35, 0.7, 1.05]], np.float32)

        def f(t3):
            return lax.fori_loop(0, 3, lambda i, c: c + 2 * jnp.arctan2(c, t3), t3)

        def g(x):
            p, tt = jax.jvp(f, (x,), (t,))
            return (p * 0.5).sum() + (tt * 1.5).sum()
        return jax.hessian(g)(x)

    return {"standardize_outer": standardize_outer, "fori_atan2_hessian": fori_atan2_hessian}


def describe(leaves):
    return [[str(x.dtype), list(np.shape(x)), np.asarray(x).tobytes().hex()] for x in leaves]
