"""checkify through shard_map and pmap: user, nan, div and index checks inside the body, eagerly
and under jit, over 1-D and 2-D meshes; each device's error comes out in its own slot
('at mapped index i'). Messages compared with real JAX 0.10.2's
(tests/data/checkify_shard_map_jax.json, recorded by tests/data/record_checkify_shard_map.py
from tests/checkify_shard_map_cases.py); cases where JAX itself fails (a check after a
shard_map, shard_maps in a row or in loops, index checks in a pmap) against values worked out
from the inputs."""

import json
import os
import re

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.experimental import checkify
from minijax.sharding import Mesh, PartitionSpec as P
from minijax.shard_map import shard_map
from tests.checkify_shard_map_cases import CASES, api

pytestmark = pytest.mark.devices(4)

with open(os.path.join(os.path.dirname(__file__), "data", "checkify_shard_map_jax.json")) as f:
    JAX = json.load(f)


def _automatic(msg):
    """An automatic check's message without its location: minijax puts the user's line in
    the message, JAX in the exception's traceback (and ends a nan message with '.')."""
    return None if msg is None else re.sub(r" at \S+:\d+ \(.*?\)", "", msg).rstrip(".")


@pytest.mark.parametrize("name", sorted(CASES))
def test_messages_match_jax(name):
    got, want = CASES[name](api(minijax)), JAX[name]
    if name in ("pmap_nan", "jit_pmap_div"):
        got = {k: _automatic(v) for k, v in got.items()}
        want = {k: _automatic(v) for k, v in want.items()}
    # JAX's get() lists every failing slot, one line each; minijax's names the first
    first_line = None if want["get"] is None else want["get"].split("\n")[0]
    assert got["get"] == first_line
    if name == "vmap_of_shard_map":
        # JAX's throw() of a 2-D batched error reduces only one axis and raises several
        # slots' lines; minijax raises the one slot its rule picks (the last failing)
        assert got["throw"] == "x must be positive, got [-3.] (`check` failed)"
    else:
        assert got["throw"] == want["throw"]


# ------------------------------------------------------------------------------------------------
# Beyond what JAX 0.10.2 handles (it fails with internal errors on these)


def _mesh():
    return Mesh(np.array(minijax.devices()[:4]), ("x",))


def _below(limit):
    def f(x):
        checkify.check(jnp.all(x < limit), "too big {}", x)
        return x + 1

    return shard_map(f, mesh=_mesh(), in_specs=P("x"), out_specs=P("x"))


X = np.array([0.0, 1.0, 3.0, 0.0], np.float32)


def test_check_after_shard_map_fills_every_free_slot():
    g = _below(10)

    def f(x):
        y = g(x)
        checkify.check(y[3] < 0.5, "after {}", y[3])
        return y * 2

    for fn in (checkify.checkify(f), minijax.jit(checkify.checkify(f))):
        err, out = fn(X)
        np.testing.assert_array_equal(np.asarray(out), (X + 1) * 2)
        assert err.get() == "at mapped index 0: after 1.0 (`check` failed)"
        assert [tuple(leaf.shape) for leaf in minijax.tree_util.tree_leaves(err)] == \
            [(4,), (4, 1), (4,)]  # the code, the shard_map check's payload, the later one's


def test_shard_maps_in_a_row_keep_one_slot_per_device():
    g = _below(3.5)
    err, out = checkify.checkify(lambda x: g(g(x)))(X)  # device 2 holds 3.0, then 4.0
    np.testing.assert_array_equal(np.asarray(out), X + 2)
    assert err.get() == "at mapped index 2: too big [4.] (`check` failed)"
    assert tuple(err._code.shape) == (4,)


def test_shard_map_inside_scan_cond_and_while():
    g = _below(3)

    def scanned(x):
        return lax.scan(lambda c, _: (g(c), None), x, None, length=3)[0]

    err, out = minijax.jit(checkify.checkify(scanned))(np.array([0, 1, 0, 0], np.float32))
    np.testing.assert_array_equal(np.asarray(out), [3, 4, 3, 3])
    assert err.get() == "at mapped index 1: too big [3.] (`check` failed)"  # third step

    def branched(x):
        return lax.cond(x[0] > 0, g, lambda v: v, x)

    cond_fn = checkify.checkify(branched)
    assert cond_fn(X)[0].get() is None  # the branch without the shard_map ran
    err, out = cond_fn(X + 1)
    assert err.get() == "at mapped index 2: too big [4.] (`check` failed)"
    np.testing.assert_array_equal(np.asarray(out), X + 2)

    err, out = checkify.checkify(lambda x: lax.while_loop(lambda v: v[0] < 2, g, x))(X)
    assert err.get() == "at mapped index 2: too big [3.] (`check` failed)"
    np.testing.assert_array_equal(np.asarray(out), X + 2)


def test_branches_over_meshes_of_different_sizes_fail_clearly():
    two = shard_map(lambda v: (checkify.check(jnp.all(v > 0), "neg"), v)[1],
                    mesh=Mesh(np.array(minijax.devices()[:2]), ("y",)), in_specs=P("y"),
                    out_specs=P("y"))
    with pytest.raises(ValueError, match="with per-device slots of different meshes"):
        checkify.checkify(lambda x: lax.cond(x[0] > 0, _below(3), two, x))(X)


def test_index_checks_inside_pmap():
    fn = checkify.checkify(minijax.pmap(lambda x, i: x[i], in_axes=(0, None)),
                           errors=checkify.index_checks)
    xs = np.arange(8, dtype=np.float32).reshape(4, 2)
    err, out = fn(xs, 1)
    assert err.get() is None
    np.testing.assert_array_equal(np.asarray(out), xs[:, 1])
    msg = fn(xs, 2)[0].get()
    assert msg.startswith("at mapped index 0: out-of-bounds indexing")  # every device reads
    assert "of an array of shape (2,)" in msg


def test_grad_and_auto_axes():
    g = _below(3)
    err, grads = checkify.checkify(minijax.grad(lambda x: jnp.sum(g(x) ** 2)))(X)
    np.testing.assert_allclose(np.asarray(grads), 2 * (X + 1))
    assert err.get() == "at mapped index 2: too big [3.] (`check` failed)"

    mesh = Mesh(np.array(minijax.devices()[:4]).reshape(2, 2), ("a", "b"))

    def f(x):
        checkify.check(jnp.all(x > 0), "x must be positive, got {}", x)
        return jnp.sin(x)

    auto = shard_map(f, mesh=mesh, in_specs=P("a"), out_specs=P("a"),
                     axis_names={"a"})  # slots over 'a' only
    err, out = minijax.jit(checkify.checkify(auto))(np.array([1, 2, 3, -4], np.float32))
    block = np.array([3, -4], np.float32)
    assert err.get() == f"at mapped index 1: x must be positive, got {block} (`check` failed)"
    np.testing.assert_allclose(np.asarray(out), np.sin([1, 2, 3, -4]), rtol=1e-6)
