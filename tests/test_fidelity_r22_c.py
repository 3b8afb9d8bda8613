"""Issue 21's known differences of helper r22_c, each recorded from JAX 0.10.2 by
tests/data/record_fidelity_r22_c.py over the cases in tests/data/fidelity_r22_c_cases.py:

1. A float0 value is JAX's TypedNdArray: its ``aval`` (made on first use, or given), slots,
   ``weak_type``, and pickling as JAX's (whose copy's ``aval`` is the weak-type bool).
2. ``jnp.asarray``/``jnp.array``/``device_put``/``jit`` of a float0 value give a TypedNdArray
   (its type in the memory asked for), not XLA's error about a zero-width dtype.
3. Memory kinds: ``jit(in_shardings=<host sharding>)`` refuses an Array in device memory, even
   an uncommitted one (a NumPy argument is put there); argmax/argmin, softmax/log_softmax and
   qr of a host value raise JAX's memory-space error; ``*_like`` of a host prototype raises
   jaxlib's memory-kind mismatch (not for a weak prototype, whose layout is not followed), and
   ``jnp.array`` of host scalars is in host memory.
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
from fidelity_r22_c_cases import FLOAT0, MEMORY, SETUP  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r22_c_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["float0"]] == FLOAT0
    assert [src for src, _ in _JAX["memory"]] == MEMORY


@pytest.mark.parametrize("src,expected", _JAX["float0"], ids=range(len(FLOAT0)))
def test_float0_values_as_jax(src, expected):
    assert json.loads(json.dumps(eval(src, _ENV))) == expected


@pytest.mark.parametrize("src,expected", _JAX["memory"], ids=range(len(MEMORY)))
def test_memory_kinds_as_jax(src, expected):
    assert json.loads(json.dumps(eval(src, _ENV))) == expected
