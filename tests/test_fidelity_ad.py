"""Autodiff and control-flow differences from real JAX 0.10.2 found by the difftest harness
(tools/difftest/FINDINGS.md, numbers in the test names' comments). Expected values and error
types were recorded from JAX 0.10.2 (each comment says so)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.sharding import PartitionSpec as P


def _close(got, want, **kw):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, **kw)


# -- 1: jacfwd of checkpoint (batching keeps unbatched outputs unbatched) -------------------------


@pytest.mark.parametrize("policy", [None, minijax.checkpoint_policies.everything_saveable])
def test_jacfwd_of_checkpoint(policy):
    # JAX 0.10.2: [[1.]]
    _close(minijax.jacfwd(minijax.checkpoint(lambda x: x, policy=policy))(jnp.zeros(1)), [[1.0]])
    # JAX 0.10.2: diag(sin(1) + cos(1)) = 1.3817732
    f = minijax.checkpoint(lambda x: jnp.sin(x) * x, policy=policy)
    _close(minijax.jacfwd(f)(jnp.ones(2)), np.eye(2) * 1.3817732)


@pytest.mark.devices(2)
def test_jacfwd_of_shard_map():
    mesh = minijax.sharding.Mesh(np.array(minijax.devices()[:2]), ("d",))
    f = minijax.shard_map(lambda x: jnp.sin(x), mesh=mesh, in_specs=P("d"), out_specs=P("d"))
    # JAX 0.10.2: diag(cos(1)) = 0.5403023
    _close(minijax.jacfwd(f)(jnp.ones(2)), np.eye(2) * 0.5403023)
    _close(minijax.jit(minijax.jacfwd(f))(jnp.ones(2)), np.eye(2) * 0.5403023)
