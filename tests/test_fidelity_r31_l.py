"""The jaxprs of grad and vmap(grad) through jnp.pad, cumprod, polyval and jnp.linalg as JAX 0.10.2
prints them. Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_cases.py over
tests/data/fidelity_r31_l_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r31_l", jax, jnp)
