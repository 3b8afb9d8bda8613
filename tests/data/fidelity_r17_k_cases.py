"""Cases of tests/test_fidelity_r17_k.py (run 20000's s20024-151 and s20026-367,
tools/difftest/triage_20000_k.md), shared with tests/data/record_fidelity_r17_k.py. Each case is
a source line evaluated after SETUP (with jax, jnp, lax, np and operator in scope); ``describe``
gives its outcome, values as the reprs of their elements (exact, and NaN compares).
"""
import numpy as np

SETUP = '''
W = np.linspace(0.5, 1.5, 4).astype(np.float32)
X = np.array([-0.3735579550266266, 0.7746210694313049, -0.02852936089038849,
              0.14150145649909973], np.float32)

def x_over_x(x):  # s20024-151: closed-over NumPy weights, second derivative of x / x
    t1 = jnp.divide(x, x)
    return jnp.sum(lax.rem(t1, -1.5) * W) + jnp.sum(t1 * W)

def weighted_grad(x):
    return jnp.sum(jax.grad(x_over_x)(x) * W)

def index_of(v):
    try:
        return operator.index(v)
    except TypeError as e:
        return f"TypeError: {e}"
'''

CASES = [
    # s20024-151: the NumPy weights are baked into the jit's module, as JAX's constants
    "jax.jit(jax.grad(weighted_grad))(X)",
    "jax.grad(weighted_grad)(X)",
    # s20026-367: a bool exponent is no static integer power: lax.pow, whose JVP at 0 is NaN
    "jax.grad(lambda x: jnp.sum(x ** jnp.asarray(False)))(jnp.zeros(3, jnp.float32))",
    "jax.grad(lambda x: jnp.sum(x ** jnp.asarray(True)))(jnp.asarray([0., 2.], jnp.float32))",
    "jnp.power(jnp.float32(2), jnp.asarray(True))",
    "jnp.power(2.0, jnp.asarray(False))",
    "jnp.asarray([0., 3.], jnp.float32) ** jnp.asarray(2, jnp.uint8)",
    "index_of(jnp.asarray(True))",
    "index_of(jnp.asarray([2]))",
    "index_of(jnp.asarray(3, jnp.uint8))",
]


def describe(v):
    if isinstance(v, (str, int)):
        return [type(v).__name__, v]
    a = np.asarray(v)
    return [str(a.dtype), bool(v.aval.weak_type), list(a.shape),
            [repr(float(e)) for e in a.ravel()]]
