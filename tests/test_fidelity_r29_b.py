"""An aval's strings with JAX 0.10.2's defaults (``str_short()`` spells dtypes in full unless
``short_dtypes=True``; ``mesh_axis_types=True`` adds the mesh's axis types; FINDINGS 280), and
``lax.broadcast_in_dim`` as JAX's: unsorted ``broadcast_dimensions`` transpose, a broadcast to
the operand's own shape is checked then forwarded (eager and staged), and the refusals are in
JAX's words and order (FINDINGS 269). Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r29_b.py over tests/data/fidelity_r29_b_cases.py.
"""
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import DATA, assert_equals_one

sys.path.insert(0, str(DATA))
from fidelity_r29_b_cases import CASES, SETUP  # noqa: E402

_RECORDS = jax_records.load("fidelity_r29_b_jax.json")
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _RECORDS[0]["jax_version"] == "0.10.2"
    assert [src for src, _ in _RECORDS[0]["cases"]] == CASES


@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_jax(i):
    got = eval(CASES[i], _ENV)
    assert_equals_one(got, [r["cases"][i][1] for r in _RECORDS])
