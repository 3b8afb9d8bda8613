"""The Array API as JAX 0.10.2 gives it: a multi-device Array's ``.device`` (its sharding),
``Shard``'s repr (with ``data``), a deleted Array's errors, jnp.reshape's errors, device_get's
result types (a new key array for a key array) and whether device_put returns its input itself.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_cases.py over
tests/data/fidelity_r29_h_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r29_h", jax, jnp)
