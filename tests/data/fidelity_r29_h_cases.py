"""Cases of tests/test_fidelity_r29_h.py: the Array API's answers that JAX 0.10.2 gives (the
recorder, with 8 virtual CPU devices) and minijax must give: a multi-device Array's ``.device``
(its sharding), ``Shard``'s repr (with ``data``), a deleted Array's errors, jnp.reshape's errors
(the target's size, the shape as spelled), ``device_get``'s result types (a new key array) and
whether ``device_put`` returns its input itself. Each is an expression over SETUP's names
giving a JSON-able outcome.
"""

SETUP = """
NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e)]
    try:
        shown = repr(out) if isinstance(out, str) else str(out)
    except Exception as e:  # an Array that was handed back deleted
        shown = f"unprintable: {type(e).__name__}: {e}"
    return ["ok", type(out).__name__.replace("ArrayImpl", "Array"), shown]
mesh = jax.make_mesh((4,), ("x",))
split = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("x")))
repl = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P()))
def deleted(make=lambda: jnp.arange(3.0)):
    x = make()
    x.delete()
    return x
def kind(v):
    return type(v).__name__.replace("ArrayImpl", "Array")
def got(tree):
    return [kind(v) for v in jax.tree_util.tree_leaves(jax.device_get(tree))]
def key_got(k):
    g = jax.device_get(k)
    return [kind(g), g is k, str(g.dtype), list(g.shape), g.committed,
            np.asarray(jax.random.key_data(g)).tolist() == np.asarray(jax.random.key_data(k)).tolist()]
dev0, dev1 = jax.devices()[:2]
def on(d):
    return jax.device_put(jnp.arange(3.0), d)
"""

CASES = [
    "outcome(lambda: split.device)",
    "outcome(lambda: repl.device)",
    "split.device == split.sharding",
    "outcome(lambda: jnp.arange(3.0).device)",
    "repr(split.addressable_shards[0])",
    "repr(repl.addressable_shards[1])",
    "repr(jnp.arange(3).addressable_shards[0])",
    "repr(jnp.ones((2, 2)).addressable_shards[0])",
    "repr(jnp.float32(3).addressable_shards[0])",
] + [
    f"outcome(lambda: {src})"
    for src in ("deleted() + 1", "np.asarray(deleted())", "deleted().block_until_ready()",
                "repr(deleted())", "str(deleted())", "deleted().sharding",
                "jax.jit(lambda a: a * 2)(deleted())", "deleted().copy()", "deleted().device",
                "deleted().devices()", "deleted()[0]", "float(deleted(lambda: jnp.float32(2)))",
                "deleted().tolist()", "jnp.sin(deleted())", "jax.device_get(deleted())",
                "jax.device_put(deleted())", "jax.device_put(deleted(), dev0)",
                "deleted().addressable_shards", "deleted().is_deleted()",
                "repr(deleted(lambda: jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P('x')))))",
                "deleted(lambda: jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P('x')))) + 1",
                "jnp.reshape(jnp.ones(6), (4, 2))", "jnp.ones(6).reshape(5)",
                "jnp.ones(6).reshape(4, 2)", "jnp.ones(6).reshape((5,))",
                "jnp.reshape(jnp.ones(6), [4, 2])", "jnp.reshape(jnp.ones(6), np.array([4, 2]))",
                "jnp.ones(6).reshape(-1, 4)", "jnp.ones(6).reshape((4, -1))",
                "jnp.ones(6).reshape(-1, -1)", "jnp.ones(6).reshape(2, -1, -1)",
                "jnp.reshape(jnp.ones(6), [-1, -1])", "jnp.ones((2, 3)).reshape(7)",
                "jnp.ones(6).reshape(-2, 3)", "jnp.ones(6).reshape(-1, -2)",
                "jnp.ones(6).reshape(5, order='F')", "jnp.reshape(jnp.ones(0), (-1, 0))",
                "jax.jit(lambda a: a.reshape(5))(jnp.ones(6))",
                "jax.random.split(jax.random.key(0), 6).reshape(4)",
                "jax.random.split(jax.random.key(0), 6).reshape(-1, 4)",
                "jax.lax.reshape(jnp.ones(6), (-2, -3))")
] + [
    "key_got(jax.random.key(0))",
    "key_got(jax.random.split(jax.random.key(0), 3))",
    "key_got(jax.random.key(0, impl='rbg'))",
    "got(jnp.arange(3))",
    "got([jnp.float32(2), 3, 3.0, True, np.float32(2), np.int64(1), np.ones(2), None])",
    "got({'a': jnp.ones(2), 'b': (jnp.ones(2, jnp.bfloat16), split)})",
    "got(jax.random.PRNGKey(0))",
    "[kind(v) for v in jax.device_get([jax.random.key(0), 1.0])]",
    "(lambda a: jax.device_get(a) is a)(np.ones(2))",
    # does device_put give back its input itself?
    "(lambda c: [jax.device_put(c, dev0) is c, jax.device_put(c, c.sharding) is c, "
    "jax.device_put(c) is c, jax.device_put([c], dev0)[0] is c, "
    "jax.device_put(c, may_alias=True) is c, jax.device_put(c, dev0, may_alias=True) is c, "
    "jax.device_put(c, may_alias=False) is c, jax.device_put(c, donate=True) is c, c.is_deleted()])"
    "(on(dev0))",
    "(lambda c: [jax.device_put(c, dev1) is c, jax.device_put(c, dev0) is c])(on(dev1))",
    "(lambda u: [u.committed, jax.device_put(u) is u, jax.device_put(u, dev0) is u, "
    "jax.device_put(u, u.sharding) is u])(jnp.arange(3.0))",
    "(lambda h: [h.sharding.memory_kind, jax.device_put(h, jax.memory.Space.Host) is h, "
    "jax.device_put(h, jax.memory.Space.Device) is h])"
    "(jax.device_put(jnp.arange(3.0), jax.memory.Space.Host))",
    "(lambda d: [d.committed, jax.device_put(d, jax.memory.Space.Device) is d])"
    "(jax.device_put(jnp.arange(3.0), jax.memory.Space.Device))",
    "[jax.device_put(split, split.sharding) is split, "
    "jax.device_put(split, NamedSharding(mesh, P('x'))) is split, jax.device_put(split) is split]",
    "(lambda k: jax.device_put(k, dev0) is k)(jax.random.key(0))",
    "(lambda c: (lambda y: (c.delete(), y.is_deleted())[1])(jax.device_put(c, dev0)))(on(dev0))",
    "(lambda c: [jax.device_put(c, dev0).committed, str(jax.device_put(c, dev0).sharding)])"
    "(jnp.arange(3.0))",
]
