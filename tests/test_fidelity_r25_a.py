"""Gathers and scatters staged as JAX's ``_index_to_gather`` stages them (helper r25_a),
recorded from JAX 0.10.2 by tests/data/record_fidelity_r25_a.py over the cases in
tests/data/fidelity_r25_a_cases.py: a NumPy index array's normalization is equations
(``index < 0`` a bool constant, ``add``, ``select_n``; an unsigned index a
``convert_element_type``), a static integer beside an index array joins the gather's indices
(``broadcast_in_dim 1:i32[]``, ``convert_element_type``, ``concatenate``), slices are windows
of the same gather, and a scatter's static integers are ``broadcast_in_dim 1:i32[]``; and
jnp.diagonal/diag/trace/diagflat as JAX's (the platform-dependent cond carries
``branches_platforms`` and no clamp). The whole printed jaxpr is compared, and the values
(eager, so NumPy folds the same indices)."""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r25_a_cases import CASES, SETUP, VALUE_CASES, X64_CASES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r25_a_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [c[0] for c in _JAX["cases"]] == [fn for fn, _ in CASES]
    assert [c[0] for c in _JAX["x64"]] == [fn for fn, _ in X64_CASES]
    assert [c[0] for c in _JAX["values"]] == [fn for fn, _ in VALUE_CASES]


def _check(cases, recorded, case):
    fn_src, args_src = cases[case]
    _, text, dtype, value = recorded[case]
    fn, args = eval(fn_src, _ENV), [jnp.asarray(a) for a in eval(args_src, _ENV)]
    if text is not None:
        assert str(jax.make_jaxpr(fn)(*args)) == text
    y = fn(*args)
    assert str(y.dtype) == dtype
    np.testing.assert_array_equal(np.asarray(y), np.asarray(value, dtype))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_jaxpr_and_value_as_jax(case):
    _check(CASES, _JAX["cases"], case)


@pytest.mark.parametrize("case", range(len(VALUE_CASES)))
def test_value_as_jax(case):
    _check(VALUE_CASES, _JAX["values"], case)


@pytest.mark.parametrize("case", range(len(X64_CASES)))
def test_jaxpr_and_value_as_jax_x64(case, x64):
    _check(X64_CASES, _JAX["x64"], case)
