"""Where eager results live and whether they are committed, as in JAX 0.10.2.

Every expected value here was read off JAX 0.10.2 on 4+ virtual CPU devices
(XLA_FLAGS=--xla_force_host_platform_device_count=4): the result's devices and ``committed``.
"""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.sharding import Mesh, NamedSharding, SingleDeviceSharding
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(4)


def _where(x):
    return sorted(d.id for d in x.devices()), x.committed


@pytest.fixture(scope="module")
def placed():
    d = minijax.devices()
    mesh = Mesh(np.array(d[:4]), ("x",))
    ns = NamedSharding(mesh, P("x"))
    xs = minijax.device_put(jnp.arange(8.0), ns)
    x1 = minijax.device_put(jnp.arange(8.0), d[1])
    return d, ns, xs, x1


_LIKES = {
    "zeros_like": jnp.zeros_like,
    "ones_like": jnp.ones_like,
    "empty_like": jnp.empty_like,
    "full_like": lambda a, **kw: jnp.full_like(a, 2.0, **kw),
}


@pytest.mark.parametrize("name", sorted(_LIKES))
def test_like_follows_the_prototype(placed, name):
    d, ns, xs, x1 = placed
    f = _LIKES[name]
    out = f(xs)  # JAX: the prototype's NamedSharding, committed
    assert out.sharding == ns and _where(out) == ([0, 1, 2, 3], True)
    np.testing.assert_array_equal(out, np.full(8, 2.0 if name == "full_like" else
                                               (1.0 if name == "ones_like" else 0.0)))
    assert _where(f(x1)) == ([1], True)
    assert _where(f(xs, dtype=jnp.int32)) == ([0, 1, 2, 3], True)
    # another shape: a one-device prototype keeps its device, a sharded one does not
    assert _where(f(x1, shape=(3,))) == ([1], True)
    assert _where(f(xs, shape=(3,)))[0] == [0]


@pytest.mark.parametrize("name", sorted(_LIKES))
def test_like_device_argument(placed, name):
    d, ns, xs, x1 = placed
    f = _LIKES[name]
    assert _where(f(xs, device=d[2])) == ([2], True)
    assert _where(f(xs, device=SingleDeviceSharding(d[2]))) == ([2], True)
    out = f(x1, device=ns)
    assert out.sharding == ns and _where(out) == ([0, 1, 2, 3], True)
    assert _where(f(np.ones(8), device=d[3])) == ([3], True)


def test_creation_device_argument(placed):
    d, ns, xs, x1 = placed
    assert _where(jnp.zeros(8, device=d[1])) == ([1], True)
    assert _where(jnp.ones(8, device=d[1])) == ([1], True)
    assert _where(jnp.full(8, 3.0, device=d[1])) == ([1], True)
    out = jnp.zeros(8, device=ns)
    assert out.sharding == ns and _where(out) == ([0, 1, 2, 3], True)
    assert _where(jnp.asarray(np.ones(3), device=d[2])) == ([2], True)
    assert _where(jnp.array(np.ones(3), device=d[2])) == ([2], True)
    assert _where(jnp.arange(4, device=d[3])) == ([3], True)
    assert _where(jnp.eye(2, device=d[3])) == ([3], True)
    assert _where(jnp.linspace(0.0, 1.0, 4, device=d[3])) == ([3], True)
    assert _where(jnp.astype(x1, jnp.int32, device=d[2])) == ([2], True)


@pytest.mark.parametrize("f", [jnp.array, jnp.asarray, jnp.copy, lambda x: x.copy(),
                               lambda x: x.astype(jnp.int32),
                               lambda x: jnp.astype(x, jnp.int32)])
def test_conversions_keep_placement(placed, f):
    d, ns, xs, x1 = placed
    out = f(xs)
    assert out.sharding == ns and _where(out) == ([0, 1, 2, 3], True)
    assert _where(f(x1)) == ([1], True)
