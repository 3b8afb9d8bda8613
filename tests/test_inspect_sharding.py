"""``debug.inspect_array_sharding``: when its callback runs and with which sharding, as in JAX
0.10.2 (the expected kinds and specs below were printed by JAX 0.10.2 running the same
programs on 4 virtual CPU devices)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding


def _recorder():
    got = []
    return got, lambda s: got.append(s)


def test_eager_calls_back_at_once_with_the_arrays_sharding():
    got, cb = _recorder()
    x = jnp.arange(8.0)
    assert minijax.debug.inspect_array_sharding(x, callback=cb) is None
    assert got == [x.sharding] and isinstance(got[0], SingleDeviceSharding)


def test_jit_on_one_device_calls_back_once_at_compile():
    got, cb = _recorder()

    def f(x):
        minijax.debug.inspect_array_sharding(x * 2, callback=cb)
        return x

    g = minijax.jit(f)
    g(jnp.arange(8.0))
    g(jnp.arange(8.0))  # cached: JAX does not call back again
    assert len(got) == 1
    assert got[0].is_fully_replicated  # JAX: GSPMDSharding({replicated})


@pytest.mark.devices(4)
def test_jit_over_a_mesh_reports_the_partitioners_choice():
    mesh = Mesh(np.array(minijax.devices()[:4]), ("d",))
    got, cb = _recorder()

    def f(x):
        y = jnp.sin(x)
        minijax.debug.inspect_array_sharding({"a": y, "b": y[::2]}, callback=cb)
        return y * 2

    xs = minijax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("d")))
    minijax.jit(f)(xs)
    # JAX 0.10.2: NamedSharding(mesh, P('d',)) for both leaves.
    assert got == [NamedSharding(mesh, P("d"))] * 2
    got.clear()
    x = jnp.arange(8.0)  # made under set_mesh it would be committed on the mesh, P() (JAX's)
    with minijax.sharding.set_mesh(mesh):
        minijax.jit(f, in_shardings=P("d")).lower(x).compile()
    assert got == [NamedSharding(mesh, P("d"))] * 2


def test_under_vmap_and_grad_the_callback_sees_the_batched_and_primal_values():
    got, cb = _recorder()
    x = jnp.arange(8.0)
    minijax.vmap(lambda r: minijax.debug.inspect_array_sharding(r, callback=cb))(x.reshape(2, 4))
    minijax.grad(lambda x: (minijax.debug.inspect_array_sharding(x, callback=cb), x.sum())[1])(x)
    assert [type(s) for s in got] == [SingleDeviceSharding] * 2  # JAX: one call each


def test_jaxpr_keeps_the_equation_and_a_bad_callback_is_a_type_error():
    jaxpr = minijax.make_jaxpr(
        lambda x: minijax.debug.inspect_array_sharding(x, callback=print))(jnp.arange(8.0))
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["inspect_sharding"]
    with pytest.raises(TypeError, match="'NoneType' object is not callable"):
        minijax.debug.inspect_array_sharding(jnp.arange(2.0), callback=None)
