"""Records ``str(jax.make_jaxpr(fn)(*args))`` and a few equation params from real JAX for the
programs below, which tests/test_fidelity_r22_a.py runs through minijax (issue 21's jaxpr
structure: params JAX's primitives carry, primitive names, which equations are staged).

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_a.py   # writes fidelity_r22_a_jax.json

``programs`` takes the framework's modules, so the very same programs run under both."""

import json
import os

import numpy as np


def programs(jax, jnp, lax):
    x3 = np.linspace(-1.0, 1.0, 3, dtype=np.float32)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    idx = np.array([2, 0], np.int32)
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    at1 = np.array([[1]], np.int32)
    one = np.ones(1, np.float32)

    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x) * 3

    cj.defjvp(lambda p, t: (cj(p[0]), jnp.cos(p[0]) * t[0]))

    def f_fwd(x):
        return jnp.sin(x), jnp.cos(x)

    def f_bwd(r, g):
        return (r * g,)

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x)

    cv.defvjp(f_fwd, f_bwd)

    @jax.custom_vjp
    def cz(x):
        return jnp.sin(x)

    cz.defvjp(f_fwd, f_bwd, symbolic_zeros=True)

    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("i",))
    P = jax.sharding.PartitionSpec

    return {
        "reduce_sum": (lambda x: jnp.sum(x, 0), (m,)),
        "grad_sum": (jax.grad(lambda x: jnp.sum(x ** 2)), (x3,)),
        "reshape": (lambda x: x.reshape(3, 2), (m,)),
        "iota": (lambda x: x + jnp.arange(3.0), (x3,)),
        "eye": (lambda x: jnp.eye(3)[0] * x, (x3,)),
        "scatter": (lambda x: lax.scatter(x, at1, one, dn), (x3,)),
        "scatter_add": (lambda x: lax.scatter_add(x, at1, one, dn), (x3,)),
        "scatter_sub": (lambda x: lax.scatter_sub(x, at1, one, dn), (x3,)),
        "scatter_mul": (lambda x: lax.scatter_mul(x, at1, one, dn), (x3,)),
        "scatter_min": (lambda x: lax.scatter_min(x, at1, one, dn), (x3,)),
        "scatter_max": (lambda x: lax.scatter_max(x, at1, one, dn), (x3,)),
        "scatter_add_int": (lambda x: lax.scatter_add(x, at1, np.ones(1, np.int32), dn),
                            (np.arange(3, dtype=np.int32),)),
        "at_add_traced": (lambda x, i: x.at[i].add(5.0), (x3, np.int32(1))),
        "grad_gather": (jax.grad(lambda x, i: x[i].sum()), (x3, idx)),
        "take_fill_nan": (lambda x, i: jnp.take(x, i), (x3, idx)),
        "take_fill_int": (lambda x, i: jnp.take(x, i), (np.arange(3, dtype=np.int32), idx)),
        "custom_jvp": (lambda x: cj(x) + 1, (1.0,)),
        "grad_custom_jvp": (jax.grad(cj), (1.0,)),
        "vmap_custom_jvp": (jax.vmap(cj), (x3,)),
        "custom_vjp": (lambda x: cv(x) * 2, (1.0,)),
        "vmap_custom_vjp": (jax.vmap(cv), (x3,)),
        "custom_vjp_symbolic_zeros": (cz, (1.0,)),
        "relu": (jax.nn.relu, (1.0,)),
        "checkpoint": (jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))), (1.0,)),
        "grad_checkpoint": (jax.grad(jax.checkpoint(lambda x: jnp.sin(x) * x)), (1.0,)),
        "grad_cond": (jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)), (1.0,)),
        "grad_cond_vector": (jax.grad(lambda x: lax.cond(x.sum() > 0, jnp.sin, jnp.cos,
                                                         x).sum()), (x3,)),
        "conv": (lambda x: lax.conv_general_dilated(x, np.ones((3, 2, 3, 3), np.float32),
                                                    (1, 1), "SAME"),
                 (np.ones((1, 2, 5, 5), np.float32),)),
        "broadcast": (lambda x: jnp.broadcast_to(x, (4, 3)) + x[None], (x3,)),
        "dot": (lambda x: jnp.dot(x, x.T), (m,)),
        "matmul_vector": (lambda x: x @ x[0], (m,)),
        "matmul_batched": (lambda x: x @ jnp.swapaxes(x, 1, 2),
                           (np.ones((4, 2, 3), np.float32),)),
        "matmul_int": (lambda x: x @ x.T, (np.arange(6, dtype=np.int32).reshape(2, 3),)),
        "einsum": (lambda x: jnp.einsum("bij,bkj->bik", x, x), (np.ones((4, 2, 3), np.float32),)),
        "tensordot": (lambda x: jnp.tensordot(x, x, 2), (m,)),
        "grad_matmul": (jax.grad(lambda x: (x @ x.T).sum()), (m,)),
        "tile": (lambda x: jnp.tile(x, (2, 1, 2)), (m,)),
        "shard_map_psum": (jax.shard_map(lambda x: lax.psum(x, "i"), mesh=mesh, in_specs=P("i"),
                                         out_specs=P()), (x3,)),
        "sharding_constraint": (lambda x: lax.with_sharding_constraint(
            x, jax.sharding.NamedSharding(mesh, P())), (x3,)),
        "sharding_constraint_unconstrained": (lambda x: lax.with_sharding_constraint(
            x, jax.sharding.NamedSharding(mesh, P(P.UNCONSTRAINED))), (x3,)),
        "np_const_convert": (lambda x: x + lax.convert_element_type(np.ones(3, np.float32),
                                                                    np.float32), (x3,)),
    }


# Equations whose params (the keys JAX's eqn.params holds) the tests compare, by primitive
PARAMS_OF = ("reduce_sum", "reshape", "iota", "broadcast_in_dim", "scatter", "scatter-add",
             "scatter-sub", "scatter-mul", "scatter-min", "scatter-max", "remat2",
             "conv_general_dilated")


def eqn_params(closed):
    """[primitive name, sorted param names] of each top-level equation of ``PARAMS_OF``."""
    return [[e.primitive.name, sorted(e.params)] for e in closed.jaxpr.eqns
            if e.primitive.name in PARAMS_OF]


def main():
    import jax
    import jax.numpy as jnp
    from jax import lax

    progs = programs(jax, jnp, lax)
    cases, params = {}, {}
    for name, (fn, args) in progs.items():
        closed = jax.make_jaxpr(fn)(*args)
        cases[name] = str(closed)
        params[name] = eqn_params(closed)
    out = os.path.join(os.path.dirname(__file__), "fidelity_r22_a_jax.json")
    with open(out, "w") as fh:
        json.dump({"jax_version": jax.__version__, "cases": cases, "params": params}, fh,
                  indent=1)


if __name__ == "__main__":
    main()
