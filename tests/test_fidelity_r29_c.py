"""Python float constants staged unrounded in jaxprs as JAX 0.10.2 stages them (the jaxprs of
``sici``/``spence``/``fresnel`` and their gradients), ``sph_harm_y``'s values bit for bit, and
``gammainc``/``gammaincc`` values and gradients. Expected outcomes were recorded from JAX 0.10.2
by tests/data/record_cases.py over tests/data/fidelity_r29_c_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r29_c", jax, jnp)
