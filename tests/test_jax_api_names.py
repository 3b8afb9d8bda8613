"""The top-level names optax/chex use, at JAX's paths: minijax.tree, typing, flatten_util,
stages, api_util, monitoring, and jax.Device/typeof/named_scope/disable_jit/... (JAX 0.10.2's
semantics; expected values from NumPy or written out by hand)."""

import dataclasses
import typing

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import api_util, flatten_util, monitoring, stages, tree, tree_util

# -------------------------------------------------------------------------------- minijax.tree


def test_tree_names_are_tree_util_functions():
    assert tree.map is tree_util.tree_map and tree.leaves is tree_util.tree_leaves
    assert tree.flatten is tree_util.tree_flatten and tree.unflatten is tree_util.tree_unflatten
    assert tree.structure is tree_util.tree_structure and tree.reduce is tree_util.tree_reduce
    assert tree.all is tree_util.tree_all and tree.transpose is tree_util.tree_transpose
    assert tree.map_with_path is tree_util.tree_map_with_path
    assert tree.leaves_with_path is tree_util.tree_leaves_with_path
    assert tree.flatten_with_path is tree_util.tree_flatten_with_path
    assert tree.broadcast is tree_util.tree_broadcast
    assert tree.reduce_associative is tree_util.tree_reduce_associative


def test_tree_basics():
    t = {"b": (1, 2), "a": [3, None]}
    assert tree.leaves(t) == [3, 1, 2]
    assert tree.map(lambda x, y: x * y, t, {"b": (2, 2), "a": [2, None]}) == {
        "b": (2, 4), "a": [6, None]}
    leaves, td = tree.flatten(t)
    assert tree.unflatten(td, leaves) == t and tree.structure(t) == td
    assert tree.reduce(lambda a, b: a + b, t, 10) == 16
    assert tree.all([True, (1, 2)]) and not tree.all([True, 0])
    paths = [tree_util.keystr(p) for p, _ in tree.leaves_with_path(t)]
    assert paths == ["['a'][0]", "['b'][0]", "['b'][1]"]
    outer, inner = tree.structure([0, 0]), tree.structure((0, 0, 0))
    assert tree.transpose(outer, inner, [(1, 2, 3), (4, 5, 6)]) == ([1, 4], [2, 5], [3, 6])


def test_tree_broadcast():
    assert tree.broadcast(1, {"a": 0, "b": (0, 0)}) == {"a": 1, "b": (1, 1)}
    assert tree.broadcast((1, 2), ((0, 0), [0])) == ((1, 1), [2])
    assert tree.broadcast([1, 2], [3, None]) == [1, None]
    with pytest.raises(ValueError):
        tree.broadcast((1, 2), [0, 0])


def test_tree_reduce_associative():
    calls = []

    def op(a, b):
        calls.append((a, b))
        return a + b

    assert tree.reduce_associative(op, [1, 2, 3, 4]) == 10
    assert calls == [(1, 2), (3, 4), (3, 7)]  # a balanced tree, as JAX's
    assert tree.reduce_associative(op, [], identity=0) == 0
    with pytest.raises(TypeError, match="identity"):
        tree.reduce_associative(op, [])


def test_tree_static_field():
    @tree_util.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: object
        name: str = tree.static(default="add")

    leaves, td = tree.flatten(Op(np.ones(2)))
    assert len(leaves) == 1 and tree.unflatten(td, leaves).name == "add"


# ------------------------------------------------------------------------------ minijax.typing


def test_typing_names():
    assert set(typing.get_args(minijax.typing.ArrayLike)) >= {
        minijax.Array, np.ndarray, np.bool_, np.number, bool, int, float, complex}
    assert set(typing.get_args(minijax.typing.DTypeLike)) >= {str, np.dtype}
    assert isinstance(jnp.ones(2), typing.get_args(minijax.typing.ArrayLike))


# ------------------------------------------------------------------------- flatten_util


def test_ravel_pytree_mixed_dtypes():
    t = {"a": jnp.ones((2, 2)), "b": (jnp.int32(3), 2.0)}
    flat, unravel = flatten_util.ravel_pytree(t)
    assert flat.dtype == np.float32 and flat.shape == (6,)
    np.testing.assert_array_equal(flat, [1, 1, 1, 1, 3, 2])
    back = unravel(flat * 2)
    assert back["b"][0].dtype == np.int32 and int(back["b"][0]) == 6
    np.testing.assert_array_equal(back["a"], np.full((2, 2), 2.0))
    with pytest.raises(TypeError, match="expected dtype float32"):
        unravel(jnp.ones(6, jnp.int32))


def test_ravel_pytree_single_dtype_and_empty():
    flat, unravel = flatten_util.ravel_pytree([jnp.ones(2, jnp.bfloat16), jnp.zeros(1, jnp.bfloat16)])
    assert flat.dtype == jnp.bfloat16
    out = unravel(jnp.arange(3, dtype=jnp.int32))  # one dtype: unravel keeps the input's
    assert out[0].dtype == np.int32 and out[1].tolist() == [2]
    flat, unravel = flatten_util.ravel_pytree({})
    assert flat.shape == (0,) and flat.dtype == np.float32 and unravel(flat) == {}
    # equal trees give equal unravel functions (usable as a static jit argument)
    assert flatten_util.ravel_pytree([jnp.ones(2)])[1] == flatten_util.ravel_pytree(
        [jnp.zeros(2)])[1]


def test_ravel_pytree_under_jit_and_grad():
    def loss(t):
        flat, _ = flatten_util.ravel_pytree(t)
        return jnp.sum(flat ** 2)

    t = {"w": np.arange(3, dtype=np.float32), "b": np.float32(2)}
    g = minijax.jit(minijax.grad(loss))(t)
    np.testing.assert_allclose(g["w"], 2 * t["w"])
    np.testing.assert_allclose(g["b"], 4.0)


# ---------------------------------------------------------------------------------- stages


def _f(x, y, *, z):
    return x * 2, {"a": y + z}


def test_stages_are_the_classes_jit_returns():
    f = minijax.jit(_f, donate_argnums=1)
    assert isinstance(f, stages.Wrapped)
    traced = f.trace(1.0, jnp.ones(3), z=2)
    lowered = f.lower(1.0, jnp.ones(3), z=2)
    compiled = lowered.compile()
    assert isinstance(traced, stages.Traced) and isinstance(lowered, stages.Lowered)
    assert isinstance(compiled, stages.Compiled) and isinstance(traced.lower(), stages.Lowered)
    info = lowered.args_info
    assert isinstance(info[0][1], stages.ArgInfo) and info[0][1].donated
    assert not info[0][0].donated and info[0][1].shape == (3,) and info[1]["z"].dtype == np.int32
    assert lowered.donate_argnums == (1,)
    assert lowered.in_tree == tree.structure(((1, 2), {"z": 3}))
    assert lowered.out_tree == tree.structure((1, {"a": 2}))
    assert lowered.out_info[1]["a"].shape == (3,)
    assert compiled.in_avals[0][1].shape == (3,)
    assert traced.out_avals[1]["a"].shape == (3,) and traced.fun_name == "_f"
    out = compiled(1.0, jnp.ones(3), z=2)
    assert float(out[0]) == 2.0 and out[1]["a"].tolist() == [3.0, 3.0, 3.0]


def test_lowered_text_and_compiler_ir():
    lowered = minijax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(3))
    assert "stablehlo.sine" in lowered.as_text()
    assert lowered.as_text() == lowered.as_text("stablehlo")
    hlo = lowered.as_text("hlo")
    assert hlo.startswith("HloModule") and "sine" in hlo
    comp = lowered.compiler_ir("hlo")
    assert comp.as_hlo_text() == hlo
    assert "stablehlo.sine" in str(lowered.compiler_ir())
    assert "stablehlo.sine" in str(lowered.compiler_ir("stablehlo"))
    with pytest.raises(ValueError, match="unknown dialect"):
        lowered.as_text("foo")
    text = lowered.compile().as_text()
    assert "HloModule" in text and "sine" in text


# -------------------------------------------------------------------------------- api_util


def test_api_util():
    assert api_util.shaped_abstractify(1.0) == minijax.ShapedArray((), np.float32, True)
    assert api_util.shaped_abstractify(np.ones(2)).dtype == np.float32
    s = minijax.ShapeDtypeStruct((2,), np.int32)
    assert api_util.shaped_abstractify(s) == minijax.ShapedArray((2,), np.int32)
    with pytest.raises(TypeError, match="not a valid JAX type"):
        api_util.shaped_abstractify("a")
    td = tree.structure(((1, {"a": 2, "b": 3}), {}))
    assert api_util.flatten_axes("in_axes", td, ((0, {"a": None, "b": 1}), {})) == [0, None, 1]
    with pytest.raises(ValueError, match="tree prefix"):
        api_util.flatten_axes("in_axes", tree.structure((1, (2, 3))), (0, 1, 2))
    td = tree.structure(((1, (2, 3)), {"k": 1, "j": 2}))
    assert api_util.donation_vector((1,), ("k",), td) == (False, True, True, False, True)
    assert api_util.rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)
    with pytest.raises(ValueError, match="cannot intersect"):
        api_util.rebase_donate_argnums((1,), (1,))
    assert api_util.safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
    with pytest.raises(ValueError, match="shorter"):
        api_util.safe_map(lambda a, b: a, [1, 2], [3])


# ------------------------------------------------------------------------------ monitoring


def test_monitoring_listeners_and_compile_events():
    events, durations = [], []
    on_event = lambda e, **kw: events.append((e, kw))  # noqa: E731
    on_duration = lambda e, d, **kw: durations.append((e, d))  # noqa: E731
    monitoring.register_event_listener(on_event)
    monitoring.register_event_duration_secs_listener(on_duration)
    try:
        monitoring.record_event("/my/event", step=3)
        assert events == [("/my/event", {"step": 3})]
        minijax.jit(lambda x: x * 3 + 1)(np.float32(2))  # a new function: one compilation
        names = [e for e, _ in durations]
        for phase in ("jaxpr_trace_duration", "jaxpr_to_mlir_module_duration",
                      "backend_compile_duration"):
            assert f"/jax/core/compile/{phase}" in names
        assert all(d >= 0 for _, d in durations)
    finally:
        monitoring.unregister_event_listener(on_event)
        monitoring.unregister_event_duration_listener(on_duration)
    monitoring.record_event("/after")
    assert len(events) == 1
    scalars = []
    monitoring.register_scalar_listener(lambda e, v, **kw: scalars.append(v))
    monitoring.record_scalar("/s", 1.5)
    monitoring.clear_event_listeners()
    monitoring.record_scalar("/s", 2.5)
    assert scalars == [1.5]


# ------------------------------------------------------------------------ top-level names


def test_device_float0_p_typeof():
    assert isinstance(minijax.devices()[0], minijax.Device)
    assert minijax.float0 == minijax.dtypes.float0
    assert minijax.P is minijax.sharding.PartitionSpec
    assert minijax.typeof(1.0) == minijax.ShapedArray((), np.float32, weak_type=True)
    assert minijax.typeof(jnp.ones((2, 3))) == minijax.ShapedArray((2, 3), np.float32)
    seen = []
    minijax.jit(lambda x: seen.append(minijax.typeof(x)) or x)(jnp.ones(4, jnp.int32))
    assert seen == [minijax.ShapedArray((4,), np.int32)]


def test_grad_allow_int_gives_float0():
    g = minijax.grad(lambda x, y: x * y, argnums=(0, 1), allow_int=True)(np.int32(3), 2.0)
    assert g[0].dtype == minijax.float0 and float(g[1]) == 3.0


def test_disable_jit():
    seen = []

    @minijax.jit
    def f(x):
        seen.append(isinstance(x, minijax.core.Tracer))
        return x * 2

    f(1.0)
    with minijax.disable_jit():
        assert minijax.config.jax_disable_jit
        assert float(f(2.0)) == 4.0
    assert not minijax.config.jax_disable_jit
    assert seen == [True, False]


def test_named_scope_and_named_call_in_the_lowering():
    def layer(x):
        return jnp.sin(x)

    @minijax.jit
    def f(x):
        with minijax.named_scope("outer"):
            with minijax.named_scope("inner"):
                y = jnp.cos(x)
            return minijax.named_call(layer, name="my_layer")(y)

    text = f.lower(jnp.ones(2)).as_text(debug_info=True)
    assert '"jit(f)/outer/inner/cos"' in text  # JAX 0.10.2's op names
    assert '"jit(f)/outer/my_layer/sin"' in text
    np.testing.assert_allclose(f(jnp.ones(2)), np.sin(np.cos(np.ones(2))), rtol=1e-6)
    with pytest.raises(TypeError, match="must be a string"):
        with minijax.named_scope(3):
            pass


def test_ensure_compile_time_eval():
    @minijax.jit
    def f(x):
        with minijax.ensure_compile_time_eval():
            y = jnp.arange(3.0) * 2
            n = int(y.sum())  # concrete: usable in Python
        return x * n + jnp.sum(x * y)

    x = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(f(x), x * 6 + np.sum(x * np.arange(3.0) * 2))
    jaxpr = f.trace(x).jaxpr
    assert "iota" not in str(jaxpr)  # the constant expression ran at trace time
    with minijax.ensure_compile_time_eval():  # outside a trace: ordinary eager execution
        assert float(jnp.sum(jnp.ones(3))) == 3.0


def test_clear_caches_live_arrays_effects_barrier():
    traces = []

    @minijax.jit
    def f(x):
        traces.append(1)
        return x + 1

    f(1.0)
    f(1.0)
    minijax.clear_caches()
    f(1.0)
    assert len(traces) == 2
    keep = jnp.full((7, 3), 5.0)
    assert any(a.shape == (7, 3) for a in minijax.live_arrays())
    printed = []
    minijax.jit(lambda x: minijax.debug.callback(lambda v: printed.append(float(v)), x))(keep[0, 0])
    minijax.effects_barrier()
    assert printed == [5.0]


def test_custom_gradient():
    @minijax.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * 10 * x,)  # a deliberately different gradient

    assert float(f(3.0)) == 9.0
    assert float(minijax.grad(f)(3.0)) == 30.0
    assert float(minijax.jit(minijax.grad(f))(2.0)) == 20.0
    np.testing.assert_allclose(minijax.vmap(minijax.grad(f))(jnp.arange(3.0)), [0, 10, 20])

    @minijax.custom_gradient
    def clip_gradient(x, y):
        return x * y, lambda g: (jnp.clip(g * y, -1, 1), g * x)

    gx, gy = minijax.grad(lambda a, b: 5 * clip_gradient(a, b), argnums=(0, 1))(2.0, 3.0)
    assert float(gx) == 1.0 and float(gy) == 10.0


def test_closure_convert():
    def outer(w, x):
        def inner(v):
            return jnp.sin(w * v)

        converted, consts = minijax.closure_convert(inner, x)
        assert len(consts) == 1  # w: a traced value of the enclosing grad
        return converted(x, *consts)

    np.testing.assert_allclose(minijax.grad(outer)(2.0, 0.5), 0.5 * np.cos(1.0), rtol=1e-6)
    converted, consts = minijax.closure_convert(lambda v: v * np.float32(3), 1.0)
    assert consts == [] and float(converted(2.0)) == 6.0
    with pytest.raises(TypeError, match="same Pytree structure"):
        converted((1.0, 2.0))


def test_paths_import_as_jax_modules():
    import importlib

    for name in ("tree", "typing", "flatten_util", "stages", "api_util", "monitoring"):
        assert importlib.import_module(f"minijax.{name}") is getattr(minijax, name)
