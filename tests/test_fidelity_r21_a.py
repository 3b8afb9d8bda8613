"""Issue 21: jaxprs print as JAX 0.10.2 prints them, character for character: its layout (a
Wadler-Lindig document at width 80: an equation's params one a line when they do not fit, a
nested jaxpr indented under its param, ``let`` jaxprs first) and its param text (hidden
params, named tuples, quoted strings, masked addresses). Expected texts were recorded from JAX
0.10.2 by tests/data/record_fidelity_r21_a.py over tests/data/fidelity_r21_a_cases.py."""
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
from fidelity_r21_a_cases import CASES, SETUP  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r21_a_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_printed_as_jax(src, expected):
    assert eval(src, _ENV) == expected
