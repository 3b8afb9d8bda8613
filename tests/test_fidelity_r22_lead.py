"""Issue 21: a by-hand sweep of jnp.linalg, jax.scipy.linalg and lax.linalg against JAX 0.10.2
(tools/difftest/triage_27000_lead.md): expm's float32 bits (its Pade sums in JAX's order),
lu's real permutation of a complex matrix, polar refusing integers, linalg.outer refusing
matrices, and JAX's error types and words for shapes and dtypes linalg refuses. Outcomes were
recorded from JAX 0.10.2 by tests/data/record_fidelity_r22_lead.py over
tests/data/fidelity_r22_lead_cases.py."""
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import assert_equals_one

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r22_lead_cases import CASES, SETUP  # noqa: E402

_RECORDS = jax_records.load("fidelity_r22_lead_jax.json")
_JAX = _RECORDS[0]
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_jax(i):
    got = eval(CASES[i], _ENV)
    assert_equals_one(got, [r["cases"][i][1] for r in _RECORDS])
