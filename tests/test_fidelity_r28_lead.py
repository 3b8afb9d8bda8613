"""``lax.dot_general``'s refusals in JAX 0.10.2's words and order of checks, bf16/f16 dots
accumulating in f32 (the one dot JAX emits on the CPU; test_fidelity_r19_h case 26 holds the
last bits that widening first changed), and ``jvp``'s refusals of primals and tangents in JAX's
words and order. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_cases.py over tests/data/fidelity_r28_lead_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r28_lead", jax, jnp)
