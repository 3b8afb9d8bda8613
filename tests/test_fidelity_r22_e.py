"""Issue 21's known differences fixed by helper r22_e, each recorded from JAX 0.10.2 by
tests/data/record_fidelity_r22_e.py over the cases in tests/data/fidelity_r22_e_cases.py:
``lax.argmax``/``argmin`` with an axis outside [0, ndim) (JAX's errors, eager, jit and vmap),
``dot_general`` of float operands with an integer ``preferred_element_type`` (values, dtypes,
jaxpr, which preferred types are refused), and the weak type of a scan's carry cotangent
(triage_17000_r R3)."""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r22_e_cases import CASES, SETUP, outcome  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r22_e_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcome_as_jax(src, expected):
    got = json.loads(json.dumps(outcome(src, _ENV, jax.tree_util.tree_leaves)))
    assert got == expected
