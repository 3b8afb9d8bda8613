"""Cases of tests/test_fidelity_r20_p.py (run 24000, tools/difftest/triage_24000_p.md): each
is evaluated under JAX 0.10.2 by record_fidelity_r20_p.py and under minijax by the test, with
``jax``, ``jnp``, ``lax`` and ``np`` bound and SETUP run first (two devices)."""
import numpy as np

SETUP = '''
mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
u8 = jax.device_put(np.array([[2, 0, 1], [0, 1, 2]], np.uint8), jax.NamedSharding(mesh, jax.P("d")))
b2 = jax.device_put(np.ones((2, 3), bool), jax.NamedSharding(mesh, jax.P("d")))
x0 = jax.device_put(np.zeros((3, 2), np.float32), jax.NamedSharding(mesh, jax.P()))
w = jnp.broadcast_to(jnp.asarray(0.5), (3,))
t = np.float32(0.7)


def conv(a, b, **kw):
    return lax.conv_general_dilated(a[None, None], b[None, None], (1,), "VALID", **kw)


def shmap(f, *specs):
    return jax.shard_map(f, mesh=mesh, in_specs=specs, out_specs=jax.P())


@jax.custom_jvp
def cj_sin2(x):
    return jnp.sin(x)


@cj_sin2.defjvp
def _cj_sin2_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return jnp.sin(x), 2.0 * jnp.cos(x) * t
'''

CASES = [
    # p1 (s24016-190): signbit of unsigned ints is x < 0, sharded as x
    "jax.jit(jax.vmap(lambda a, b: (a.at[b].max(b), jnp.signbit(b))[1], (-1, 0)))(x0, u8)",
    "jax.jit(jnp.signbit)(u8)",
    "jax.jit(jnp.signbit)(b2)",
    "jnp.signbit(np.array([0, 3, 255], np.uint8))",
    # p2 (s24041-71): a convolution of weak operands is weak
    "conv(w, w)",
    "conv(w, jnp.ones(3))",
    "conv(w, w, preferred_element_type=jnp.float32)",
    "jax.vjp(lambda x: jnp.convolve(jnp.broadcast_to(x, (2,)), jnp.broadcast_to(x, (2,)),"
    " mode='valid'), 0.5)[0]",
    "jax.grad(lambda a: conv(a, w).sum())(w)",
    # p3 (s24051-96): eager shard_map results have the traced body's weak types
    "shmap(lambda x: jax.jvp(jnp.sin, (x,), (t,)), jax.P())(0.0)",
    "shmap(lambda x: jax.jvp(lambda x: x * 2, (x,), (t,)), jax.P())(0.0)",
    "shmap(lambda y, x: jax.jvp(jnp.reciprocal, (x,), (t,)), jax.P('d'), jax.P())"
    "(jnp.ones(2), 0.0)",
    # p4 (s24057-240): a JVP below another transformation types a jnp call's tangent weak
    "jax.jit(lambda x: jax.jvp(lambda x: jax.vjp(lambda x: x + cj_sin2(x), x)[0], (x,), (t,)))"
    "(0.1)",
    "jax.jit(lambda x: jax.jvp(lambda x: jax.vjp(jnp.sin, x)[0], (x,), (t,)))(0.1)",
    "jax.jit(lambda x: jax.jvp(jax.grad(jnp.sin), (x,), (t,)))(0.1)",
    "jax.jit(lambda x: jax.jvp(jax.vmap(jnp.sin), (jnp.broadcast_to(x, (2,)),),"
    " (np.ones(2, np.float32),)))(0.1)",
]


def describe(value, leaves):
    """Each leaf's dtype, weak type, shape, sharding (a NamedSharding's spec entries, else its
    type's name) and values (as text: NaN and infinities compare)."""
    out = []
    for x in leaves(value):
        s = x.sharding
        sharding = ([None if e is None else str(e) for e in s.spec] if hasattr(s, "spec")
                    else type(s).__name__)
        out.append([str(x.dtype), bool(x.weak_type), list(x.shape), sharding,
                    str(np.asarray(x).tolist())])
    return out
