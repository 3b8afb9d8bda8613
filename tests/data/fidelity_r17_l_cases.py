"""Cases shared by tests/test_fidelity_r17_l.py and its recorder (run 20000, helper l)."""
import numpy as np

SETUP = """
x = jnp.arange(24., dtype=jnp.float32).reshape(2, 3, 4)
"""

# vmap of transpose: JAX's batching rule puts the batch axis first inside the one transpose.
JAXPRS = [
    "jax.make_jaxpr(jax.vmap(jnp.transpose, in_axes=-1))(x)",
    "jax.make_jaxpr(jax.vmap(lambda a: jnp.transpose(a, (1, 0)), in_axes=1))(x)",
    "jax.make_jaxpr(jax.vmap(jnp.transpose, in_axes=2, out_axes=2))(x)",
    "jax.make_jaxpr(jax.vmap(jax.vmap(jnp.transpose, in_axes=1), in_axes=0))(x)",
]


def _spec(leaf):
    spec = [None if s is None else str(s) for s in leaf.sharding.spec]
    while spec and spec[-1] is None:
        spec.pop()
    return spec


def s20026_654(jax, jnp):
    """Case s20026-654: jit(vmap(f, (-1, -1))) on a replicated f16[3,3,2] and an index vector
    split over 'd'; f returns (t[k], t) for t = x.T. Each output's spec, shape and values."""
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
    x = jax.device_put(jnp.arange(18, dtype=jnp.float16).reshape(3, 3, 2),
                       jax.NamedSharding(mesh, jax.P()))
    k = jax.device_put(jnp.array([2, 1], jnp.int32), jax.NamedSharding(mesh, jax.P("d")))

    def f(a, i):
        t = jnp.transpose(a)
        return t[i], t
    out = jax.jit(jax.vmap(f, (-1, -1)))(x, k)
    return [[_spec(leaf), list(leaf.shape), np.asarray(leaf, np.float64).tolist()]
            for leaf in out]
