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


# --- committedness: JAX 0.10.2's `committed` of each result ---------------------------------


def _f(x):
    return x * 2.0


@pytest.mark.parametrize("name,make,expected", [
    ("jnp.ones", lambda d: jnp.ones(3), False),
    ("jnp.array", lambda d: jnp.array([1.0]), False),
    ("jnp.asarray(np)", lambda d: jnp.asarray(np.ones(3)), False),
    ("jnp.arange", lambda d: jnp.arange(3), False),
    ("jit(f)(1.0)", lambda d: minijax.jit(_f)(1.0), False),
    ("jit(f)(np)", lambda d: minijax.jit(_f)(np.ones(3)), False),
    ("jit(f)(uncommitted)", lambda d: minijax.jit(_f)(jnp.ones(3)), False),
    ("jit(f)(committed)", lambda d: minijax.jit(_f)(minijax.device_put(jnp.ones(3), d[0])), True),
    ("jit(f, out_shardings)", lambda d: minijax.jit(
        _f, out_shardings=SingleDeviceSharding(d[0]))(jnp.ones(3)), True),
    ("jit(f, in_shardings)", lambda d: minijax.jit(
        _f, in_shardings=SingleDeviceSharding(d[0]))(jnp.ones(3)), True),
    ("jit, committed arg unused", lambda d: minijax.jit(lambda a, b: b + 1)(
        minijax.device_put(jnp.ones(3), d[1]), jnp.ones(3)), False),
    ("eager jnp op", lambda d: jnp.ones(3) + 1, False),
    ("eager jnp.sin", lambda d: jnp.sin(jnp.ones(3)), False),
    ("eager lax.sin", lambda d: minijax.lax.sin(jnp.ones(3)), False),
    ("eager lax.sin committed", lambda d: minijax.lax.sin(
        minijax.device_put(jnp.ones(3), d[0])), True),
    ("eager op, committed", lambda d: minijax.device_put(jnp.ones(3), d[0]) + 1, True),
    ("device_put(x)", lambda d: minijax.device_put(jnp.ones(3)), False),
    ("device_put(np)", lambda d: minijax.device_put(np.ones(3)), False),
    ("device_put(np, dev)", lambda d: minijax.device_put(np.ones(3), d[0]), True),
    ("device_put(x, sharding)", lambda d: minijax.device_put(
        jnp.ones(3), SingleDeviceSharding(d[0])), True),
    ("device_put(committed)", lambda d: minijax.device_put(
        minijax.device_put(jnp.ones(3), d[1])), True),
    ("to_device", lambda d: jnp.ones(3).to_device(d[0]), True),
    ("random.normal", lambda d: minijax.random.normal(minijax.random.key(0), (3,)), False),
    ("grad", lambda d: minijax.grad(lambda x: x * 2.0)(1.0), False),
    ("vmap", lambda d: minijax.vmap(_f)(jnp.ones(3)), False),
    ("x.copy()", lambda d: jnp.ones(3).copy(), False),
    ("index", lambda d: jnp.ones(3)[0], False),
    ("jnp.array of committed", lambda d: jnp.array(
        [minijax.device_put(jnp.ones(()), d[1])] * 2), True),
])
def test_committed(name, make, expected):
    assert make(minijax.devices()).committed is expected


def test_uncommitted_follows_committed():
    d = minijax.devices()
    u, c1 = jnp.ones(3), minijax.device_put(jnp.ones(3), d[1])
    for out in (u + c1, jnp.sin(c1), minijax.lax.add(u, c1), minijax.lax.add(c1, u),
                minijax.jit(lambda a, b: a + b)(u, c1), jnp.where(u > 0, u, c1)):
        assert _where(out) == ([1], True)
    # a committed Array closed over is a constant: it places nothing
    assert _where(minijax.jit(lambda a: c1 + a)(u)) == ([0], False)


def test_jit_fast_path_tracks_committedness():
    # JAX 0.10.2: [F, F, F] [T, T, T] [F, F, F] for one jitted function, fast path included
    f = minijax.jit(lambda x: x * 2)
    u, c = jnp.ones(3), minijax.device_put(jnp.ones(3), minijax.devices()[0])
    assert [f(u).committed for _ in range(3)] == [False] * 3
    assert [f(c).committed for _ in range(3)] == [True] * 3
    assert [f(u).committed for _ in range(3)] == [False] * 3


_CLASH = ("Received incompatible devices for jitted computation. Got argument {a} of {f} with "
          "shape float32[3] and with device ids [0] on platform CPU and argument {b} of {f} "
          "with shape float32[3] and with device ids [1] on platform CPU")


def test_committed_to_two_devices_clash():
    d = minijax.devices()
    c0 = minijax.device_put(jnp.ones(3), d[0])
    c1 = minijax.device_put(jnp.ones(3), d[1])
    with pytest.raises(ValueError) as e:
        minijax.lax.add(c0, c1)
    assert str(e.value) == _CLASH.format(a="args[0]", b="args[1]", f="add")  # JAX 0.10.2's
    with pytest.raises(ValueError, match="Received incompatible devices for jitted"):
        minijax.jit(lambda a, b: a + b)(c0, c1)
    with pytest.raises(ValueError, match="Received incompatible devices for jitted"):
        c0 + c1
