"""Run 19000's s19005-462 and run 17000's s17012-23 (tools/difftest/triage_19000_f.md): JAX
0.10.2's jacfwd casts each Jacobian block to its output's dtype; a bool output's block is its
float0 tangent, and that cast fails only where it is lowered or run (TypeError from NumPy's
``np.array(0, float0)``), so under jit a dead one computes. minijax raised while tracing.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r16_f.py.
"""
import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r16_f_jax.json")
                  .read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(_JAX["setup"], _ENV)


def _describe(thunk):  # as the recording script's
    try:
        out = thunk()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return ["error", type(e).__name__, str(e)]
    return ["ok", [[str(leaf.dtype), list(leaf.shape), bool(leaf.aval.weak_type),
                    np.asarray(leaf).tolist()] for leaf in jax.tree_util.tree_leaves(out)]]


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcome_as_jax(src, expected):
    assert _describe(lambda: eval(src, _ENV)) == expected
