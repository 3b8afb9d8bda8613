"""lax ops take operands of one dtype, as in JAX 0.10.2: a Python scalar is a weakly typed
value of its default dtype (int32/float32/complex64, 64-bit under x64), not of the other
operand's, so ``lax.add(f16, 1.5)`` is a TypeError naming both dtypes (with JAX's tip towards
the jnp function that promotes). Every op of the family meets a Python int, float, complex and
bool, NumPy scalars, weakly typed arrays and arrays of other dtypes. The cases live in
tests/data/same_dtypes_cases.py; JAX's outcomes (result dtype and weak type, or the error) were
recorded by tests/data/record_same_dtypes.py in tests/data/same_dtypes_jax.json.
"""

import json
import os
import sys

import numpy as np
import pytest

import minijax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "data"))
from same_dtypes_cases import cases, internal_cases, x64_cases  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "..", "data", "same_dtypes_jax.json")) as _f:
    JAX = json.load(_f)

_SAME_DTYPES = "requires arguments to have the same dtypes"


def _outcome(thunk):
    try:
        r = thunk()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return ["error", type(e).__name__, str(e)]
    return ["ok", str(r.dtype), bool(r.aval.weak_type)]


def _check(expected, got):
    if expected[0] == "error":
        assert got[:2] == expected[:2], (expected, got)
        # JAX's words where the dtypes differ: "lax.max requires ..., got float16, float32.
        # (Tip: jnp.maximum ...)"; the other refusals (a dtype the op does not accept) agree
        # on the exception class.
        # (minijax may add the user's line below: "  at file.py:12 (f)")
        if _SAME_DTYPES in expected[2] or expected[1] == "OverflowError":
            assert got[2].split("\n")[0] == expected[2]
    else:
        assert got == expected


def test_recorded_with_jax_0_10_2():
    assert JAX["jax_version"] == "0.10.2"


_CASES = cases(minijax)


@pytest.mark.parametrize("name", sorted(JAX["cases"]))
def test_same_dtypes_as_jax(name):
    _check(JAX["cases"][name], _outcome(_CASES[name]))


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", sorted(JAX["x64"]))
def test_same_dtypes_as_jax_x64(name):
    _check(JAX["x64"][name], _outcome(x64_cases(minijax)[name]))


_INTERNAL = internal_cases(minijax)
_RTOL = {"float16": 1e-2, "bfloat16": 6e-2}


@pytest.mark.parametrize("name", sorted(JAX["internal"]))
def test_own_constants_take_the_operand_dtype(name):
    """minijax's own lax calls (derivative rules, special functions, nn, jnp) on float16,
    bfloat16 and int8 operands: JAX's dtype and values."""
    dtype, values = JAX["internal"][name]
    out = _INTERNAL[name]()
    assert str(out.dtype) == dtype
    np.testing.assert_allclose(np.asarray(out, np.float64).ravel(), values,
                               rtol=_RTOL.get(dtype, 1e-6), atol=_RTOL.get(dtype, 0))
