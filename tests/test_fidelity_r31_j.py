"""Typed PRNG key arrays in jax.lax's structural functions (eager, jit, vmap, loops, grad),
jnp.pad's modes, jnp.isin, jnp.array_equal/array_equiv, and the key data's sharding of keys
placed by jit's out_shardings and device_put, as JAX 0.10.2 has them. Expected outcomes were
recorded from JAX 0.10.2 by tests/data/record_cases.py over tests/data/fidelity_r31_j_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r31_j", jax, jnp)
