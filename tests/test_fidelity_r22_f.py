"""jax.scipy.special / jax.scipy.stats differences found by the sweep
tools/difftest/sweep_scipy.py (helper r22_f), each recorded from JAX 0.10.2 by
tests/data/record_fidelity_r22_f.py: dtype, weak type, shape and values (NaN equal to NaN)."""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.scipy import special, stats

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r22_f_cases import CASES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r22_f_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np, "special": special, "stats": stats}


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(CASES)))
def test_as_jax(src, expected):
    out = eval(src, _ENV)
    dtype, weak, shape, values = expected
    assert (str(out.dtype), bool(out.aval.weak_type), list(out.shape)) == (dtype, weak, shape)
    np.testing.assert_array_equal(np.asarray(out, np.float64), np.asarray(values, np.float64))
