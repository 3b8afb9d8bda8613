"""Cases of tests/test_fidelity_r23_d.py (recorded from JAX 0.10.2 by record_fidelity_r23_d.py):
draws from keys that are constants of a jit program, whose last float bits differed while XLA
folded minijax's draw (every case here differed before the fix)."""

SETUP = '''
import importlib
xr = importlib.import_module(jax.__name__ + ".experimental.random")  # minijax's in the test
random = jax.random

CLOSED_KEY = random.PRNGKey(3)

def generator_made_in_jit(impl):
    def f(x):
        rng = xr.stateful_rng(3, impl=impl)
        return (x + rng.normal(size=(4,)), rng.uniform(size=(3,)), rng.integers(0, 100, 5),
                rng.normal(1.5, 2.0, size=(2,)))
    return jax.jit(f)(jnp.zeros(4))
'''

VALUES = [
    'jax.jit(lambda: random.normal(random.key(3), (8,)))()',
    'jax.jit(lambda: random.gumbel(random.key(3), (3,)))()',
    'jax.jit(lambda: random.normal(random.fold_in(random.key(3), 0), (4,)))()',
    'jax.jit(lambda: random.logistic(random.fold_in(random.key(3), 0), (2,)))()',
    'jax.jit(lambda: random.normal(CLOSED_KEY, (16,)))()',
    'generator_made_in_jit(None)',
    'generator_made_in_jit("rbg")',
]
