"""Cases of tests/test_fidelity_r25_d.py, and their recorder (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r25_d.py \
        > tests/data/fidelity_r25_d_jax.json

Each source is evaluated with ``jax``, ``jnp``, ``np`` and SETUP's names in scope; its outcome is
its result leaves (dtype, weak type, values; float0 by shape) or its error (type, message).
"""

SETUP = """
lax = jax.lax
x = jnp.array([[1.5, 2.], [3., 4.]])
t = jnp.array([[1., 0.5], [2., 1.]])
xi = jnp.array([[1, 2], [3, 4]], jnp.int32)
dn = (((1,), (0,)), ((), ()))
dot_i = lambda a, b: lax.dot_general(a, b, dn, preferred_element_type=jnp.int32)
J = lambda g: jax.jvp(g, (x,), (t,))
f0 = np.zeros((2, 2), jax.dtypes.float0)
V = lambda g, ct: jax.vjp(g, x)[1](ct)
dev = jax.devices()[0]
host = jax.sharding.SingleDeviceSharding(dev, memory_kind="pinned_host")
xh = jax.device_put(x, host)
where = lambda r: [r, str(r.sharding), r.committed, str(jax.typeof(r))]

def cjvp(rule, f=lambda c: c):
    f = jax.custom_jvp(f)
    f.defjvp(rule)
    return f

same = cjvp(lambda p, t: (p[0], t[0]))
float0_out = cjvp(lambda p, t: (p[0], np.zeros(p[0].shape, jax.dtypes.float0)))
int_out = cjvp(lambda p, t: (p[0], t[0].astype(jnp.int32)))
pair = cjvp(lambda p, t: ((p[0], p[0]), (t[0].astype(jnp.int32), t[0])), lambda c: (c, c))
"""

OUTCOMES = [
    # 1. an integer tangent (a dot's with an integer preferred_element_type) beside an integer
    # operand without one: concatenate/pad/dynamic_update_slice meet its float0 zeros
    "J(lambda a: lax.concatenate([dot_i(a, x), xi], 0))",
    "J(lambda a: lax.concatenate([xi, dot_i(a, x)], 1))",
    "J(lambda a: lax.concatenate([dot_i(a, x), dot_i(a, x)], 1))",
    "J(lambda a: lax.pad(dot_i(a, x), jnp.int32(7), [(1, 1, 0), (0, 0, 0)]))",
    "J(lambda a: lax.pad(xi, dot_i(a, x)[0, 0], [(1, 1, 0), (0, 0, 0)]))",
    "J(lambda a: lax.pad(dot_i(a, x), dot_i(a, x)[0, 0], [(1, 1, 0), (0, 0, 0)]))",
    "J(lambda a: lax.dynamic_update_slice(xi, dot_i(a, x)[:1], (0, 0)))",
    "J(lambda a: lax.dynamic_update_slice(dot_i(a, x), xi[:1], (0, 0)))",
    "J(lambda a: lax.dynamic_update_slice(x, a[:1], (dot_i(a, x)[0, 0], 0)))",
    # select_n: a case without a tangent gets zeros of the tangent's type; `which` is fixed
    "J(lambda a: lax.select_n(xi > 2, dot_i(a, x), xi))",
    "J(lambda a: lax.select_n(xi > 2, xi, dot_i(a, x)))",
    "J(lambda a: lax.select_n(xi > 2, dot_i(a, x), dot_i(a, x)))",
    "J(lambda a: lax.select_n(True, dot_i(a, x), xi))",
    "J(lambda a: lax.select_n(dot_i(a, x), xi, xi * 2))",
    "J(lambda a: lax.select_n(xi > 2, a, x))",
    # 2. a float0 cotangent reaching the dot's transpose: JAX's dot_general dtype rule asserts
    "V(lambda a: dot_i(a, x), f0)",
    "jax.make_jaxpr(lambda c: V(lambda a: dot_i(a, x), c))(f0)",
    "jax.jit(lambda c: V(lambda a: dot_i(a, x), c))(f0)",
    "V(lambda a: (dot_i(a, x), dot_i(a, x).astype(jnp.float32)), (f0, x))",
    "V(lambda a: dot_i(a, x), xi)",
    "V(lambda a: lax.neg(dot_i(a, x)), f0)",
    "lax.dot_general(f0, x, dn)",
    # a scan/fori_loop carry given such a tangent: JAX runs the scan as a while loop whose JVP
    # body types the tangent float0 (unless the body forwards the carry); under jit it is dead
    "J(lambda a: lax.scan(lambda c, _: (lax.neg(c), None), dot_i(a, x), None, length=2)[0])",
    "J(lambda a: lax.scan(lambda c, _: ((c[0] * 2., lax.neg(c[1])), None), (a, dot_i(a, x)), "
    "None, length=2)[0])",
    "J(lambda a: lax.fori_loop(0, 2, lambda i, c: lax.neg(c), dot_i(a, x)))",
    "J(lambda a: lax.fori_loop(0, jnp.int32(2), lambda i, c: c * 2, dot_i(a, x)))",
    "J(lambda a: lax.scan(lambda c, _: (c, c), dot_i(a, x), None, length=2))",
    "J(lambda a: lax.scan(lambda c, xx: (c + xx.sum(), xx), 0, dot_i(a, x)))",
    "J(jax.jit(lambda a: lax.scan(lambda c, _: (c * 2, None), dot_i(a, x), None, length=2)[0]))",
    # custom_jvp: a rule's tangent output must have its primal's tangent type (float0 for an
    # integer output), JAX's message
    "J(lambda a: jax.nn.relu(dot_i(a, x)))",
    "J(lambda a: same(dot_i(a, x)))",
    "J(lambda a: float0_out(dot_i(a, x)))",
    "J(lambda a: int_out(a))",
    "J(lambda a: pair(a))",
    "J(lambda a: int_out(a.astype(jnp.int32)))",
    # 4. device_put's targets
    "jax.device_put(x, dev.memory('pinned_host'))",
    "jax.device_put(np.ones(2), dev.memory('device'))",
    "jax.device_put([x], [dev.memory('pinned_host')])",
    "jax.jit(lambda a: jax.device_put(a, dev.memory('pinned_host')))(x)",
    "jax.device_put(x, 'pinned_host')",
    "jax.device_put(x, 3)",
    "jax.device_put(x, dev)",
    # 3. lax.full_like of a concrete committed prototype (not weakly typed): its sharding, so a
    # host-memory one meets jaxlib's refusal of a device-memory buffer
    "lax.full_like(xh, 2.)",
    "lax.full_like(xh, 2, jnp.int32)",
    "lax.full_like(xh, 2., shape=(2,))",
    "lax.full_like(jax.device_put(jnp.float32(1.), host), 2.)",
    "where(lax.full_like(jax.device_put(x, dev), 2.))",
    "where(lax.full_like(jax.device_put(x, dev), 2., shape=(3,)))",
    "where(lax.full_like(x, 2.))",
    "where(lax.full_like(jax.device_put(1.0, host), 2.))",
    "where(lax.full_like(np.ones(2), 2.))",
    "where(jax.jit(lambda a: lax.full_like(a, 2.))(xh))",
    "jnp.ones_like(xh)",
    "where(jnp.zeros_like(jax.device_put(x, dev), shape=(1,)))",
    "where(jnp.full_like(jax.device_put(x, dev), np.ones(2)))",
]

# printed jaxprs of select_n's JVP (one zeros array for every case without a tangent)
JAXPRS = [
    "jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: lax.select_n(xi[0], a[0], 2.0 * x[0], "
    "x[1]), (a,), (b,)))(x, t)",
    "jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: lax.select_n(xi[0], x[0], a[0], a[1] * 3), "
    "(a,), (b,)))(x, t)",
    "jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: lax.select_n(True, a[0, 0], 2.0), "
    "(a,), (b,)))(x, t)",
    # concatenate's transpose: one split into every operand's piece
    "jax.make_jaxpr(jax.grad(lambda a, b: lax.concatenate([a, x, b, a], 1).sum(), "
    "argnums=(0, 1)))(x, t[:, :1])",
    "jax.make_jaxpr(lambda a: jax.linear_transpose(lambda a: lax.concatenate([a, a], 0), a)"
    "(jnp.ones((4, 2))))(x)",
]


def leaf(jax, x):
    """dtype, weak type and values (none for float0) of one result leaf."""
    import numpy as np
    if not hasattr(x, "dtype"):  # a placement's description (a string, a bool)
        return x
    if x.dtype == jax.dtypes.float0:
        return ["float0", list(np.shape(x))]
    return [str(x.dtype), bool(getattr(x, "weak_type", False)), np.asarray(x).tolist()]


def outcome(jax, src, env):
    try:
        out = eval(src, env)
    except Exception as e:  # noqa: BLE001 - the error is the recorded outcome
        # the whole message, less minijax's user line (``  at file:line``) where it adds one
        return [type(e).__name__, str(e).split("\n  at ")[0]]
    if hasattr(out, "eqns"):  # a ClosedJaxpr
        return ["jaxpr", str(out)]
    return ["value", jax.tree.map(lambda v: leaf(jax, v), out)]


if __name__ == "__main__":
    import json

    import jax
    import jax.numpy as jnp
    import numpy as np

    env = {"jax": jax, "jnp": jnp, "np": np}
    exec(SETUP, env)
    print(json.dumps({
        "jax_version": jax.__version__,
        "outcomes": [[src, outcome(jax, src, env)] for src in OUTCOMES],
        "jaxprs": [[src, str(eval(src, env))] for src in JAXPRS],
    }, indent=1))
