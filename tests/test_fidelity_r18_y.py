"""Cotangent weak types as JAX 0.10.2's (tools/difftest/triage_22000_y.md): ``grad`` of
``x @ s`` (and dot, vdot, inner, tensordot, einsum, matvec, vecdot) with a weak ``x`` and a
strong ``s`` is strong, since JAX's dot_general takes its operands unpromoted; ``grad`` of
``jnp.diagonal`` of a weak square matrix is strong (platform_dependent's switch joins a strong
branch); pad's transpose pads with a strong zero. Expected outcomes were recorded from JAX 0.10.2
by tests/data/record_fidelity_r18_y.py over tests/data/fidelity_r18_y_cases.py."""
import json
import pathlib
import sys

import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r18_y_cases import describe, make  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_y_jax.json").read_text())
_CASES = make(jax, jnp, lax)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [name for name, _ in _JAX["cases"]] == list(_CASES)


@pytest.mark.parametrize("name,expected", _JAX["cases"], ids=[n for n, _ in _JAX["cases"]])
def test_weak_types_dtypes_and_values_as_jax(name, expected):
    assert json.loads(json.dumps(describe(jax, _CASES[name]()))) == expected
