"""Run 23000's s23013-128 (tools/difftest/triage_23000_a.md): jit(value_and_grad) of
``logaddexp(prod(2 x, axis=1), nan)``. Its gradient is NaN by JAX's rules (JAX 0.10.2 op by op);
under jit both JAX and minijax give arbitrary finite values, varying from call to call (XLA:CPU's
fused ``exp`` of a NaN constant, FINDINGS 186), so the record is noise. What it showed: minijax's
program was not JAX's equation for equation (logaddexp's JVP, squeeze's transpose, and a
``full`` of shape () staged as ``broadcast_in_dim`` where JAX has a literal). Expected values
and primitive sequences were recorded from JAX 0.10.2 by tests/data/record_fidelity_r19_a.py
over tests/data/fidelity_r19_a_cases.py.
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
from fidelity_r19_a_cases import ARGS, PROGRAMS  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r19_a_jax.json").read_text())


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"
    assert sorted(_JAX["primitives"]) == sorted(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_equations_as_jax(name):
    jaxpr = jax.make_jaxpr(PROGRAMS[name](jax, jnp))(*ARGS)
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == _JAX["primitives"][name]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_op_by_op_as_jax(name):
    with jax.disable_jit():
        leaves = jax.tree_util.tree_leaves(PROGRAMS[name](jax, jnp)(*ARGS))
    got = [np.asarray(x).ravel().tolist() for x in leaves]
    for g, e in zip(got, _JAX["op_by_op"][name], strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6)
