"""The jit equations of jnp functions under ``make_jaxpr`` (names, nesting) are JAX 0.10.2's:
a partitioned program lowers each as a function call, through which Shardy propagates
shardings differently from inlined ops (FINDINGS 123). Recorded from JAX by
tests/data/record_jit_structure_numpy.py, which also holds the cases."""

import json
import os
import sys

import pytest

import minijax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from record_jit_structure_numpy import cases, jit_structure  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "jit_structure_numpy_jax.json")) as fh:
    _RECORDED = json.load(fh)
assert _RECORDED["jax_version"] == "0.10.2"

_CASES = cases(minijax.numpy)


@pytest.mark.parametrize("name", sorted(k for k, v in _RECORDED["cases"].items()
                                        if v[:1] != ["error"]))
def test_jit_structure_matches_jax(name):
    fn, args = _CASES[name]
    got = jit_structure(minijax.make_jaxpr(fn)(*args).jaxpr)
    assert got == _RECORDED["cases"][name]
