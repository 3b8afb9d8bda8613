"""``device_put`` to a ``jax.memory.Space`` and its ``src=``/``donate=``/``may_alias=``
keywords, custom_jvp's tangent-type error without weak types, ``lax.rev``'s and
``slice_in_dim``/``index_in_dim``'s refusals, and named-axis jnp reductions (psum/pmax/pmin
under ``vmap``/``shard_map``, JAX's NotImplementedError for the others), in JAX 0.10.2's
results and words. Expected outcomes were recorded from JAX 0.10.2 (4 CPU devices) by
tests/data/record_fidelity_r29_d.py over tests/data/fidelity_r29_d_cases.py.
"""
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import DATA, assert_equals_one

sys.path.insert(0, str(DATA))
from fidelity_r29_d_cases import CASES, SETUP  # noqa: E402

_RECORDS = jax_records.load("fidelity_r29_d_jax.json")
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _RECORDS[0]["jax_version"] == "0.10.2"
    assert [src for src, _ in _RECORDS[0]["cases"]] == CASES


@pytest.mark.skipif(jax.device_count() < 4, reason="needs 4 CPU devices")
@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_jax(i):
    got = eval(CASES[i], _ENV)
    assert_equals_one(got, [r["cases"][i][1] for r in _RECORDS])
