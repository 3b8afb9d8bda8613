"""psum/pmax/pmin/pmean with positional axes (eager, jit, grad, vmap, shard_map), their jaxprs
under vmap(axis_name=...) where the collective stays with the batch axis made positional, and
ppermute/pbroadcast's missing evaluation rule reached through grad or vmap of another name, in
JAX 0.10.2's results and words. Expected outcomes were recorded from JAX 0.10.2 (4 CPU devices)
by tests/data/record_cases.py over tests/data/fidelity_r30_a_cases.py.
"""

import pytest

import minijax as jax
import minijax.numpy as jnp
from tests.jax_records import replay

test_recorded_from_jax_0_10_2_over_the_current_cases, test_as_jax = replay(
    "r30_a", jax, jnp,
    marks=[pytest.mark.devices(4)])  # conftest's marker: skipped with fewer devices
