"""``lax.reduce_*``'s and ``argmax``'s ``axes`` as JAX 0.10.2 binds them (``tuple(axes)``:
unsorted, NumPy ints kept, a negative axis refused; FINDINGS 278), their refusals in JAX's
classes, words and order of checks (eager, under jit and vmap), jnp's reductions (negative axes
normalized, the order kept), and the values, gradients, JVPs and vmaps of reductions over
unsorted axes. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_cases.py over tests/data/fidelity_r29_a_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r29_a", jax, jnp)
