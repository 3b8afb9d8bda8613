"""JAX 0.10.2's outcomes for the lead's r31 differences (tests/data/fidelity_r31_lead_cases.py),
recorded by tests/data/record_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r31_lead", jax, jnp)
