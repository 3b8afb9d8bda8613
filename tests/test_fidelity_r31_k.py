"""Weak types of linearized tangents (a jnp function's tangent typed at its primals' types, as
JAX's linearization inlines it) and the second derivatives of scipy.special's exp1/expn/expi, as
JAX 0.10.2 has them. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_cases.py over tests/data/fidelity_r31_k_cases.py.
"""

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r31_k", jax, jnp)
