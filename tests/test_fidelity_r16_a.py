"""Run 19000's s19000-455 and s19025-57 (tools/difftest/triage_19000_a.md): JAX 0.10.2's
``bind`` hands a custom_jvp/custom_vjp function (eagerly too) and its rules a Python
int/float/complex as its typed twin (``TypedFloat(0.5, dtype=float32)``...), ``vjp`` and
``value_and_grad`` canonicalize their primals so, and ``jvp``/``linearize`` keep them as given:
a scalar that passes through untouched comes back in that form, one the rule computes with
Python arithmetic (``x * y`` of two TypedFloats) as a plain ``float``. minijax returned plain
floats from eager custom calls and weak Arrays from the AD entry points. Expected outcomes
were recorded from JAX 0.10.2 by tests/data/record_fidelity_r16_a.py over the cases in
tests/data/fidelity_r16_a_cases.py.
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
from fidelity_r16_a_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r16_a_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_types_dtypes_and_values_as_jax(src, expected):
    got = describe(eval(src, _ENV), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected


def test_s19025_57_vjp_cotangents_still_flow():
    # the raw primal kept by the tracer must not change what the rules compute
    out, pullback = jax.vjp(lambda x: {"a": _ENV["mulv"](x, x), "b": jnp.sin(x)}, -0.5)
    (g,) = pullback({"a": np.float32(1.0), "b": np.float32(1.0)})
    np.testing.assert_allclose(g, 3 * -0.5 + -0.5 + np.cos(-0.5), rtol=1e-6)
