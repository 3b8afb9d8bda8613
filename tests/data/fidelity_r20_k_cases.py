"""Cases of tests/test_fidelity_r20_k.py: host memory kinds (``memory_kind="pinned_host"`` /
``"unpinned_host"``) on the CPU. Each case is an expression evaluated with jax (recorded by
record_fidelity_r20_k.py) or minijax; ``describe`` turns its outcome into JSON."""
import re

SETUP = """
NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
SingleDeviceSharding = jax.sharding.SingleDeviceSharding
make_single_device_sharding = jax.sharding.make_single_device_sharding
d = jax.devices()[0]
s = SingleDeviceSharding(d, memory_kind="pinned_host")
u = SingleDeviceSharding(d, memory_kind="unpinned_host")
mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
n = NamedSharding(mesh, P(), memory_kind="pinned_host")
x = jax.device_put(np.arange(4.0, dtype=np.float32), s)
y = jnp.arange(4.0)
c = np.ones(4, np.float32)
"""

CASES = [
    # the device's memories and the shardings
    "[m.kind for m in d.addressable_memories()]",
    "d.default_memory().kind",
    "repr(s)",
    "repr(SingleDeviceSharding(d))",
    "repr(s.with_memory_kind('device')), repr(s.with_memory_kind('unpinned_host'))",
    "s.memory_kind, SingleDeviceSharding(d).memory_kind, u.memory_kind",
    "s == SingleDeviceSharding(d), "
    "SingleDeviceSharding(d) == SingleDeviceSharding(d, memory_kind='device')",
    "hash(SingleDeviceSharding(d)) == hash(SingleDeviceSharding(d, memory_kind='device'))",
    "make_single_device_sharding(d, memory_kind='pinned_host').memory_kind",
    "SingleDeviceSharding(d, memory_kind='foo')",
    "SingleDeviceSharding(d, memory_kind='host')",
    "n.memory_kind, NamedSharding(mesh, P()).memory_kind, "
    "n.with_memory_kind('device').memory_kind",
    "n == NamedSharding(mesh, P()), "
    "NamedSharding(mesh, P()) == NamedSharding(mesh, P(), memory_kind='device')",
    "NamedSharding(mesh, P(), memory_kind='foo')",
    # device_put places the values there; they come back
    "x",
    "repr(x.sharding)",
    "repr(x.addressable_shards[0].data.sharding)",
    "np.asarray(x).tolist()",
    "jax.device_put(np.float32(3), s)",
    "jax.device_put(x, u)",
    "jax.device_put(y, n)",
    "jax.device_put(x)",
    "jax.device_put(x, SingleDeviceSharding(d))",
    "jax.device_put(x, d)",
    # eager ops on host values
    "x + 1",
    "jnp.sin(x)",
    "jnp.sum(x)",
    "x[1]",
    "jnp.dot(x, x)",
    "x.copy()",
    "jax.vmap(lambda a: a * 2)(x)",
    "jax.device_put(x, u) + 1",
    "x + y",
    "x + c",
    "jnp.where(x > 1, x, 0.0)",
    "jnp.concatenate([x, x])",
    # bodies: a value computes in the memory its body's operands are in (scalars in any)
    "jax.lax.cond(True, lambda a: a * 2, lambda a: a, x)",
    "jax.lax.scan(lambda carry, a: (carry + a, a * 2), 0.0, x)",
    "jax.lax.scan(lambda carry, a: (carry + a, a * 2), jnp.zeros(2), x.reshape(2, 2))",
    "jax.jit(lambda a: jax.lax.fori_loop(0, 3, lambda i, v: v * 2, a))(x)",
    "jax.checkpoint(lambda a: jnp.sin(a))(x)",
    "jax.jit(lambda a: a + c)(x)",
    # jit: the memory kinds of the arguments and results, as lowered and as run
    "jax.jit(lambda a: a * 2).lower(x).as_text()",
    "jax.jit(lambda a: a * 2)(x)",
    "jax.jit(lambda a: (a, a * 2))(x)",
    "jax.jit(lambda a: a * 2).lower(jax.device_put(x, u)).as_text()",
    "jax.jit(lambda a: a * 2)(jax.device_put(x, u))",
    "jax.jit(lambda a: a * 2, out_shardings=s).lower(jnp.ones(3)).as_text()",
    "jax.jit(lambda a: a * 2, out_shardings=s)(jnp.ones(3))",
    "jax.jit(lambda a: (a * 2, a.sum()), out_shardings=(s, None)).lower(jnp.ones(3)).as_text()",
    "jax.jit(lambda a: (a * 2, a.sum()), out_shardings=(s, None))(jnp.ones(3))",
    "jax.jit(lambda a: a * 2, in_shardings=s).lower(np.ones(3, np.float32)).as_text()",
    "jax.jit(lambda a: a * 2, in_shardings=s)(np.ones(3, np.float32))",
    "jax.jit(lambda a: a * 2, in_shardings=s)(x)",
    "jax.jit(lambda a, b: a + b)(x, y)",
    "jax.jit(lambda a: a * 2).lower(jax.device_put(y, n)).as_text()",
    "jax.jit(lambda a: a * 2)(jax.device_put(y, n))",
    # device_put to a memory kind inside jit
    "jax.jit(lambda a: jax.device_put(a, s) * 1).lower(jnp.ones(3)).as_text()",
    "jax.jit(lambda a: jax.device_put(a, s) * 1)(jnp.ones(3))",
    "jax.jit(lambda a: jax.device_put(a, s))(jnp.ones(3))",
    "jax.jit(lambda a: jax.device_put(a, u) * 2).lower(jnp.ones(3)).as_text()",
    "jax.jit(lambda a: jax.device_put(a, u) * 2)(jnp.ones(3))",
    "jax.jit(lambda a: jax.device_put(a, n) * 2)(jnp.ones(3))",
    "jax.vmap(lambda a: jax.device_put(a, s))(jnp.ones((2, 3)))",
]


def _memory_kinds(text):
    """What a lowered module says of memories: the memory kinds of main's arguments and
    results, and the placements its custom calls ask for."""
    main = next(line for line in text.splitlines() if "@main(" in line)
    args, results = main.split(") -> (", 1)
    kinds = lambda part: re.findall(r'mhlo\.memory_kind = "(\w+)"', part)
    return {"args": kinds(args), "results": kinds(results),
            "placements": re.findall(r'_xla_buffer_placement = "(\w+)"', text)}


def describe(thunk, tree_leaves):
    try:
        value = thunk()
    except Exception as e:  # noqa: BLE001  (the error is the outcome)
        return ["error", type(e).__name__, str(e)]
    if isinstance(value, str) and "@main(" in value:
        return ["module", _memory_kinds(value)]
    if isinstance(value, (str, bool, int, list)) or value is None:
        return ["value", value]
    if isinstance(value, tuple) and not hasattr(value[0], "sharding"):
        return ["value", list(value)]
    return ["arrays", [[leaf.sharding.memory_kind, np_list(leaf), str(leaf.dtype), leaf.committed]
                       for leaf in tree_leaves(value)]]


def np_list(a):
    import numpy as np
    return np.asarray(a).tolist()
