"""Cases of tests/test_fidelity_r21_d.py: the memory space in types (``float32<host>[4]`` for
a value in pinned host memory) and what follows from it: printing, the memory-space rule of
operations (its error at trace time), grad's cotangent check, ``device_put`` inside ``jit``.
Each case is an expression evaluated with jax (recorded by record_fidelity_r21_d.py) or
minijax; ``describe`` turns its outcome into JSON."""

SETUP = """
SingleDeviceSharding = jax.sharding.SingleDeviceSharding
d = jax.devices()[0]
s = SingleDeviceSharding(d, memory_kind="pinned_host")
u = SingleDeviceSharding(d, memory_kind="unpinned_host")
dev = SingleDeviceSharding(d, memory_kind="device")
x = jax.device_put(np.arange(4.0, dtype=np.float32), s)
h = jax.device_put(np.float32(2), s)
y = jnp.arange(4.0)
typeof = lambda v: str(jax.typeof(v))
jaxpr = lambda f, *a: str(jax.make_jaxpr(f)(*a))

import contextlib, importlib, io
ad_checkpoint = importlib.import_module(jax.__name__ + ".ad_checkpoint")
def saved(f, *a):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ad_checkpoint.print_saved_residuals(f, *a)
    return out.getvalue()
offload_a = jax.checkpoint(
    lambda v: (ad_checkpoint.checkpoint_name(jnp.sin(v), "a") * v).sum(),
    policy=jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["a"],
        offload_src="device", offload_dst="pinned_host"))
offload_dot = jax.checkpoint(
    lambda w, v: jnp.sin(v @ w).sum(),
    policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host"))
w = jnp.arange(9.0).reshape(3, 3) / 10
v = jnp.arange(6.0).reshape(2, 3) / 10
"""

CASES = [
    # the type of a value in host memory, and of one in unpinned host memory (device space)
    "typeof(x)",
    "repr(jax.typeof(x))",
    "repr(x.aval)",
    "typeof(h)",
    "typeof(jax.device_put(y, u))",
    "typeof(jax.device_put(x, dev))",
    "str(jax.memory.Space.Host), repr(jax.memory.Space.Device)",
    "repr(jax.core.ShapedArray((2,), jnp.float32, memory_space=jax.memory.Space.Host))",
    "jax.core.ShapedArray((2,), jnp.float32, memory_space=jax.memory.Space.Host)"
    " == jax.core.ShapedArray((2,), jnp.float32)",
    "str(jax.core.ShapedArray((2,), jnp.float32, memory_space=jax.memory.Space.Host)"
    ".update(shape=(3,)))",
    # eager results keep it
    "typeof(x * 2)",
    "typeof(x.sum())",
    "typeof(jnp.dot(x, x))",
    # jaxprs print it; an op's result is in its operands' memory (scalars take any)
    "jaxpr(lambda a: a * 2, x)",
    "jaxpr(jnp.sin, h)",
    "jaxpr(lambda a, b: a * b, x, h)",
    "jaxpr(lambda a, b: a * b, y, h)",
    "jaxpr(lambda a: -jnp.sin(a) * a, x)",
    "jaxpr(jax.vmap(lambda a: a * 2), x)",
    "jaxpr(lambda p, a: jax.lax.cond(p, lambda a: a * 2, lambda a: a + 1, a), True, x)",
    # operands in different memories: JAX's ValueError while tracing
    "jaxpr(lambda a, b: a + b, x, y)",
    "x + y",
    "jaxpr(lambda a: a + jnp.arange(4.0), x)",
    "jaxpr(lambda a: jnp.where(a > 1, a, y), x)",
    "jax.lax.scan(lambda c, r: (c + r, r), jnp.zeros(4), jnp.stack([x, x]))",
    # device_put inside jit changes the type's memory space
    "jaxpr(lambda a: jax.device_put(a, s) * 2, y)",
    "jaxpr(lambda a: jax.device_put(a, dev) * 2, x)",
    "jaxpr(lambda a: jax.device_put(a, u) * 2, y)",
    "typeof(jax.jit(lambda a: jax.device_put(a, s) * 2)(y))",
    # a jit result has its traced type, whatever memory out_shardings puts it in
    "typeof(jax.jit(lambda a: a * 2, out_shardings=s)(y))",
    "typeof(jax.jit(lambda a: a * 2, out_shardings=dev)(x))",
    "jax.jit(lambda a: a * 2, out_shardings=dev)(x).sharding.memory_kind",
    # grad: the device-memory seed does not have the host result's type
    "jax.grad(lambda a: (a * 2).sum())(x)",
    "jax.grad(lambda a: jax.device_put(a, s).sum())(y)",
    "jax.grad(lambda a: jax.device_put(jax.device_put(a, s) * 2, dev).sum())(y)",
    "jax.vjp(lambda a: a * 2, x)[1](jnp.ones(4))",
    # checkpoint's offloading policies move the residuals they offload to pinned host memory
    "saved(offload_a, y)",
    "saved(offload_dot, w, v)",
    "jax.grad(offload_a)(y)",
    "jax.jit(jax.grad(offload_a))(y)",
    "jax.grad(offload_dot, argnums=(0, 1))(w, v)[0]",
    "jax.jit(jax.grad(offload_dot, argnums=(0, 1)))(w, v)[1]",
    "jax.vmap(jax.grad(offload_a))(jnp.stack([y, y]))",
]


def describe(thunk, typeof):
    try:
        value = thunk()
    except Exception as e:  # noqa: BLE001  (the error is the outcome)
        return ["error", type(e).__name__, str(e)]
    if isinstance(value, (str, bool)):
        return ["value", value]
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        return ["value", list(value)]
    import numpy as np
    return ["array", typeof(value), value.sharding.memory_kind, np.asarray(value).tolist()]
