"""Issue 21: random bits along an axis of >= 2**32 elements, which minijax refused
(NotImplementedError) and JAX 0.10.2 computes: its counters are a uint64 iota, split into hi and
lo uint32 words. Expected values were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r20_l.py (its docstring says how, as such arrays cannot be
materialized); minijax computes only the slice, since XLA pushes the slice into its counters.
"""
import json
import pathlib
import re

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import random

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r20_l_jax.json")
                  .read_text())
_KEY = random.key(_JAX["seed"])


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"


@pytest.mark.parametrize("fn,shape,dtype,index,expected", _JAX["values"],
                         ids=[f"{c[0]}{tuple(c[1])}{c[3]}" for c in _JAX["values"]])
def test_values_at_the_last_indices_as_jax(fn, shape, dtype, index, expected):
    shape = tuple(shape)
    if fn == "split":
        f = lambda k: random.key_data(random.split(k, shape))  # noqa: E731
    else:
        f = lambda k: random.bits(k, shape, dtype)  # noqa: E731
    got = minijax.jit(lambda k: eval(f"x{index}", {"x": f(k)}))(_KEY)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected, np.uint32))
    assert got.dtype == (np.uint32 if fn == "split" else np.dtype(dtype))


def _u64_lines(text):
    """The lines on uint64 tensors, SSA names numbered by first use (programs number apart)."""
    lines = [line.strip() for line in text.splitlines() if "ui64" in line]
    names = {}
    return [re.sub(r"%[\w#]+", lambda m: names.setdefault(m.group(), f"%v{len(names)}"), line)
            for line in lines]


@pytest.mark.parametrize("shape", list(_JAX["u64_lines"]))
def test_counters_lower_to_jaxs_uint64_iota(shape):
    text = minijax.jit(lambda k: random.bits(k, eval(shape), jnp.uint8)).lower(_KEY).as_text()
    assert _u64_lines(text) == _u64_lines("\n".join(_JAX["u64_lines"][shape]))


@pytest.mark.parametrize("shape,outcome", _JAX["lower"], ids=lambda v: str(v)[:30])
def test_up_to_2_to_the_64_elements(shape, outcome):
    f = minijax.jit(lambda k: random.bits(k, tuple(shape)))
    if outcome == "lowered":
        f.lower(_KEY)
        return
    with pytest.raises(Exception) as info:
        f.lower(_KEY)
    assert [type(info.value).__name__, str(info.value).split("\n  at ")[0]] == outcome
