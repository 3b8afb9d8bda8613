"""Run 20000's s20003-410, s20004-734, s20023-159, s20024-252 and s20014-553
(tools/difftest/triage_20000_h.md): an output that is an operand passed through keeps JAX
0.10.2's Python type. ``checkpoint`` evaluates its body on its canonicalized operands (a Python
float comes back a ``TypedFloat``; minijax gave the plain float back), and jit's linearization
forwards a known operand to a known output as given (``vjp``'s ``TypedFloat``; minijax computed
a weak Array). Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r17_h.py over the cases in tests/data/fidelity_r17_h_cases.py.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r15_x_cases import describe  # noqa: E402
from fidelity_r17_h_cases import CASES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r17_h_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_types_dtypes_and_values_as_jax(src, expected):
    got = describe(eval(src, _ENV), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected
