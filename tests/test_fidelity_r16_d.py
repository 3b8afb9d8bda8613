"""Run 19000's s19003-19 and s19020-464 (tools/difftest/triage_19000_d.md): output shardings
that Shardy propagated differently because minijax built other ops than JAX 0.10.2.

- The VJP of reduce_window max/min is JAX's ``select_and_scatter_add`` primitive, lowered to
  ``stablehlo.select_and_scatter`` (minijax had a fold of strided slices and pads, through
  which the operand's sharding did not reach a jacrev's result).
- ``jnp.stack`` of a sequence is JAX's ``stack`` primitive, whose transpose is one
  ``unstack`` (minijax concatenated expanded operands; the slices and size-1 reductions of
  that transpose left a grad sharded where JAX's is replicated).

Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r16_d.py over
the cases in tests/data/fidelity_r16_d_cases.py.
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
from fidelity_r16_d_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r16_d_jax.json").read_text())

pytestmark = pytest.mark.devices(4)


@pytest.fixture(scope="module")
def env():
    env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(SETUP, env)
    return env


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcome_as_jax(env, src, expected):
    got = json.loads(json.dumps(describe(lambda: eval(src, env), jax.tree_util.tree_leaves)))
    if "error" in expected:
        # minijax names the jnp function called and the user's line around JAX's message
        assert got.get("error") == expected["error"], got
        assert expected["message"] in got["message"], got
    elif "leaves" in expected:
        assert len(got["leaves"]) == len(expected["leaves"]), got
        for g, e in zip(got["leaves"], expected["leaves"]):
            assert g[:3] == e[:3] and g[4] == e[4], (g, e)
            np.testing.assert_allclose(g[3], e[3], rtol=1e-6)
    else:
        assert got == expected


def test_sharded_overlapping_windows_grad_is_the_unsharded_one(env):
    # JAX 0.10.2 lowers select_and_scatter_add to stablehlo.select_and_scatter, which XLA's
    # SPMD partitioner miscomputes when the windows overlap on the sharded axis: JAX's
    # jax.jit(jax.grad(f))(X4) gives [0, 2, 0, 1] (jax-wrong, triage_19000_d.md); its own
    # unsharded run (case 2 above) gives [1, 0, 2, 1], which minijax gives sharded too.
    f = lambda v: env["window_max"](v, (2,), (1,), "SAME").sum()  # noqa: E731
    got = jax.jit(jax.grad(f))(env["X4"])
    np.testing.assert_array_equal(np.asarray(got), [1.0, 0.0, 2.0, 1.0])
    assert tuple(got.sharding.spec) == ("d",)
