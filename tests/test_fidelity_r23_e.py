"""Issue 21's differences of helper r23_e, recorded from JAX 0.10.2 by
tests/data/record_fidelity_r23_e.py over the cases in tests/data/fidelity_r23_e_cases.py:

1. A ``dot_general`` with an integer ``preferred_element_type`` has an integer tangent (its
   bilinear JVP at that dtype): ``jvp`` and ``jacfwd`` return it, lax consumers carry it on,
   a jitted function (most jnp functions) takes it as zero, ``linearize`` returns it and
   ``vjp`` transposes a cotangent of its type; a zero scalar tangent under ``make_jaxpr`` is a
   literal. A convolution refuses the preferred types JAX's does.
2. ``jnp.linalg.solve``/``inv`` of host-memory operands raise JAX's memory-space error naming
   the primitive of JAX's implementation (``dot_general``, or ``gather`` for two host
   operands).
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
from fidelity_r23_e_cases import ERRORS, JAXPRS, SETUP, VALUES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r23_e_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def _leaf(x):
    if x.dtype == jax.dtypes.float0:
        return ["float0", list(np.shape(x))]
    return [str(x.dtype), bool(getattr(x, "weak_type", False)), np.asarray(x).tolist()]


def _outcome(src):
    try:
        return ["value", jax.tree.map(_leaf, eval(src, _ENV))]
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return [type(e).__name__, str(e).split("\n")[0]]


def _lists(tree):
    return json.loads(json.dumps(tree))  # tuples as JSON lists, as recorded


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["values"]] == VALUES
    assert [src for src, _ in _JAX["jaxprs"]] == JAXPRS
    assert [src for src, _ in _JAX["errors"]] == ERRORS


@pytest.mark.parametrize("src,expected", _JAX["values"], ids=range(len(VALUES)))
def test_tangent_types_and_values_as_jax(src, expected):
    assert _lists(jax.tree.map(_leaf, eval(src, _ENV))) == expected


@pytest.mark.parametrize("src,expected", _JAX["jaxprs"], ids=range(len(JAXPRS)))
def test_jaxpr_as_jax(src, expected):
    assert str(eval(src, _ENV)) == expected


@pytest.mark.parametrize("src,expected", _JAX["errors"], ids=range(len(ERRORS)))
def test_outcome_as_jax(src, expected):
    assert _lists(_outcome(src)) == expected
