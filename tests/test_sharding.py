"""Sharding annotations with XLA's SPMD partitioner (Shardy) on 8 virtual CPU devices.

Every sharded computation is compared with the same computation in NumPy; per-shard shapes and
device placement are checked against ``devices_indices_map``.
"""

import os

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.sharding import AxisType, Mesh, NamedSharding, SingleDeviceSharding
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(8)


# These tests are about layouts XLA's partitioner chooses (Auto axes: constraints place, types
# carry no split); make_mesh's own default, Explicit, is tested in test_explicit_sharding.py.
AUTO = (AxisType.Auto,)


@pytest.fixture(scope="module")
def mesh1():
    return minijax.make_mesh((8,), ("x",), axis_types=AUTO)


@pytest.fixture(scope="module")
def mesh2():
    return minijax.make_mesh((4, 2), ("x", "y"), axis_types=AUTO * 2)


def _value(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _check_layout(arr, sharding, value):
    """Each shard is ``value[index]`` on the device ``devices_indices_map`` names."""
    assert arr.sharding == sharding
    expected = sharding.devices_indices_map(value.shape)
    shards = arr.addressable_shards
    assert len(shards) == sharding.num_devices
    assert {s.device for s in shards} == set(expected)
    shard_shape = sharding.shard_shape(value.shape)
    for s in shards:
        assert s.index == expected[s.device]
        assert s.data.shape == shard_shape
        assert s.data.device == s.device
        np.testing.assert_array_equal(np.asarray(s.data), value[s.index])
    np.testing.assert_array_equal(np.asarray(arr), value)


# ------------------------------------------------------------------------------------------------
# Mesh, PartitionSpec, shardings


def test_mesh_and_partition_spec_basics(mesh2):
    assert mesh2.shape == {"x": 4, "y": 2} and mesh2.size == 8
    assert mesh2.axis_names == ("x", "y") and mesh2.devices.shape == (4, 2)
    assert [d.id for d in mesh2.devices.flat] == list(range(8))
    assert mesh2 == minijax.make_mesh((4, 2), ("x", "y"), axis_types=AUTO * 2) and hash(
        mesh2) == hash(minijax.make_mesh((4, 2), ("x", "y"), axis_types=AUTO * 2))
    assert mesh2 != minijax.make_mesh((2, 4), ("x", "y"), axis_types=AUTO * 2)
    assert mesh2 != minijax.make_mesh((4, 2), ("x", "y"))  # Explicit by default, as in JAX
    assert P("x") == P("x", None) and hash(P("x")) == hash(P("x", None))
    assert P(("x", "y")) != P("x", "y") and P(("x",)) == P("x")
    assert P.UNCONSTRAINED is P(P.UNCONSTRAINED)[0]
    with pytest.raises(ValueError, match=r"Number of devices 8 must be >= the product of mesh_shape \(4, 4\)"):
        minijax.make_mesh((4, 4), ("x", "y"))
    # JAX 0.10.2's deprecated `with mesh:` names the mesh for with_sharding_constraint's bare
    # specs only: get_abstract_mesh() stays empty (recorded from JAX 0.10.2)
    with pytest.warns(DeprecationWarning, match=r"`with mesh:` context manager has been "
                                                r"deprecated\. Please use `with jax.set_mesh"):
        with mesh2 as m:
            assert m is mesh2
            assert minijax.sharding.get_abstract_mesh().empty
    with minijax.set_mesh(mesh2):
        assert minijax.sharding.get_abstract_mesh() == mesh2.abstract_mesh
    assert minijax.sharding.get_abstract_mesh().empty


def test_named_sharding_properties(mesh2):
    s = NamedSharding(mesh2, P("x", None))
    assert s == NamedSharding(mesh2, P("x")) and hash(s) == hash(NamedSharding(mesh2, P("x")))
    assert s != NamedSharding(mesh2, P("y"))
    assert s.num_devices == 8 and s.addressable_devices == set(minijax.devices()[:8])
    assert not s.is_fully_replicated and NamedSharding(mesh2, P()).is_fully_replicated
    assert s.shard_shape((8, 6)) == (2, 6)
    assert NamedSharding(mesh2, P("y", "x")).shard_shape((8, 8)) == (4, 2)
    assert NamedSharding(mesh2, P(("x", "y"))).shard_shape((16,)) == (2,)
    m = s.devices_indices_map((8, 6))
    devs = mesh2.devices
    assert m[devs[1, 0]] == (slice(2, 4), slice(None)) == m[devs[1, 1]]  # replicated over y
    one = SingleDeviceSharding(minijax.devices()[2])
    assert one == SingleDeviceSharding(minijax.devices()[2]) and one.num_devices == 1
    assert one.is_fully_replicated and one.shard_shape((3, 4)) == (3, 4)
    assert one.devices_indices_map((3,)) == {minijax.devices()[2]: (slice(None),)}


# ------------------------------------------------------------------------------------------------
# device_put and sharded Arrays


@pytest.mark.parametrize(
    "spec", [P("x"), P(None, "x"), P(), P(("x",), None)], ids=str
)
def test_device_put_1d_mesh(mesh1, spec):
    value = _value((16, 8))
    s = NamedSharding(mesh1, spec)
    arr = minijax.device_put(value, s)
    _check_layout(arr, s, value)


@pytest.mark.parametrize(
    "spec", [P("x", "y"), P("y", "x"), P("x"), P(None, "y"), P(("x", "y")), P(("y", "x"), None)],
    ids=str,
)
def test_device_put_2d_mesh(mesh2, spec):
    value = _value((16, 8), 1)
    s = NamedSharding(mesh2, spec)
    arr = minijax.device_put(value, s)
    _check_layout(arr, s, value)
    assert arr.devices() == set(mesh2.devices.flat)


def test_device_put_pytree_prefix_and_reshard(mesh2):
    tree = {"a": _value((8, 4)), "b": _value((4, 8), 2)}
    shardings = {"a": NamedSharding(mesh2, P("x")), "b": NamedSharding(mesh2, P(None, "x"))}
    out = minijax.device_put(tree, shardings)
    _check_layout(out["a"], shardings["a"], tree["a"])
    _check_layout(out["b"], shardings["b"], tree["b"])
    # An Array already laid out this way is returned as is; another layout is resharded.
    assert minijax.device_put(out["a"], shardings["a"]) is out["a"]
    moved = minijax.device_put(out["a"], NamedSharding(mesh2, P("y", "x")))
    _check_layout(moved, NamedSharding(mesh2, P("y", "x")), tree["a"])
    single = minijax.device_put(out["a"], minijax.devices()[3])
    assert single.device == minijax.devices()[3]
    np.testing.assert_array_equal(np.asarray(single), tree["a"])


def test_visualize_array_sharding(mesh2, capsys):
    arr = minijax.device_put(_value((8, 4)), NamedSharding(mesh2, P("x", "y")))
    text = minijax.debug.visualize_array_sharding(arr)
    assert capsys.readouterr().out.strip() == text.strip()
    rows = [line for line in text.splitlines() if "CPU" in line]
    assert len(rows) == 4  # four row tiles of two columns each
    assert "CPU 0" in rows[0] and "CPU 1" in rows[0] and "CPU 7" in rows[3]
    replicated = minijax.device_put(_value((8,)), NamedSharding(mesh2, P("x")))
    text = minijax.debug.visualize_array_sharding(replicated)
    assert "CPU 0,1" in text and "CPU 6,7" in text  # each tile on a pair of devices


# ------------------------------------------------------------------------------------------------
# Eager ops on sharded arrays run as the jit of the op with the inputs' shardings


def test_eager_ops_on_sharded_arrays(mesh2):
    a_np, b_np = _value((8, 8)), _value((8, 8), 3)
    s = NamedSharding(mesh2, P("x", "y"))
    a = minijax.device_put(a_np, s)
    b = minijax.device_put(b_np, NamedSharding(mesh2, P("y")))
    out = a + 1.0
    assert out.sharding == s
    np.testing.assert_allclose(np.asarray(out), a_np + 1.0, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.sin(a)), np.sin(a_np), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(a @ b), a_np @ b_np, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(float(a.sum()), a_np.sum(), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(a * a_np), a_np * a_np, rtol=1e-6)


# ------------------------------------------------------------------------------------------------
# jit with in_shardings / out_shardings


def test_jit_in_out_shardings_1d(mesh1):
    x_np, w_np = _value((16, 8)), _value((8, 4), 1)
    row = NamedSharding(mesh1, P("x"))
    rep = NamedSharding(mesh1, P())
    f = minijax.jit(lambda x, w: jnp.tanh(x @ w), in_shardings=(row, rep), out_shardings=row)
    out = f(x_np, w_np)
    _check_layout(out, row, np.asarray(out))
    np.testing.assert_allclose(np.asarray(out), np.tanh(x_np @ w_np), rtol=1e-5, atol=1e-6)
    assert [s.data.shape for s in out.addressable_shards] == [(2, 4)] * 8
    # Committed inputs already in the right layout: the same program (no retrace).
    out2 = f(minijax.device_put(x_np, row), minijax.device_put(w_np, rep))
    np.testing.assert_allclose(np.asarray(out2), np.asarray(out), rtol=1e-6)
    assert f._trace_count == 1


def test_jit_in_out_shardings_2d(mesh2):
    x_np, w_np = _value((16, 8)), _value((8, 6), 1)
    xs, ws = NamedSharding(mesh2, P("x", None)), NamedSharding(mesh2, P(None, "y"))
    os_ = NamedSharding(mesh2, P("x", "y"))
    f = minijax.jit(lambda x, w: x @ w + 1.0, in_shardings=(xs, ws), out_shardings=os_)
    out = f(minijax.device_put(x_np, xs), w_np)
    np.testing.assert_allclose(np.asarray(out), x_np @ w_np + 1.0, rtol=1e-5, atol=1e-5)
    _check_layout(out, os_, np.asarray(out))
    assert out.addressable_shards[0].data.shape == (4, 3)
    text = f.lower(x_np, w_np).as_text()
    assert 'sdy.mesh @mesh = <["x"=4, "y"=2]>' in text
    assert '#sdy.sharding<@mesh, [{"x"}, {}]>' in text
    assert '#sdy.sharding<@mesh, [{"x"}, {"y"}]>' in text
    compiled = f.lower(x_np, w_np).compile()
    np.testing.assert_allclose(np.asarray(compiled(x_np, w_np)), np.asarray(out), rtol=1e-6)


def test_jit_output_sharding_is_read_back_from_the_executable(mesh2):
    x_np = _value((8, 8))
    s = NamedSharding(mesh2, P("x", "y"))
    x = minijax.device_put(x_np, s)
    out = minijax.jit(lambda a: jnp.exp(a) * 2.0)(x)  # committed input: its sharding is used
    assert out.sharding == s
    np.testing.assert_allclose(np.asarray(out), np.exp(x_np) * 2.0, rtol=1e-5)
    total = minijax.jit(lambda a: a.sum())(x)
    assert total.sharding.is_fully_replicated
    np.testing.assert_allclose(float(total), x_np.sum(), rtol=1e-4)


def test_eval_shape_of_jit_reports_its_out_shardings(mesh2):
    """As in JAX: the ShapeDtypeStructs of a jit with out_shardings carry them (what a sharded
    init's shapes are planned with), and the compiled outputs do land there."""
    out_sh = (NamedSharding(mesh2, P("x")), {"total": NamedSharding(mesh2, P())})
    f = minijax.jit(lambda a: (a * 2, {"total": a.sum()}), out_shardings=out_sh)
    x_np = _value((8, 4))
    for shapes in (minijax.eval_shape(f, x_np), f.eval_shape(x_np)):
        assert [s.sharding for s in minijax.tree_util.tree_leaves(shapes)] == [
            out_sh[0], out_sh[1]["total"]]
        assert shapes[0].shape == (8, 4) and shapes[1]["total"].shape == ()
    y, t = f(x_np)
    assert y.sharding == out_sh[0] and t["total"].sharding == out_sh[1]["total"]
    assert minijax.eval_shape(minijax.jit(lambda a: a + 1), x_np).sharding is None
    spec_only = minijax.jit(lambda a: a * 2, out_shardings=P("y"))
    with pytest.raises(RuntimeError, match=r"jit requires a non-empty mesh in context if you "
                                           r"are passing `PartitionSpec`s to out_shardings"):
        minijax.eval_shape(spec_only, x_np)  # JAX 0.10.2's error (recorded from it)
    with minijax.set_mesh(mesh2):
        assert spec_only.eval_shape(x_np).sharding == NamedSharding(mesh2, P("y"))


def test_jit_pytree_prefix_in_shardings(mesh2):
    params = {"w": _value((8, 4)), "b": _value((4,), 1)}
    x_np = _value((16, 8), 2)
    f = minijax.jit(
        lambda p, x: x @ p["w"] + p["b"],
        in_shardings=({"w": NamedSharding(mesh2, P(None, "y")), "b": None},
                      NamedSharding(mesh2, P("x"))),
    )
    out = f(params, x_np)
    np.testing.assert_allclose(np.asarray(out), x_np @ params["w"] + params["b"], rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(RuntimeError, match="jit requires a non-empty mesh in context"), \
            pytest.warns(DeprecationWarning), mesh2:  # JAX 0.10.2: set_mesh, not `with mesh:`
        minijax.jit(lambda x: x * 3.0, in_shardings=P("x", "y"))(x_np)
    with minijax.set_mesh(mesh2):  # bare PartitionSpecs under a mesh
        g = minijax.jit(lambda x: x * 3.0, in_shardings=P("x", "y"), out_shardings=P("y"))
        out = g(x_np)
    assert out.sharding == NamedSharding(mesh2, P("y"))
    np.testing.assert_allclose(np.asarray(out), x_np * 3.0, rtol=1e-6)


# ------------------------------------------------------------------------------------------------
# with_sharding_constraint


def test_with_sharding_constraint_inside_jit(mesh2):
    x_np = _value((8, 8))
    target = NamedSharding(mesh2, P(None, ("x", "y")))

    def f(x):
        y = lax.with_sharding_constraint(jnp.sin(x) * 2.0, target)
        return y, y.sum(0)

    jaxpr = minijax.make_jaxpr(f)(x_np)
    # JAX 0.10.2's params, one a line
    assert "sharding_constraint[\n      context_mesh=Mesh()\n      layout=None\n" \
           "      sharding=NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), " \
           "spec=P(None, ('x', 'y')), memory_kind=device)\n" \
           "      unconstrained_dims=frozenset({})\n    ] c" in str(jaxpr)
    text = minijax.jit(f).lower(x_np).as_text()
    assert 'sdy.sharding_constraint' in text and '[{}, {"x", "y"}]' in text
    y, s = minijax.jit(f)(x_np)
    assert y.sharding == target  # unconstrained output: propagated from the constraint
    np.testing.assert_allclose(np.asarray(y), np.sin(x_np) * 2.0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(s), (np.sin(x_np) * 2.0).sum(0), rtol=1e-4, atol=1e-5)
    with pytest.warns(DeprecationWarning), mesh2:  # the legacy block still names it here
        out = minijax.jit(lambda x: lax.with_sharding_constraint(x + 1.0, P("y", "x")))(x_np)
    assert out.sharding == NamedSharding(mesh2, P("y", "x"))
    np.testing.assert_allclose(np.asarray(out), x_np + 1.0, rtol=1e-6)
    # Eagerly the constraint is a placement.
    eager = lax.with_sharding_constraint(x_np, target)
    _check_layout(eager, target, x_np)


def test_with_sharding_constraint_transforms(mesh2):
    x_np = _value((3, 8, 4))
    s = NamedSharding(mesh2, P("x"))

    def f(x):
        return lax.with_sharding_constraint(x * x, s).sum()

    # vmap inserts the batch dimension into the spec, unconstrained (as JAX's)
    vf = minijax.vmap(lambda x: lax.with_sharding_constraint(x * 2.0, s))
    assert "spec=P(UNCONSTRAINED, 'x', None)" in str(minijax.make_jaxpr(vf)(x_np))
    out = minijax.jit(vf)(x_np)
    assert out.sharding == NamedSharding(mesh2, P(None, "x"))
    np.testing.assert_allclose(np.asarray(out), x_np * 2.0, rtol=1e-6)
    # identity JVP and transpose
    g = minijax.jit(minijax.grad(f))(x_np[0])
    np.testing.assert_allclose(np.asarray(g), 2 * x_np[0], rtol=1e-6)
    _, t = minijax.jvp(f, (x_np[0],), (np.ones_like(x_np[0]),))
    np.testing.assert_allclose(float(t), (2 * x_np[0]).sum(), rtol=1e-5)


def test_grad_of_sharded_matmul_loss(mesh2):
    w_np, x_np, y_np = _value((8, 4)), _value((16, 8), 1), _value((16, 4), 2)
    ws = NamedSharding(mesh2, P(None, "y"))
    xs = NamedSharding(mesh2, P("x"))

    def loss(w, x, y):
        h = lax.with_sharding_constraint(x @ w, NamedSharding(mesh2, P("x", "y")))
        return jnp.mean((h - y) ** 2)

    g = minijax.jit(minijax.value_and_grad(loss), in_shardings=(ws, xs, xs),
                    out_shardings=(NamedSharding(mesh2, P()), ws))
    val, gw = g(minijax.device_put(w_np, ws), minijax.device_put(x_np, xs), y_np)
    r = x_np @ w_np - y_np
    np.testing.assert_allclose(float(val), np.mean(r**2), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(gw), 2 * x_np.T @ r / r.size, rtol=1e-4, atol=1e-6)
    assert gw.sharding == ws and gw.addressable_shards[0].data.shape == (8, 2)


# ------------------------------------------------------------------------------------------------
# Committed inputs in another layout are resharded (execute_sharded would not notice)


def test_mismatched_tile_order_is_resharded_not_misread(mesh2):
    x_np = np.arange(16 * 4, dtype=np.float32).reshape(16, 4)
    expected = NamedSharding(mesh2, P("x"))
    # Same per-device piece shapes, but the tiles sit on the devices in reverse order.
    devs = list(mesh2.devices.flat)
    reversed_mesh = Mesh(np.array(devs[::-1], dtype=object).reshape(4, 2), ("x", "y"))
    other = minijax.device_put(x_np, NamedSharding(reversed_mesh, P("x")))
    assert other.addressable_shards[0].data.shape == expected.shard_shape(x_np.shape)
    f = minijax.jit(lambda a: a * 10.0 + jnp.arange(4.0), in_shardings=expected)
    want = x_np * 10.0 + np.arange(4.0)
    for _ in range(3):  # the C++ fast path must not take the other layout as is either
        out = f(other)
        np.testing.assert_array_equal(np.asarray(out), want)
    np.testing.assert_array_equal(np.asarray(f(minijax.device_put(x_np, expected))), want)
    # The same devices and piece shapes in a transposed tile order: P(("y", "x")) against
    # in_shardings P(("x", "y")). JAX 0.10.2 reshards no committed argument whose layout
    # differs from in_shardings: it refuses it (recorded from JAX 0.10.2)
    transposed = minijax.device_put(x_np, NamedSharding(mesh2, P(("y", "x"))))
    h = minijax.jit(lambda a: a * 10.0, in_shardings=NamedSharding(mesh2, P(("x", "y"))))
    with pytest.raises(ValueError, match="Sharding passed to jit does not match the sharding on "
                                         "the respective arg"):
        h(transposed)
    # Transposed 2-D tiles (P("y", "x") vs in_shardings P("x", "y")) and other layouts: refused
    # too; an uncommitted value is placed as in_shardings says
    sq = np.arange(64, dtype=np.float32).reshape(8, 8)
    g = minijax.jit(lambda a: a - a.T, in_shardings=NamedSharding(mesh2, P("x", "y")))
    for spec in (P("y", "x"), P(None, ("y", "x")), P()):
        with pytest.raises(ValueError, match="Sharding passed to jit does not match"):
            g(minijax.device_put(sq, NamedSharding(mesh2, spec)))
    np.testing.assert_array_equal(np.asarray(g(jnp.asarray(sq))), sq - sq.T)


def test_committed_arguments_on_different_meshes_are_rejected(mesh2):
    devs = list(mesh2.devices.flat)
    other_mesh = Mesh(np.array(devs[::-1], dtype=object).reshape(4, 2), ("x", "y"))
    a = minijax.device_put(_value((8, 4)), NamedSharding(mesh2, P("x")))
    b = minijax.device_put(_value((8, 4)), NamedSharding(other_mesh, P("x")))
    with pytest.raises(ValueError, match="same devices in the same order"):
        minijax.jit(lambda a, b: a + b)(a, b)


# ------------------------------------------------------------------------------------------------
# Errors name the array, the dimension and the axis


def test_unknown_and_repeated_mesh_axes(mesh2):
    # JAX 0.10.2's errors (recorded from it): its NamedSharding check, and jit's of the bare
    # specs given (a repeated axis when jit is applied, an unknown one when called)
    from minijax.core import DuplicateSpecError

    with pytest.raises(ValueError, match=r"^Resource axis: z of P\('x', 'z'\) is not found in "
                                         r"mesh: \('x', 'y'\)\.$"):
        NamedSharding(mesh2, P("x", "z"))
    with pytest.raises(DuplicateSpecError, match=r"but P\('x', \('y', 'x'\)\) has duplicate "
                                                 r"entries for `x`$"):
        NamedSharding(mesh2, P("x", ("y", "x")))
    with minijax.set_mesh(mesh2):
        with pytest.raises(ValueError, match=r"^Resource axis: q of P\('q',\) is not found"):
            minijax.jit(lambda a, b: a, in_shardings=(None, {"k": P("q")}))(
                np.ones(8), {"k": np.ones(8)}
            )
        with pytest.raises(DuplicateSpecError, match=r"^A single in_shardings specification "
                                                     r".* for `y`$"):
            minijax.jit(lambda a: a, in_shardings=P("y", "y"))
    with pytest.raises(RuntimeError, match=r"^jit requires a non-empty mesh in context if you "
                                           r"are passing `PartitionSpec`s to in_shardings\."):
        minijax.jit(lambda a: a, in_shardings=P("x"))(np.ones(8))


def test_indivisible_dimension_errors(mesh2):
    s = NamedSharding(mesh2, P(None, "x"))
    with pytest.raises(ValueError, match=r"x\['w'\]: dimension 1 of shape \(4, 6\) has size 6.*"
                                         r"not divisible by mesh axis 'x' \(size 4\)"):
        minijax.device_put({"w": np.ones((4, 6))}, s)
    with pytest.raises(ValueError, match=r"in_shardings for args\[0\]\[1\] of f32\[4,6\]: "
                                         r"dimension 1 .* mesh axis 'x' \(size 4\)"):
        minijax.jit(lambda t: t[0], in_shardings=((None, s),))((np.ones(8), np.ones((4, 6))))
    with pytest.raises(ValueError, match=r"out_shardings for output\['y'\] of f32\[6\]: "
                                         r"dimension 0 .* 'x' \(size 4\) x 'y' \(size 2\)"):
        minijax.jit(lambda a: {"y": a}, out_shardings=NamedSharding(mesh2, P(("x", "y")))
                    )(np.ones(6, np.float32))
    with pytest.raises(ValueError, match=r"with_sharding_constraint on f32\[6,4\]: dimension 0"
                                         r".*mesh axis 'x' \(size 4\)"):
        minijax.jit(lambda a: lax.with_sharding_constraint(a, NamedSharding(mesh2, P("x"))))(
            np.ones((6, 4), np.float32)
        )
    with pytest.raises(ValueError, match="has 3 entries but the array has rank 2"):
        minijax.device_put(np.ones((8, 8)), NamedSharding(mesh2, P("x", None, "y")))


def test_hundreds_of_queued_collective_steps_on_cpu_do_not_abort():
    """XLA:CPU's in-process collectives starve when hundreds of multi-device executions are
    queued asynchronously and abort the process after 40 s (JAX 0.10 too); minijax runs CPU
    programs with collectives synchronously. In a subprocess: a regression aborts it."""
    import subprocess
    import sys

    code = (
        "import numpy as np, minijax, minijax.numpy as jnp\n"
        "from minijax.sharding import NamedSharding, PartitionSpec as P\n"
        "mesh = minijax.make_mesh((8,), ('d',))\n"
        "params = minijax.device_put([np.full((32, 32), 0.01, np.float32)] * 64,\n"
        "                            NamedSharding(mesh, P()))\n"
        "x = minijax.device_put(np.ones((64, 32), np.float32), NamedSharding(mesh, P('d')))\n"
        "def step(params, x):\n"
        "    g = minijax.grad(lambda p: sum(jnp.sum(jnp.tanh(x @ w)) for w in p))(params)\n"
        "    return [w - 0.01 * gw for w, gw in zip(params, g)]\n"
        "f = minijax.jit(step, donate_argnums=0)\n"
        "for _ in range(300):\n"
        "    params = f(params, x)\n"
        "print('done', float(params[0].sum()))\n"
    )
    env = dict(os.environ, MINIJAX_NUM_CPU_DEVICES="8", MINIJAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=180)
    assert res.returncode == 0 and "done" in res.stdout, res.stderr[-2000:]
