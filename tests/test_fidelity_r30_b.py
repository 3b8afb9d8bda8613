"""Typed PRNG key arrays in jnp's structural functions (eager, jit, vmap), their ``.at[]``,
operators, ``pprint``, ``_committed`` and key data sharding, as JAX 0.10.2 has them. Expected
outcomes were recorded from JAX 0.10.2 by tests/data/record_cases.py over
tests/data/fidelity_r30_b_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r30_b", jax, jnp)
