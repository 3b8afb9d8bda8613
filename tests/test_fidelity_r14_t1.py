"""Weak types of cotangents from oracle run 14000 (tools/difftest/triage_14000_r.md R3-R5).

R3: a weak loop init the body makes strong of the same dtype is passed unconverted, and the
scan transpose gives it the (strong) carry cotangent's type. R4: the slice transpose pads with
JAX's ``_const(ct, 0)`` (weak only for a weak rank-0 ct). R5: the gather transpose scatters into
strong zeros. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r14_t1.py over the cases in tests/data/fidelity_r14_t1_cases.py.
"""
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
from fidelity_r14_t1_cases import CASES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r14_t1_jax.json").read_text())


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_value_dtype_and_weak_type_as_jax(src, expected):
    x = eval(src, {"jax": jax, "jnp": jnp, "lax": lax, "np": np})
    got = {"value": np.asarray(x).tolist(), "dtype": str(x.dtype),
           "weak_type": bool(x.aval.weak_type)}
    assert got == expected
