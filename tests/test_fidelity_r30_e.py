"""The sharding API against JAX 0.10.2: reshard's refusals, the spec an Array reports,
with_sharding_constraint given a layout Format, device_put's staged equation. Expected
outcomes were recorded from JAX 0.10.2 by tests/data/record_cases.py over
tests/data/fidelity_r30_e_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r30_e", jax, jnp)
