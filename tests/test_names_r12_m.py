"""Round-12 names of JAX 0.10.2 (jax.image, jax.ad_checkpoint, jax.tree_util's one-level
flattening, jax.errors' classes, jax.nn.log1mexp, jax.sharding/config context managers).
Expected values from NumPy, finite differences or JAX 0.10.2's recorded outputs
(tests/data/r12_m_jax_outputs.npz, made by tests/data/record_r12_m.py)."""

import collections

import jaxlib.version
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import errors, tree_util

# ------------------------------------------------------------------------ jax.tree_util


def test_flatten_one_level():
    children, meta = tree_util.flatten_one_level({"a": [1, 2], "b": {"c": 3}})
    assert list(children) == [[1, 2], {"c": 3}] and meta == ("a", "b")
    children, meta = tree_util.flatten_one_level((1, (2, 3)))
    assert list(children) == [1, (2, 3)] and meta is None
    with pytest.raises(ValueError, match="can't tree-flatten type"):
        tree_util.flatten_one_level(1.0)


def test_flatten_one_level_with_keys():
    pairs, meta = tree_util.flatten_one_level_with_keys({"a": 1, "b": [2]})
    assert [(k, v) for k, v in pairs] == [(tree_util.DictKey("a"), 1),
                                         (tree_util.DictKey("b"), [2])]
    assert meta == ("a", "b")
    with pytest.raises(ValueError, match="can't tree-flatten type"):
        tree_util.flatten_one_level_with_keys(np.float32(1))


def test_is_tree_node_and_default_registry():
    Point = collections.namedtuple("Point", "x y")
    assert tree_util.is_tree_node(tuple) and tree_util.is_tree_node(dict)
    assert tree_util.is_tree_node(Point) and tree_util.is_tree_node(type(None))
    assert not tree_util.is_tree_node(int) and not tree_util.is_tree_node(np.ndarray)

    class Box:
        pass

    assert not tree_util.is_tree_node(Box)
    tree_util.register_pytree_node(Box, lambda b: ((), None), lambda _, __: Box())
    assert tree_util.is_tree_node(Box) and tree_util.default_registry.is_node(Box)
    assert tree_util.default_registry.flatten({"a": 1})[0] == [1]


# --------------------------------------------------------------------------- jax.errors


def test_error_class_hierarchy():
    assert issubclass(errors.TracerBoolConversionError, errors.ConcretizationTypeError)
    assert issubclass(errors.KeyReuseError, errors.JAXTypeError)
    assert issubclass(errors.JaxprTypeError, TypeError)
    assert not issubclass(errors.JaxprTypeError, errors.JAXTypeError)
    assert issubclass(errors.InconclusiveDimensionOperation, Exception)
    assert not issubclass(errors.InconclusiveDimensionOperation, TypeError)


def test_bool_of_tracer_raises_tracer_bool_conversion_error():
    with pytest.raises(errors.TracerBoolConversionError):
        minijax.jit(lambda x: bool(x))(1.0)
    with pytest.raises(errors.TracerBoolConversionError):
        minijax.jit(lambda x: 1.0 if x > 0 else 0.0)(1.0)
    # JAX's ValueError for arrays of more than one (or no) element, as NumPy's.
    with pytest.raises(ValueError, match="more than one element"):
        minijax.jit(lambda x: 1 if x else 0)(jnp.ones(2))
    with pytest.raises(ValueError, match="empty array"):
        minijax.jit(lambda x: 1 if x else 0)(jnp.ones(0))
    # Concrete values under grad still convert.
    assert minijax.grad(lambda x: x * 2.0 if x > 0 else -x)(1.0) == 2.0


# -------------------------------------------------------------------- jax.ad_checkpoint
from minijax import ad_checkpoint  # noqa: E402


def _named_f(x, y):
    z = ad_checkpoint.checkpoint_name(jnp.sin(x), "a")
    return jnp.sin(z) * y + jnp.dot(x, y)


def _residual_sources(f, *args):
    return [src.split(" from ")[0] if src.startswith(("named", "output")) else src
            for _, src in ad_checkpoint.saved_residuals(f, *args)]


def test_checkpoint_name_is_identity_under_transformations():
    x, y = jnp.arange(3.0), jnp.ones(3)
    tree = ad_checkpoint.checkpoint_name({"a": x, "b": (y,)}, "n")
    np.testing.assert_array_equal(tree["a"], x)
    np.testing.assert_array_equal(tree["b"][0], y)
    expect = np.sin(np.sin(np.arange(3.0))) + 3.0
    np.testing.assert_allclose(minijax.jit(_named_f)(x, y), expect, rtol=1e-6)
    np.testing.assert_allclose(minijax.vmap(_named_f)(jnp.stack([x, x]), jnp.ones((2, 3))),
                               np.stack([expect, expect]), rtol=1e-6)
    assert "name[name=a]" in str(minijax.make_jaxpr(_named_f)(x, y))


def test_name_policies_choose_the_residuals():
    x, y = jnp.ones(3), jnp.ones(3)
    pol = minijax.checkpoint_policies
    assert _residual_sources(_named_f, x, y) == [
        "from the argument x", "from the argument y", "output of cos", "output of sin",
        "output of cos"]
    only_a = minijax.checkpoint(_named_f, policy=pol.save_only_these_names("a"))
    assert _residual_sources(only_a, x, y) == [
        "from the argument x", "from the argument y", "named 'a'"]
    assert _residual_sources(minijax.checkpoint(_named_f), x, y) == [
        "from the argument x", "from the argument y"]
    but_a = minijax.checkpoint(_named_f, policy=pol.save_any_names_but_these("a"))
    assert _residual_sources(but_a, x, y) == ["from the argument x", "from the argument y"]
    both = pol.save_from_both_policies(pol.save_only_these_names("b"),
                                       pol.save_only_these_names("a"))
    assert _residual_sources(minijax.checkpoint(_named_f, policy=both), x, y)[-1] == "named 'a'"
    offload = pol.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["a"],
        offload_src="device", offload_dst="pinned_host")
    assert len(_residual_sources(minijax.checkpoint(_named_f, policy=offload), x, y)) == 3
    with pytest.raises(ValueError, match="should be exclusive"):
        pol.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"],
            offload_src="device", offload_dst="pinned_host")
    bad = pol.save_from_both_policies(pol.save_only_these_names("a"), offload)
    with pytest.raises(ValueError, match="should be a boolean"):
        minijax.grad(lambda x: minijax.checkpoint(_named_f, policy=bad)(x, y).sum())(x)


def test_grad_through_named_checkpoint():
    x, y = jnp.arange(3.0), jnp.ones(3)
    policy = minijax.checkpoint_policies.save_only_these_names("a")
    gx, gy = minijax.grad(lambda a, b: minijax.checkpoint(_named_f, policy=policy)(a, b).sum(),
                          (0, 1))(x, y)
    xs = np.arange(3.0)
    np.testing.assert_allclose(gx, np.cos(np.sin(xs)) * np.cos(xs) + 3.0, rtol=1e-5)
    np.testing.assert_allclose(gy, np.sin(np.sin(xs)) + 3.0 * xs, rtol=1e-5)


def test_print_saved_residuals_and_removed_names(capsys):
    ad_checkpoint.print_saved_residuals(lambda x: jnp.sin(x), jnp.ones(2))
    assert capsys.readouterr().out.startswith("f32[2] output of cos from ")
    for name in ("checkpoint", "remat"):
        with pytest.raises(AttributeError, match="removed in JAX v0.10.0"):
            getattr(ad_checkpoint, name)
    assert ad_checkpoint.Recompute is not ad_checkpoint.Saveable
    assert ad_checkpoint.Offloadable("device", "pinned_host").dst == "pinned_host"


# ---------------------------------------------------------------------------- jax.image
from minijax import image  # noqa: E402

_JAX = np.load(__import__("pathlib").Path(__file__).parent / "data" / "r12_m_image_jax.npz")
_METHODS = ["nearest", "linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area"]
_SHAPES = [((5, 6, 2), (3, 9, 2)), ((4, 4, 2), (7, 2, 2))]


@pytest.mark.parametrize("i", [0, 1])
@pytest.mark.parametrize("method", _METHODS)
def test_resize_matches_jax(i, method):
    x = _JAX[f"image{i}"]
    s_out = _SHAPES[i][1]
    w = np.linspace(-1, 1, int(np.prod(s_out)), dtype=np.float32).reshape(s_out)
    for aa in (True, False):
        key = f"resize{i}_{method}_{aa}"
        got = image.resize(x, s_out, method, antialias=aa)
        assert got.dtype == np.float32 and got.shape == s_out
        np.testing.assert_allclose(got, _JAX[key], rtol=1e-5, atol=1e-5)
        if method != "nearest":
            g = minijax.jit(minijax.grad(lambda im: jnp.sum(image.resize(
                im, s_out, method, antialias=aa) * w)))(x)
            np.testing.assert_allclose(g, _JAX["grad_" + key], rtol=1e-5, atol=1e-5)


def test_resize_dtypes_methods_and_errors():
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    nearest = image.resize(ints, (5, 2), "nearest")
    assert nearest.dtype == np.int32
    np.testing.assert_array_equal(nearest, _JAX["resize_int_nearest"])
    linear = image.resize(ints, (5, 2), image.ResizeMethod.LINEAR)
    assert linear.dtype == np.float32
    np.testing.assert_allclose(linear, _JAX["resize_int_linear"], rtol=1e-6)
    for alias, method in [("bilinear", "LINEAR"), ("trilinear", "LINEAR"),
                          ("triangle", "LINEAR"), ("bicubic", "CUBIC"),
                          ("tricubic", "CUBIC"), ("bicubic-pytorch", "CUBIC_PYTORCH")]:
        assert image.ResizeMethod.from_string(alias) is image.ResizeMethod[method]
    with pytest.raises(ValueError, match='Unknown resize method "box"'):
        image.resize(ints, (5, 2), "box")
    with pytest.raises(ValueError, match="shape must have length equal"):
        image.resize(ints, (5, 2, 1), "linear")
    with pytest.raises(ValueError, match="Nearest neighbor resampling is not"):
        image.scale_and_translate(ints, (5, 2), (0, 1), [1.0, 1.0], [0.0, 0.0], "nearest")
    batched = minijax.vmap(lambda im: image.resize(im, (9, 2), "cubic"))(
        np.stack([_JAX["image0"][:, :, 0]] * 2))
    np.testing.assert_allclose(batched[1], image.resize(_JAX["image0"][:, :, 0], (9, 2),
                                                        "cubic"), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("method", _METHODS[1:])
def test_scale_and_translate_matches_jax(method):
    x = _JAX["image0"]
    for aa in (True, False):
        scale, trans = jnp.array([0.7, 1.4]), jnp.array([0.3, -0.6])
        # jitted: eagerly, each of the weight matrices' many small ops compiles on its own
        got = minijax.jit(lambda s, t: image.scale_and_translate(
            x, (4, 8, 2), (0, 1), s, t, method, antialias=aa))(scale, trans)
        np.testing.assert_allclose(got, _JAX[f"sat_{method}_{aa}"], rtol=1e-5, atol=1e-5)
        g_s, g_t = minijax.jit(minijax.grad(lambda s, t: jnp.sum(image.scale_and_translate(
            x, (4, 8, 2), (0, 1), s, t, method, antialias=aa) ** 2), (0, 1)))(scale, trans)
        np.testing.assert_allclose(np.concatenate([g_s, g_t]), _JAX[f"sat_grad_{method}_{aa}"],
                                   rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------- jax.nn.log1mexp


def test_log1mexp_values_dtypes_and_grad():
    xs = np.array([1e-4, 0.5, 0.7, 5.0, 40.0], np.float32)
    x64 = xs.astype(np.float64)  # each form where float64 keeps it exact
    expect = np.where(x64 < 1.0, np.log(-np.expm1(-x64)), np.log1p(-np.exp(-x64)))
    np.testing.assert_allclose(minijax.nn.log1mexp(xs), expect, rtol=1e-6)
    weak = minijax.nn.log1mexp(1.0)
    assert weak.dtype == np.float32 and weak.weak_type
    assert minijax.nn.log1mexp(np.array([1, 2])).dtype == np.float32
    assert minijax.nn.log1mexp(jnp.array([0.1], jnp.bfloat16)).dtype == jnp.bfloat16
    grads = minijax.jit(minijax.vmap(minijax.grad(minijax.nn.log1mexp)))(
        jnp.array([0.1, 1.0, 5.0]))
    np.testing.assert_allclose(grads, 1.0 / np.expm1([0.1, 1.0, 5.0]), rtol=1e-5)
    with pytest.raises(TypeError, match="log1mexp requires ndarray or scalar"):
        minijax.nn.log1mexp([1.0])


# ----------------------------------------------------------------------------- jax.core
from minijax import core as mcore  # noqa: E402


def test_core_compile_time_eval_and_eval_context():
    assert mcore.ensure_compile_time_eval is minijax.ensure_compile_time_eval
    seen = []

    @minijax.jit
    def f(x):
        with mcore.ensure_compile_time_eval():
            y = jnp.sin(2.0)
            seen.append(isinstance(y, mcore.Tracer))
        return x + y

    np.testing.assert_allclose(f(1.0), 1.0 + np.sin(2.0), rtol=1e-6)
    assert seen == [False]
    assert "sin" not in str(minijax.make_jaxpr(f)(1.0))
    with mcore.eval_context():
        assert mcore.current_trace() is mcore.eval_trace
        np.testing.assert_allclose(jnp.cos(0.0), 1.0)


# ------------------------------------------------------------------------- jax.sharding
from minijax import sharding  # noqa: E402


def test_get_mesh_and_use_abstract_mesh():
    empty = sharding.get_mesh()
    # JAX 0.10.2: repr "Mesh(axis_sizes=(), axis_names=())", str "Mesh()"
    assert empty.empty and repr(empty) == "Mesh(axis_sizes=(), axis_names=())"
    assert str(empty) == "Mesh()"
    mesh = minijax.make_mesh((1,), ("x",))
    with minijax.set_mesh(mesh):
        assert sharding.get_mesh() is mesh
    with pytest.raises(ValueError, match="can only be used outside of `jax.jit`"):
        minijax.jit(lambda x: sharding.get_mesh() and x)(1.0)
    with pytest.raises(ValueError, match="Expected mesh of type `jax.sharding.AbstractMesh`"):
        sharding.use_abstract_mesh(mesh)
    abstract = sharding.AbstractMesh((2,), ("x",))
    with sharding.use_abstract_mesh(abstract):
        assert sharding.get_abstract_mesh() == abstract
    assert sharding.get_abstract_mesh().empty
    with minijax.set_mesh(mesh):
        with pytest.raises(ValueError, match="cannot change the size of the mesh"):
            with sharding.use_abstract_mesh(abstract):
                pass
        assert sharding.get_abstract_mesh() == mesh.abstract_mesh


def test_abstract_device_and_manual_axis_type():
    dev = sharding.AbstractDevice(device_kind="TPU v6 lite", num_cores=1, platform="tpu")
    assert repr(dev) == "AbstractDevice(device_kind=TPU v6 lite, num_cores=1, platform=tpu)"
    assert dev == sharding.AbstractDevice("TPU v6 lite", 1, "tpu") and hash(dev) == hash(
        sharding.AbstractDevice("TPU v6 lite", 1, "tpu"))
    M = sharding.ManualAxisType
    a = M(varying={"x"})
    assert a is M(varying=frozenset({"x"})) and not a.empty and M().empty
    assert a.update(reduced={"y"}).reduced == {"y"}
    assert a.update(reduced={"y"}).to_ct_mat().unreduced == {"y"}
    with pytest.raises(ValueError, match="varying and unreduced cannot have common"):
        M(varying={"x"}, unreduced={"x"})
    with pytest.raises(ValueError, match="varying and reduced cannot have common"):
        M(varying={"x"}, reduced={"x"})
    assert minijax.typeof(jnp.ones(2)).mat is M()


# ------------------------------------------- default_device, transfer guards, environment


def test_transfer_guards_refuse_implicit_host_to_device_copies():
    host = np.ones(3, np.float32)
    ident = minijax.jit(lambda x: x)
    with minijax.transfer_guard_host_to_device("disallow"):
        with pytest.raises(minijax.errors.JaxRuntimeError, match="Disallowed host-to-device"):
            ident(host)
        with pytest.raises(minijax.errors.JaxRuntimeError, match="Disallowed host-to-device"):
            jnp.asarray(host)
        np.testing.assert_array_equal(minijax.device_put(host), host)  # explicit
        on_device = minijax.device_put(host)
        np.testing.assert_array_equal(ident(on_device), host)  # no transfer
        np.testing.assert_array_equal(minijax.device_get(on_device), host)
    with minijax.transfer_guard("disallow_explicit"):
        with pytest.raises(minijax.errors.JaxRuntimeError, match="Disallowed host-to-device"):
            minijax.device_put(host)
    with minijax.transfer_guard("log"):
        np.testing.assert_array_equal(ident(host), host)
    np.testing.assert_array_equal(ident(host), host)  # restored
    with pytest.raises(ValueError, match="new enum value must be None or in"):
        with minijax.transfer_guard("bogus"):
            pass
    minijax.config.update("jax_transfer_guard", "disallow")
    try:
        with pytest.raises(minijax.errors.JaxRuntimeError, match="Disallowed host-to-device"):
            ident(host)
        with minijax.transfer_guard_host_to_device("allow"):  # this thread's level wins
            np.testing.assert_array_equal(ident(host), host)
    finally:
        minijax.config.update("jax_transfer_guard", None)
    np.testing.assert_array_equal(ident(host), host)


def test_default_device():
    last = minijax.devices()[-1]
    with minijax.default_device(last):
        x = jnp.ones(2)
        y = minijax.jit(lambda a: a + 1)(np.ones(2, np.float32))
    assert x.devices() == {last} and y.devices() == {last}
    with minijax.default_device("cpu"):
        assert jnp.zeros(1).devices() == {minijax.devices("cpu")[0]}
    assert minijax.default_device.value is None
    with pytest.raises(TypeError, match="requires an argument"):
        minijax.default_device()


def test_print_environment_info(capsys):
    text = minijax.print_environment_info(return_string=True)
    assert text.startswith("jax:    0.10.2\njaxlib: " + jaxlib.version.__version__)
    assert "process_count: 1" in text and "device info: cpu-" in text
    assert minijax.print_environment_info() is None
    assert capsys.readouterr().out == text + "\n"


# ---------------------------------------------------------------------------- jax.debug


@pytest.mark.devices(8)
def test_visualize_sharding_draws_the_tiles_of_a_sharding(capsys):
    mesh = minijax.make_mesh((4, 2), ("x", "y"))
    s = sharding.NamedSharding(mesh, sharding.PartitionSpec("x", "y"))
    text = minijax.debug.visualize_sharding((8, 4), s)
    assert text == minijax.debug.visualize_array_sharding(
        minijax.device_put(jnp.zeros((8, 4)), s))
    assert text.count("CPU ") == 8 and text.splitlines()[0].count("+") == 3
    one = minijax.debug.visualize_sharding((5,), sharding.SingleDeviceSharding(
        minijax.devices()[0]))
    assert "CPU 0" in one and one.splitlines()[0].count("+") == 2
    with pytest.raises(ValueError, match="visualize_sharding: only 1-D and 2-D"):
        minijax.debug.visualize_sharding((2, 2, 2), s)
    capsys.readouterr()
