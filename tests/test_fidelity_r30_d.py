"""The jaxprs of jax.scipy.special's expn/exp1/expi as JAX 0.10.2 structures them (custom_jvp of
vectorize of a jit, an int order promoted inside), their values and gradients bit for bit, and
the custom_jvp/fori_loop/switch pieces those jaxprs showed. Expected outcomes were recorded from
JAX 0.10.2 by tests/data/record_cases.py over tests/data/fidelity_r30_d_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r30_d", jax, jnp)
