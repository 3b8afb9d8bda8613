"""Run 20000's s20026-654 (tools/difftest/triage_20000_l.md): vmap of transpose kept the batch
axis in place, so ``jit(vmap(lambda a, i: (a.T[i], a.T), (-1, -1)))`` returned the batched
``a.T`` through a second transpose and its output sharding differed from JAX 0.10.2's. JAX's
batching rule puts the batch axis first within the one transpose. Expected outcomes were
recorded from JAX 0.10.2 by tests/data/record_fidelity_r17_l.py.
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
from fidelity_r17_l_cases import JAXPRS, SETUP, s20026_654  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r17_l_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["jaxprs"]] == JAXPRS


@pytest.mark.parametrize("src,expected", _JAX["jaxprs"], ids=range(len(_JAX["jaxprs"])))
def test_vmap_of_transpose_moves_the_batch_axis_first_as_jax(src, expected):
    assert str(eval(src, _ENV)) == expected


@pytest.mark.devices(2)
def test_s20026_654_output_shardings_as_jax():
    assert s20026_654(jax, jnp) == _JAX["s20026_654"]
