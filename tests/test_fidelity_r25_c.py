"""Helper r25_c's differences from JAX 0.10.2, each recorded from JAX by
tests/data/record_fidelity_r25_c.py over the cases in tests/data/fidelity_r25_c_cases.py:

1. Structural ops' checks (transpose, squeeze, rev, expand_dims, tensordot's axes) and the
   dtype errors jnp functions meet in lax: JAX's class and message, with no "jnp.f: " prefix
   and no user line in it (minijax notes the user's line on the exception instead).
2. A tracer's repr/str: JitTracer, VmapTracer, JVPTracer, GradTracer as JAX prints them.
4. jit's refusal of an argument that is no array, naming the parameter's path.
5. jnp's creation functions, astype and view given a 64-bit dtype with x64 off: JAX's
   UserWarning, pointing at the caller's line where JAX's does (JAX's arange, linspace,
   logspace, geomspace, eye and the astype method point into its own files).
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r25_c_cases import (  # noqa: E402
    ERRORS, JIT_ARGS, REPRS, SETUP, TRACER_ERRORS, WARNINGS)

_JAX = json.loads((_DATA / "fidelity_r25_c_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["errors"]] == ERRORS
    assert [src for src, _ in _JAX["reprs"]] == REPRS
    assert [src for src, _ in _JAX["tracer_errors"]] == TRACER_ERRORS
    assert [src for src, _ in _JAX["jit_args"]] == JIT_ARGS
    assert [src for src, _ in _JAX["warnings"]] == WARNINGS


@pytest.mark.parametrize("src, expected", _JAX["errors"], ids=[s for s, _ in _JAX["errors"]])
def test_errors_eagerly_and_under_jit(src, expected):
    assert _ENV["both"](src) == expected


def test_tracer_reprs():
    for src, expected in _JAX["reprs"]:
        assert _ENV["reprs"](src) == expected, src


def test_messages_showing_a_tracer():
    for src, expected in _JAX["tracer_errors"]:
        assert _ENV["outcome"](eval(src, _ENV)) == expected, src


def test_jit_refuses_a_non_array_argument_in_jax_words():
    for src, expected in _JAX["jit_args"]:
        assert _ENV["outcome"](eval(src, _ENV)) == expected, src


def test_a_rule_error_notes_the_user_line_outside_its_message():
    with pytest.raises(TypeError) as e:
        lax.transpose(_ENV["X"], (0, 0))  # the bad permutation
    assert "\n" not in str(e.value)
    assert e.value.__notes__[0].startswith(f"  at {__file__}:")
    assert "the bad permutation" in e.value.__notes__[0]


def test_x64_dtype_warnings():
    for src, expected in _JAX["warnings"]:
        got = _ENV["warned"](src)
        assert [w[:2] for w in got] == [w[:2] for w in expected], src
        for w, e in zip(got, expected):
            assert w[2] or not e[2], src  # at the caller's line where JAX's is
