"""Differences from JAX found by running flax's and equinox's own test suites on minijax
(benchmarks/ecosystem_suites.py --suites), each pinned to what JAX 0.10.2 does."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp


class _Model:
    """A callable whose ``__name__`` is no string: an equinox Module whose static field was
    left at its class default reads its flattened wrapper field ``__name__`` as MISSING."""

    __name__ = object()

    def __call__(self, x):
        return jnp.sin(x) * 2.0


@pytest.mark.parametrize("transform", ["vmap", "grad", "value_and_grad", "jacfwd", "jacrev",
                                       "hessian", "checkpoint"])
def test_transforms_take_a_callable_whose_name_is_no_string(transform):
    x = np.array([0.5], np.float32)
    f = getattr(minijax, transform)(_Model())
    out = f(x[0]) if transform in ("grad", "value_and_grad", "checkpoint") else f(x)
    expected = {"vmap": 2 * np.sin(x), "grad": 2 * np.cos(x[0]), "jacfwd": 2 * np.cos(x),
                "jacrev": 2 * np.cos(x), "hessian": -2 * np.sin(x), "checkpoint": 2 * np.sin(x[0]),
                "value_and_grad": (2 * np.sin(x[0]), 2 * np.cos(x[0]))}[transform]
    np.testing.assert_allclose(np.ravel(out), np.ravel(expected), rtol=1e-6)


@pytest.mark.parametrize("transform", ["jit", "grad", "vmap", "value_and_grad", "jacfwd",
                                       "jacrev", "checkpoint"])
def test_transformed_function_wraps_the_callable(transform):
    # equinox warns when a Module field holds a transformed callable by following __wrapped__.
    def f(x):
        return x

    assert getattr(minijax, transform)(f).__wrapped__ is f


def test_trace_main_names_the_transformation_level():
    # equinox's filter_jvp keeps the outputs whose tracer belongs to its own jvp level.
    from minijax.extend.core import find_top_trace
    from minijax.interpreters import ad

    seen = []

    def inner(y):
        seen.append((find_top_trace([y]).main, y))
        return y * 3.0

    def outer(x):
        seen.append((find_top_trace([x]).main, x))
        return minijax.jvp(inner, (x,), (1.0,))[1] * x

    out, tangent = minijax.jvp(outer, (2.0,), (1.0,))
    (outer_main, x), (inner_main, y) = seen
    assert outer_main is not inner_main
    assert isinstance(y, ad.JVPTracer) and y._trace.main is inner_main
    assert x._trace.main is outer_main
    np.testing.assert_allclose([out, tangent], [6.0, 3.0])


def test_linear_transpose_takes_shaped_arrays():
    from minijax.core import ShapedArray

    (ct,) = minijax.linear_transpose(lambda x: 2.0 * x, ShapedArray((3,), np.float32))(
        np.ones(3, np.float32))
    np.testing.assert_allclose(ct, np.full(3, 2.0, np.float32))


def test_none_in_shard_map_specs_is_an_empty_subtree():
    # equinox's filter_pmap returns [None, x] with out_specs [None, P(axis)]; JAX matches the
    # Nones as empty subtrees, and a None where the output has an array is a structure error.
    from minijax.sharding import NamedSharding
    from minijax.sharding import PartitionSpec as P

    mesh = minijax.make_mesh((1,), ("x",))
    x = minijax.device_put(jnp.arange(2.0), NamedSharding(mesh, P("x")))
    f = minijax.shard_map(lambda a: ([None, a * 2], ()), mesh=mesh, in_specs=P("x"),
                          out_specs=([None, P("x")], ()))
    (none, y), empty = f(x)
    assert none is None and empty == ()
    np.testing.assert_allclose(y, [0.0, 2.0])
    g = minijax.shard_map(lambda a: (a, ()), mesh=mesh, in_specs=P("x"), out_specs=(None, ()))
    with pytest.raises(ValueError, match="not a pytree prefix"):
        g(x)


def test_pmap_with_a_negative_out_axis_traces_once():
    traces = []

    def f(x):
        traces.append(x)
        return x[:, None] * 2.0

    out = minijax.pmap(f, out_axes=-1)(np.ones((1, 3), np.float32))
    assert len(traces) == 1
    np.testing.assert_allclose(out, np.full((3, 1, 1), 2.0))


def test_to_tangent_aval():
    # equinox builds SymbolicZeros of typeof(x).to_tangent_aval() (values as JAX 0.10.2 prints).
    assert repr(minijax.typeof(1).to_tangent_aval()) == "ShapedArray(float0[], weak_type=True)"
    assert minijax.typeof(jnp.ones(2)).to_tangent_aval() == minijax.typeof(jnp.ones(2))
    assert minijax.typeof(minijax.random.key(0)).to_tangent_aval().dtype == minijax.dtypes.float0


@pytest.mark.parametrize("kind", ["pure", "io"])
@pytest.mark.parametrize("jitted", [False, True])
def test_an_exception_in_a_callback_is_a_jax_runtime_error(kind, jitted):
    # JAX runs a callback through a compiled program in eager mode too, so equinox's tests
    # expect XLA's JaxRuntimeError (a RuntimeError) either way.
    from minijax.experimental import io_callback

    def boom(x):
        raise ValueError("boom")

    struct = minijax.ShapeDtypeStruct((), np.float32)
    call = minijax.pure_callback if kind == "pure" else io_callback
    f = (lambda x: call(boom, struct, x))
    f = minijax.jit(f) if jitted else f
    with pytest.raises(RuntimeError, match="boom"):
        minijax.block_until_ready(f(np.float32(1.0)))


def test_scipy_and_experimental_are_attributes_of_the_package():
    # flax's tests call jax.scipy.special.* after a bare `import jax`, as JAX allows.
    import importlib

    assert minijax.scipy is importlib.import_module("minijax.scipy")
    assert minijax.experimental is importlib.import_module("minijax.experimental")


def test_create_device_mesh():
    # flax's nnx transforms tests build their meshes with it.
    from minijax.experimental import mesh_utils

    devices = minijax.devices()
    mesh = mesh_utils.create_device_mesh((len(devices),))
    assert mesh.shape == (len(devices),) and list(mesh) == devices
    assert minijax.sharding.Mesh(mesh, ("x",)).devices.shape == mesh.shape
    with pytest.raises(ValueError, match="must equal the product of mesh_shape"):
        mesh_utils.create_device_mesh((len(devices) + 1,))
    with pytest.raises(ValueError, match="should be a sequence of ints"):
        mesh_utils.create_device_mesh(("a",))


def test_shaped_array_takes_jax_keywords():
    # flax's axes_scan builds ShapedArray(shape=, dtype=, sharding=x.aval.sharding.update(spec=))
    from minijax.core import ShapedArray
    from minijax.sharding import NamedSharding
    from minijax.sharding import PartitionSpec as P

    x = jnp.ones((3, 2))
    s = x.aval.sharding.update(spec=P(*x.aval.sharding.spec[1:]))
    assert s.spec == P(None) and s.mesh == x.aval.sharding.mesh
    a = ShapedArray(shape=(2,), dtype=np.float32, sharding=s, weak_type=True)
    assert a == ShapedArray((2,), np.float32, True)
    mat = minijax.core.ManualAxisType(varying=frozenset({"i"}))  # keyword-only, as in JAX
    assert ShapedArray((2,), np.float32, manual_axis_type=mat).vma == {"i"}
    # an Auto axis leaves no trace in the type, an Explicit one splits it (JAX 0.10.2 prints
    # float32[2] and float32[2@x] for these)
    mesh = minijax.make_mesh((1,), ("x",), axis_types=(minijax.sharding.AxisType.Auto,))
    assert str(ShapedArray((2,), np.float32, sharding=NamedSharding(mesh.abstract_mesh,
                                                                     P("x")))) == "float32[2]"
    mesh = minijax.make_mesh((1,), ("x",), axis_types=(minijax.sharding.AxisType.Explicit,))
    assert str(ShapedArray((2,), np.float32, sharding=NamedSharding(mesh.abstract_mesh,
                                                                     P("x")))) == "float32[2@x]"


def test_parse_flags_with_absl(monkeypatch):
    # flax's tests call jax.config.parse_flags_with_absl() at import.
    from minijax.config import config

    monkeypatch.setattr("sys.argv", ["prog", "--jax_debug_nans", "--nojax_debug_infs",
                                     "--jax_default_matmul_precision=highest", "--unrelated",
                                     "--", "--jax_log_compiles"])
    before = (config.jax_debug_nans, config.jax_debug_infs, config.jax_default_matmul_precision,
              config.jax_log_compiles)
    try:
        minijax.config.parse_flags_with_absl()
        assert config.jax_debug_nans and not config.jax_debug_infs
        assert config.jax_default_matmul_precision == "highest"
        assert config.jax_log_compiles == before[3]
    finally:
        for name, value in zip(("jax_debug_nans", "jax_debug_infs",
                                "jax_default_matmul_precision", "jax_log_compiles"), before):
            config.update(name, value)


def test_padtype_to_pads_is_a_list():
    # equinox's circular-padded conv concatenates it to a list; values as JAX 0.10.2 gives them.
    assert minijax.lax.padtype_to_pads((6, 5), (3, 3), (1, 2), "SAME_LOWER") == [(1, 1), (1, 1)]
    assert minijax.lax.padtype_to_pads((6, 5), (3, 3), (1, 1), "VALID") == [(0, 0), (0, 0)]


def test_reduce_window_identity_init_in_its_own_dtype():
    # equinox's MaxPool starts max over integers at -inf: JAX sees the max monoid's identity.
    x = np.arange(6, dtype=np.int32).reshape(1, 6)
    lax = minijax.lax
    out = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2), (1, 1), "VALID")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[1, 2, 3, 4, 5]])
    np.testing.assert_array_equal(lax.reduce_window(x, 0.0, lax.add, (1, 2), (1, 1), "VALID"),
                                  [[1, 3, 5, 7, 9]])


def test_aux_may_hold_any_python_object():
    # equinox's filter_grad/filter_vjp return non-array aux (values as JAX 0.10.2 returns them).
    sentinel = object()
    g, aux = minijax.grad(lambda x: (x * 2.0, "hi"), has_aux=True)(1.0)
    assert aux == "hi" and float(g) == 2.0
    _, _, aux = minijax.vjp(lambda x: (x * 2.0, sentinel), 1.0, has_aux=True)
    assert aux is sentinel
    (_, (n, three, y)), _ = minijax.value_and_grad(lambda x: (x * 2.0, (None, 3, x * 3)),
                                                   has_aux=True)(1.0)
    assert n is None and three == 3 and float(y) == 3.0


def test_a_library_batching_rule_gets_tuples():
    from minijax.extend import core as jex
    from minijax.interpreters import batching

    seen = []
    p = jex.Primitive("h22_double")
    p.def_impl(lambda x: x * 2)
    p.def_abstract_eval(lambda a: a)

    def rule(axis_size, axis_name, trace_type, args, dims):
        seen.append((type(args), type(dims), axis_size))
        return p.bind(*args), dims[0]

    batching.axis_primitive_batchers[p] = rule
    out = minijax.vmap(p.bind)(np.arange(3.0, dtype=np.float32))
    np.testing.assert_allclose(out, [0.0, 2.0, 4.0])
    assert seen == [(tuple, tuple, 3)]


@pytest.mark.parametrize("mode", ["wrap", "reflect", "symmetric"])
def test_pad_wrap_and_mirrored_modes_match_numpy(mode):
    # flax's circular/reflect-padded convolutions (linen_linear_test) pad with these.
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for widths in [((1, 2), (3, 0)), ((5, 7), (9, 2)), 2]:
        np.testing.assert_array_equal(jnp.pad(x, widths, mode=mode), np.pad(x, widths, mode=mode))
    # the derivative sums each input's copies: d/dx sum(pad(x)) counts them
    idx = np.pad(np.arange(x.size).reshape(x.shape), 2, mode=mode)
    expected = np.bincount(idx.ravel(), minlength=x.size).reshape(x.shape).astype(np.float32)
    g = minijax.grad(lambda v: jnp.pad(v, 2, mode=mode).sum())(x)
    np.testing.assert_array_equal(g, expected)


def test_eval_shape_takes_shaped_arrays():
    # flax's ConvLocal (linen_linear_test) evaluates a conv's shape against a ShapedArray kernel.
    from minijax.core import ShapedArray

    out = minijax.eval_shape(lambda a, b: a @ b, jnp.ones((2, 3)), ShapedArray((3, 4), np.float32))
    assert out.shape == (2, 4) and out.dtype == np.float32


def test_custom_jvp_nondiff_argnums_count_omitted_defaults():
    # flax's fp8 dot_general_with_precision: nondiff_argnums=(2, 3, 4), called with three
    # arguments. JAX fills the defaults first, so 3 and 4 are the defaulted ones, not 0 and 1.
    from functools import partial

    @partial(minijax.custom_jvp, nondiff_argnums=(1, 2))
    def f(x, scale=3.0, flag=None):
        return x * scale

    @f.defjvp
    def f_jvp(scale, flag, primals, tangents):
        assert flag is None
        return primals[0] * scale, tangents[0] * scale * 2.0  # the rule's own (not f's) slope

    @partial(minijax.custom_vjp, nondiff_argnums=(1,))
    def g(x, scale=3.0):
        return x * scale

    g.defvjp(lambda x, scale: (x * scale, None), lambda scale, res, ct: (ct * scale * 2.0,))
    # JAX 0.10.2: 6.0, 6.0, 10.0 and 6.0
    assert float(minijax.grad(f)(1.0)) == 6.0
    assert float(minijax.jit(minijax.grad(f))(1.0)) == 6.0
    assert float(minijax.grad(lambda x: f(x, 5.0))(1.0)) == 10.0
    assert float(minijax.grad(g)(1.0)) == 6.0


def test_scan_takes_split_transpose():
    # flax's axes_scan passes lax.scan(_split_transpose=...) (JAX's memory-layout option of
    # the transposed loop); the values and the gradient are the same either way.
    xs = np.arange(1.0, 5.0, dtype=np.float32)

    def loss(c0, split):
        c, ys = minijax.lax.scan(lambda c, x: (c * x, c + x), c0, xs, _split_transpose=split)
        return c + ys.sum()

    for split in (False, True):
        # c = c0 * 24; ys = c0 * [1, 1, 2, 6] + xs: d/dc0 = 24 + 10
        np.testing.assert_allclose(minijax.grad(loss)(np.float32(2.0), split), 34.0)


def test_custom_vjp_bwd_runs_when_no_cotangent_reaches_it():
    # flax's fp8 ops (Fp8DirectDotGeneralOp): a custom_vjp's bwd hands back a state update as
    # the state's "gradient" even when the consumer of its output returns None for it. JAX
    # transposes every linear equation, so that bwd runs on zero cotangents.
    @minijax.custom_vjp
    def passthrough(x, state):
        return x

    passthrough.defvjp(lambda x, s: (x, s), lambda s, g: (g, s + 1.0))

    @minijax.custom_vjp
    def stop(x):
        return x

    stop.defvjp(lambda x: (x, None), lambda _, g: (None,))

    def loss(x, s):
        return jnp.sum(stop(passthrough(x, s)) * 3.0) + jnp.sum(x)

    x, s = jnp.ones(2), jnp.full(2, 5.0)
    for f in (minijax.grad(loss, argnums=(0, 1)), minijax.jit(minijax.grad(loss, argnums=(0, 1)))):
        gx, gs = f(x, s)  # JAX 0.10.2: [1, 1] and [6, 6]
        np.testing.assert_array_equal(gx, [1.0, 1.0])
        np.testing.assert_array_equal(gs, [6.0, 6.0])


@pytest.mark.devices(2)
def test_einsum_and_conv_take_out_sharding():
    # flax.nnx's Einsum and Conv pass out_sharding= through (None unless asked).
    from minijax.sharding import NamedSharding, PartitionSpec as P
    mesh = minijax.make_mesh((2,), ("x",))
    s = NamedSharding(mesh, P("x"))
    a = np.arange(8, dtype=np.float32).reshape(4, 2)
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = jnp.einsum("ab,bc->ac", a, b, out_sharding=s)
    np.testing.assert_allclose(np.asarray(out), a @ b)
    assert out.sharding == s
    assert jnp.einsum("ab,bc->ac", a, b, out_sharding=None).shape == (4, 3)
    x = np.arange(2 * 3 * 1, dtype=np.float32).reshape(2, 3, 1)
    w = np.ones((2, 1, 1), np.float32)
    out = minijax.lax.conv_general_dilated(x, w, (1,), "VALID", out_sharding=s,
                                           dimension_numbers=("NHC", "HIO", "NHC"))
    np.testing.assert_allclose(np.asarray(out)[..., 0], x[:, :-1, 0] + x[:, 1:, 0])
    assert out.sharding == s


def test_make_mesh_records_axis_types():
    from minijax.sharding import AxisType
    mesh = minijax.make_mesh((1, 1), ("a", "b"), axis_types=(AxisType.Explicit, AxisType.Auto))
    assert mesh.axis_types == (AxisType.Explicit, AxisType.Auto)
    assert mesh.abstract_mesh.axis_types == (AxisType.Explicit, AxisType.Auto)
    assert minijax.make_mesh((1,), ("a",), axis_types=AxisType.Explicit).axis_types == (
        AxisType.Explicit,)
    assert minijax.make_mesh((1,), ("a",)).axis_types == (AxisType.Explicit,)  # JAX 0.10.2's
    with minijax.set_mesh(mesh):
        assert minijax.sharding.get_abstract_mesh().axis_types == mesh.axis_types
    # JAX 0.10.2's words
    with pytest.raises(ValueError, match="Number of axis names should match the number of "
                                         "axis_types"):
        minijax.make_mesh((1,), ("a",), axis_types=(AxisType.Explicit, AxisType.Auto))


def test_shape_ndim_size_of_anything_with_a_shape():
    # flax's summary (ShapeDtypeStruct) and axes_scan (typed key arrays) ask jnp.shape; JAX
    # answers any object's own shape/ndim/size.
    s = minijax.ShapeDtypeStruct((2, 3), np.float32)
    assert (jnp.shape(s), jnp.ndim(s), jnp.size(s)) == ((2, 3), 2, 6)
    keys = minijax.random.split(minijax.random.key(0), 3)
    assert (jnp.shape(keys), jnp.ndim(keys), jnp.size(keys)) == ((3,), 1, 3)
    assert jnp.shape(2.0) == () and jnp.size(np.ones((2, 5)), axis=1) == 5


def test_prefix_errors_name_the_key_path():
    # flax's struct tests: jax._src.tree_util.prefix_errors(prefix, full), each error a
    # function of the prefix's name.
    from minijax._src.tree_util import prefix_errors

    @minijax.tree_util.register_dataclass
    @__import__("dataclasses").dataclass
    class Point:
        x: float
        y: object

    (e,) = prefix_errors(Point(1.0, [2.0]), Point(1.0, 2.0))
    with pytest.raises(ValueError, match=r"in_axes\.y"):
        raise e("in_axes")
    (e,) = prefix_errors({"a": 1}, {"a": 1, "b": 2})
    assert "different numbers of pytree children" in str(e("x"))
    (e,) = prefix_errors((None,), ([1],))
    assert "x[0]" in str(e("x"))
    assert prefix_errors((0, {"a": None}), ([1, 2], {"a": None})) == []
    (e,) = prefix_errors([0, 1], [0, 1, 2])
    assert "different lengths of list" in str(e("x"))


def test_traceback_util_exclude_paths_is_the_registry():
    # flax.traceback_util.hide_flax_in_tracebacks appends its files to _exclude_paths and
    # show_flax_in_tracebacks removes them; register_exclusion adds to the same list.
    from minijax._src import traceback_util

    n = len(traceback_util._exclude_paths)
    traceback_util.register_exclusion("/nonexistent/lib/")
    try:
        assert len(traceback_util._exclude_paths) == n + 1
        assert not traceback_util.include_filename("/nonexistent/lib/mod.py")
    finally:
        traceback_util._exclude_paths.remove("/nonexistent/lib/")
    assert len(traceback_util._exclude_paths) == n


def test_vjp_function_is_a_pytree_of_its_residuals():
    # flax's lifted custom_vjp returns the vjp function of its forward pass as the residual;
    # JAX's vjp function is a pytree whose leaves are the residual arrays.
    def fwd(x):
        return minijax.vjp(lambda x: jnp.sin(x) * x, x)

    @minijax.custom_vjp
    def f(x):
        return jnp.sin(x) * x

    f.defvjp(fwd, lambda f_vjp, g: f_vjp(2.0 * g))
    x = np.array([0.5, 1.0], np.float32)
    expected = 2.0 * (np.cos(x) * x + np.sin(x))  # JAX 0.10.2: [1.8364336, 2.7635465]
    loss = lambda x: f(x).sum()  # noqa: E731
    np.testing.assert_allclose(minijax.grad(loss)(x), expected, rtol=1e-6)
    np.testing.assert_allclose(minijax.jit(minijax.grad(loss))(x), expected, rtol=1e-6)
    _, f_vjp = minijax.jit(lambda x: minijax.vjp(jnp.sin, x))(x)
    assert len(minijax.tree_util.tree_leaves(f_vjp)) == 1  # the residual cos(x), as JAX
    np.testing.assert_allclose(f_vjp(np.ones(2, np.float32))[0], np.cos(x), rtol=1e-6)


def test_checkpoint_traces_its_arguments_when_called_eagerly():
    # flax's nn.remat(static_argnums=()) tests: the function sees tracers for non-static
    # arguments (JAX 0.10.2: DynamicJaxprTracer, an instance of jnp.ndarray) and Python values
    # for static ones, also outside any transformation.
    seen = []

    def f(x, train):
        seen.append(isinstance(train, jnp.ndarray))
        return x * 2.0

    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(minijax.checkpoint(f)(x, True), [2.0, 2.0])
    np.testing.assert_array_equal(minijax.checkpoint(f, static_argnums=(1,))(x, True), [2.0, 2.0])
    assert seen == [True, False]


@minijax.tree_util.register_pytree_node_class
class _StandsForArray:
    """A pytree that converts itself with ``__jax_array__`` (as flax.nnx's Variable)."""

    def __init__(self, value):
        self.value = value

    def __jax_array__(self):
        return self.value

    def tree_flatten(self):
        return (self.value,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0])


def test_jnp_functions_take_values_with_jax_array():
    # flax.nnx's SpectralNorm calls jnp.matmul(v, param) with a Param, eagerly and under jit.
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    p = _StandsForArray(jnp.asarray(w))
    np.testing.assert_allclose(np.asarray(jnp.matmul(a, p)), a @ w)
    np.testing.assert_allclose(np.asarray(minijax.jit(lambda q: jnp.matmul(a, q))(p)), a @ w)
    np.testing.assert_allclose(np.asarray(jnp.sin(p)), np.sin(w), rtol=1e-6)
    out = jnp.asarray(p)
    assert isinstance(out, minijax.Array)
    np.testing.assert_array_equal(np.asarray(out), w)


def test_integer_power_of_a_scalar_base_by_an_array_exponent():
    # flax's cursor tests: pow(2, int_array) (a rank-0 base, an array exponent)
    e = np.array([[1, 2], [3, 4]], np.int32)
    np.testing.assert_array_equal(pow(2, jnp.asarray(e)), np.power(2, e))
    np.testing.assert_array_equal(jnp.power(np.int32(3), e), np.power(np.int32(3), e))
    np.testing.assert_array_equal(jnp.power(jnp.asarray(e), 2), np.power(e, 2))


def test_result_type_of_typed_keys():
    # flax's axes_scan: ShapedArray(jnp.shape(k), jnp.result_type(k)) of its rng keys.
    k = minijax.random.split(minijax.random.key(0), 2)
    assert jnp.result_type(k) == k.dtype and jnp.result_type(k, k) == k.dtype
    with pytest.raises(ValueError, match="not a valid dtype for JAX type promotion"):
        jnp.result_type(k, 1.0)  # JAX 0.10.2's ValueError


def test_partial_eval_adapter_takes_typed_key_avals():
    # flax's scan stages its body on the avals of its inputs (keys among them) and keeps the
    # outputs that do not depend on them (jax.interpreters.partial_eval under the opt-in).
    from minijax._src import partial_eval as pe
    from minijax.core import ShapedArray

    key_aval = ShapedArray((), minijax.random.key_dtype())
    seen = []

    def body(key, x):
        seen.append(type(key).__name__)
        k1, k2 = minijax.random.split(key)
        return [x * 2.0, minijax.random.uniform(k1, ()), k2, minijax.random.key(3)]

    pvals = [pe.PartialVal.unknown(key_aval), pe.PartialVal.known(np.float32(1.5))]
    _, out_pvals, _ = pe.trace_to_jaxpr_nounits(body, pvals)
    assert seen == ["PRNGKeyArray"]
    known, unknown_u, unknown_k, known_k = out_pvals
    assert known.is_known() and float(known.get_known()) == 3.0
    assert not unknown_u.is_known() and unknown_u[0].shape == ()
    assert not unknown_k.is_known() and unknown_k[0].dtype == key_aval.dtype
    assert known_k.is_known()
    np.testing.assert_array_equal(minijax.random.key_data(known_k.get_known()),
                                  minijax.random.key_data(minijax.random.key(3)))


@pytest.mark.devices(2)
@pytest.mark.parametrize("sample", [
    lambda k, o: minijax.random.uniform(k, (4,), out_sharding=o),
    lambda k, o: minijax.random.normal(k, (4,), out_sharding=o),
    lambda k, o: minijax.random.truncated_normal(k, -1.0, 1.0, (4,), out_sharding=o),
    lambda k, o: minijax.random.randint(k, (4,), 0, 9, out_sharding=o),
    lambda k, o: minijax.random.bernoulli(k, 0.5, (4,), out_sharding=o),
    lambda k, o: minijax.random.categorical(k, jnp.zeros((4, 3)), out_sharding=o),
    lambda k, o: jnp.dot(jnp.ones((4, 3)), jnp.arange(3.0), out_sharding=o),
    lambda k, o: jnp.dot(jnp.arange(4.0), 2.0, out_sharding=o),
])
def test_samplers_and_dot_take_out_sharding(sample):
    # flax.nnx's Dropout (bernoulli), initializers and Embed.attend (jnp.dot) pass it through.
    from minijax.sharding import AxisType, NamedSharding, PartitionSpec as P
    # Auto axes: on Explicit ones outside set_mesh JAX itself refuses most of these
    s = NamedSharding(minijax.make_mesh((2,), ("x",), axis_types=(AxisType.Auto,)), P("x"))
    key = minijax.random.key(0)
    out = sample(key, s)
    assert out.sharding == s
    np.testing.assert_array_equal(np.asarray(out), np.asarray(sample(key, None)))


@pytest.mark.devices(4)
def test_sharding_over_the_abstract_mesh_places_on_the_mesh_in_context():
    # flax's shard_value constrains to NamedSharding(get_abstract_mesh(), spec) under set_mesh.
    from minijax.sharding import AxisType, NamedSharding, PartitionSpec as P
    # Auto axes, as flax's tests make them: on Explicit ones the constraint is an assert
    mesh = minijax.make_mesh((2, 2), ("in", "out"), axis_types=(AxisType.Auto,) * 2)
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    with minijax.set_mesh(mesh):
        s = NamedSharding(minijax.sharding.get_abstract_mesh(), P("in", "out"))
        eager = minijax.lax.with_sharding_constraint(jnp.asarray(x), s)
        jitted = minijax.jit(lambda v: minijax.lax.with_sharding_constraint(v * 2, s))(x)
    assert eager.sharding == NamedSharding(mesh, P("in", "out")) == jitted.sharding
    np.testing.assert_array_equal(np.asarray(eager), x)
    np.testing.assert_array_equal(np.asarray(jitted), 2 * x)
    with pytest.raises(ValueError, match="AbstractMesh"):
        minijax.lax.with_sharding_constraint(jnp.asarray(x), s)  # no mesh in context


def test_out_sharding_over_the_empty_mesh_is_no_constraint():
    # flax.nnx's Dropout passes NamedSharding(get_abstract_mesh(), P(None, None)) outside any
    # mesh; JAX 0.10.2 samples as without it (and so do dot/einsum).
    from minijax.sharding import NamedSharding, PartitionSpec as P
    s = NamedSharding(minijax.sharding.get_abstract_mesh(), P(None, None))
    key = minijax.random.key(0)
    np.testing.assert_array_equal(
        np.asarray(minijax.random.bernoulli(key, 0.5, (2, 2), out_sharding=s)),
        np.asarray(minijax.random.bernoulli(key, 0.5, (2, 2))))
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_array_equal(np.asarray(jnp.dot(x, x, out_sharding=s)), x @ x)
    np.testing.assert_array_equal(np.asarray(jnp.einsum("ab,bc->ac", x, x, out_sharding=s)), x @ x)


def test_jnp_array_and_copy_of_typed_keys():
    # flax.nnx's Rngs fork/split copy their keys with jnp.copy; JAX 0.10.2 keeps the key type
    # (jnp.asarray gives the same object; another dtype is convert_element_type's ValueError).
    key = minijax.random.key(0)
    keys = minijax.random.split(key, 3)
    for k in (key, keys):
        c = jnp.copy(k)
        assert c.dtype == k.dtype and c.shape == k.shape
        np.testing.assert_array_equal(np.asarray(minijax.random.key_data(c)),
                                      np.asarray(minijax.random.key_data(k)))
        assert jnp.array(k).dtype == k.dtype
        assert jnp.asarray(k) is k
    with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to float32"):
        jnp.array(key, dtype=jnp.float32)


def test_einsum_takes_digit_labels():
    # flax.nnx's grouped-query attention test writes '...kh1d' (JAX 0.10.2 accepts digits).
    rng = np.random.default_rng(0)
    a = rng.random((2, 3, 1, 4), dtype=np.float32)
    b = rng.random((2, 3, 5, 4), dtype=np.float32)
    np.testing.assert_allclose(np.asarray(jnp.einsum("...h1d,...htd->...h1t", a, b)),
                               np.einsum("...hxd,...htd->...hxt", a, b), rtol=1e-5)
