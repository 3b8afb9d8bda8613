"""Cases of tests/test_fidelity_r29_f.py (FINDINGS 286): NumPy-int ``broadcast_dimensions``
where JAX's batching broadcasts (``batching.broadcast``: vmap outputs, elementwise and select
operands, ``jnp.where`` under vmap) and Python ints where its rules use ``lax.broadcast``
(concatenate, stack, sort, pad); ``pad``'s batching with a per-example padding value; the
transpose of ``broadcast_in_dim`` from size-1 axes (``expand_dims``, not ``reshape``); and bool
operands of ``sum``/``prod``/``mean`` converted through the default int. Each is an expression
over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
def jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))
x = jnp.ones((2, 3))
m = jnp.array([[True, False, True], [False, True, True]])
b = jnp.array([True, False])
def bgrad(shape, dims, operand):
    return jaxpr(jax.grad(lambda v: jax.lax.broadcast_in_dim(v, shape, dims).sum()), operand)
"""

CASES = [
    "jaxpr(jax.vmap(lambda x: jnp.var(x, axis=0, keepdims=True)), x)",
    "jaxpr(jax.vmap(lambda x: jax.nn.softmax(x, where=x > 0)), x)",
    "jaxpr(jax.vmap(lambda x: jnp.std(x, keepdims=True)), x)",
    "jaxpr(jax.vmap(lambda x: x[:, None] * jnp.ones((3, 4))), x)",
    "jaxpr(jax.vmap(lambda v: jnp.ones(3)), jnp.ones(2))",
    "jaxpr(jax.vmap(lambda v: jnp.ones(3), out_axes=1), jnp.ones(2))",
    "jaxpr(jax.vmap(lambda x: jnp.where(x > 0, jnp.ones(3), x)), x)",
    "jaxpr(jax.vmap(lambda x, y: jax.lax.select(x > 0, x, y), in_axes=(0, None)), x, jnp.ones(3))",
    "jaxpr(jax.vmap(lambda x, y: jax.lax.concatenate([x, y], 0), in_axes=(0, None)), x, jnp.ones(3))",
    "jaxpr(jax.vmap(lambda x, y: jnp.stack([x, y]), in_axes=(0, None)), x, jnp.ones(3))",
    "jaxpr(jax.vmap(lambda x, y: jax.lax.sort((x, y), num_keys=1), in_axes=(0, None)), x, jnp.ones(3))",
    "jaxpr(jax.vmap(lambda p: jax.lax.pad(jnp.ones(3), p, [(1, 1, 0)])), jnp.ones(2))",
    "jaxpr(jax.vmap(lambda v, p: jax.lax.pad(v, p, [(1, 1, 1)]), in_axes=(1, 0)), jnp.ones((3, 2)), jnp.ones(2))",
    "jaxpr(jax.vmap(lambda v, p: jax.lax.pad(v, p, [(1, 1, 1)]), in_axes=(1, None)), jnp.ones((3, 2)), 0.0)",
    "np.asarray(jax.vmap(lambda v, p: jax.lax.pad(v, p, [(1, 1, 1)]), in_axes=(1, 0))("
    "jnp.arange(6.0).reshape(3, 2), jnp.array([7.0, 8.0]))).tolist()",
    "bgrad((3, 4), (0, 1), jnp.ones((3, 1)))",
    "bgrad((3, 4), (0, 1), jnp.ones((1, 1)))",
    "bgrad((2, 3, 4), (1, 2), jnp.ones((3, 1)))",
    "bgrad((2, 3, 4), (0, 2), jnp.ones((1, 4)))",
    "bgrad((3, 4), (1,), jnp.ones((1,)))",
    "bgrad((2, 3, 1), (1, 2), jnp.ones((3, 1)))",
    "bgrad((4, 3, 2), (2, 1), jnp.ones((1, 3)))",
    "jaxpr(jax.grad(lambda v: jnp.broadcast_to(v, (2, 3, 4)).sum()), jnp.ones((3, 1)))",
    "jaxpr(jax.vmap(jax.grad(lambda v: jax.lax.broadcast_in_dim(v, (3, 4), (0, 1)).sum())), jnp.ones((2, 3, 1)))",
    "jaxpr(lambda x: jnp.sum(x, where=m), x)",
    "jaxpr(lambda x: jnp.mean(x, where=m), x)",
    "jaxpr(lambda x: jnp.mean(x, axis=1, where=m), x)",
    "jaxpr(lambda x: jnp.sum(x, where=m), jnp.ones((2, 3), jnp.int32))",
    "jaxpr(lambda x: jnp.mean(x, axis=0, where=m), jnp.ones((2, 3), jnp.int32))",
    "jaxpr(jax.grad(lambda x: jnp.mean(x, where=m)), x)",
    "jaxpr(jax.grad(lambda x: jnp.mean(x, axis=0, where=m).sum()), x)",
    "jaxpr(lambda b: jnp.sum(b, dtype=jnp.float32), b)",
    "jaxpr(lambda b: jnp.prod(b, dtype=jnp.float32), b)",
    "jaxpr(lambda b: jnp.sum(b, dtype=bool), b)",
    "jaxpr(lambda b: jnp.sum(b, dtype=jnp.int8), b)",
    "jaxpr(jnp.mean, b)",
    "jaxpr(jnp.sum, b)",
]
