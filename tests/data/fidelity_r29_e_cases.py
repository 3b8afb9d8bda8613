"""Cases of tests/test_fidelity_r29_e.py: the Array API of typed PRNG key arrays
(``random.key``, ``random.split``; FINDINGS 285): placement and buffer methods (forwarded to the
key data), the sharding and aval without the key dimensions (on one device, on a 2-device mesh
placed by ``device_put`` and under ``set_mesh``), shards holding keys, and the shape methods
(``T``, ``ravel``, ``squeeze``, ``take`` ...), with JAX's errors where it refuses (the numeric
methods JAX leaves abstract). Each is an expression over SETUP's names giving a JSON-able
outcome: ``str`` of the value, or an error's type and first line. Recorded with 8 host CPU devices (as tests/conftest.py gives).
"""

SETUP = """
NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
k = jax.random.key(0)
ks = jax.random.split(k, 4)
kr = jax.random.key(1, impl="rbg")
kp = jax.random.split(jax.random.key(2, impl="philox2x32"), (1, 3))
mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2])
placed = jax.device_put(ks, NamedSharding(mesh, P("x")))
replicated = jax.device_put(ks, NamedSharding(mesh, P()))
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return str(out)
def deleted(attr):
    d = jax.random.split(jax.random.key(3), 2)
    d.delete()
    return [d.is_deleted(), outcome(lambda: getattr(d, attr))]
def under_mesh(thunk):
    with jax.set_mesh(mesh):
        return outcome(thunk)
def shards(x):
    return [(str(s.device), str(s.index), s.replica_id, type(s.data).__name__, str(s.data))
            for s in x.addressable_shards]
"""

_EACH = [
    "x.sharding", "x.devices()", "x.device", "x.is_fully_addressable", "x.is_fully_replicated",
    "x.committed", "x.block_until_ready() is x", "shards(x)",
    "[s.index for s in x.global_shards]", "x.addressable_data(0)", "x.itemsize", "x.nbytes",
    "x.aval", "repr(x.aval)", "x.weak_type", "x.format", "x.is_deleted()", "x.T", "x.ravel()",
    "x.flatten()", "x.squeeze()", "x.transpose()", "x.copy()", "x.copy().committed",
    "x.copy_to_host_async()", "type(x.unsafe_buffer_pointer()).__name__",
    "x.on_device_size_in_bytes()", "len(jax.tree.leaves(x))", "np.asarray(x)", "bool(x)",
    "len(x)", "list(x)", "x[::2]", "x[..., None]", "x.reshape(-1, 1)",
    "x.take(jnp.array([0, 5]))", "x.swapaxes(0, -1)", "type(jax.device_put(x)).__name__",
    "jax.device_put(x).committed", "jax.device_put(x, jax.devices()[1]).committed",
    "jax.device_put(x, jax.devices()[1]).device", "type(jax.device_get(x)).__name__",
    "x.astype(jnp.uint32)", "x.view(jnp.uint32)", "x.item()", "x.sum()", "x.argsort()",
    "x.real", "x.mT", "x.tolist()", "x.tobytes()",
]

CASES = []
for _name in ["k", "ks", "kr", "kp"]:
    CASES += [f"outcome(lambda x={_name}: {_e})" for _e in _EACH]
CASES += [
    "outcome(lambda: kp.squeeze(0))",
    "outcome(lambda: kp.squeeze(-1))",
    "outcome(lambda: kp.transpose(1, 0))",
    "outcome(lambda: kp.T)",
    "outcome(lambda: kp.take(jnp.array([2, 0]), axis=-1))",
    "outcome(lambda: ks[9, 0])",
    "outcome(lambda: ks.reshape(2, 2))",
    "outcome(lambda: ks.reshape((1, 4)).shape)",
    # on a 2-device mesh
    "outcome(lambda: placed.sharding)",
    "outcome(lambda: placed.aval)",
    "outcome(lambda: placed.is_fully_replicated)",
    "outcome(lambda: placed.committed)",
    "outcome(lambda: sorted(map(str, placed.devices())))",
    "outcome(lambda: shards(placed))",
    "outcome(lambda: placed.addressable_data(1))",
    "outcome(lambda: placed.on_device_size_in_bytes())",
    "outcome(lambda: placed.block_until_ready() is placed)",
    "outcome(lambda: placed.reshape(2, 2).sharding)",
    "outcome(lambda: placed.T.sharding)",
    "outcome(lambda: replicated.sharding)",
    "outcome(lambda: replicated.is_fully_replicated)",
    "outcome(lambda: [s.replica_id for s in replicated.global_shards])",
    "outcome(lambda: jax.device_put(k, NamedSharding(mesh, P())).sharding)",
    "under_mesh(lambda: jax.random.key(0).sharding)",
    "under_mesh(lambda: jax.random.split(jax.random.key(0), 4).sharding)",
    "under_mesh(lambda: jax.random.key(0).committed)",
    "under_mesh(lambda: jax.random.key(0).is_fully_replicated)",
    "under_mesh(lambda: shards(jax.random.key(0)))",
    # deleted keys
    "deleted('shape')",
    "deleted('sharding')",
]
