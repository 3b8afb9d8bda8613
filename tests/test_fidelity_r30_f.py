"""An eagerly called shard_map as JAX 0.10.2 runs it (FINDINGS 272 and the r30 f findings): scan's
carry check on the types a jnp call's JVP gives, check_vma=False on a partly manual mesh, a
bfloat16 NaN's sign and host callbacks in device order. Expected outcomes were recorded from JAX
0.10.2 by tests/data/record_cases.py over tests/data/fidelity_r30_f_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r30_f", jax, jnp)
