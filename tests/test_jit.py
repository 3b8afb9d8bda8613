"""jit: caching keyed on structure/avals/statics, retracing, statics, donation, methods, logs."""

import logging
import re

import numpy as np
import pytest

import minijax
from minijax import lax


def arr(*shape, dtype=np.float32):
    return minijax.device_put(np.arange(np.prod(shape), dtype=dtype).reshape(shape))


def test_jit_matches_eager_and_numpy():
    f = minijax.jit(lambda x, y: lax.add(lax.mul(x, y), 1.0))
    x, y = np.float32([1, 2, 3]), np.float32([4, 5, 6])
    np.testing.assert_array_equal(np.asarray(f(x, y)), x * y + 1)


def test_cache_hits_and_misses_are_counted():
    f = minijax.jit(lambda x: lax.mul(x, 2.0))
    f(arr(3))
    f(arr(3))
    f(np.zeros(3, np.float32))  # numpy argument of the same aval: a hit
    assert f._trace_count == 1 and f._cache_size() == 1
    f(arr(4))  # new shape
    assert f._trace_count == 2
    g = minijax.jit(lambda x: lax.neg(x))
    g(arr(4))
    g(arr(4, dtype=np.int32))  # new dtype
    assert g._trace_count == 2
    f(2.0)  # weak-typed scalar
    f(np.float32(2.0))  # strong scalar: a different aval (weak_type differs)
    assert f._trace_count == 4
    f(3.0)
    assert f._trace_count == 4


def test_pytree_structure_is_part_of_the_key():
    f = minijax.jit(lambda t: lax.add(t[0], t[1]))
    f((arr(2), arr(2)))
    f([arr(2), arr(2)])
    assert f._trace_count == 2
    out = minijax.jit(lambda d: {"s": lax.add(d["a"], d["b"]), "k": d["a"]})(
        {"a": arr(2), "b": arr(2)}
    )
    assert set(out) == {"s", "k"}
    np.testing.assert_array_equal(np.asarray(out["s"]), [0, 2])


def test_static_argnums_and_argnames_retrace_on_new_values():
    def f(x, n, *, mode="sin"):
        for _ in range(n):
            x = lax.sin(x) if mode == "sin" else lax.neg(x)
        return x

    g = minijax.jit(f, static_argnums=1, static_argnames="mode")
    x = np.float32([0.5])
    np.testing.assert_allclose(np.asarray(g(x, 2)), np.sin(np.sin(x)), rtol=1e-6)
    g(x, 2)
    assert g._trace_count == 1
    g(x, 3)
    assert g._trace_count == 2
    np.testing.assert_array_equal(np.asarray(g(x, 1, mode="neg")), -x)
    assert g._trace_count == 3
    # a static argument passed by keyword is recognized as static (by name)
    np.testing.assert_array_equal(np.asarray(g(x, n=1, mode="neg")), -x)


def test_static_argnames_infers_positions():
    g = minijax.jit(lambda x, n: lax.mul(x, float(n)), static_argnames="n")
    np.testing.assert_array_equal(np.asarray(g(np.float32([1]), 3)), [3.0])


def test_unhashable_static_argument_is_a_clear_error():
    g = minijax.jit(lambda x, n: x, static_argnums=1)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        g(np.float32(1), [1, 2])


def test_closed_over_arrays_are_arguments_not_baked_constants():
    w = minijax.device_put(np.full((64,), 3.0, np.float32))
    f = minijax.jit(lambda x: lax.mul(x, w))
    text = f.lower(np.ones(64, np.float32)).as_text()
    assert (
        "dense<3.0" not in text
        and "tensor<64xf32>, %arg1" in text.replace("\n", " ")
        or text.count("%arg") >= 2
    )
    np.testing.assert_array_equal(np.asarray(f(np.ones(64, np.float32))), np.full(64, 3.0))


def test_jit_of_jit_inlines_into_one_program():
    inner = minijax.jit(lambda x: lax.sin(x))
    outer = minijax.jit(lambda x: lax.mul(inner(x), 2.0))
    x = np.float32([0.3, 0.4])
    np.testing.assert_allclose(np.asarray(outer(x)), np.sin(x) * 2, rtol=1e-6)
    assert inner._trace_count == 1  # one jit equation, traced once by the outer trace
    assert inner._cache_size() == 0  # ... and never compiled on its own: inlined when lowered
    text = outer.lower(x).as_text()
    assert "sine" in text and "func.call" not in text


def test_decorator_forms_and_methods():
    @minijax.jit
    def f(x):
        return lax.neg(x)

    @minijax.jit(static_argnums=1)
    def g(x, k):
        return lax.mul(x, float(k))

    class Model:
        def __init__(self, scale):
            self.scale = scale

        @minijax.jit(static_argnums=0)
        def apply(self, x):
            return lax.mul(x, self.scale)

    np.testing.assert_array_equal(np.asarray(f(np.float32([1]))), [-1])
    np.testing.assert_array_equal(np.asarray(g(np.float32([1]), 4)), [4])
    m = Model(minijax.device_put(np.float32(3)))
    np.testing.assert_array_equal(np.asarray(m.apply(np.float32([2]))), [6])


def test_lower_and_compile_stages():
    f = minijax.jit(lambda x: lax.add(lax.sin(x), 1.0))
    lowered = f.lower(np.zeros(4, np.float32))
    text = lowered.as_text()
    assert "stablehlo.sine" in text and "func.func public @main" in text
    compiled = lowered.compile()
    hlo = compiled.as_text()
    assert "HloModule" in hlo and "sine" in hlo
    x = np.float32([0.0, 0.5, 1.0, 1.5])
    np.testing.assert_allclose(np.asarray(compiled(x)), np.sin(x) + 1, rtol=1e-6)
    with pytest.raises(TypeError, match="was compiled for"):
        compiled(np.zeros(5, np.float32))
    assert compiled.cost_analysis()["flops"] > 0


def test_source_locations_reach_the_module():
    f = minijax.jit(lambda x: lax.sin(x))
    text = f.lower(np.zeros(2, np.float32)).as_text(debug_info=True)
    assert __file__ in text and "jit(<lambda>)/sin" in text  # JAX 0.10.2's op name


def test_donate_argnums_invalidates_the_donated_buffer():
    f = minijax.jit(lambda x: lax.add(x, 1.0), donate_argnums=0)
    x = arr(8)
    y = f(x)
    np.testing.assert_array_equal(np.asarray(y), np.arange(8) + 1)
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)
    # the process keeps working and a fresh argument is fine
    np.testing.assert_array_equal(np.asarray(f(arr(8))), np.arange(8) + 1)


def test_explain_cache_misses_names_the_changed_argument(caplog):
    minijax.config.update("jax_explain_cache_misses", True)
    try:
        f = minijax.jit(lambda params, n: lax.add(params["w"], params["w"]), static_argnums=1)
        with caplog.at_level(logging.WARNING, logger="minijax"):
            f({"w": arr(3)}, 1)
            f({"w": arr(4)}, 1)
            f({"w": arr(4, dtype=np.int32)}, 1)
            f({"w": arr(4, dtype=np.int32)}, 2)
        text = caplog.text
        assert "for the first time" in text
        assert "args[0]['w']: shape changed from f32[3] to f32[4]" in text
        assert "args[0]['w']: dtype changed from float32 to int32" in text
        assert "static argument 1 changed from 1 to 2" in text
    finally:
        minijax.config.update("jax_explain_cache_misses", False)


def test_log_compiles_reports_phase_times(caplog):
    minijax.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="minijax"):
            minijax.jit(lambda x: lax.neg(x))(arr(5))
        text = caplog.text  # JAX's wording, which tools and tests (optax's) match on
        assert re.search(r"Finished tracing <lambda> for jit in [\d.]+ sec", text)
        assert re.search(r"Finished jaxpr to MLIR module conversion jit\(<lambda>\) in", text)
        assert re.search(r"Finished XLA compilation of jit\(<lambda>\) for f32\[5\] in", text)
    finally:
        minijax.config.update("jax_log_compiles", False)


def test_disable_jit_runs_python():
    calls = []

    def f(x):
        calls.append(isinstance(x, minijax.Array))
        return lax.neg(x)

    minijax.config.update("jax_disable_jit", True)
    try:
        minijax.jit(f)(arr(2))
    finally:
        minijax.config.update("jax_disable_jit", False)
    assert calls == [True]  # a concrete Array, not a tracer


def test_outputs_keep_weak_type_and_python_scalars_as_outputs():
    f = minijax.jit(lambda x: (lax.mul(x, 2.0), 3.0))
    a, b = f(2.0)
    assert a.weak_type and a.dtype == np.float32
    assert float(b) == 3.0


def test_eval_shape():
    out = minijax.eval_shape(
        lambda x: {"y": lax.sin(x)}, minijax.ShapeDtypeStruct((2, 3), np.float32)
    )
    assert out["y"].shape == (2, 3) and out["y"].dtype == np.float32


def test_backend_argument_places_the_program():
    """jit(backend=...) (JAX's platform choice) runs on that platform's first device, also
    where another is the default (a GPU host); an unknown platform is refused at once."""
    cpu = minijax.devices("cpu")[0]
    f = minijax.jit(lambda x: x * 2 + 1, backend="cpu")
    out = f(np.arange(3.0, dtype=np.float32))
    assert out.devices() == {cpu}
    np.testing.assert_array_equal(np.asarray(out), [1.0, 3.0, 5.0])
    assert f.lower(np.ones(3, np.float32)).compile()(np.ones(3, np.float32)).devices() == {cpu}
    with pytest.raises(RuntimeError, match="Backend 'tpu' failed to initialize"):  # JAX's
        minijax.jit(lambda x: x, backend="tpu")


def test_jit_rejects_non_array_outputs():
    with pytest.raises(TypeError, match="returned a value of type str"):
        minijax.jit(lambda x: "hello")(arr(1))


# --- one jit path: one device is a one-device placement ------------------------------------------


class _Counted:
    """A pytree node that counts how often it is flattened."""

    flattens = 0

    def __init__(self, a, b):
        self.a, self.b = a, b


def _flatten_counted(node):
    _Counted.flattens += 1
    return (node.a, node.b), None


minijax.tree_util.register_pytree_node(_Counted, _flatten_counted,
                                       lambda _, children: _Counted(*children))


def test_a_miss_flattens_the_arguments_once_into_one_record():
    f = minijax.jit(lambda p, x: p.a * x + p.b)
    p = _Counted(arr(3), arr(3))
    _Counted.flattens = 0
    np.testing.assert_array_equal(np.asarray(f(p, 2.0)), np.arange(3.0) * 2 + np.arange(3.0))
    # jaxlib's C++ key, the Python key (the record's leaves) and the leaves' paths
    assert _Counted.flattens <= 3
    _Counted.flattens = 0
    f(p, 2.0)  # a hit: the C++ flatten only
    assert _Counted.flattens == 1


def test_single_device_and_sharded_programs_are_one_kind_of_entry():
    from minijax.jitting.function import _Entry, _programs
    from minijax.lowering.compile import Executable

    def entries(jitted):
        return [_programs.data[k] for k in jitted._jit._own_keys(_programs)]

    f = minijax.jit(lambda x: x * 2.0)
    f(arr(8))
    (single,) = entries(f)
    assert type(single) is _Entry and type(single.exe) is Executable
    assert len(single.exe.devices) == 1 and single.exe.in_shardings == [arr(8)._sharding]
    if len(minijax.devices()) < 2:
        return
    mesh = minijax.make_mesh((2,), ("x",))
    sharding = minijax.sharding.NamedSharding(mesh, minijax.P("x"))
    g = minijax.jit(lambda x: x * 2.0, in_shardings=sharding)
    np.testing.assert_array_equal(np.asarray(g(arr(8))), np.arange(8.0) * 2)
    (sharded,) = entries(g)
    assert type(sharded) is _Entry and type(sharded.exe) is Executable
    assert sharded.exe.devices == tuple(mesh.devices.flat)
    assert minijax.device_put(arr(8), sharding)._sharding is sharded.in_shardings[0]


def test_host_callbacks_travel_with_their_lowered_module():
    seen = []

    def f(x):
        minijax.debug.callback(lambda v: seen.append(("first", float(v))), x)
        return x + 1.0

    def g(x):
        minijax.debug.callback(lambda v: seen.append(("second", float(v))), x)
        minijax.debug.callback(lambda v: seen.append(("third", float(v))), x)
        return x * 2.0

    low_f = minijax.jit(f).lower(np.float32(1.0))
    low_g = minijax.jit(g).lower(np.float32(1.0))
    assert len(low_f._lowering.host_callbacks) == 1
    assert len(low_g._lowering.host_callbacks) == 2
    assert float(low_g.compile()(np.float32(3.0))) == 6.0
    assert float(low_f.compile()(np.float32(5.0))) == 6.0
    minijax.effects_barrier()
    assert seen == [("second", 3.0), ("third", 3.0), ("first", 5.0)]


def test_eval_shape_is_the_jit_paths_shape_evaluation():
    f = minijax.jit(lambda x, n: x[:n] * 2, static_argnums=1)
    out = minijax.eval_shape(f, minijax.ShapeDtypeStruct((5, 2), np.float32), 3)
    assert out == minijax.ShapeDtypeStruct((3, 2), np.float32)
    assert f._trace_count == 1 and f._cache_size() == 0  # traced, never compiled
    # inside a trace eval_shape takes the tracers' avals (as JAX)
    shapes = []
    minijax.jit(lambda x: shapes.append(minijax.eval_shape(lambda y: y.sum(0), x)) or x)(arr(4, 3))
    assert shapes == [minijax.ShapeDtypeStruct((3,), np.float32)]


@pytest.mark.devices(2)
def test_eval_shape_of_a_jit_with_out_shardings_says_where_outputs_go():
    mesh = minijax.make_mesh((2,), ("x",))
    sharding = minijax.sharding.NamedSharding(mesh, minijax.P("x"))
    f = minijax.jit(lambda x: (x + 1, x.sum()), out_shardings=(sharding, None))
    a, s = minijax.eval_shape(f, arr(4))
    assert a.sharding == sharding and s.sharding is None


def test_debug_nans_installs_and_removes_the_dispatch_check():
    from minijax.config import config_context
    from minijax.lowering import dispatch

    assert dispatch.Hooks.check_outputs is None
    with config_context("jax_debug_nans", True):
        assert dispatch.Hooks.check_outputs is not None
        with pytest.raises(FloatingPointError, match="invalid value"):
            lax.log(np.float32(-1.0))
    assert dispatch.Hooks.check_outputs is None
    assert np.isnan(float(lax.log(np.float32(-1.0))))
