"""The Array API as JAX 0.10.2 gives it: a multi-device Array's ``.device`` (its sharding),
``Shard``'s repr (with ``data``), a deleted Array's errors, jnp.reshape's errors, device_get's
result types (a new key array for a key array) and whether device_put returns its input itself.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r29_h.py over
tests/data/fidelity_r29_h_cases.py.
"""
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import DATA, assert_equals_one

sys.path.insert(0, str(DATA))
from fidelity_r29_h_cases import CASES, SETUP  # noqa: E402

_RECORDS = jax_records.load("fidelity_r29_h_jax.json")
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _RECORDS[0]["jax_version"] == "0.10.2"
    assert [src for src, _ in _RECORDS[0]["cases"]] == CASES


@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_jax(i):
    got = eval(CASES[i], _ENV)
    assert_equals_one(got, [r["cases"][i][1] for r in _RECORDS])
