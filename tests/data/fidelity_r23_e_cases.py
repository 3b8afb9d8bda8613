"""Cases for tests/test_fidelity_r23_e.py, recorded from JAX 0.10.2 by
tests/data/record_fidelity_r23_e.py. Each source is evaluated with ``jax``, ``jnp``, ``lax``,
``np`` and SETUP's names in scope."""

SETUP = """
lax = jax.lax
x = jnp.array([[1.5, 2.], [3., 4.]])
t = jnp.array([[1., 0.5], [2., 1.]])
xi = jnp.array([[1, 2], [3, 4]], jnp.int32)
dn = (((1,), (0,)), ((), ()))
dot_i = lambda a, b: lax.dot_general(a, b, dn, preferred_element_type=jnp.int32)
host = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
h = lambda v: jax.device_put(v, host)
A = jnp.eye(2) * 2 + 1
A3 = jnp.stack([A] * 4)

def conv(ind, pref):
    a, b = jnp.ones((1, 1, 3, 3), ind), jnp.ones((1, 1, 2, 2), ind)
    return lax.conv_general_dilated(a, b, (1, 1), "VALID", preferred_element_type=pref)
"""

# 1. A dot_general with an integer preferred_element_type: its JVP's integer tangent.
VALUES = [
    "jax.jvp(lambda a: dot_i(a, x), (x,), (t,))",
    "jax.jvp(dot_i, (x, x), (t, t))",
    "jax.jvp(lambda a: lax.dot_general(a, xi, dn, preferred_element_type=jnp.int32), (x,), (t,))",
    "jax.jvp(lambda a: lax.dot_general(a, x, dn, preferred_element_type=jnp.bool_), (x,), (t,))",
    "jax.jvp(lambda a: dot_i(a, xi), (xi,), (np.zeros((2, 2), jax.dtypes.float0),))",
    # consumers: lax ops carry it on, a jitted jnp function (``*``, ``sum``) drops it
    "jax.jvp(lambda a: dot_i(a, x) * 2, (x,), (t,))",
    "jax.jvp(lambda a: lax.mul(dot_i(a, x), 3).astype(jnp.float32), (x,), (t,))",
    "jax.jvp(lambda a: dot_i(a, x).astype(jnp.float32), (x,), (t,))",
    "jax.jvp(lambda a: jnp.sum(dot_i(a, x)).astype(jnp.float32), (x,), (t,))",
    "jax.jvp(lambda a: dot_i(a, x).reshape(4)[1:], (x,), (t,))",
    "jax.jvp(lambda a: -dot_i(a, x).T, (x,), (t,))",
    "jax.jvp(lambda a: jax.jit(dot_i)(a, x), (x,), (t,))",
    "jax.jvp(lambda a: jax.jit(lambda d: d + 1)(dot_i(a, x)), (x,), (t,))",
    "jax.jvp(lambda a: jnp.matmul(a, x, preferred_element_type=jnp.int32), (x,), (t,))",
    "jax.jvp(lambda a: jnp.einsum('ij,jk->ik', a, x, preferred_element_type=jnp.int32), (x,), (t,))",
    "jax.jit(lambda a, b: jax.jvp(lambda a: dot_i(a, x), (a,), (b,)))(x, t)",
    "jax.vmap(lambda a, b: jax.jvp(lambda a: dot_i(a, x), (a,), (b,)))(jnp.stack([x, x]), jnp.stack([t, 2 * t]))",
    "jax.jacfwd(lambda a: dot_i(a, x))(x)",
    # a linearization returns it, and transposes a cotangent of its type; consumers see a zero
    "jax.linearize(lambda a: dot_i(a, x), x)[1](t)",
    "jax.linearize(lambda a: dot_i(a, x).astype(jnp.float32), x)[1](t)",
    "jax.vjp(lambda a: dot_i(a, x), x)[1](xi)",
    "jax.grad(lambda a: dot_i(a, x).astype(jnp.float32).sum())(x)",
    "jax.jacrev(lambda a: dot_i(a, x).astype(jnp.float32))(x)",
    # the survey: integer results of float operands have float0 tangents
    "jax.jvp(lambda a: a.astype(jnp.int32), (x,), (t,))",
    "jax.jvp(lambda a: a.astype(jnp.int32).astype(jnp.float32), (x,), (t,))",
    "jax.jvp(jnp.round, (x,), (t,))",
    "jax.jvp(jnp.sign, (x,), (t,))",
    "jax.jvp(jnp.argmax, (x,), (t,))",
    "jax.jvp(lambda a: a < 2, (x,), (t,))",
    "jax.jvp(lambda a: lax.integer_pow(a, 2), (xi,), (np.zeros((2, 2), jax.dtypes.float0),))",
]

# Printed jaxprs: the integer tangent staged, and a scalar zero tangent as a literal.
JAXPRS = [
    "jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: (dot_i(a, x) * 3).astype(jnp.float32), (a,), (b,)))(x, t)",
    "jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: lax.mul(dot_i(a, x), 3).astype(jnp.float32), (a,), (b,)))(x, t)",
    "jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: jnp.sum(dot_i(a, x)).astype(jnp.float32), (a,), (b,)))(x, t)",
    "jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: lax.floor(a).sum(), (a,), (b,)))(x, t)",
    "jax.make_jaxpr(lambda a: jax.vmap(lambda a: jax.jvp(jnp.floor, (a,), (a,)))(a))(jnp.ones(3))",
    "jax.make_jaxpr(lambda a: jax.linearize(jnp.floor, a)[1](a))(jnp.float32(2.0))",
]

# 2. Errors (type name and first line): a convolution's preferred_element_type, and solves of
# host-memory operands (JAX names the primitive of its own implementation that meets them).
ERRORS = [
    *[f"conv({i!r}, {p!r})" for i, p in [
        ("float32", "int32"), ("int32", "uint32"), ("int32", "int16"), ("float32", "float16"),
        ("int8", "float32"), ("uint8", "int32"), ("bool", "int32"), ("float32", "complex64"),
        ("complex64", "float32"), ("bfloat16", "float32")]],
    "jnp.linalg.solve(h(A), jnp.ones(2))",
    "jnp.linalg.solve(A, h(jnp.ones((2, 3))))",
    "jnp.linalg.solve(h(A), h(jnp.ones(2)))",
    "jnp.linalg.solve(h(A3), jnp.ones((4, 2, 3)))",
    "jnp.linalg.solve(h(A3), h(jnp.ones((4, 2, 3))))",
    "jnp.linalg.solve(A3, jnp.ones((4, 2)))",
    "jnp.linalg.inv(h(A3))",
    "jax.jit(jnp.linalg.inv)(h(A))",
    "jax.scipy.linalg.solve(h(A), jnp.ones(2))",
]
