"""Cases for tests/test_fidelity_r18_z.py: lax API gaps filled (``lax.tile``,
``lax.scatter_apply``, ``lax.scaled_dot``), each an expression evaluated under both JAX 0.10.2
(tests/data/record_fidelity_r18_z.py) and minijax."""

SETUP = """
x = jnp.arange(6.).reshape(2, 3)
def loss(x):
    return (lax.tile(x, (2, 3)) ** 2).sum()
v = jnp.arange(5.)
idx = jnp.array([[1], [3], [1]])
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
def apply_sin(v):
    return lax.scatter_apply(v, idx, jnp.sin, dn, update_shape=(3,))
a = jnp.arange(8., dtype=jnp.float32).reshape(2, 4) / 3
b = jnp.arange(12., dtype=jnp.float32).reshape(4, 3) / 7
a3 = jnp.stack([a, -a])
b3 = jnp.stack([b, b * 2])
f32 = jnp.float32
def as_f32(y):  # the values in float32 (JSON), the dtype in an empty array of it
    return (y.astype(jnp.float32), jnp.zeros(0, y.dtype))
"""

CASES = [
    "lax.tile(x, (2, 1))",
    "lax.tile(x, (1, 1))",
    "lax.tile(x, (0, 2))",
    "lax.tile(x, np.array([2, 1]))",
    "lax.tile(2.0, ())",
    "lax.tile(jnp.int8(3), ())",
    "lax.tile(np.arange(2), (2,))",
    "lax.tile(x, (2,))",
    "lax.tile(x, (2.0, 2))",
    "str(jax.make_jaxpr(lambda: lax.tile(2.0, ()))())",
    "str(jax.make_jaxpr(lambda x: lax.tile(x, (1, 1)))(x))",
    "str(jax.make_jaxpr(jax.vmap(lambda x: lax.tile(x, (3,))))(x))",
    "jax.vmap(lambda x: lax.tile(x, (3,)), in_axes=1)(x)",
    "jax.jit(lambda x: lax.tile(x, (2, 3)))(x)",
    "jax.grad(loss)(x)",
    "jax.jvp(lambda x: lax.tile(x, (2, 1)), (x,), (jnp.ones_like(x),))",
    "jax.vmap(jax.grad(lambda v: (lax.tile(v, (3,)) ** 3).sum()))(x)",
    "apply_sin(v)",
    "lax.scatter_apply(v, idx, lambda u: u * 2, dn, update_shape=(3,))",
    "lax.scatter_apply(jnp.arange(5), idx, lambda u: u + 1, dn, update_shape=(3,))",
    "lax.scatter_apply(v, idx + 3, lambda u: u + 1, dn, update_shape=(3,), mode='clip')",
    "lax.scatter_apply(v, idx + 3, lambda u: u + 1, dn, update_shape=(3,))",
    "jax.jit(lambda w: lax.scatter_apply(w, idx, lambda u: u + v[0], dn, update_shape=(3,)))(v)",
    "jax.jit(lambda v: lax.scatter_apply(v, idx, jnp.exp, dn, update_shape=(3,)))(v)",
    "jax.vmap(apply_sin)(jnp.ones((2, 5)))",
    "jax.grad(lambda v: apply_sin(v).sum())(v)",
    "jax.jvp(apply_sin, (v,), (v,))",
    "jax.jit(lambda v, w: lax.scatter_apply(v, idx, lambda u: u * w, dn, update_shape=(3,)))"
    "(v, 3.0)",
    "as_f32(lax.scaled_dot(a, b))",
    "lax.scaled_dot(a, b, preferred_element_type=f32)",
    "lax.scaled_dot(a, b, lhs_scale=jnp.full((2, 2), 2., f32), rhs_scale=jnp.full((2, 3), 0.5, f32),"
    " preferred_element_type=f32)",
    "as_f32(lax.scaled_dot(a3, b3))",
    "jax.jit(lambda a, b: lax.scaled_dot(a, b, preferred_element_type=f32))(a, b)",
    "jax.vmap(lambda a: lax.scaled_dot(a, b, preferred_element_type=f32))(a3)",
    "jax.vmap(lambda a, b: lax.scaled_dot(a, b, preferred_element_type=f32), (0, None))(a3, b)",
    "lax.scaled_dot(a3, b3, dimension_numbers=(((2,), (1,)), ((0,), (0,))),"
    " preferred_element_type=f32)",
    "lax.scaled_dot(a[0], b)",
    "lax.scaled_dot(a, b3)",
    "lax.scaled_dot(a, b, lhs_scale=jnp.ones((2, 4), f32))",
    "lax.scaled_dot(a, b, lhs_scale=jnp.ones((2, 3), f32))",
    "lax.scaled_dot(a, b, rhs_scale=jnp.ones((2, 2), f32))",
    "lax.scaled_dot(a, b.T)",
    "lax.scaled_dot(a3, b3, dimension_numbers=(((2,), (1,)), ((0,), ())))",
    "jax.grad(lambda a: lax.scaled_dot(a, b, preferred_element_type=f32).sum())(a)",
]


def describe(thunk, leaves):
    """What a case gives: each leaf's Python type, dtype, weak type, shape and values, or the
    error's type and first line."""
    try:
        out = thunk()
    except Exception as e:  # noqa: BLE001 (the error is the outcome)
        return ["error", type(e).__name__, str(e).splitlines()[0]]
    if isinstance(out, str):
        return ["str", out]
    return [[type(v).__name__ if isinstance(v, (int, float)) else "Array", str(v.dtype),
             bool(v.aval.weak_type if hasattr(v, "aval") else v.weak_type)
             if not isinstance(v, (int, float)) else None,
             list(v.shape), v.tolist()] for v in leaves(out)]
