"""jnp functions' result dtypes and weak types (and their errors) on weakly/strongly typed
inputs, checked against a table recorded from JAX 0.10.2 (tests/data/record_r7_weak.py)."""
import builtins
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax.numpy as jnp

DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
import record_r7_weak  # noqa: E402 - the recorder's own case table

RECORDED = json.loads((DATA / "r7_weak_jax.json").read_text())
RECORDED_TABLE = RECORDED["table"]
_GROUPS = sorted({k.split("|")[0] for k in RECORDED_TABLE})


def test_recorded_from_jax_0_10_2():
    assert RECORDED["jax_version"] == "0.10.2"
    assert len(RECORDED_TABLE) == len(record_r7_weak.cases())


@pytest.fixture(scope="module")
def minijax_table():
    return record_r7_weak.run(jnp)


def _matches(expected, got):
    if isinstance(expected, str):
        # an error: minijax's may be a subclass (NumPy's AxisError is both the ValueError and
        # the IndexError that JAX raises in places)
        if not isinstance(got, str):
            return False
        got_cls = getattr(builtins, got, None) or getattr(np.exceptions, got)
        return issubclass(got_cls, getattr(builtins, expected))
    return got == expected


@pytest.mark.parametrize("name", _GROUPS)
def test_dtype_and_weak_type_as_jax(minijax_table, name):
    bad = {k: (v, minijax_table[k]) for k, v in RECORDED_TABLE.items()
           if k.split("|")[0] == name and not _matches(v, minijax_table[k])}
    assert not bad, bad
