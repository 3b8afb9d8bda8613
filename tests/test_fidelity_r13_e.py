"""``lax.scan`` forwards as JAX 0.10.2's does (pe._jaxpr_forwarding in its loops.py): a carry
the body returns unchanged is moved to the consts (its final value is the init itself), and a
y that is its x slice is pruned from the body and returned as the xs leaf. Checked against
JAX's printed jaxprs and values, U2 (s15047-121: shard_map of a jvp through such a scan) and
S1 (s14001-212: the forwarded ys keep xs's sharding). Recorded by
tests/data/record_fidelity_r13_e.py."""

import json
import os
import re
import sys

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax, shard_map
from minijax.sharding import Mesh, NamedSharding, PartitionSpec as P

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from record_fidelity_r13_e import programs, s1, u2  # noqa: E402  (JAX ran the same programs)

with open(os.path.join(os.path.dirname(__file__), "data", "fidelity_r13_e_jax.json")) as _fh:
    JAX = json.load(_fh)
assert JAX["jax_version"] == "0.10.2"
PROGRAMS = programs(minijax, jnp, lax)
# grad's backward scan orders its operands and names its add differently (not forwarding)
NAMES_ONLY = {"grad"}


def _layout_free(text):
    """The jaxpr text without the pretty-printers' line breaks (JAX puts one param a line)."""
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"= ", "=", re.sub(r" \]", "]", re.sub(r"\[ ", "[", text)))


def _names(text):
    return (re.findall(r"(?<![\w.'])([a-z]+|_):", text), re.findall(r"\bin (\([^)]*\))", text),
            re.findall(r"num_carry=\d+ num_consts=\d+", _layout_free(text)))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jaxpr_as_jax(name):
    fn, args = PROGRAMS[name]
    got, want = str(minijax.make_jaxpr(fn)(*args)), JAX["jaxprs"][name]
    if name in NAMES_ONLY:
        assert _names(got) == _names(want)
    else:
        assert _layout_free(got) == _layout_free(want)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_as_jax(name):
    fn, args = PROGRAMS[name]
    leaves = minijax.tree_util.tree_leaves(fn(*args))
    assert len(leaves) == len(JAX["values"][name])
    for got, want in zip(leaves, JAX["values"][name]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), rtol=1e-6)


def test_forwarded_values_are_the_inputs():
    # JAX returns the init leaf itself (a Python float stays one) and an xs NumPy array as
    # an Array of the canonical dtype
    carry, ys = lax.scan(lambda c, x: (c, x), 0.0, np.arange(3.0))
    assert [type(carry).__name__, str(ys.dtype)] == JAX["eager_types"]
    assert isinstance(ys, minijax.Array)
    xs = jnp.arange(3.0)
    c0 = xs[0]
    carry, ys = lax.scan(lambda c, x: (c, x), c0, xs)
    assert carry is c0 and ys is xs


def test_forwarded_carry_jvp_and_vmap():
    xs = jnp.arange(3.0)
    f = lambda c: lax.scan(lambda c, x: (c, (x * c, c)), c, xs)  # noqa: E731
    (c, (ys, cs)), (dc, (dys, dcs)) = minijax.jvp(f, (2.0,), (1.0,))
    np.testing.assert_allclose([float(c), float(dc)], [2.0, 1.0])
    np.testing.assert_allclose(np.asarray(dys), [0.0, 1.0, 2.0])
    np.testing.assert_allclose(np.asarray(dcs), [1.0, 1.0, 1.0])
    c, (ys, cs) = minijax.vmap(f)(jnp.array([1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(c), [1.0, 2.0])
    np.testing.assert_allclose(np.asarray(ys), [[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]])


@pytest.mark.devices(2)
def test_u2_shard_map_jvp_of_forwarded_carry():
    carry_t, ys_t = u2(minijax, jnp, lax, P, Mesh, shard_map, lambda c, x: (c, jnp.sin(x)))
    np.testing.assert_allclose(np.asarray(carry_t), JAX["u2"]["carry_t"], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ys_t), JAX["u2"]["ys_t"], rtol=1e-6)
    # a carry the body changes is still checked, with JAX's error
    with pytest.raises(ValueError) as e:
        u2(minijax, jnp, lax, P, Mesh, shard_map, lambda c, x: (-c, jnp.sin(x)))
    assert str(e.value).startswith(JAX["u2_negated_error"])


@pytest.mark.devices(2)
def test_s1_forwarded_ys_keep_the_xs_sharding():
    r = s1(minijax, jnp, lax, P, Mesh, NamedSharding)
    assert str(r.sharding.spec) == JAX["s1"]["spec"]
    np.testing.assert_allclose(np.asarray(r), JAX["s1"]["value"], rtol=1e-6)
