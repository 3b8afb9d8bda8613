"""Output shardings of sharded jits where JAX's program structure decides them: jnp functions
that JAX jits as calls (lowered as ``func.call``s, through which Shardy propagates), constants
baked into the module, and zero-size operands a program does or does not read. Expected values:
JAX 0.10.2 on virtual CPU devices (tests/data/jit_calls_sharding_jax.json, recorded by
tests/data/record_jit_calls_sharding.py, whose cases this file repeats)."""

import json
import os
import re

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax, nn
from minijax.sharding import Mesh, NamedSharding
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(2)

with open(os.path.join(os.path.dirname(__file__), "data", "jit_calls_sharding_jax.json")) as f:
    JAX = json.load(f)

W = np.linspace(0.5, 1.5, 6).reshape(2, 3).astype(np.float32)


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(minijax.devices()[:2]), ("d",))


def where_rsqrt(x1, x2):
    return lax.rsqrt(jnp.where(x2, x1, x1))


def vjp_const(x1, x2):
    out, pullback = minijax.vjp(lambda a, b: a * b, x1, x2)
    return (out,) + pullback(W)


def relu_grad(x):
    return minijax.grad(lambda x: jnp.sum(nn.relu(x + 0.5)))(x)


def nansum_grad(x):
    return minijax.grad(lambda x: jnp.sum(jnp.nansum(x * x, axis=0)))(x)


def var_where(x, m):
    return jnp.where(m, jnp.var(x, axis=0), 0.0)


CASES = {
    "where_rsqrt": (where_rsqrt, lambda: ((np.linspace(1, 2, 12, dtype=np.float32)
                                          .reshape(3, 4), P()),
                                         (np.array([True, False, True, False]), P("d")))),
    "vjp_const": (vjp_const, lambda: ((np.float32(-1.28), P()),
                                      (np.arange(6, dtype=np.float32).reshape(2, 3), P("d")))),
    "relu_grad_empty": (relu_grad, lambda: ((np.zeros((0, 3), np.float32), P("d")),)),
    "nansum_grad_empty": (nansum_grad, lambda: ((np.zeros((2, 0), np.float32), P("d")),)),
    "var_where": (var_where, lambda: ((np.arange(12, dtype=np.float32).reshape(4, 3) ** 2, P()),
                                      (np.array([[True, False, True]] * 2), P("d")))),
}


def _placement(x):
    s = x.sharding
    if isinstance(s, NamedSharding):
        return ["named", list(s.spec)]
    return ["single", None]


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_placement_as_jax(mesh, name):
    fun, args = CASES[name]
    placed = [minijax.device_put(x, NamedSharding(mesh, spec)) for x, spec in args()]
    leaves = minijax.tree_util.tree_leaves(minijax.jit(fun)(*placed))
    assert [_placement(x) for x in leaves] == JAX[name]["placements"]
    for x, want in zip(leaves, JAX[name]["values"]):
        want = np.asarray(want, np.float32).reshape(x.shape)  # JSON keeps no empty shapes
        np.testing.assert_allclose(np.asarray(x), want, rtol=1e-6)


def test_where_is_a_jit_equation_as_in_jax():
    jaxpr = minijax.make_jaxpr(where_rsqrt)(np.ones((3, 4), np.float32),
                                            np.array([True, False, True, False]))
    assert [[e.primitive.name, e.params.get("name")] for e in jaxpr.eqns] == JAX["jaxpr_where"]


def test_partitioned_program_calls_private_functions(mesh):
    """A jit equation of a program with shardings is a private function called once per use;
    a constant is baked into the module, not an argument of main."""
    x1 = minijax.device_put(np.ones((3, 4), np.float32), NamedSharding(mesh, P()))
    x2 = minijax.device_put(np.array([True, False, True, False]), NamedSharding(mesh, P("d")))
    text = minijax.jit(lambda a, b: where_rsqrt(a, b) + jnp.where(b, a, a) * W.sum()).lower(
        x1, x2).as_text()
    assert len(re.findall(r"func\.func private @_where\b", text)) == 1
    assert len(re.findall(r"call @_where\(", text)) == 2
    assert len(re.findall(r"%arg\d+: tensor", re.search(r"@main\((.*?)\) ->", text).group(1))) == 2
    # one device: a call too, as JAX 0.10.2's module (checked by hand: `call @_where`)
    single = minijax.jit(where_rsqrt).lower(np.ones((3, 4), np.float32),
                                            np.array([True, False, True, False])).as_text()
    assert len(re.findall(r"func\.func private @_where\b", single)) == 1
    assert len(re.findall(r"call @_where\(", single)) == 1


def test_baked_bool_constants_keep_their_values(mesh):
    """A closed-over bool array of any size is baked element by element (a packed buffer was
    read as one splat value, or refused past 8 elements)."""
    x = minijax.device_put(np.arange(12, dtype=np.float32).reshape(4, 3),
                           NamedSharding(mesh, P("d")))
    for mask in (np.array([True, False, True]), np.arange(12).reshape(4, 3) % 5 == 0,
                 np.arange(9) % 2 == 0):
        got = minijax.jit(lambda x: jnp.where(mask, x.ravel()[:mask.size].reshape(mask.shape)
                                              if mask.ndim == 1 and mask.size != 3 else x,
                                              -1.0))(x)
        xs = np.asarray(x)
        want = np.where(mask, xs.ravel()[:9] if mask.size == 9 else xs, -1.0)
        np.testing.assert_array_equal(np.asarray(got), want)
    # the float0 tangent of a bool output is baked too (s10025-233)
    primal, tangent = minijax.jit(lambda x: minijax.jvp(jnp.isnan, (x,), (x,)))(x)
    np.testing.assert_array_equal(np.asarray(primal), np.zeros((4, 3), bool))
    assert tangent.shape == (4, 3) and tangent.dtype == minijax.dtypes.float0


def test_differentiated_empty_product_reads_nothing(mesh):
    """JAX's product tree of no factors is a constant 1: a vjp of ``prod`` over an empty axis
    does not read its (sharded) operand, so the program runs on one device (s10028-274)."""
    x = minijax.device_put(np.zeros((0,), np.float32), NamedSharding(mesh, P("d")))
    out, ct = minijax.jit(lambda x: (lambda o, pb: (o, pb(jnp.ones(2))))(
        *minijax.vjp(lambda x: jnp.tile(jnp.prod(x, axis=-1), (2,)), x)))(x)
    np.testing.assert_array_equal(np.asarray(out), [1.0, 1.0])
    assert ct[0].shape == (0,)
    assert [_placement(v) for v in (out, ct[0])] == [["single", None], ["single", None]]
