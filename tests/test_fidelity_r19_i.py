"""The gradient of ``random.gamma`` in alpha at large alpha (tools/difftest/triage_23000_i.md):
JAX's igamma power series (behind igamma, igammac, igamma_grad_a and random_gamma_grad) runs
until its terms stop mattering, thousands of steps near x ~ a (4553 at a = 1e6); minijax
stopped it after 2000, so grad(random.gamma) at alpha 1e6 was 0.881 for JAX's 1.0008.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r19_i.py.
"""
import json
import pathlib
import sys

import pytest

import minijax as jax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from record_fidelity_r19_i import cases, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r19_i_jax.json").read_text())
_CASES = cases(jax)

pytestmark = pytest.mark.usefixtures("x64")


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert sorted(_JAX["cases"]) == sorted(_CASES)


@pytest.mark.parametrize("name", sorted(_JAX["cases"]))
def test_dtypes_weak_types_and_values_as_jax(name):
    assert describe(_CASES[name](), jax.tree_util.tree_leaves) == _JAX["cases"][name]
