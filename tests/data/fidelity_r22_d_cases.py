"""The cases of tests/test_fidelity_r22_d.py (random under vmap and jit), shared by the
recording script (run on JAX 0.10.2) and the test (run on minijax). Each VALUES entry is an
expression whose result is an array or a tuple of arrays; floats are compared bit for bit."""

SETUP = '''
import importlib
xr = importlib.import_module(jax.__name__ + ".experimental.random")
random, lax = jax.random, jax.lax
A = jnp.array([0.3, 1.0, 2.5, 7.0], jnp.float32)

def rbg_keys(impl):
    return random.split(random.key(0, impl=impl), 3)

def split_generator_under_vmap(jit):
    rng = xr.stateful_rng(123)
    rngs = rng.split(3)
    f = lambda r, x: (x + r.uniform(), r.normal(size=(2,)), r.integers(0, 10, 3))
    f = jax.jit(jax.vmap(f)) if jit else jax.vmap(f)
    return (*f(rngs, jnp.zeros(3)), *f(rngs, jnp.ones(3)), rngs._counter[...])
'''

VALUES = [
    # 1. rng_bit_generator's batching rule: one block from the batch's first key
    'jax.vmap(lambda k: random.bits(k, (2,)))(rbg_keys("rbg"))',
    'jax.jit(jax.vmap(lambda k: random.bits(k, (3,), jnp.uint8)))(rbg_keys("unsafe_rbg"))',
    'jax.vmap(lambda k: random.normal(k, (2,)))(rbg_keys("rbg"))',
    'random.key_data(jax.vmap(lambda k: random.split(k, 2))(rbg_keys("unsafe_rbg")))',
    'random.key_data(jax.vmap(random.fold_in)(rbg_keys("unsafe_rbg"), jnp.arange(3)))',
    'jax.vmap(lambda k: lax.rng_bit_generator(k, (2,)), in_axes=1)'
    '(random.key_data(rbg_keys("rbg")).T)',
    # 2. gamma & co. under jit with a constant shape parameter (these differed in a last bit)
    'jax.jit(lambda k: random.gamma(k, 0.7, (5,)))(random.key(1, impl="philox2x32"))',
    'jax.jit(lambda k: random.gamma(k, 0.7, (5,)))(random.key(1, impl="unsafe_rbg"))',
    'jax.jit(lambda k: random.beta(k, 0.5, A))(random.key(1, impl="threefry2x32"))',
    # 3. stateful generators split under vmap (made inside jit, or a constant key under jit,
    # can differ in a last bit: docs/sharp_bits.md)
    'split_generator_under_vmap(False)',
    'split_generator_under_vmap(True)',
]
