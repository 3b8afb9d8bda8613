"""``device_put`` to a ``jax.memory.Space`` and its ``src=``/``donate=``/``may_alias=``
keywords, custom_jvp's tangent-type error without weak types, ``lax.rev``'s and
``slice_in_dim``/``index_in_dim``'s refusals, and named-axis jnp reductions (psum/pmax/pmin
under ``vmap``/``shard_map``, JAX's NotImplementedError for the others), in JAX 0.10.2's
results and words. Expected outcomes were recorded from JAX 0.10.2 (4 CPU devices) by
tests/data/record_cases.py over tests/data/fidelity_r29_d_cases.py.
"""

import pytest

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r29_d", jax, jnp,
    marks=[pytest.mark.devices(4)])  # conftest's marker: skipped with fewer devices
