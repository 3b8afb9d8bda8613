"""Records JAX's results for tests/test_jit_calls_sharding.py (output shardings of sharded jits
that JAX's nested jits, baked constants and zero-size operands shape).

Run with real JAX on 4 virtual CPU devices:
  XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python \
      tests/data/record_jit_calls_sharding.py > tests/data/jit_calls_sharding_jax.json
"""

import json

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, nn
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
W = np.linspace(0.5, 1.5, 6).reshape(2, 3).astype(np.float32)


def put(x, spec):
    return jax.device_put(np.asarray(x), NamedSharding(mesh, spec))


def placement(x):
    s = x.sharding
    if isinstance(s, NamedSharding):
        return ["named", [e for e in s.spec]]
    return ["single", None]


def where_rsqrt(x1, x2):
    return lax.rsqrt(jnp.where(x2, x1, x1))


def vjp_const(x1, x2):
    out, pullback = jax.vjp(lambda a, b: a * b, x1, x2)
    return (out,) + pullback(W)


def relu_grad(x):
    return jax.grad(lambda x: jnp.sum(nn.relu(x + 0.5)))(x)


def nansum_grad(x):
    return jax.grad(lambda x: jnp.sum(jnp.nansum(x * x, axis=0)))(x)


def var_where(x, m):
    return jnp.where(m, jnp.var(x, axis=0), 0.0)


CASES = {
    "where_rsqrt": (where_rsqrt, lambda: (put(np.linspace(1, 2, 12, dtype=np.float32)
                                              .reshape(3, 4), P()),
                                          put(np.array([True, False, True, False]), P("d")))),
    "vjp_const": (vjp_const, lambda: (put(np.float32(-1.28), P()),
                                      put(np.arange(6, dtype=np.float32).reshape(2, 3), P("d")))),
    "relu_grad_empty": (relu_grad, lambda: (put(np.zeros((0, 3), np.float32), P("d")),)),
    "nansum_grad_empty": (nansum_grad, lambda: (put(np.zeros((2, 0), np.float32), P("d")),)),
    "var_where": (var_where, lambda: (put(np.arange(12, dtype=np.float32).reshape(4, 3) ** 2,
                                          P()),
                                      put(np.array([[True, False, True]] * 2), P("d")))),
}

out = {"jax": jax.__version__}
for name, (fun, args) in CASES.items():
    res = jax.jit(fun)(*args())
    leaves = jax.tree_util.tree_leaves(res)
    out[name] = {"placements": [placement(x) for x in leaves],
                 "values": [np.asarray(x).tolist() for x in leaves]}
out["jaxpr_where"] = [
    [e.primitive.name, e.params.get("name")]
    for e in jax.make_jaxpr(where_rsqrt)(np.ones((3, 4), np.float32),
                                         np.array([True, False, True, False])).eqns]
print(json.dumps(out, indent=1))
