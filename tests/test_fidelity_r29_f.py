"""Batching's broadcast_dimensions (NumPy or Python ints, as JAX's rules), pad's batching, the
transpose of broadcast_in_dim from size-1 axes, and sum/prod/mean of bools (FINDINGS 286), as
JAX 0.10.2 gives them. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_cases.py over tests/data/fidelity_r29_f_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r29_f", jax, jnp)
