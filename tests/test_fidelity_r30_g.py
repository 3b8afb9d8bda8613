"""The jaxprs of grad and vmap(grad) of jnp/nn elementwise and reduction functions, as JAX
0.10.2 prints them. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_cases.py over tests/data/fidelity_r30_g_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r30_g", jax, jnp)
