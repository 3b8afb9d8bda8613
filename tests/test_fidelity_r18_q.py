"""Run 21000's s21019-79 and s21018-37 (tools/difftest/triage_21000_q.md).

- s21019-79: jacfwd's float0 block of a bool output, traced in a shard_map body, was a float0
  constant, an operand of the shard_map that could not be put on a device; it is now written
  into the program (as JAX's broadcast of a float0 literal), so its cast to bool fails where
  it is lowered, with JAX's TypeError.
- s21018-37: JAX runs an eager shard_map body op by op as it is traced, so the lowering error
  of an op before the one that fails to trace comes first; minijax traced the whole body first.
- found on the way: under jit a shard_map body's dead op is pruned (JAX's DCE rule), so one
  whose lowering fails computes; minijax lowered the whole body.

Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r18_q.py (an
error as its type and the first line of its message).
"""
import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r18_q_jax.json")
                  .read_text())


def _describe(thunk):  # as the recording script's
    try:
        out = thunk()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return ["error", type(e).__name__, str(e).split("\n")[0]]
    return ["ok", [[str(leaf.dtype), list(leaf.shape), bool(leaf.aval.weak_type),
                    np.asarray(leaf).tolist()] for leaf in jax.tree_util.tree_leaves(out)]]


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"


@pytest.mark.devices(4)
@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcome_as_jax(src, expected):
    env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(_JAX["setup"], env)
    assert _describe(lambda: eval(src, env)) == expected
