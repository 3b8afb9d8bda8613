"""Typed PRNG key arrays' Array API (FINDINGS 285): placement and buffer methods forwarded to
the key data, the sharding and aval without the key dimensions (one device, a 2-device mesh,
``set_mesh``), shards of keys, shape methods, and JAX's refusals. Expected outcomes were recorded
from JAX 0.10.2 by tests/data/record_cases.py over tests/data/fidelity_r29_e_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r29_e", jax, jnp)
