"""Run 18000's s18003-104 (tools/difftest/triage_18000_x.md): ``checkpoint`` of a function
returning a Python scalar gives JAX 0.10.2's typed scalar (``TypedFloat(0.0, dtype=float32)``,
a ``float`` carrying its dtype), which then behaves as the weakly typed Python scalar it came
from; minijax returned a plain ``float``, so ``value_and_grad(checkpoint(value_and_grad(f)))``
failed reading the value's ``.dtype``. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r15_x.py over the cases in tests/data/fidelity_r15_x_cases.py.
"""
import json
import pathlib
import pickle
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r15_x_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r15_x_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_types_dtypes_and_values_as_jax(src, expected):
    got = describe(eval(src, _ENV), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected


def test_s18003_104_value_and_grad_of_checkpointed_value_and_grad():
    # the harness's scalarize: only inexact leaves (read through .dtype) contribute
    def scalarize(out):
        s = 0.0
        for leaf in jax.tree_util.tree_leaves(out):
            if jnp.issubdtype(leaf.dtype, jnp.inexact):
                s = s + jnp.sum(leaf)
        return s

    inner = jax.checkpoint(jax.value_and_grad(lambda x: scalarize(x > 0)),
                           policy=jax.checkpoint_policies.dots_saveable)
    value, grad = jax.value_and_grad(lambda x: scalarize(inner(x)))(jnp.ones((3, 3)))
    assert (value.dtype, value.aval.weak_type, float(value)) == (np.float32, False, 0.0)
    np.testing.assert_array_equal(grad, np.zeros((3, 3), np.float32))


def test_typed_scalar_repr_and_pickle_as_jax():
    t = _ENV["T"]
    assert repr(t) == "TypedFloat(0.5, dtype=float32)" and str(t) == "0.5"
    u = pickle.loads(pickle.dumps(t))
    assert (type(u).__name__, u.dtype, u) == ("TypedFloat", np.float32, 0.5)
