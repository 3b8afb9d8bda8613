"""Run 20000's s20019-559 (tools/difftest/triage_20000_i.md): under nested vmaps, a lax binary
op whose lower-rank operand the inner vmap does not map but the outer one does. JAX's inner
broadcast batcher gives that operand only the size-1 batch axis and binds one level up, where
the outer batcher pads it with trailing size-1 axes like any batched lower-rank operand, so JAX
computes; minijax refused the per-example ranks at the inner level. Expected outcomes were
recorded from JAX 0.10.2 by tests/data/record_fidelity_r17_i.py (the case sources are there).
"""
import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r17_i_jax.json")
                  .read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_nested_vmap_rank_padding_as_jax(src, expected):
    if "error" in expected:
        with pytest.raises(Exception) as e:
            eval(src, _ENV)
        assert type(e.value).__name__ == expected["error"]
        return
    leaves = jax.tree_util.tree_leaves(eval(src, _ENV))
    assert [(str(x.dtype), list(x.shape), x.weak_type) for x in leaves] == [
        (w["dtype"], w["shape"], w["weak"]) for w in expected]
    for x, w in zip(leaves, expected):
        np.testing.assert_allclose(np.asarray(x).ravel(), w["value"], rtol=1e-6)
