"""``lax.reduce_*``'s and ``argmax``'s ``axes`` as JAX 0.10.2 binds them (``tuple(axes)``:
unsorted, NumPy ints kept, a negative axis refused; FINDINGS 278), their refusals in JAX's
classes, words and order of checks (eager, under jit and vmap), jnp's reductions (negative axes
normalized, the order kept), and the values, gradients, JVPs and vmaps of reductions over
unsorted axes. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r29_a.py over tests/data/fidelity_r29_a_cases.py.
"""
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import DATA, assert_equals_one

sys.path.insert(0, str(DATA))
from fidelity_r29_a_cases import CASES, SETUP  # noqa: E402

_RECORDS = jax_records.load("fidelity_r29_a_jax.json")
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _RECORDS[0]["jax_version"] == "0.10.2"
    assert [src for src, _ in _RECORDS[0]["cases"]] == CASES


@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_jax(i):
    got = eval(CASES[i], _ENV)
    assert_equals_one(got, [r["cases"][i][1] for r in _RECORDS])
