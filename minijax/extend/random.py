"""``minijax.extend.random`` (``jax.extend.random``): PRNG implementations as objects, for
libraries that seed keys of a given impl or define their own."""

from __future__ import annotations

from minijax import numpy as jnp
from minijax.vmapping import vmap
from minijax.random._keys import _IMPLS, PRNGImpl, PRNGKeyArray, _seed_array
from minijax.random._threefry import threefry2x32_p, threefry_2x32

__all__ = ["define_prng_impl", "random_seed", "seed_with_impl", "rbg_prng_impl",
           "unsafe_rbg_prng_impl", "threefry2x32_p", "threefry_2x32", "threefry_prng_impl"]

threefry_prng_impl = _IMPLS["threefry2x32"]
rbg_prng_impl = _IMPLS["rbg"]
unsafe_rbg_prng_impl = _IMPLS["unsafe_rbg"]


def define_prng_impl(*, key_shape, seed, split, random_bits, fold_in, name="<unnamed>",
                     tag="?"):
    """A PRNG impl from its functions on one key's data (``random.key(0, impl=...)`` takes it)."""
    return PRNGImpl(name, tag, tuple(key_shape), seed, split, fold_in, random_bits)


def random_seed(seeds, impl):
    """Typed keys of ``impl``, one per integer of ``seeds`` (any shape)."""
    if not isinstance(seeds, int) and jnp.ndim(seeds):
        seeds = jnp.asarray(seeds)
        flat = vmap(impl.seed)(jnp.ravel(seeds))
        return PRNGKeyArray(jnp.reshape(flat, seeds.shape + impl.key_shape), impl)
    return PRNGKeyArray(impl.seed(_seed_array(seeds)), impl)


def seed_with_impl(impl, seed):
    return random_seed(seed, impl=impl)
