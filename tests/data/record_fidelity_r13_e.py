"""Records JAX's outcomes for tests/test_fidelity_r13_e.py (run under /work/venv_jax).

    XLA_FLAGS=--xla_force_host_platform_device_count=2 /work/venv_jax/bin/python \
        tests/data/record_fidelity_r13_e.py > tests/data/fidelity_r13_e_jax.json

``lax.scan``'s forwarding (pe._jaxpr_forwarding in JAX's loops.py): a carry the body returns
unchanged becomes a const, and a y that is the x slice itself is the xs leaf. Printed jaxprs,
and the values of U2's shard_map jvp (s15047-121) and S1's sharding spec (s14001-212).
"""
import json

import numpy as np


def programs(jax, jnp, lax):
    """name -> (fn, args): the same programs for JAX and minijax."""
    c0, xs = np.float32(1.0), np.arange(3.0, dtype=np.float32)
    w = jnp.float32(2.0)
    return {
        "both": (lambda c, xs: lax.scan(lambda c, x: (c, x), c, xs), (c0, xs)),
        "carry_only": (lambda c, xs: lax.scan(lambda c, x: (c, jnp.sin(x)), c, xs), (c0, xs)),
        "mixed": (lambda c, xs: lax.scan(lambda c, x: ((c[0], c[1] + x), (x, c[0])), (c, c),
                                         xs), (c0, xs)),
        "reverse": (lambda c, xs: lax.scan(lambda c, x: (c, (x, c * x)), c, xs,
                                           reverse=True), (c0, xs)),
        "vmap": (jax.vmap(lambda c, xs: lax.scan(lambda c, x: (c, x * c), c, xs),
                          (0, None)), (np.ones(2, np.float32), xs)),
        "grad": (jax.grad(lambda c, xs: jnp.sum(lax.scan(lambda c, x: (c, x * c), c, xs)[1])),
                 (c0, xs)),
        # while_loop's forwarded carry goes in front of the body's closed-over consts
        "while": (lambda c, d: lax.while_loop(lambda s: s[0] < 5.0,
                                              lambda s: (s[0] + s[1] * w, s[1]), (c, d)),
                  (1.0, 2.0)),
    }


def u2(jax, jnp, lax, P, Mesh, shard_map, body):
    """s15047-121: shard_map(jvp) of a scan whose carry is forwarded (or, with -c, not)."""
    mesh = Mesh(np.array(jax.devices()[:2]), "d")
    x = jnp.arange(6.0, dtype=np.float32).reshape(2, 3) / 6
    t = np.full((1, 3), 0.7, np.float32)
    f = lambda x: lax.scan(body, x, x)  # noqa: E731
    return shard_map(lambda y: jax.jvp(f, (y,), (t,))[1], mesh=mesh, in_specs=P("d"),
                     out_specs=P("d"))(x)


def s1(jax, jnp, lax, P, Mesh, NamedSharding):
    """s14001-212: the ys forwarded from xs keep xs's split."""
    mesh = Mesh(np.array(jax.devices()[:2]), "d")
    x0 = jax.device_put(jnp.arange(2.0, dtype=np.float32), NamedSharding(mesh, P("d")))
    x1 = jax.device_put(jnp.arange(4.0, dtype=np.float32).reshape(2, 2),
                        NamedSharding(mesh, P("d")))
    return jax.jit(jax.vmap(
        lambda x0, x1: jnp.hypot(lax.scan(lambda c, x: (c, x), x0, x1)[1], x0),
        (-1, -1)))(x0, x1)


def main():
    # imported here: the test imports this module's programs under minijax
    import jax
    import jax.numpy as jnp
    from jax import lax, shard_map
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    out = {"jax_version": jax.__version__, "jaxprs": {}, "values": {}}
    for name, (fn, args) in programs(jax, jnp, lax).items():
        out["jaxprs"][name] = str(jax.make_jaxpr(fn)(*args))
        out["values"][name] = [np.asarray(v).tolist() for v in jax.tree.leaves(fn(*args))]
    carry_t, ys_t = u2(jax, jnp, lax, P, Mesh, shard_map, lambda c, x: (c, jnp.sin(x)))
    out["u2"] = {"carry_t": np.asarray(carry_t).tolist(), "ys_t": np.asarray(ys_t).tolist()}
    try:
        u2(jax, jnp, lax, P, Mesh, shard_map, lambda c, x: (-c, jnp.sin(x)))
    except ValueError as e:
        out["u2_negated_error"] = str(e).split(". ")[0]
    r = s1(jax, jnp, lax, P, Mesh, NamedSharding)
    out["s1"] = {"spec": str(r.sharding.spec), "value": np.asarray(r).tolist()}
    r = lax.scan(lambda c, x: (c, x), 0.0, np.arange(3.0))
    out["eager_types"] = [type(r[0]).__name__, str(r[1].dtype)]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
