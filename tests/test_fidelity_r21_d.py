"""Host memory in types, as JAX 0.10.2: a value in pinned host memory has the type
``float32<host>[4]`` (``ShapedArray.memory_space``, ``jax.memory.Space.Host``), which typeof,
reprs and jaxprs print; an operation's result is in its operands' memory (JAX's ValueError at
trace time when they differ); grad's device-memory seed does not match a result in host memory
(JAX's ValueError); a ``device_put`` inside ``jit`` changes the memory space of the type; and
``jit`` lowers its results' memory kinds from their types. Expected outcomes were recorded from
JAX 0.10.2 by tests/data/record_fidelity_r21_d.py over tests/data/fidelity_r21_d_cases.py.
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
from fidelity_r21_d_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r21_d_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_memory_space_in_types_as_jax(src, expected):
    got = describe(lambda: eval(src, _ENV), lambda v: str(jax.typeof(v)))
    if got[0] == "error" and expected[0] == "error":
        # minijax appends the user's line to its trace-time errors (the AD ones): JAX's text
        # comes first, whole
        got = got[:2] + [got[2].split("\n  at ")[0]]
    if src.startswith("jaxpr(") and got[0] == expected[0] == "value":
        # the types and equations, not the line breaking of long equations (the printer's
        # layout, tested on its own elsewhere)
        got, expected = ([k, "".join(v.split())] for k, v in (got, expected))
    assert json.loads(json.dumps(got)) == expected


def test_types_differing_only_in_memory_space_are_distinct_jit_cache_entries():
    # one jitted function called on a device value and then on a host one: two programs, each
    # result in its argument's memory
    f = jax.jit(lambda a: a * 2)
    y, x = _ENV["y"], _ENV["x"]
    assert str(jax.typeof(f(y))) == "float32[4]"
    assert str(jax.typeof(f(x))) == "float32<host>[4]"
    assert f(x).sharding.memory_kind == "pinned_host"
