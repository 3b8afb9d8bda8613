"""Cases of tests/test_fidelity_r21_e.py: JAX 0.10.2's PRNG implementations (threefry2x32,
threefry4x32, philox2x32, philox4x32, rbg, unsafe_rbg) on CPU, as expressions evaluated with
``jax`` being JAX or minijax. rbg's bits are XLA's CPU RngBitGenerator's."""

import numpy as np

IMPLS = ["threefry2x32", "threefry4x32", "philox2x32", "philox4x32", "rbg", "unsafe_rbg"]
# rbg/unsafe_rbg under vmap differ on purpose (docs/sharp_bits.md: rng_bit_generator's batching)
COUNTER_IMPLS = IMPLS[:4]

SETUP = """
import importlib
R = jax.random
XR = importlib.import_module(jax.__name__ + ".extend.random")
XRS = importlib.import_module(jax.__name__ + ".experimental.random")

def with_config(name, value, f):
    old = getattr(jax.config, name)
    jax.config.update(name, value)
    try:
        return f()
    finally:
        jax.config.update(name, old)
"""

NEW_IMPLS = IMPLS[1:]  # threefry2x32's values are checked in tests/test_random*.py
_PER_IMPL = [
    # seeding (eager), the key's type, repr and impl
    "R.key(7, impl=I), R.PRNGKey(-3, impl=I), repr(R.key(7, impl=I)), str(R.key_dtype(I)), "
    "R.key_impl(R.key(7, impl=I))",
    # eager split / fold_in / a sampler, and a raw key of the impl given where a raw key of the
    # default impl is expected
    "R.key_data(R.split(R.key(7, impl=I), (2, 3))), R.fold_in(R.key(7, impl=I), 2**31 + 5), "
    "R.normal(R.key(7, impl=I), (5,))",
    "R.split(R.PRNGKey(11, impl=I), 3)",
    # under jit: seeding from a traced seed and bits of each width
    "jax.jit(lambda k, s: (R.key_data(R.fold_in(R.key(s, impl=I), s)),"
    " R.bits(k, (5,), 'uint8'), R.bits(k, (2, 3), 'uint16'), R.bits(k, (7,))))"
    "(R.key(7, impl=I), 5)",
]
# Each case is an XLA compile of several chained hashes (seconds on a CPU): the samplers,
# which only consume an impl's bits, are checked under jit for one impl, and each loop case
# for one impl (the test's run time, not what it checks)
_CASES_OF = {
    "jax.jit(lambda k: (R.normal(R.split(k)[1], (3,)), R.uniform(k, (2, 2), minval=-1.0),"
    " R.randint(k, (6,), 0, 1000), R.permutation(k, 8), R.bernoulli(k, 0.5, (6,)),"
    " R.categorical(k, jnp.array([0.1, 0.5, 0.2, -1.0]), shape=(6,))))(R.key(7, impl=I))":
        ["philox2x32"],
    # loops carrying keys: rejection samplers (typed keys of a 2- and a 4-word impl)
    "jax.jit(lambda k: (R.gamma(k, jnp.array([0.5, 2.0, 5.0])),"
    " R.binomial(k, 20, 0.3, (3,))))(R.key(7, impl=I))": ["philox4x32"],
    "R.beta(R.key(7, impl=I), 2.0, 3.0, (2,))": ["unsafe_rbg"],
    "R.poisson(R.key(7, impl=I), 3.0, (3,))": ["rbg"],
    "with_config('jax_enable_x64', True, lambda: R.bits(R.key(7, impl=I), (3,), 'uint64'))":
        ["threefry4x32", "philox2x32", "philox4x32", "rbg"],
    "with_config('jax_default_prng_impl', I, lambda: (R.key(1), R.split(R.PRNGKey(1)),"
    " R.normal(R.PRNGKey(1), (3,))))": ["philox2x32", "philox4x32", "rbg"],
    "jax.vmap(lambda k: (R.uniform(k, (2,)), R.key_data(R.fold_in(k, 3)),"
    " R.key_data(R.split(k))))(R.split(R.key(7, impl=I), 3))": COUNTER_IMPLS[2:],
    "jax.grad(lambda x: (x * R.normal(R.key(7, impl=I), (3,))).sum())(2.0)": ["philox2x32"],
    "R.wrap_key_data(R.key_data(R.split(R.key(7, impl=I))), impl=I)": ["threefry4x32"],
}
CASES = ([src.replace("I", repr(impl)) for impl in NEW_IMPLS for src in _PER_IMPL]
         + [src.replace("I", repr(impl)) for src, impls in _CASES_OF.items() for impl in impls]
         + ["R.key(0, impl='threefry')", "R.key(0, impl=R.key_dtype('philox4x32'))",
            # jax.extend.random
            "str(XR.threefry_prng_impl), XR.seed_with_impl(XR.rbg_prng_impl, 3),"
            " XR.random_seed(np.array([[1, 2], [3, 4]]), impl=XR.unsafe_rbg_prng_impl),"
            " R.normal(R.key(1, impl=XR.rbg_prng_impl), (2,))",
            "XR.threefry_2x32(np.array([0, 1], 'uint32'), np.arange(3, dtype='uint32'))",
            # jax.experimental.random's stateful generator
            "repr(XRS.stateful_rng(42))",
            "(lambda r: (r.uniform(), r.uniform(), jax.jit(r.uniform)(), jax.jit(r.uniform)(),"
            " r.key(), r.key((2,)), r.normal(1.0, 2.0, (3,)), r.integers(10, size=4),"
            " r.random(2)))(XRS.stateful_rng(42))",
            "tuple(r.integers(0, 10, 2) for r in XRS.stateful_rng(123).spawn(2))",
            "(lambda r: (r.uniform(size=2), r.key()))(XRS.stateful_rng(5, impl='philox4x32'))",
            "jax.jit(lambda: XRS.stateful_rng().normal())()"])


def describe(x):
    """A JSON-able description of an outcome: keys by dtype, shape and data; arrays by dtype,
    shape and values (floats exactly); strings as themselves."""
    if isinstance(x, tuple):
        return [describe(v) for v in x]
    if isinstance(x, str):
        return x
    if "key<" in str(getattr(x, "dtype", "")):
        return ["key", str(x.dtype), list(x.shape), np.asarray(x._data if hasattr(x, "_data")
                                                               else x._base_array).tolist()]
    a = np.asarray(x)
    return [str(a.dtype), list(a.shape), a.tolist()]


def outcome(src, env):
    try:
        return describe(eval(src, env))
    except Exception as e:  # noqa: BLE001 (errors are outcomes too)
        return ["error", type(e).__name__, str(e)]
