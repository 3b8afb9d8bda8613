"""pmap on the virtual CPU devices, against a stacked loop over the mapped axis computed with
NumPy: in_axes/out_axes (ints, None, negative, pytrees, keyword arguments), every collective
over the pmap axis, static and donated arguments, devices=, the placement of the result, pmap
under jit/grad/vmap and grad/vmap under pmap, .lower(), the errors, and
device_put_replicated/device_put_sharded. Where the semantics were in doubt they were checked
against JAX 0.10.2 (XLA_FLAGS=--xla_force_host_platform_device_count=8); the tests say so."""

import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax as mj
import minijax.numpy as jnp
from minijax import lax
from minijax.sharding import NamedSharding
from minijax.sharding import PartitionSpec as P
from minijax.transforms import find_eqns
from tests.test_distributed import _env, _free_port, _run_processes

pytestmark = pytest.mark.devices(8)

AXIS = "_internal_pmap_axis_name"  # JAX's name for an unnamed pmap axis


def arange(*shape):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 5.0 - 1.0


def loop(f, *xs, in_axes=0):
    """The reference: ``f`` (NumPy) on each slice, results stacked along axis 0."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(xs)
    n = next(x.shape[a] for x, a in zip(xs, axes) if a is not None)
    outs = [f(*[x if a is None else np.take(x, i, axis=a) for x, a in zip(xs, axes)])
            for i in range(n)]
    if isinstance(outs[0], tuple):
        return tuple(np.stack(o) for o in zip(*outs))
    return np.stack(outs)


def shard_devices(x):
    """The device of each slot of the leading axis, in order."""
    return [s.device for s in sorted(x.addressable_shards, key=lambda s: s.index[0].start or 0)]


# ------------------------------------------------------------------------------------------------
# Mapping and placement


def test_map_matches_loop_and_is_sharded_over_first_devices():
    x = arange(4, 3)
    out = mj.pmap(lambda a: jnp.sin(a) * 2 + a.sum())(x)
    np.testing.assert_allclose(out, loop(lambda a: np.sin(a) * 2 + a.sum(), x), rtol=1e-6)
    assert out.shape == (4, 3) and out.dtype == np.float32
    assert out.sharding == NamedSharding(mj.sharding.Mesh(np.array(mj.devices()[:4]), (AXIS,)),
                                         P(AXIS))
    assert shard_devices(out) == mj.devices()[:4]
    for s in out.addressable_shards:  # slice i of the result lives on device i
        i = mj.devices().index(s.device)
        np.testing.assert_allclose(np.asarray(s.data), out[i:i + 1], rtol=0)


def test_inputs_of_any_placement_and_dtype():
    x = arange(4, 3)
    f = mj.pmap(lambda a, b: a * b)
    want = x * x.astype(np.int32)
    for b in (x.astype(np.int32), jnp.asarray(x.astype(np.int32)),
              mj.device_put_sharded(list(x.astype(np.int32)), mj.devices()[:4])):
        out = f(jnp.asarray(x), b)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, want, rtol=1e-6)
    # a Python scalar result is weak-typed, as in JAX
    assert mj.pmap(lambda a: 1.0)(x).weak_type
    assert not mj.pmap(lambda a: a)(x).weak_type


@pytest.mark.parametrize("in_axes", [1, -1, (1, None), (None, 0)])
def test_in_axes_ints_none_negative(in_axes):
    x = arange(3, 4)
    b = {1: arange(3, 4), -1: arange(3, 4), None: arange(3, 1), 0: arange(4, 3)}
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes, in_axes)
    a = arange(3) if axes[0] is None else x
    args = (a, b[axes[1]])
    out = mj.pmap(lambda u, v: u * 2 - v, in_axes=in_axes)(*args)
    np.testing.assert_allclose(out, loop(lambda u, v: u * 2 - v, *args, in_axes=axes),
                               rtol=1e-6)


def test_in_axes_pytree_and_keyword_arguments():
    params = {"w": arange(3), "b": arange(2, 3)}
    x = arange(4, 2, 3)  # mapped along axis 1

    def f(p, x, *, scale):
        return (x * p["w"] + p["b"]) * scale

    out = mj.pmap(f, in_axes=({"w": None, "b": 0}, 1))(params, x, scale=arange(2, 1))
    want = np.stack([(x[:, i] * params["w"] + params["b"][i]) * arange(2, 1)[i]
                     for i in range(2)])
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_out_axes_int_negative_none_and_pytree():
    x = arange(2, 3, 4)
    f = mj.pmap(lambda a: {"t": (a, a.sum(0)), "s": lax.psum(a, "i")}, "i",
                out_axes={"t": (1, -1), "s": None})
    out = f(x)
    np.testing.assert_allclose(out["t"][0], np.moveaxis(x, 0, 1), rtol=0)
    np.testing.assert_allclose(out["t"][1], np.moveaxis(x.sum(1), 0, -1), rtol=1e-6)
    assert out["t"][1].shape == (4, 2)
    np.testing.assert_allclose(out["s"], x.sum(0), rtol=1e-6)  # replicated: one copy
    assert out["s"].shape == (3, 4) and out["s"].sharding.spec == P()
    assert out["t"][0].sharding.spec == P(None, "i")


# property: any in_axes/out_axes pair is a transpose of the stacked loop
@given(n=st.sampled_from([2, 4]), in_axis=st.integers(-3, 2), out_axis=st.integers(-3, 2))
def test_axes_property(n, in_axis, out_axis):
    shape = [3, 2, 3]
    shape[in_axis] = n
    x = arange(*shape)
    out = mj.pmap(lambda a: a * a + 1, in_axes=in_axis, out_axes=out_axis)(x)
    np.testing.assert_allclose(out, np.moveaxis(loop(lambda a: a * a + 1, x, in_axes=in_axis),
                                                0, out_axis), rtol=1e-6)


# ------------------------------------------------------------------------------------------------
# Collectives over the pmap axis


def test_collectives():
    x = arange(4, 4)
    n = 4
    perm = [(i, (i + 1) % n) for i in range(n)]

    def f(a):
        return (lax.psum(a, "i"), lax.pmean(a, "i"), lax.pmax(a, "i"), lax.pmin(a, "i"),
                lax.all_gather(a, "i"), lax.axis_index("i"), lax.ppermute(a, "i", perm),
                lax.psum_scatter(a, "i"), lax.all_to_all(a, "i", 0, 0))

    s, m, mx, mn, g, idx, pp, ps, a2a = mj.pmap(f, axis_name="i")(x)
    np.testing.assert_allclose(s, np.broadcast_to(x.sum(0), (n, 4)), rtol=1e-6)
    np.testing.assert_allclose(m, np.broadcast_to(x.mean(0), (n, 4)), rtol=1e-6)
    np.testing.assert_allclose(mx, np.broadcast_to(x.max(0), (n, 4)), rtol=0)
    np.testing.assert_allclose(mn, np.broadcast_to(x.min(0), (n, 4)), rtol=0)
    np.testing.assert_allclose(g, np.broadcast_to(x, (n, n, 4)), rtol=0)
    np.testing.assert_array_equal(idx, np.arange(n))
    np.testing.assert_allclose(pp, np.roll(x, 1, axis=0), rtol=0)
    np.testing.assert_allclose(ps, x.sum(0), rtol=1e-6)  # device i gets element i of the sum
    np.testing.assert_allclose(a2a, x.T, rtol=0)  # device i gets element i of every device


def test_devices_argument_runs_on_those_devices():
    devs = mj.devices()[4:6]
    out = mj.pmap(lambda a: a / lax.psum(a, "i"), "i", devices=devs)(arange(2, 3))
    x = arange(2, 3)
    np.testing.assert_allclose(out, x / x.sum(0), rtol=1e-6)
    assert shard_devices(out) == devs
    out = mj.pmap(lambda a: a + 1, backend="cpu")(arange(2, 3))
    np.testing.assert_allclose(out, arange(2, 3) + 1, rtol=1e-6)


# ------------------------------------------------------------------------------------------------
# Static and donated arguments


def test_static_broadcasted_argnums():
    traces = []

    def f(x, n, y):
        traces.append(n)
        return x * n + y

    g = mj.pmap(f, static_broadcasted_argnums=1)
    x = arange(4, 3)
    np.testing.assert_allclose(g(x, 3, x), x * 4, rtol=1e-6)
    np.testing.assert_allclose(g(x, 3, x), x * 4, rtol=1e-6)
    np.testing.assert_allclose(g(x, 2, x), x * 3, rtol=1e-6)
    assert traces == [3, 2]  # one trace per static value
    with pytest.raises(ValueError, match="static_broadcasted_argnums=.1,. but was called with "
                                         "only 1 positional argument"):
        g(x)
    with pytest.raises(ValueError, match="hashable"):
        g(x, [1], x)


def test_donation():
    x = mj.pmap(lambda a: a)(arange(4, 3))
    y = mj.pmap(lambda a: a + 1, donate_argnums=0)(x)
    assert x.is_deleted()
    np.testing.assert_allclose(y, arange(4, 3) + 1, rtol=1e-6)
    # donate_argnums count positional arguments, static ones included
    a = mj.pmap(lambda v: v)(arange(4, 3))
    b = mj.pmap(lambda v: v)(arange(4, 3))
    out = mj.pmap(lambda u, k, v: u * k + v, static_broadcasted_argnums=1,
                  donate_argnums=2)(a, 2, b)
    assert b.is_deleted() and not a.is_deleted()
    np.testing.assert_allclose(out, arange(4, 3) * 3, rtol=1e-6)


# ------------------------------------------------------------------------------------------------
# Composition with jit, grad and vmap


def test_pmap_inside_jit_is_one_program():
    f = mj.jit(lambda x: mj.pmap(lambda y: y * lax.psum(y, "i"), "i")(x * 2) + 1)
    x = arange(4, 3)
    np.testing.assert_allclose(f(x), 2 * x * (2 * x).sum(0) + 1, rtol=1e-5)
    jaxpr = mj.make_jaxpr(f)(x)  # one jit equation (f) holding one shard_map
    assert len(find_eqns(jaxpr, "shard_map")) == 1


def test_grad_of_pmap():
    # L = sum_i sin(x_i) * sum_j x_j; dL/dx_k = cos(x_k) * sum(x) + sum(sin(x))
    x = arange(4)
    g = mj.grad(lambda v: mj.pmap(lambda y: jnp.sin(y) * lax.psum(y, "i"), "i")(v).sum())(x)
    np.testing.assert_allclose(g, np.cos(x) * x.sum() + np.sin(x).sum(), rtol=1e-5)
    # out_axes=None returns one copy of the replicated loss: its gradient is that of one copy
    g = mj.grad(lambda v: mj.pmap(lambda y: lax.psum(y ** 2, "i"), "i", out_axes=None)(v))(x)
    np.testing.assert_allclose(g, 2 * x, rtol=1e-6)


def test_grad_inside_pmap_data_parallel():
    """The data-parallel step: per-device gradients of a shard's loss, averaged with pmean,
    equal the gradient of the mean loss over all shards."""
    w = arange(3)
    xs = arange(4, 5, 3)
    ys = arange(4, 5) * 0.5

    def loss(w, x, y):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    grads = mj.pmap(lambda w, x, y: lax.pmean(mj.grad(loss)(w, x, y), "i"), "i",
                    in_axes=(None, 0, 0))(w, xs, ys)

    def np_grad(w, x, y):
        t = np.tanh(x @ w)
        return (2 * (t - y) * (1 - t ** 2)) @ x / len(y)

    want = np.mean([np_grad(w, xs[i], ys[i]) for i in range(4)], axis=0)
    np.testing.assert_allclose(grads, np.broadcast_to(want, (4, 3)), rtol=1e-5, atol=1e-6)
    # psum is its own transpose (JAX's convention, same numbers as JAX 0.10): the gradient
    # of psum(y**2) on each device is n * 2y
    g = mj.pmap(mj.grad(lambda y: lax.psum(y ** 2, "i")), "i")(arange(4))
    np.testing.assert_allclose(g, 4 * 2 * arange(4), rtol=1e-6)


def test_vmap_of_pmap_and_pmap_of_vmap():
    x = arange(3, 4)
    f = mj.pmap(lambda a: a - lax.pmean(a, "i"), "i")
    np.testing.assert_allclose(mj.vmap(f)(x), x - x.mean(1, keepdims=True), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(mj.vmap(f, in_axes=1)(x.T), x - x.mean(1, keepdims=True),
                               rtol=1e-5, atol=1e-6)
    g = mj.pmap(mj.vmap(lambda a: a * lax.psum(a, "i")), "i")
    y = arange(4, 3)
    np.testing.assert_allclose(g(y), y * y.sum(0), rtol=1e-5)


def test_lower_and_compile():
    f = mj.pmap(lambda a, b: lax.psum(a * b, "i"), "i")
    x = arange(4, 3)
    lowered = f.lower(x, b=x)
    text = lowered.as_text()
    assert "sdy.manual_computation" in text and "stablehlo.all_reduce" in text
    compiled = lowered.compile()
    np.testing.assert_allclose(compiled(x, b=2 * x), np.broadcast_to((2 * x * x).sum(0), (4, 3)),
                               rtol=1e-5)


# ------------------------------------------------------------------------------------------------
# Errors name the argument


def test_errors():
    x = arange(4, 3)
    with pytest.raises(ValueError, match=r"size 9, but only 8 devices.*args\[0\] of type f32\[9"):
        mj.pmap(lambda a: a)(arange(9))
    with pytest.raises(ValueError, match=r"given 2 devices.*has size 4: args\[0\]"):
        mj.pmap(lambda a: a, devices=mj.devices()[:2])(x)
    with pytest.raises(ValueError, match=r"inconsistent sizes(.|\n)*args\[1\]\['b'\] of type "
                                         r"f32\[3\]: axis 0 has size 3"):
        mj.pmap(lambda a, d: a)(x, {"b": arange(3)})
    with pytest.raises(ValueError, match=r"map its argument args\[0\] along axis 2.*only 2"):
        mj.pmap(lambda a: a, in_axes=2)(x)
    with pytest.raises(ValueError, match="at least one argument with a mapped axis"):
        mj.pmap(lambda a: a, in_axes=None)(x)
    with pytest.raises(ValueError, match="axis_size 3 doesn't match received axis_size 4"):
        mj.pmap(lambda a: a, axis_size=3)(x)
    with pytest.raises(ValueError, match="size 0"):
        mj.pmap(lambda a: a)(np.zeros((0, 3), np.float32))
    with pytest.raises(ValueError, match=r"len\(in_axes\)=2, len\(args\)=1"):
        mj.pmap(lambda a: a, in_axes=(0, 0))(x)
    with pytest.raises(ValueError, match="out_axes=3 is out of bounds for output"):
        mj.pmap(lambda a: a, out_axes=3)(x)
    with pytest.raises(TypeError, match="pmap in_axes must be an int, None"):
        mj.pmap(lambda a: a, in_axes=1.0)
    with pytest.raises(ValueError, match="'devices' argument to pmap must be non-empty"):
        mj.pmap(lambda a: a, devices=[])
    with pytest.raises(NameError):
        mj.pmap(lambda a: lax.psum(a, "j"), "i")(x)


def test_two_processes_each_pass_their_slices():
    """A 2-process job (2 CPU devices each): each process maps its own 2 slices, collectives
    span all 4 devices, results come back as each process's part (tests/
    pmap_multiprocess_worker.py checks them against NumPy)."""
    port = _free_port()
    outs = _run_processes(
        [[sys.executable, "-m", "tests.pmap_multiprocess_worker", str(port), str(rank)]
         for rank in (0, 1)], _env(), timeout=120)
    for rank, out in enumerate(outs):
        assert f"OK {rank}" in out


# ------------------------------------------------------------------------------------------------
# device_put_replicated / device_put_sharded


def test_device_put_replicated():
    devs = mj.devices()[:4]
    y = mj.device_put_replicated({"a": arange(3), "s": 1.0}, devs)
    np.testing.assert_array_equal(y["a"], np.broadcast_to(arange(3), (4, 3)))
    assert y["s"].shape == (4,) and y["s"].weak_type and y["s"].dtype == np.float32
    assert shard_devices(y["a"]) == devs
    assert y["a"].sharding.spec == P("_device_put_replicated")
    out = mj.pmap(lambda a: a * 2)(y["a"])  # pmap's own layout: used as it is
    np.testing.assert_allclose(out, 2 * np.broadcast_to(arange(3), (4, 3)), rtol=0)
    with pytest.raises(ValueError, match="non-empty sequence"):
        mj.device_put_replicated(arange(3), [])


def test_device_put_sharded():
    devs = mj.devices()[2:6]
    shards = [(i, {"a": arange(3) + i}) for i in range(4)]
    ints, d = mj.device_put_sharded(shards, devs)
    np.testing.assert_array_equal(ints, np.arange(4))
    assert ints.dtype == np.int32 and ints.weak_type  # Python ints stay weak, as in JAX
    np.testing.assert_allclose(d["a"], np.stack([arange(3) + i for i in range(4)]), rtol=0)
    assert shard_devices(d["a"]) == devs
    assert d["a"].sharding.spec == P("_device_put_sharded")
    with pytest.raises(ValueError, match="consistent shape and dtype"):
        mj.device_put_sharded([arange(2), arange(3)], devs[:2])
    with pytest.raises(ValueError, match=r"len\(shards\) = 1 must equal len\(devices\) = 2"):
        mj.device_put_sharded([arange(2)], devs[:2])
    with pytest.raises(TypeError, match="must be a sequence"):
        mj.device_put_sharded(jnp.ones(2), devs[:2])
