"""jax.numpy's errors and last round's jnp sweep leftovers (helper r23_a), each recorded from
JAX 0.10.2 by tests/data/record_fidelity_r23_a.py over tests/data/fidelity_r23_a_cases.py:

1. An out-of-range axis is a plain ValueError (not NumPy's AxisError), or JAX's IndexError
   where JAX indexes a shape or a NumPy array with it first (mean/var/std, split, swapaxes,
   packbits); repeated and non-integer axes in each function's own words.
2. check_arraylike's words; a string passes it and fails at JAX's asarray
   (``histogram(bins='auto')``).
3. ``einsum_path``'s second element is opt_einsum's PathInfo: its printed report and costs.
4. put_along_axis's checks and its axis=None shape; average's weights along several axes;
   packbits/unpackbits as JAX's steps (their jaxprs).
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
from fidelity_r23_a_cases import (  # noqa: E402
    EINSUM_PATHS, ERROR_STARTS, ERRORS, JAXPRS, SETUP, VALUES)

_JAX = json.loads((_DATA / "fidelity_r23_a_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["errors"]] == ERRORS
    assert [src for src, _ in _JAX["error_starts"]] == [src for src, _ in ERROR_STARTS]
    assert [src for src, _ in _JAX["values"]] == VALUES
    assert [src for src, _ in _JAX["jaxprs"]] == JAXPRS
    assert len(_JAX["einsum_paths"]) == len(EINSUM_PATHS)


@pytest.mark.parametrize("src,expected", _JAX["errors"], ids=[s for s, _ in _JAX["errors"]])
def test_error(src, expected):
    assert eval(src, _ENV) == expected


@pytest.mark.parametrize("case,expected", zip(ERROR_STARTS, _JAX["error_starts"]),
                         ids=[s for s, _ in ERROR_STARTS])
def test_error_type_and_start(case, expected):
    src, start = case
    for got, want in zip(eval(src, _ENV), expected[1]):
        assert got[0] == want[0]
        if start is not None:
            assert want[1].startswith(start) and got[1].startswith(start)


@pytest.mark.parametrize("src,expected", _JAX["values"], ids=[s for s, _ in _JAX["values"]])
def test_value(src, expected):
    x = eval(src, _ENV)
    assert [str(x.dtype), list(x.shape), np.asarray(x).tolist()] == expected


@pytest.mark.parametrize("src,expected", _JAX["jaxprs"], ids=[s for s, _ in _JAX["jaxprs"]])
def test_jaxpr(src, expected):
    assert str(eval(src, _ENV)) == expected


@pytest.mark.parametrize("case,expected", zip(EINSUM_PATHS, _JAX["einsum_paths"]),
                         ids=[c[0] for c in EINSUM_PATHS])
def test_einsum_path_info(case, expected):
    spec, shapes, optimize = case
    path, info = jnp.einsum_path(spec, *(np.ones(s, np.float32) for s in shapes),
                                 optimize=optimize)
    assert [list(p) for p in path] == expected["path"]
    assert type(info).__name__ == expected["type"]
    assert str(info) == expected["str"] and repr(info) == expected["repr"]
    assert [[list(c[0]), sorted(c[1]), c[2], list(c[3]), c[4]]
            for c in info.contraction_list] == expected["contraction_list"]
    for name in ("naive_cost", "opt_cost", "speedup", "largest_intermediate"):
        assert str(getattr(info, name)) == expected[name], name
    assert list(info.size_list) == expected["size_list"]
    assert list(info.scale_list) == expected["scale_list"]
    assert info.eq == expected["eq"] and sorted(info.indices) == expected["indices"]
    assert [list(s) for s in info.shapes] == expected["shapes"]
