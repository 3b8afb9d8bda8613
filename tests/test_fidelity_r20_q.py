"""List-valued static options as JAX 0.10.2 treats them: a jnp function whose Python wrapper
converts the list before its jit (reductions' ``axis=[0, 2]``, ``flip``, ``roll``, ``pad``'s
pad_width, ``tensordot``'s axes, ``fft``'s ``s``/``axes``, the random samplers' shapes)
computes what the tuple gives; anywhere else the list reaches jit, which refuses it with
``ValueError: Non-hashable static arguments are not supported`` (``jnp.linalg.svd(x,
subset_by_index=[0, 2])``, ``jnp.median(x, axis=[0, 2])``), eagerly and under make_jaxpr alike.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r20_q.py over the
cases in tests/data/fidelity_r20_q_cases.py.
"""
import json
import pathlib
import sys

import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r20_q_cases import CASES, SETUP, outcome, staged_outcome  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r20_q_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [(lst, tup) for lst, tup, _, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("lst,tup,eager,staged", _JAX["cases"],
                         ids=[c[0] for c in _JAX["cases"]])
def test_list_valued_static_option_as_jax(lst, tup, eager, staged):
    assert outcome(_ENV, lst, tup, jax.tree_util.tree_leaves) == eager
    assert staged_outcome(_ENV, lst, jax.make_jaxpr) == staged
