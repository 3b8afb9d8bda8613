"""Records JAX's outcomes for tests/test_fidelity_r18_q.py (run under /work/venv_jax):

    XLA_FLAGS=--xla_force_host_platform_device_count=4 \
        /work/venv_jax/bin/python tests/data/record_fidelity_r18_q.py \
        > tests/data/fidelity_r18_q_jax.json

Each case is a source line evaluated with ``jax``, ``jnp``, ``lax``, ``np`` and the names SETUP
defines; the test evaluates the same lines under minijax. An error is recorded by its type and
the first line of its message.
"""
import json

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

SETUP = """\
mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ('d',))
sm = lambda f, i=jax.P('d'), o=jax.P(): jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o)
x = jnp.asarray(np.array([[0.0, -0.5], [-1.75, 0.5], [0.0, 2.0]], np.float32))
xi = jnp.asarray(np.array([[1], [-1], [-1]], np.int32))
e = jnp.zeros((0,), jnp.float16)
def vjp_bad_ct(a, b):  # a cumlogsumexp of int32 (its lowering fails), then an unvarying ct
    lax.cumlogsumexp(b, axis=1)
    out, pullback = jax.vjp(jnp.sin, a)
    return pullback(np.zeros(out.shape, out.dtype))
def add_mismatch(a, b):  # the same op, then a trace-time error
    lax.cumlogsumexp(a, axis=1)
    return lax.add(a, b)
"""

CASES = [
    # s21019-79: the float0 block of jacfwd of a bool output inside a shard_map body: its cast
    # to bool fails where it is lowered (JAX's TypeError), eagerly and under jit
    "sm(lambda y: lax.psum(jax.vmap(jax.jacfwd(lambda z: jnp.any(z, -1)), -1)(y)"
    ".astype(jnp.int32), 'd'), jax.P())(x)",
    "jax.jit(sm(lambda y: lax.psum(jax.vmap(jax.jacfwd(lambda z: jnp.any(z, -1)), -1)(y)"
    ".astype(jnp.int32), 'd'), jax.P()))(x)",
    # an integer output's float0 block in a shard_map body computes (zeros)
    "sm(lambda y: jax.jacfwd(lambda z: jnp.floor(z).astype(jnp.int32))(y), jax.P(), jax.P())"
    "(x[0])",
    # s21018-37: an eager body runs op by op as it is traced, so the lowering error of an op
    # before the one that fails to trace comes first; under jit the trace error does
    "sm(vjp_bad_ct, (jax.P('d'), jax.P()), jax.P('d'))(e, xi)",
    "sm(add_mismatch, (jax.P(), jax.P()), jax.P())(xi, xi.astype(jnp.float32))",
    "jax.jit(sm(add_mismatch, (jax.P(), jax.P()), jax.P()))(xi, xi.astype(jnp.float32))",
    "sm(lambda a: jax.vjp(jnp.sin, a)[1](np.zeros((0,), np.float16)), jax.P('d'), jax.P('d'))"
    "(e)",
    # under jit a shard_map body's dead op is pruned (JAX's _shard_map_dce): neither lowered
    # nor run, a dead output's included; eagerly it runs
    "jax.jit(sm(lambda a, b: (lax.cumlogsumexp(b, axis=1), a * 2)[1], (jax.P(), jax.P()), "
    "jax.P()))(x, xi)",
    "jax.jit(lambda a, b: sm(lambda a, b: (lax.cumlogsumexp(b, axis=1), a * 2), "
    "(jax.P(), jax.P()), jax.P())(a, b)[1])(x, xi)",
    "sm(lambda a, b: (lax.cumlogsumexp(b, axis=1), a * 2)[1], (jax.P(), jax.P()), jax.P())"
    "(x, xi)",
]


def describe(thunk):
    try:
        out = thunk()
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ["error", type(e).__name__, str(e).split("\n")[0]]
    return ["ok", [[str(leaf.dtype), list(leaf.shape), bool(leaf.aval.weak_type),
                    np.asarray(leaf).tolist()] for leaf in jax.tree_util.tree_leaves(out)]]


if __name__ == "__main__":
    env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(SETUP, env)
    print(json.dumps({"jax_version": jax.__version__, "setup": SETUP,
                      "cases": [[src, describe(lambda: eval(src, env))] for src in CASES]},
                     indent=1))
