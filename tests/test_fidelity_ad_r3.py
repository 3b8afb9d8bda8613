"""Round-3 differences from real JAX 0.10.2 found by the difftest harness in the AD API and
transform classes (tools/difftest/FINDINGS.md, numbers in the comments). Expected values and
error texts were recorded from JAX 0.10.2 (each comment says so)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.sharding import NamedSharding, Mesh, PartitionSpec as P


# -- fill-mode gathers take int32 indices (XLA's partitioner aborts on int8 ones) --------------


@pytest.mark.devices(2)
def test_fill_gather_with_int8_indices_on_a_sharded_operand():
    mesh = Mesh(np.array(minijax.devices()[:2]), ("d",))
    x = minijax.device_put(jnp.arange(6.0).reshape(2, 3), NamedSharding(mesh, P("d")))
    i = jnp.array(1, jnp.int8)
    # JAX 0.10.2: 1.0 (its _gather_fill converts the indices to int32 first)
    assert float(minijax.jit(lambda a, i: jnp.take(a, i))(x, i)) == 1.0
    rows = jnp.array([1, -2, 7], jnp.int8)
    # JAX 0.10.2: [[3, 4, 5], [0, 1, 2], [nan, nan, nan]]
    got = minijax.jit(lambda a, i: a.at[i].get(mode="fill"))(x, rows)
    np.testing.assert_array_equal(np.asarray(got), [[3, 4, 5], [0, 1, 2], [np.nan] * 3])
