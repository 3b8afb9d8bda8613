"""Helper r22_g's by-hand sweep of jax.numpy (tools/difftest/sweep_numpy.py), each outcome
recorded from JAX 0.10.2 by tests/data/record_fidelity_r22_g.py over
tests/data/fidelity_r22_g_cases.py:

1. quantile/percentile (and the nan-versions) take ``method="inverted_cdf"`` and ``weights=``
   (minijax refused the method), with JAX's errors.
2. histogramdd/histogram2d count in default ints unless weighted or ``density`` (minijax
   counted in floats).
3. gradient computes JAX's formulas (``(d * 0.5) / h`` inside: minijax's ``d / (2 * h)``
   rounded differently) and raises JAX's errors.
4. linspace's ``retstep`` without a step is a strong NaN (minijax: weak).
5. errors as JAX's: argmax/argmin's axis out of bounds is Python's IndexError, searchsorted's
   side, convolve's rank, polyfit of integer x (JAX fails in finfo
   where NumPy fits), einsum's operand count, tensordot's axes, ``jnp.fix``'s removal message.
6. einsum_path's path is opt_einsum's (no NumPy "einsum_path" head).
7. fmod of integers by 0 is 0; frexp is JAX's (its derivative, its jaxpr, ldexp of
   subnormals through it); jnp.where's condition as JAX's (no conversion of a weak bool).
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
from fidelity_r22_g_cases import ERRORS, PY, SETUP, VALUES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r22_g_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["values"]] == VALUES
    assert [src for src, _ in _JAX["errors"]] == ERRORS
    assert [src for src, _ in _JAX["py"]] == PY


@pytest.mark.parametrize("src,expected", _JAX["values"], ids=range(len(VALUES)))
def test_values_as_jax(src, expected):
    x = eval(src, _ENV)
    dtype, weak, shape, values = expected
    assert (str(x.dtype), bool(x.aval.weak_type), list(x.shape)) == (dtype, weak, shape)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(values, dtype=x.dtype))


@pytest.mark.parametrize("src,expected", _JAX["errors"], ids=range(len(ERRORS)))
def test_errors_as_jax(src, expected):
    with pytest.raises(Exception) as info:
        eval(src, _ENV)
    assert [type(info.value).__name__, str(info.value)] == expected


@pytest.mark.parametrize("src,expected", _JAX["py"], ids=range(len(PY)))
def test_python_values_as_jax(src, expected):
    assert json.loads(json.dumps(eval(src, _ENV))) == expected
