"""Run 23000's s23045-85 (tools/difftest/triage_23000_c.md): reverse mode over the JVP of a
scan whose body was traced with a weak const (a Python float's tangent slot) but is given a
strong one (a float32 tangent). JAX's partial evaluation retraces the known scan with the
known consts' values, so the strong tangent makes the known body's tangent and residuals
strong, and with them the primal carry's cotangent; minijax kept the binders' weak types.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r19_c.py.
"""
import json
import pathlib
import sys

import pytest

import minijax as jax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from record_fidelity_r19_c import cases, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r19_c_jax.json").read_text())
_CASES = cases(jax)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert sorted(_JAX["cases"]) == sorted(_CASES)


@pytest.mark.parametrize("name", sorted(_JAX["cases"]))
def test_dtypes_weak_types_and_values_as_jax(name):
    assert describe(_CASES[name](), jax.tree_util.tree_leaves) == _JAX["cases"][name]
