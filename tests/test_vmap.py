"""vmap's API: in_axes/out_axes pytrees, nesting, composition with jit, staged programs (one
batched op per op, never a loop), and its errors. The per-primitive rules are checked over the
whole op table in ``test_vmap_op_db.py``. References are NumPy loops over the examples."""

import os

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import core, lax
from minijax.errors import UnexpectedTracerError
from minijax.interpreters.batching import BatchTrace

RNG = np.random.default_rng(0)
THIS_FILE = os.path.basename(__file__)


def randn(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def prim_names(jaxpr):
    return [e.primitive.name for e in jaxpr.eqns]


# ------------------------------------------------------------------------------------------------
# in_axes / out_axes


def test_in_axes_none_and_negative():
    x, y = randn(3, 4), randn(3, 5)  # x mapped along its last axis
    out = minijax.vmap(lambda a, b: jnp.dot(a, b), in_axes=(-1, None))(x, y)
    close(out, np.stack([x[:, i] @ y for i in range(4)]))


def test_in_axes_pytree_prefix_with_dicts_and_none_leaves():
    params = {"w": randn(4, 3), "b": randn(3)}
    xs = randn(5, 4)
    scales = randn(3, 5)  # mapped along axis 1
    f = lambda p, x, s: jnp.tanh(x @ p["w"] + p["b"]) * s
    out = minijax.vmap(f, in_axes=({"w": None, "b": None}, 0, 1))(params, xs, scales)
    expected = np.stack([np.tanh(xs[i] @ params["w"] + params["b"]) * scales[:, i]
                         for i in range(5)])
    close(out, expected)
    # the same with a None prefix for the whole dict, and in_axes given as a list
    out2 = minijax.vmap(f, in_axes=[None, 0, 1])(params, xs, scales)
    close(out2, expected)


def test_in_axes_nested_prefix_maps_subtrees():
    pair = (randn(2, 3), randn(3, 2))
    f = lambda p: p[0] + p[1].T
    out = minijax.vmap(f, in_axes=((0, 1),))(pair)
    close(out, np.stack([pair[0][i] + pair[1][:, i] for i in range(2)]))


def test_kwargs_are_mapped_over_axis_0():
    x, y = randn(3, 2), randn(3, 2)
    out = minijax.vmap(lambda a, *, b: a * b)(x, b=y)
    close(out, x * y)


def test_out_axes_pytree_and_none_for_unbatched_outputs():
    x = randn(4, 3)
    c = randn(3)

    def f(a):
        return {"batched": a * 2, "const": c + 1, "pair": (a.sum(), a)}

    out = minijax.vmap(f, out_axes={"batched": 1, "const": None, "pair": (0, -1)})(x)
    close(out["batched"], (x * 2).T)
    close(out["const"], c + 1)
    close(out["pair"][0], x.sum(1))
    close(out["pair"][1], x.T)


def test_unbatched_outputs_are_broadcast():
    x = randn(4, 3)
    c = randn(2)
    a, b, k = minijax.vmap(lambda v: (c, v, 3.0), out_axes=(1, 0, 0))(x)
    close(a, np.broadcast_to(c[:, None], (2, 4)))
    close(b, x)
    assert np.asarray(k).shape == (4,) and np.all(np.asarray(k) == 3.0)


def test_axis_size_when_nothing_is_mapped():
    c = randn(3)
    out = minijax.vmap(lambda v: v * 2, in_axes=None, axis_size=5)(c)
    close(out, np.broadcast_to(c * 2, (5, 3)))
    out = minijax.vmap(lambda: jnp.ones(2), axis_size=3)()
    close(out, np.ones((3, 2)))


def test_empty_batch():
    out = minijax.vmap(lambda v: jnp.sin(v) @ v)(np.zeros((0, 3), np.float32))
    assert np.asarray(out).shape == (0,)


def test_weak_types_and_scalar_operands():
    x = np.arange(6, dtype=np.int32).reshape(3, 2)
    out = minijax.vmap(lambda v: v * 2 + 1)(x)
    assert np.asarray(out).dtype == np.int32
    np.testing.assert_array_equal(out, x * 2 + 1)
    out = minijax.vmap(lambda s: s * np.float32(2.0))(np.arange(3, dtype=np.float32))
    close(out, np.arange(3) * 2.0)


# ------------------------------------------------------------------------------------------------
# Nesting and closures


def test_nested_vmap_builds_an_outer_product_table():
    x, y = randn(3, 2), randn(4, 2)
    inner = minijax.vmap(lambda a, b: jnp.dot(a, b), in_axes=(None, 0))
    out = minijax.vmap(inner, in_axes=(0, None))(x, y)
    close(out, x @ y.T)
    out_t = minijax.vmap(inner, in_axes=(0, None), out_axes=1)(x, y)
    close(out_t, (x @ y.T).T)


def test_nested_vmap_closing_over_the_outer_tracer():
    x, y = randn(3, 5), randn(4, 5)

    def per_x(a):
        return minijax.vmap(lambda b: jnp.sum((a - b) ** 2))(y)

    out = minijax.vmap(per_x)(x)
    close(out, ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1), tol=1e-4)


def test_triple_nesting_with_jit_in_the_middle():
    x = randn(2, 3, 4)
    f = minijax.vmap(minijax.jit(minijax.vmap(minijax.vmap(lambda v: v * v + 1.0))))
    close(f(x), x * x + 1)


def test_closed_over_array_is_unbatched():
    w = randn(4, 3)
    out = minijax.vmap(lambda v: v @ w)(randn(5, 4))
    assert np.asarray(out).shape == (5, 3)


# ------------------------------------------------------------------------------------------------
# jit composition: one staged program with batched ops


def _mlp(params, x):
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.sum(h @ w2 + b2)


def _mlp_params():
    return [(randn(4, 8), randn(8)), (randn(8, 3), randn(3))]


def _np_mlp(params, x):
    (w1, b1), (w2, b2) = params
    return np.sum(np.tanh(x @ w1 + b1) @ w2 + b2)


def test_jit_of_vmap_stages_batched_dot_generals_and_no_loop():
    params = _mlp_params()
    f = minijax.vmap(_mlp, in_axes=(None, 0))
    small = minijax.make_jaxpr(f)(params, randn(2, 4))
    big = minijax.make_jaxpr(f)(params, randn(7, 4))
    # the program does not grow with the batch: same equations, batched shapes
    assert prim_names(small) == prim_names(big)
    dots = [e for e in big.eqns if e.primitive.name == "dot_general"]
    assert len(dots) == 2
    assert [tuple(e.outvars[0].aval.shape) for e in dots] == [(7, 8), (7, 3)] or all(
        7 in e.outvars[0].aval.shape for e in dots)
    xs = randn(7, 4)
    close(minijax.jit(f)(params, xs), [_np_mlp(params, x) for x in xs], tol=1e-4)


def test_vmap_of_jit_matches_loop():
    params = _mlp_params()
    xs = randn(6, 4)
    out = minijax.vmap(minijax.jit(_mlp), in_axes=(None, 0))(params, xs)
    close(out, [_np_mlp(params, x) for x in xs], tol=1e-4)


def test_both_operands_mapped_dot_general_uses_a_batch_dimension():
    a, b = randn(5, 2, 3), randn(5, 3, 4)
    jaxpr = minijax.make_jaxpr(minijax.vmap(jnp.matmul))(a, b)
    (dot,) = [e for e in jaxpr.eqns if e.primitive.name == "dot_general"]
    (_, _), (lb, rb) = dot.params["dimension_numbers"]
    assert lb == (0,) and rb == (0,)
    assert "transpose" not in prim_names(jaxpr)
    close(minijax.vmap(jnp.matmul)(a, b), a @ b, tol=1e-5)


def test_per_example_dynamic_index_is_one_gather():
    x = randn(4, 6)
    i = np.array([0, 5, -1, 9], np.int32)  # -1 wraps, 9 clamps
    f = minijax.vmap(lambda row, k: row[k])
    jaxpr = minijax.make_jaxpr(f)(x, i)
    assert prim_names(jaxpr).count("gather") == 1
    assert "dynamic_slice" not in prim_names(jaxpr)
    np.testing.assert_array_equal(f(x, i), [x[0, 0], x[1, 5], x[2, -1], x[3, 5]])
    np.testing.assert_array_equal(minijax.jit(f)(x, i), [x[0, 0], x[1, 5], x[2, -1], x[3, 5]])


def test_per_example_dynamic_update_is_one_scatter():
    x = randn(3, 5)
    i = np.array([1, -2, 7], np.int32)
    u = randn(3, 2)
    f = minijax.vmap(lambda row, k, v: lax.dynamic_update_slice(row, v, (k,)))
    assert prim_names(minijax.make_jaxpr(f)(x, i, u)).count("scatter") == 1
    expected = x.copy()
    for r, k in enumerate([1, 3, 3]):  # -2 wraps to 3; 7 clamps to 5 - 2
        expected[r, k:k + 2] = u[r]
    close(f(x, i, u), expected)


def test_jnp_functions_under_vmap():
    x = randn(4, 3, 5)

    def f(v):
        z = v - jnp.max(v, axis=-1, keepdims=True)
        sm = jnp.exp(z) / jnp.sum(jnp.exp(z), axis=-1, keepdims=True)
        return jnp.where(sm > 0.2, sm, 0.0).mean(axis=0), jnp.reshape(v, (-1,))[::2]

    a, b = minijax.jit(minijax.vmap(f))(x)
    for k in range(4):
        v = x[k]
        z = v - v.max(-1, keepdims=True)
        sm = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
        close(a[k], np.where(sm > 0.2, sm, 0.0).mean(0))
        close(b[k], v.reshape(-1)[::2])


# ------------------------------------------------------------------------------------------------
# Bookkeeping


def test_axis_name_and_spmd_axis_name_are_recorded_on_the_trace():
    seen = []

    def f(v):
        seen.append(core.current_trace())
        return v

    minijax.vmap(f, axis_name="batch", spmd_axis_name="data")(randn(2))
    (trace,) = seen
    assert isinstance(trace, BatchTrace)
    assert trace.axis_name == "batch" and trace.axis_size == 2
    assert trace.axis_data.spmd_name == "data"


def test_leaked_tracer_raises_unexpected_tracer_error():
    leaked = []
    minijax.vmap(lambda v: leaked.append(v) or v)(randn(3, 2))
    with pytest.raises(UnexpectedTracerError, match="BatchTrace"):
        jnp.sin(leaked[0])
    with pytest.raises(UnexpectedTracerError):
        minijax.vmap(lambda v: v + leaked[0])(randn(3, 2))
    with pytest.raises(UnexpectedTracerError):
        minijax.jit(lambda v: v + leaked[0])(randn(2))


# ------------------------------------------------------------------------------------------------
# Errors


def test_inconsistent_sizes_lists_each_argument():
    f = minijax.vmap(lambda a, d: a + d["b"])
    with pytest.raises(ValueError) as info:
        f(randn(3, 2), {"b": randn(4, 2)})
    msg = str(info.value)
    assert "inconsistent sizes" in msg
    assert "args[0]" in msg and "size 3" in msg
    assert "args[1]['b']" in msg and "size 4" in msg
    assert THIS_FILE in msg


def test_axis_size_disagreeing_with_the_arguments():
    with pytest.raises(ValueError, match="axis_size=4"):
        minijax.vmap(lambda a: a, axis_size=4)(randn(3))


def test_in_axes_not_matching_the_arguments_shows_both_structures():
    f = minijax.vmap(lambda p: p["a"], in_axes=({"a": 0, "c": 0},))
    with pytest.raises(ValueError) as info:
        f({"a": randn(2), "b": randn(2)})
    msg = str(info.value)
    assert "tree prefix" in msg and "PyTreeDef" in msg and "'c'" in msg and "'b'" in msg
    assert THIS_FILE in msg
    with pytest.raises(ValueError, match="len\\(in_axes\\)=2, len\\(args\\)=1"):
        minijax.vmap(lambda a: a, in_axes=(0, 0))(randn(2))


def test_bad_in_axes_types():
    with pytest.raises(TypeError, match="in_axes"):
        minijax.vmap(lambda a: a, in_axes=(1.5,))
    with pytest.raises(TypeError, match="in_axes"):
        minijax.vmap(lambda a: a, in_axes={"a": 0})


def test_out_of_range_axis_names_the_argument_and_axis():
    with pytest.raises(ValueError) as info:
        minijax.vmap(lambda a, b: a, in_axes=(0, 2))(randn(3), randn(3, 4))
    msg = str(info.value)
    assert "args[1]" in msg and "axis 2" in msg and "f32[3,4]" in msg and THIS_FILE in msg
    with pytest.raises(ValueError, match="args\\[0\\].*axis -2"):
        minijax.vmap(lambda a: a, in_axes=-2)(randn(3))
    with pytest.raises(ValueError, match="out_axes=3"):
        minijax.vmap(lambda a: a, out_axes=3)(randn(3, 2))


def test_out_axes_none_for_a_mapped_output_is_an_error():
    with pytest.raises(ValueError) as info:
        minijax.vmap(lambda a: (a, a.sum()), out_axes=(0, None))(randn(3, 2))
    msg = str(info.value)
    assert "out_axes is None" in msg and "output[1]" in msg and THIS_FILE in msg


def test_nothing_mapped_without_axis_size():
    with pytest.raises(ValueError, match="axis_size"):
        minijax.vmap(lambda a: a, in_axes=None)(randn(3))


def test_shape_errors_show_per_example_shapes():
    with pytest.raises(TypeError) as info:
        minijax.vmap(lambda a, b: lax.add(a, b))(randn(5, 2), randn(5, 3))
    msg = str(info.value)  # the rule's message; a note names the user's line
    assert "f32[2]" in msg and "f32[3]" in msg and "f32[5" not in msg
    assert THIS_FILE in info.value.__notes__[0]


def test_mapping_a_non_array_says_so():
    with pytest.raises(TypeError, match="not an array"):
        minijax.vmap(lambda a, s: a)(randn(3), "text")


# ------------------------------------------------------------------------------------------------
# With autodiff: per-example gradients


def _mse_loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.mean((h @ w2 + b2 - y) ** 2)


def _np_mse_grad(params, x, y):
    """Backprop by hand in float64 (checked against central differences when written)."""
    (w1, b1), (w2, b2) = [(w.astype(np.float64), b.astype(np.float64)) for w, b in params]
    h = np.tanh(x @ w1 + b1)
    dout = 2 * (h @ w2 + b2 - y) / y.size
    dz = (w2 @ dout) * (1 - h**2)
    return [(np.outer(x, dz), dz), (np.outer(h, dout), dout)]


def _check_grads(got, expected, tol=1e-4):
    for (gw, gb), (ew, eb) in zip(got, expected):
        close(gw, ew, tol)
        close(gb, eb, tol)


@pytest.mark.parametrize("jitted", [False, True])
def test_per_example_gradients_match_a_loop(jitted):
    params = _mlp_params()
    xs, ys = randn(6, 4), randn(6, 3)
    f = minijax.vmap(minijax.grad(_mse_loss), in_axes=(None, 0, 0))
    grads = (minijax.jit(f) if jitted else f)(params, xs, ys)
    for k in range(6):
        per_example = [(w[k], b[k]) for w, b in grads]
        _check_grads(per_example, _np_mse_grad(params, xs[k], ys[k]))


def test_grad_of_vmap_sums_per_example_gradients():
    params = _mlp_params()
    xs, ys = randn(5, 4), randn(5, 3)
    total = lambda p: jnp.sum(minijax.vmap(_mse_loss, in_axes=(None, 0, 0))(p, xs, ys))
    grads = minijax.grad(total)(params)
    loops = [_np_mse_grad(params, xs[k], ys[k]) for k in range(5)]
    expected = [(sum(g[i][0] for g in loops), sum(g[i][1] for g in loops)) for i in range(2)]
    _check_grads(grads, expected)


def test_integer_inputs_get_float0_cotangents_per_example():
    f = lambda x, n: jnp.sum(x * n)
    ct_x, ct_n = minijax.vmap(lambda x, n: minijax.vjp(f, x, n)[1](1.0), in_axes=(0, None))(
        randn(3, 2), np.int32(2))
    close(ct_x, np.full((3, 2), 2.0))
    assert np.asarray(ct_n).shape == (3,) and np.asarray(ct_n).dtype == minijax.dtypes.float0
