"""Typed PRNG key arrays are pytree leaves for users (as JAX's ``key<fry>`` arrays), while every
transformation traces their uint32 data and hands keys back.

JAX 0.10.2's answers are in tests/data/key_leaves_jax.json (tests/data/record_key_leaves.py)."""

import json
import os

import numpy as np
import pytest

import minijax as mj
import minijax.numpy as jnp
from minijax import lax, random
from minijax.experimental.shard_map import shard_map
from minijax.sharding import AxisType, PartitionSpec as P

with open(os.path.join(os.path.dirname(__file__), "data", "key_leaves_jax.json")) as f:
    JAX = json.load(f)

KEY = random.key(0)
KEYS = random.split(KEY, 3)
SPLIT_DATA = np.array(JAX["split_data"], np.uint32)  # JAX's key_data(split(key(0), 3))


def describe(x):
    return str(x.dtype) if hasattr(x, "dtype") else type(x).__name__


def sample_tree():
    return {"k": KEY, "x": 1.0, "ks": KEYS, "n": None, "t": (2, KEY)}


def uniform_eager(keys):
    return np.stack([np.asarray(random.uniform(k)) for k in keys])


def assert_key(x, data):
    assert isinstance(x, random.PRNGKeyArray), type(x)
    np.testing.assert_array_equal(np.asarray(random.key_data(x)), data)


# ------------------------------------------------------------------------------------------------
# The public tree functions see keys as leaves


def test_tree_functions_match_jax():
    tree = sample_tree()
    leaves, treedef = mj.tree.flatten(tree)
    assert len(leaves) == JAX["num_leaves"]
    assert [describe(x) for x in leaves] == JAX["leaf_kinds"]
    assert [list(x.shape) if hasattr(x, "shape") else None for x in leaves] == JAX["leaf_shapes"]
    assert str(treedef) == JAX["structure"]
    assert str(mj.tree.structure(tree)) == JAX["structure"]
    mapped = mj.tree.map(describe, tree)
    assert mapped == {**JAX["map_dtype"], "t": tuple(JAX["map_dtype"]["t"])}
    paths = [mj.tree_util.keystr(p) for p, _ in mj.tree_util.tree_flatten_with_path(tree)[0]]
    assert paths == JAX["paths"]
    assert [str(mj.typeof(KEY)), str(mj.typeof(KEYS))] == JAX["typeof"]
    assert str(mj.jit(lambda t: t).lower(tree).in_tree) == JAX["jit_in_tree"]
    np.testing.assert_array_equal(np.asarray(random.key_data(KEYS)), SPLIT_DATA)


def test_unflatten_and_leaf_helpers_keep_the_key_objects():
    tree = sample_tree()
    leaves, treedef = mj.tree.flatten(tree)
    rebuilt = mj.tree.unflatten(treedef, leaves)
    assert rebuilt["k"] is KEY and rebuilt["ks"] is KEYS
    assert mj.tree_util.all_leaves([KEY, KEYS])
    assert mj.tree.leaves(KEY) == [KEY]
    assert mj.tree_util.treedef_is_leaf(mj.tree.structure(KEY))
    # a map that builds non-arrays at key positions (chex/optax: tree.map(lambda t: t.dtype))
    assert mj.tree.map(lambda t: t.shape, {"k": KEYS}) == {"k": (3,)}


def test_registering_a_node_type_still_reaches_both_registries():
    class Box:
        def __init__(self, v):
            self.v = v

    mj.tree_util.register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(c[0]))
    assert mj.tree.leaves(Box(KEY)) == [KEY]
    out = mj.jit(lambda b: Box(random.fold_in(b.v, 1)))(Box(KEY))
    assert isinstance(out, Box)
    assert_key(out.v, np.asarray(random.key_data(random.fold_in(KEY, 1))))


# ------------------------------------------------------------------------------------------------
# Transformations trace key data and give keys back


def test_jit_takes_and_returns_keys():
    f = mj.jit(lambda t: {"s": random.split(t["k"], 3), "u": random.uniform(t["ks"][1])})
    for _ in range(2):  # the second call takes the C++ fast path
        out = f({"k": KEY, "ks": KEYS})
        assert_key(out["s"], SPLIT_DATA)
        np.testing.assert_array_equal(np.asarray(out["u"]), np.asarray(random.uniform(KEYS[1])))


def test_jit_donation_of_a_key_argument():
    f = mj.jit(lambda k: random.fold_in(k, 7), donate_argnums=0)
    k = random.wrap_key_data(np.array(SPLIT_DATA[0]))
    expected = np.asarray(random.key_data(random.fold_in(k, 7)))
    out = f(k)
    assert_key(out, expected)
    assert random.key_data(k).is_deleted()
    assert f.lower(KEY).compile().donate_argnums == (0,)


def test_vmap_over_keys():
    np.testing.assert_array_equal(np.asarray(mj.vmap(random.uniform)(KEYS)), uniform_eager(KEYS))
    out = mj.vmap(lambda k: random.split(k, 2))(KEYS)
    assert out.shape == (3, 2)
    for i in range(3):
        assert_key(out[i], np.asarray(random.key_data(random.split(KEYS[i], 2))))
    # an unmapped key beside a mapped array, out_axes=None for a key output
    y, k = mj.vmap(lambda x, k: (x * random.uniform(k), k), in_axes=(0, None),
                   out_axes=(0, None))(jnp.arange(3.0), KEY)
    np.testing.assert_allclose(np.asarray(y), np.arange(3.0) * np.asarray(random.uniform(KEY)))
    assert_key(k, np.asarray(random.key_data(KEY)))


def test_grad_with_a_key_as_a_non_differentiated_argument():
    f = lambda x, k: x * random.uniform(k) + x ** 2  # noqa: E731
    u = float(random.uniform(KEY))
    np.testing.assert_allclose(float(mj.grad(f)(2.0, KEY)), u + 4.0, rtol=1e-6)
    g, k = mj.grad(lambda x, k: (f(x, k), random.fold_in(k, 1)), has_aux=True)(2.0, KEY)
    np.testing.assert_allclose(float(g), u + 4.0, rtol=1e-6)
    assert_key(k, np.asarray(random.key_data(random.fold_in(KEY, 1))))
    val, g = mj.value_and_grad(f)(2.0, KEY)
    np.testing.assert_allclose(float(val), 2.0 * u + 4.0, rtol=1e-6)


def test_scan_carries_a_key():
    def body(k, _):
        k, sub = random.split(k)
        return k, random.uniform(sub)

    k_end, us = lax.scan(body, KEY, None, length=3)
    k, expected = KEY, []
    for _ in range(3):
        k, sub = random.split(k)
        expected.append(np.asarray(random.uniform(sub)))
    np.testing.assert_array_equal(np.asarray(us), np.stack(expected))
    assert_key(k_end, np.asarray(random.key_data(k)))
    # keys as the scanned-over xs
    _, us = lax.scan(lambda c, k: (c, random.uniform(k)), 0.0, KEYS)
    np.testing.assert_array_equal(np.asarray(us), uniform_eager(KEYS))


def test_cond_while_and_fori_with_keys():
    out = lax.cond(True, lambda k: random.fold_in(k, 1), lambda k: random.fold_in(k, 2), KEY)
    assert_key(out, np.asarray(random.key_data(random.fold_in(KEY, 1))))
    out = lax.switch(1, [lambda k: k, lambda k: random.fold_in(k, 2)], KEY)
    assert_key(out, np.asarray(random.key_data(random.fold_in(KEY, 2))))

    i, k = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, random.fold_in(c[1], c[0])),
                          (0, KEY))
    ref = KEY
    for j in range(3):
        ref = random.fold_in(ref, j)
    assert int(i) == 3
    assert_key(k, np.asarray(random.key_data(ref)))
    k = lax.fori_loop(0, 3, lambda j, k: random.fold_in(k, j), KEY)
    assert_key(k, np.asarray(random.key_data(ref)))


def test_eval_shape_and_make_jaxpr_of_keys():
    out = mj.eval_shape(lambda k: {"a": random.split(k, 4)}, KEY)
    assert out["a"].shape == (4,) and out["a"].dtype == random.key_dtype()
    closed = mj.make_jaxpr(lambda k: random.uniform(k))(KEY)
    assert [str(a) for a in closed.in_avals] == ["uint32[2]"]  # JAX 0.10.2 prints full dtype names


def test_checkpoint_and_custom_jvp_with_key_arguments():
    f = mj.checkpoint(lambda x, k: jnp.sin(x) * random.uniform(k))
    u = float(random.uniform(KEY))
    np.testing.assert_allclose(float(mj.grad(f)(0.5, KEY)), np.cos(0.5) * u, rtol=1e-6)

    @mj.custom_jvp
    def scaled(x, k):
        return x * random.uniform(k)

    @scaled.defjvp
    def scaled_jvp(primals, tangents):
        x, k = primals
        return scaled(x, k), 3.0 * tangents[0]

    np.testing.assert_allclose(float(mj.grad(scaled)(2.0, KEY)), 3.0)
    np.testing.assert_allclose(float(mj.jit(scaled)(2.0, KEY)), 2.0 * u, rtol=1e-6)


def test_stop_gradient_device_put_and_device_get_of_keys():
    tree = {"k": KEY, "x": jnp.float32(1.0)}
    assert_key(lax.stop_gradient(tree)["k"], np.asarray(random.key_data(KEY)))
    assert_key(mj.device_put(tree)["k"], np.asarray(random.key_data(KEY)))
    # as JAX 0.10.2: a key array stays a key array, a new one over the data fetched to the host
    got = mj.device_get(tree)["k"]
    assert got is not KEY
    assert_key(got, np.asarray(random.key_data(KEY)))


@pytest.mark.devices(8)
def test_shard_map_with_keys():
    # Auto axes: on JAX's default Explicit ones, unsplit keys don't meet in_specs P("x")
    mesh = mj.make_mesh((4,), ("x",), axis_types=(AxisType.Auto,))
    keys = random.split(KEY, 4)

    def body(k, x):
        return x + random.uniform(k[0]), random.fold_in(k[0], 1).reshape(1)

    y, k_out = mj.jit(shard_map(body, mesh, in_specs=(P("x"), P("x")),
                                out_specs=(P("x"), P("x"))))(keys, jnp.zeros(4))
    np.testing.assert_array_equal(np.asarray(y), uniform_eager(keys))
    assert k_out.shape == (4,)
    for i in range(4):
        assert_key(k_out[i], np.asarray(random.key_data(random.fold_in(keys[i], 1))))


@pytest.mark.devices(8)
def test_pmap_over_keys():
    keys = random.split(KEY, 4)
    np.testing.assert_array_equal(np.asarray(mj.pmap(random.uniform)(keys)), uniform_eager(keys))
    out = mj.pmap(lambda k: random.fold_in(k, 3))(keys)
    for i in range(4):
        assert_key(out[i], np.asarray(random.key_data(random.fold_in(keys[i], 3))))


def test_key_equality_array_equal_and_str_as_jax():
    other = random.split(random.key(2))
    pair = random.split(random.key(1))
    np.testing.assert_array_equal(np.asarray(pair == other), [False, False])
    np.testing.assert_array_equal(np.asarray(pair != other), [True, True])
    np.testing.assert_array_equal(np.asarray(pair == pair), [True, True])
    assert bool(jnp.array_equal(pair, pair, equal_nan=True))
    assert not bool(jnp.array_equal(pair, other))
    assert bool(mj.jit(jnp.array_equal)(pair, pair))
    with pytest.raises(TypeError, match="equal does not accept dtypes key<fry>, float32"):
        jnp.array_equal(pair, jnp.zeros(2))
    assert str(KEY) == repr(KEY) == format(KEY, "")
    with pytest.raises(TypeError):
        format(KEY, ">5")


def test_control_flow_type_errors_show_key_positions():
    with pytest.raises(TypeError, match=r"\(PRNGKeyArray\(u32\[2\]\), f32\[\]\)"):
        lax.cond(True, lambda k: (k, 1.0), lambda k: (k, 1), KEY)
