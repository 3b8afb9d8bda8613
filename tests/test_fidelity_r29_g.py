"""The exceptions of collectives and named jnp reductions over an axis name nothing binds, as
JAX 0.10.2 raises them. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_cases.py over tests/data/fidelity_r29_g_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r29_g", jax, jnp)
