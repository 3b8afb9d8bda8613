"""The sharding differences FINDINGS 294 left open, against JAX 0.10.2: an op on an Array of
one mesh after the same op on the same layout over another mesh of the same devices. Expected
outcomes were recorded from JAX 0.10.2 by tests/data/record_cases.py over
tests/data/fidelity_r31_i_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r31_i", jax, jnp)
