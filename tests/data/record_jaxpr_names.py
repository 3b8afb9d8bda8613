"""Records ``str(jax.make_jaxpr(fn)(*args))`` from real JAX for the programs below, which
tests/test_jaxpr_names.py runs through minijax: how JAX names a printed jaxpr's variables
(one naming context for the whole printout, ``_`` for top-level binders nothing reads, a
jit callee named after its caller's operands and results).

    /work/venv_jax/bin/python tests/data/record_jaxpr_names.py   # writes jaxpr_names_0102.json

``programs`` takes the framework's modules, so the very same programs run under both."""

import json
import os

import numpy as np


def programs(jax, jnp, lax):
    jit, grad, vmap = jax.jit, jax.grad, jax.vmap
    sin_j = jit(jnp.sin)
    x3 = np.linspace(-1.0, 1.0, 3, dtype=np.float32)

    def two_out(x):
        return x * 2, x + 1

    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x) * 3

    cj.defjvp(lambda p, t: (cj(p[0]), jnp.cos(p[0]) * t[0]))

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x)

    cv.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, g: (r * g,))

    def body_scan(c, x):
        return c + x, c * x

    def big(x):  # over 10 equations: JAX prints a nested copy once, first, by name
        for _ in range(11):
            x = jnp.sin(x)
        return x

    def g(x):  # a shared jaxpr named g: no variable is then named g
        return x * 3

    g_j, twice_j = jit(g), jit(lambda a: a * 2)

    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("i",))
    P = jax.sharding.PartitionSpec

    return {
        "plain": (lambda x: jnp.sin(x) * 2, 1.0),
        "unused_top_output": (lambda x: two_out(x)[0], 1.0),
        "unused_middle": (lambda x: (jnp.cos(x), jnp.sin(x) * 2)[1], 1.0),
        "jit_two_out": (lambda x: jit(two_out)(x)[0], 1.0),
        "jit_both_out": (lambda x: jit(two_out)(x), 1.0),
        "jit_dup_operand": (lambda x: jit(lambda a, b: a * b)(x, x), 1.0),
        "jit_passthrough": (lambda x: jit(lambda a, b: (b, a + b))(x, x * 2), 1.0),
        "jit_literal_out": (lambda x: jit(lambda a: (a * 2, 3.0))(x), 1.0),
        "jit_nested": (lambda x: jit(lambda a: jit(jnp.cos)(a) + a)(x) * 2, 1.0),
        "jit_twice_dependent": (lambda x: sin_j(x) + jnp.cos(sin_j(x * 3.0)), 1.0),
        "jit_big_body": (lambda x: jit(big)(x) + 1, 1.0),
        "jit_shared_in_nested": (lambda x: jit(lambda b: twice_j(b) + twice_j(b))(x) + twice_j(x),
                                 1.0),
        "jit_shared_name_skipped": (lambda x: g_j(x) + g_j(x * 2), 1.0),
        "cond_big_branch": (lambda x: lax.cond(x > 0, big, jnp.cos, x), 1.0),
        "grad_jit": (grad(jit(lambda x: jnp.sin(x) * x)), 1.0),
        "cond": (lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x), 1.0),
        "cond_unused_out": (lambda x: lax.cond(x > 0, lambda a: (a, a * 2),
                                               lambda a: (a * 3, a), x)[1], 1.0),
        "switch": (lambda x: lax.switch(1, [jnp.sin, jnp.cos, jnp.tan], x), 1.0),
        "while": (lambda x: lax.while_loop(lambda c: c < 3.0, lambda c: c * 2.0, x), 1.0),
        "fori": (lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x), 1.0),
        "scan": (lambda x: lax.scan(body_scan, 0.0, x), x3),
        "scan_unused_ys": (lambda x: lax.scan(body_scan, 0.0, x)[0], x3),
        "grad_cond": (grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)), 1.0),
        "vmap_cond": (vmap(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)), x3),
        "custom_jvp": (lambda x: cj(x) + 1, 1.0),
        "custom_vjp": (lambda x: cv(x) * 2, 1.0),
        "grad_custom_jvp": (grad(cj), 1.0),
        "checkpoint": (lambda x: jax.checkpoint(lambda a: jnp.sin(a) * 2)(x), 1.0),
        "grad_checkpoint": (grad(jax.checkpoint(lambda x: jnp.sin(x) * 2)), 1.0),
        "jvp_sin": (lambda x: jax.jvp(jnp.sin, (x,), (x,)), 1.0),
        "vjp_jit": (lambda x: jax.vjp(jit(jnp.sin), x)[1](x), 1.0),
        "shard_map": (lambda x: jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("i"),
                                              out_specs=P("i"))(x), x3),
        "jit_cond_inside": (jit(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x) + x), 1.0),
        "cond_in_jit_unused": (lambda x: jit(lambda a: (lax.cond(a > 0, jnp.sin, jnp.cos, a),
                                                        a * 2))(x)[1], 1.0),
    }


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax

    cases = {}
    for name, (fn, x) in programs(jax, jnp, lax).items():
        cases[name] = str(jax.make_jaxpr(fn)(x))
    out = os.path.join(os.path.dirname(__file__), "jaxpr_names_0102.json")
    with open(out, "w") as fh:
        json.dump({"jax_version": jax.__version__, "cases": cases}, fh, indent=1)
        fh.write("\n")
