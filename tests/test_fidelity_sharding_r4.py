"""Sharded-jit cases of the 0.10.2-oracle run (issue 21, round 4) against the values JAX 0.10.2
gives, on 2 of 4 virtual CPU devices."""

import numpy as np
import pytest

import minijax as mj
import minijax.numpy as jnp
from minijax.sharding import Mesh, NamedSharding
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(4)


@pytest.mark.parametrize("sharded", [False, True])
def test_jacrev_basis_is_an_identity_xla_sees(sharded):
    # jacrev's basis is built from iotas (JAX's jnp.eye), so under jit XLA folds the off-diagonal
    # 0 * inf of d(x ** -2) at x = 0 to 0, as for JAX; minijax's basis was a constant operand and
    # the off-diagonal entries came out NaN (s5020-293). JAX 0.10.2's value:
    expected = np.array([[-np.inf, 0, 0, 0], [0, np.inf, 0, 0], [0, 0, np.inf, 0],
                         [0, 0, 0, np.inf]], np.float32)
    x = jnp.asarray(np.array([0.0, -0.0, -0.0, -0.0], np.float32))
    if sharded:
        x = mj.device_put(x, NamedSharding(Mesh(np.array(mj.devices()[:2]), ("d",)), P("d")))
    np.testing.assert_array_equal(np.asarray(mj.jit(mj.jacrev(lambda x: x ** -2))(x)), expected)
