"""Run 20000's s20023-109 (bug h3 of tools/difftest/triage_20000_h.md, fixed for
tools/difftest/triage_21000_m.md): inside a jaxpr being built, ``jnp.asarray`` and the
functions that return it of a Python or NumPy scalar are a literal (``2.0:f32[]``), as JAX's
``lax.stage`` makes them, not a constvar holding a concrete Array; a checkpoint body returning
one gives back the typed Python scalar, as JAX's does. Expected outcomes were recorded from JAX
0.10.2 by tests/data/record_fidelity_r18_m.py over tests/data/fidelity_r18_m_cases.py.
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
from fidelity_r15_x_cases import describe  # noqa: E402
from fidelity_r18_m_cases import CASES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_m_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_types_dtypes_values_and_jaxprs_as_jax(src, expected):
    got = describe(eval(src, _ENV), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected


def test_a_staged_scalar_is_not_concrete():
    # JAX 0.10.2 raises ConcretizationTypeError for jit(lambda y: int(jnp.asarray(3)) + y)(1.):
    # the literal is a tracer of the jaxpr (minijax's int() of any tracer raises its
    # TracerIntegerConversionError, a TypeError too)
    with pytest.raises(TypeError, match="Abstract tracer value"):
        jax.jit(lambda y: int(jnp.asarray(3)) + y)(1.)


def test_under_compile_time_eval_it_is_concrete():
    # JAX 0.10.2 gives 4.0: ensure_compile_time_eval folds constants eagerly
    def f(y):
        with jax.ensure_compile_time_eval():
            k = int(jnp.asarray(3))
        return y + k
    assert float(jax.jit(f)(1.)) == 4.0
