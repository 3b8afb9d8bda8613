"""Cases of tests/test_fidelity_r22_c.py, recorded from JAX 0.10.2 by
tests/data/record_fidelity_r22_c.py. SETUP runs in both; each case is an expression whose
value ``outcome(lambda: ...)`` makes: the result's type name, repr, type (``aval``) and, for
an Array, memory kind and commitment, or the exception's type and message."""

SETUP = '''
NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
SingleDeviceSharding = jax.sharding.SingleDeviceSharding


def describe(r):
    if isinstance(r, (tuple, list)):
        return [describe(x) for x in r]
    out = [type(r).__name__, repr(r), str(getattr(r, "aval", None))]
    if isinstance(r, jax.Array):
        out += [r.sharding.memory_kind, r.committed]
    return out


def outcome(f):
    try:
        return describe(f())
    except Exception as e:
        return ["raises", type(e).__name__, str(e)]


dev = jax.devices()[0]
host = SingleDeviceSharding(dev, memory_kind="pinned_host")
nhost = NamedSharding(jax.make_mesh((1,), ("x",)), P(), memory_kind="pinned_host")
f0 = jax.grad(lambda x, y: x * y, argnums=(0, 1), allow_int=True)(1, 2.0)[0]
z3 = np.zeros(3, jax.dtypes.float0)
x = jnp.arange(4.0)
xh = jax.device_put(np.arange(4.0, dtype=np.float32), host)
mh = jax.device_put(np.arange(16.0, dtype=np.float32).reshape(4, 4), host)
sh = jax.device_put(np.float32(2.0), host)
wh = jax.device_put(2.0, host)
'''

# float0 values: JAX's TypedNdArray, its attributes, and what putting one on a device gives
FLOAT0 = [
    "outcome(lambda: f0)",
    "outcome(lambda: [f0.weak_type, sorted(set(dir(f0)) - set(dir(np.zeros(1))))])",
    "outcome(lambda: jnp.asarray(f0))",
    "outcome(lambda: jnp.array(z3))",
    "outcome(lambda: jnp.array(z3, ndmin=2))",
    "outcome(lambda: jax.device_put(z3))",
    "outcome(lambda: jax.device_put(f0, dev))",
    "outcome(lambda: jax.device_put(z3, host))",
    "outcome(lambda: jax.device_put(z3, nhost))",
    "outcome(lambda: jnp.zeros_like(z3))",
    "outcome(lambda: jnp.asarray(z3) is z3)",
    "outcome(lambda: jax.jit(lambda a: a)(z3))",
    "outcome(lambda: jax.jvp(lambda a: a * 2, (3,), (np.zeros((), jax.dtypes.float0),))[1])",
    "outcome(lambda: jax.vjp(lambda a: a * 2, np.arange(3))[1](np.zeros(3, jax.dtypes.float0)))",
    "outcome(lambda: jnp.asarray([z3, z3]))",
    "outcome(lambda: jnp.stack([f0, f0]))",
    "outcome(lambda: jnp.result_type(z3, z3))",
    "outcome(lambda: jnp.result_type(z3, 1.0))",
    "outcome(lambda: np.zeros(2, jax.dtypes.float0).view(type(f0)))",
]

# memory kinds: jit's in_shardings, JAX's functions mixing device constants with host values,
# *_like of a host value
MEMORY = [
    "outcome(lambda: jax.jit(lambda a: a * 2, in_shardings=host)(x))",
    "outcome(lambda: jax.jit(lambda a: a * 2, in_shardings=nhost)(x))",
    "outcome(lambda: jax.jit(lambda a: a * 2, in_shardings=host).lower(x))",
    "outcome(lambda: jax.jit(lambda a: a * 2, in_shardings=host)(jax.device_put(x, dev)))",
    "outcome(lambda: jax.jit(lambda a: a * 2, in_shardings=host)(np.arange(4.0)))",
    "outcome(lambda: jax.jit(lambda a: a * 2, in_shardings=host)(xh))",
    "outcome(lambda: jax.jit(lambda a: a * 2, in_shardings=host)(2.0))",
    "outcome(lambda: jax.jit(jnp.argmax)(xh))",
    "outcome(lambda: jnp.argmin(xh))",
    "outcome(lambda: str(jax.make_jaxpr(jnp.argmax)(xh)))",
    "outcome(lambda: jax.jit(jax.nn.softmax)(xh))",
    "outcome(lambda: jax.nn.log_softmax(xh))",
    "outcome(lambda: jax.jit(jax.lax.linalg.qr)(mh))",
    "outcome(lambda: jnp.linalg.qr(mh))",
    "outcome(lambda: jnp.ones_like(xh))",
    "outcome(lambda: jnp.zeros_like(xh, shape=(2,)))",
    "outcome(lambda: jnp.full_like(sh, 3.0))",
    "outcome(lambda: jnp.ones_like(wh))",
    "outcome(lambda: jax.jit(jnp.ones_like)(xh))",
    "outcome(lambda: jnp.array([sh, sh]))",
]
