"""``jit(f, keep_unused=False)`` (the default) compiles the program without the arguments no
output depends on; they then pick no devices, are not donated and are no parameters of the
module. Each expected placement below is what JAX 0.10.2 gives for the same program on
virtual CPU devices (FINDINGS 63)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.sharding import Mesh, NamedSharding, SingleDeviceSharding
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(4)


@pytest.fixture(scope="module")
def meshes():
    devs = minijax.devices()
    return Mesh(np.array(devs[:2]), ("d",)), Mesh(np.array(devs[2:4]), ("d",))


def _put(mesh, spec=P("d")):
    return minijax.device_put(jnp.arange(4.0), NamedSharding(mesh, spec))


def test_no_argument_used_runs_on_the_default_device_uncommitted(meshes):
    # JAX 0.10.2: SingleDeviceSharding(device=CpuDevice(id=0)), committed False
    x = _put(meshes[0])
    out = minijax.jit(lambda a: jnp.zeros(3))(x)
    assert out.sharding == SingleDeviceSharding(minijax.devices()[0])
    assert not out.committed
    np.testing.assert_array_equal(out, np.zeros(3))


def test_keep_unused_keeps_the_argument_and_its_mesh(meshes):
    # JAX 0.10.2: NamedSharding(mesh, P()), committed True
    x = _put(meshes[0])
    out = minijax.jit(lambda a: jnp.zeros(3), keep_unused=True)(x)
    assert out.sharding == NamedSharding(meshes[0], P())
    assert out.committed


def test_constant_output_beside_a_used_argument_is_replicated_on_its_mesh(meshes):
    x = _put(meshes[0])
    a, z = minijax.jit(lambda a: (a, jnp.zeros(3)))(x)
    assert a.sharding == NamedSharding(meshes[0], P("d"))
    assert z.sharding == NamedSharding(meshes[0], P())  # JAX 0.10.2: P(), committed
    assert z.committed


def test_constant_derivative_of_a_sharded_jit(meshes):
    # jacfwd of a piecewise-constant function: JAX 0.10.2 SingleDeviceSharding(device 0)
    x = _put(meshes[0])
    out = minijax.jit(minijax.jacfwd(lambda a: jnp.floor(a) * 0 + 1.0))(x)
    assert out.sharding == SingleDeviceSharding(minijax.devices()[0])
    np.testing.assert_array_equal(out, np.zeros((4, 4)))


def test_unused_argument_on_another_mesh_is_ignored(meshes):
    x, y = _put(meshes[0]), _put(meshes[1])
    out = minijax.jit(lambda a, b: a + 1)(x, y)  # JAX 0.10.2: P('d') on devices [0, 1]
    assert out.sharding == NamedSharding(meshes[0], P("d"))
    np.testing.assert_array_equal(out, np.arange(4.0) + 1)
    out = minijax.jit(lambda a, b: b * 2)(x, y)  # on devices [2, 3]
    assert out.sharding == NamedSharding(meshes[1], P("d"))
    assert {d.id for d in out.devices()} == {2, 3}
    np.testing.assert_array_equal(out, np.arange(4.0) * 2)
    # kept, the two meshes clash (JAX 0.10.2: "Received incompatible devices")
    with pytest.raises(ValueError, match="devices"):
        minijax.jit(lambda a, b: a + 1, keep_unused=True)(x, y)


def test_in_shardings_of_an_unused_argument_are_ignored(meshes):
    # JAX 0.10.2: SingleDeviceSharding(device 0), committed False
    out = minijax.jit(lambda a: jnp.zeros(4),
                      in_shardings=NamedSharding(meshes[1], P("d")))(jnp.arange(4.0))
    assert out.sharding == SingleDeviceSharding(minijax.devices()[0])
    assert not out.committed


def test_out_shardings_decide_when_no_argument_is_used(meshes):
    x = _put(meshes[0])
    out = minijax.jit(lambda a: jnp.zeros(4), out_shardings=NamedSharding(meshes[1], P("d")))(x)
    assert out.sharding == NamedSharding(meshes[1], P("d"))  # JAX 0.10.2, committed
    assert out.committed


def test_an_unused_donated_argument_stays_alive(meshes):
    x, y = _put(meshes[0]), _put(meshes[0])
    out = minijax.jit(lambda a, b: b + 1, donate_argnums=0)(x, y)
    assert not x.is_deleted()  # JAX 0.10.2: not deleted
    np.testing.assert_array_equal(x, np.arange(4.0))
    np.testing.assert_array_equal(out, np.arange(4.0) + 1)


def test_an_unused_deleted_argument_is_not_read(meshes):
    x = _put(meshes[0])
    x.delete()
    out = minijax.jit(lambda a: jnp.zeros(4))(x)  # JAX 0.10.2 runs it
    np.testing.assert_array_equal(out, np.zeros(4))


def test_fast_path_skips_the_unused_arguments(meshes):
    f = minijax.jit(lambda a, b, c: (c * 2, a))
    x = _put(meshes[0])
    for i in range(3):  # the second and third calls take the C++ fast path
        c, a = f(x, 1.0, jnp.arange(3.0) + i)
        np.testing.assert_array_equal(c, (np.arange(3.0) + i) * 2)
        assert a.sharding == NamedSharding(meshes[0], P("d"))
    g = minijax.jit(lambda a, b: b + 1)
    for i in range(3):
        np.testing.assert_array_equal(g(x, jnp.float32(i)), i + 1.0)


def test_no_arguments():
    out = minijax.jit(lambda: jnp.zeros(3))()
    assert out.sharding == SingleDeviceSharding(minijax.devices()[0])
    assert not out.committed  # JAX 0.10.2


def test_argument_read_only_by_dead_code_or_an_inner_jit_is_unused(meshes):
    x = _put(meshes[0])
    inner = minijax.jit(lambda u, v: v * 2)
    out = minijax.jit(lambda a, b: (jnp.sin(a), inner(a, b))[1])(x, 3.0)
    assert out.sharding == SingleDeviceSharding(minijax.devices()[0])
    np.testing.assert_array_equal(out, 6.0)


def test_lowered_module_and_compiled_shardings_omit_unused_arguments(meshes):
    x = _put(meshes[0])
    lowered = minijax.jit(lambda a, b: b * 2).lower(x, x)
    text = lowered.as_text()
    # JAX 0.10.2's module: func.func public @main(%arg0: tensor<4xf32> {sdy.sharding = ...})
    assert "%arg0: tensor<4xf32>" in text and "%arg1" not in text
    compiled = lowered.compile()
    assert compiled.input_shardings == ((None, NamedSharding(meshes[0], P("d"))), {})
    assert compiled.output_shardings == NamedSharding(meshes[0], P("d"))
    np.testing.assert_array_equal(compiled(x, x), np.arange(4.0) * 2)
    kept = minijax.jit(lambda a, b: b * 2, keep_unused=True).lower(x, x)
    assert "%arg1: tensor<4xf32>" in kept.as_text()
    assert kept.compile().input_shardings == ((NamedSharding(meshes[0], P("d")),) * 2, {})
    # no argument used: JAX 0.10.2's @main() takes none, input_shardings ((None, None), {})
    none = minijax.jit(lambda a, b: jnp.zeros(2)).lower(x, 1.0)
    assert "@main()" in none.as_text()
    assert none.compile().input_shardings == ((None, None), {})


def test_debug_print_inside_a_loop_keeps_its_argument(capfd):
    def f(a):
        def body(c, _):
            minijax.debug.print("c={}", c)
            return c, None

        minijax.lax.scan(body, a, None, length=1)
        return jnp.zeros(2)

    minijax.jit(f)(jnp.float32(5.0))
    minijax.effects_barrier()
    assert "c=5" in capfd.readouterr().out


def test_a_program_runs_where_its_committed_arguments_are():
    # JAX 0.10.2: jit(f)(device_put(x, devices()[1])) runs on device 1 (committed); an unused
    # such argument does not count (device 0, uncommitted)
    devs = minijax.devices()
    f = minijax.jit(lambda a: a * 2)
    for i in range(6):  # alternating devices: one cache entry each, fast path included
        z = minijax.device_put(jnp.arange(4.0) + i, devs[i % 3])
        out = f(z)
        assert out.devices() == {devs[i % 3]}
        np.testing.assert_array_equal(out, (np.arange(4.0) + i) * 2)
    z1 = minijax.device_put(jnp.arange(4.0), devs[1])
    out = minijax.jit(lambda a, b: a + b)(z1, jnp.ones(4))  # the one on device 0 follows
    assert out.sharding == SingleDeviceSharding(devs[1]) and out.committed
    out = minijax.jit(lambda a: jnp.zeros(3))(z1)
    assert out.sharding == SingleDeviceSharding(devs[0]) and not out.committed
    out = minijax.jit(lambda a: jnp.zeros(3), keep_unused=True)(z1)
    assert out.sharding == SingleDeviceSharding(devs[1])
    compiled = minijax.jit(lambda a, b: b * 2).lower(z1, jnp.ones(4)).compile()
    assert compiled.input_shardings == ((None, SingleDeviceSharding(devs[0])), {})


def test_committed_arguments_on_two_devices_are_refused():
    devs = minijax.devices()
    z1 = minijax.device_put(jnp.arange(4.0), devs[1])
    z2 = minijax.device_put(jnp.arange(4.0), devs[2])
    # JAX 0.10.2's message, word for word
    with pytest.raises(ValueError, match=(
            r"Received incompatible devices for jitted computation. Got argument a of "
            r"<lambda> with shape float32\[4\] and with device ids \[1\] on platform CPU and "
            r"argument b of <lambda> with shape float32\[4\] and with device ids \[2\] on "
            r"platform CPU")):
        minijax.jit(lambda a, b: a + b)(z1, z2)
    np.testing.assert_array_equal(minijax.jit(lambda a, b: b + 1)(z1, z2), np.arange(4.0) + 1)


def test_argument_only_a_checkpoint_or_cond_ignores_is_unused(meshes):
    # JAX 0.10.2 prunes through remat and cond (its DCE rules): SingleDeviceSharding(device 0)
    x = _put(meshes[0])
    home = SingleDeviceSharding(minijax.devices()[0])
    g = minijax.jit(lambda a, b: minijax.checkpoint(lambda u, v: (jnp.sin(u), v * 2))(a, b)[1])
    out = g(x, 3.0)
    assert out.sharding == home
    np.testing.assert_array_equal(out, 6.0)
    f = minijax.jit(lambda p, a, b: minijax.lax.cond(p, lambda u, v: v, lambda u, v: v * 2, a, b))
    assert f(True, x, 3.0).sharding == home
    np.testing.assert_array_equal(f(False, x, 3.0), 6.0)
    h = minijax.jit(lambda p, a, b: minijax.lax.cond(
        p, lambda u, v: (u, v), lambda u, v: (u * 2, v), a, b))
    u, v = h(False, x, 3.0)  # both outputs used: x is taken
    np.testing.assert_array_equal(u, np.arange(4.0) * 2)
    assert u.sharding == NamedSharding(meshes[0], P("d"))
