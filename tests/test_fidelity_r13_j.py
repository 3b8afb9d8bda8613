"""``x.at[]`` builds the scatter JAX 0.10.2's ``_scatter_impl`` / ``_index_to_gather`` builds
(triage_16000_w W4, case s16026-268): slices and integers are update windows on the operand's
own axes, so an update's sharding carries to the result. Expected dimension numbers, values and
specs were recorded from JAX 0.10.2 by tests/data/record_fidelity_r13_j.py."""
import json
import os

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.sharding import Mesh, NamedSharding, PartitionSpec as P

from tests.data.record_fidelity_r13_j import programs, scatter_record, w4_spec

_HERE = os.path.dirname(__file__)
with open(os.path.join(_HERE, "data", "fidelity_r13_j_jax.json")) as f:
    JAX = json.load(f)

_X = jnp.arange(60.0, dtype=np.float32).reshape(3, 4, 5)


def test_recorded_with_jax_0_10_2():
    assert JAX["jax_version"] == "0.10.2"


@pytest.mark.parametrize("name", sorted(programs(jnp)))
def test_scatter_matches_jax(name):
    f = programs(jnp)[name]
    got = scatter_record(minijax.make_jaxpr(f)(_X), f(_X))
    want = JAX["scatters"][name]
    np.testing.assert_array_equal(np.asarray(got.pop("value"), np.float32),
                                  np.asarray(want["value"], np.float32))
    assert got == {k: v for k, v in want.items() if k != "value"}


@pytest.mark.devices(2)
def test_w4_update_sharding_carries():
    got = w4_spec(minijax, jnp, Mesh, NamedSharding, P)
    for kind, want in JAX["w4"].items():
        assert got[kind]["spec"] == want["spec"], kind
        np.testing.assert_array_equal(got[kind]["value"], want["value"])


def test_vmap_and_grad_of_windowed_update():
    # the scatter's batching and derivative rules on window dimension numbers, against NumPy
    # and the analytic derivative of x.at[:, ::-2].mul(u) summed (u at the updated positions)
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    u = np.float32(3.0)
    out = minijax.vmap(lambda r: r.at[:, ::-2].mul(u))(x)
    want = x.copy()
    want[:, :, ::-2] *= u
    np.testing.assert_array_equal(np.asarray(out), want)
    g = minijax.vmap(minijax.grad(lambda r: jnp.sum(r.at[:, ::-2].mul(u))))(x)
    dwant = np.ones_like(x)
    dwant[:, :, ::-2] = u
    np.testing.assert_array_equal(np.asarray(g), dwant)


def test_empty_operand_drops_array_updates():
    # every position of an empty x is out of bounds: the updates drop, x comes back (NumPy
    # would raise; JAX scatters with FILL_OR_DROP)
    x = jnp.zeros((0, 3), np.float32)
    out = x.at[np.array([1, 2])].set(1.0)
    assert out.shape == (0, 3)
