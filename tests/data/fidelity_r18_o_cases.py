"""Cases of tests/test_fidelity_r18_o.py: ``x.at[i].mul(y)`` (scatter_mul, indices not promised
unique) differentiated where ``y``'s tangent is the materialized zeros of ``x0 ** 0`` (run
21000's s21010-10). JAX's linearization (grad, vjp, linearize; the bodies of jit, cond and scan
in them) turns a tangent that does not depend on the input tangents into a symbolic zero, so
scatter_mul's updates rule, which refuses non-unique indices, never runs; jvp, and the bodies
of checkpoint, keep the zeros and raise, as does a nonzero update tangent everywhere.

Each case is a source string over ``jax``, ``jnp``, ``lax``, ``np`` and SETUP's names, run as
is under JAX (tests/data/record_fidelity_r18_o.py) and under minijax (the test).
"""
import numpy as np

SETUP = """
x0 = jnp.float32(1.0)
x1 = jnp.array([-0.96, -5.3, 1.17], jnp.float32)
i = jnp.array([0, -1])
W = jnp.array([1.0, 2.0, 3.0], jnp.float32)
def body(a, b):
    return b.at[i].mul(a ** 0)
def f(a, b):
    t = a ** 0
    return jnp.sum(b.at[i].mul(t) * W) + t
def g(a, b):
    return jnp.sum(b.at[i].mul(a * 2.0) * W)
def c(a, b):
    return jnp.sum(lax.cond(a > 0, body, lambda p, q: q * 2.0, a, b) * W)
def s(a, b):
    return jnp.sum(lax.scan(lambda q, _: (body(a, q), None), b, None, length=2)[0] * W)
def r(a, b):
    return jnp.sum(jax.checkpoint(body)(a, b) * W)
ir = jnp.array([0, 0, 2])
u = jnp.array([1.1, 0.3, 2.7], jnp.float32)
idx = jnp.array([[0], [2]])
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
def grad2(h):
    inner = jax.grad(h, argnums=(0, 1))
    return jax.grad(lambda a, b: sum(jnp.sum(z) for z in inner(a, b)), argnums=(0, 1))
"""

CASES = [
    # s21010-10
    "grad2(f)(x0, x1)",
    "jax.grad(f, argnums=(0, 1))(x0, x1)",
    "jax.grad(jax.jit(f), argnums=(0, 1))(x0, x1)",
    "jax.jit(jax.grad(f, argnums=(0, 1)))(x0, x1)",
    "jax.linearize(f, x0, x1)[1](x0, x1)",
    "jax.vmap(jax.grad(f, argnums=(0, 1)), in_axes=(0, None))(jnp.array([1.0, 2.0]), x1)",
    "jax.grad(c, argnums=(0, 1))(x0, x1)",
    "jax.grad(jax.jit(s), argnums=(0, 1))(x0, x1)",
    # raise: jvp keeps the zeros, checkpoint's body is a JVP, a nonzero update tangent
    "jax.jvp(f, (x0, x1), (x0, x1))",
    "jax.hessian(f, argnums=(0, 1))(x0, x1)",
    "jax.grad(r, argnums=(0, 1))(x0, x1)",
    "jax.grad(g, argnums=(0, 1))(x0, x1)",
    "jax.grad(jax.jit(g), argnums=(0, 1))(x0, x1)",
    # o2: the scatters keep their operand's weak type; scatter_mul's operand JVP is
    # scatter_mul of the tangent (its order of products, its transpose)
    "[s(lax.full((3,), 1.0), idx, u[:2], dn) for s in (lax.scatter, lax.scatter_add, "
    "lax.scatter_sub, lax.scatter_mul, lax.scatter_min, lax.scatter_max)]",
    "lax.scatter_add(jnp.ones(3), idx, lax.full((2,), 1.0), dn)",
    "jax.vjp(lambda b: jnp.sum(b.at[ir].mul(u)), x1)[1](1.0)",
    "jax.vjp(lambda b: b.at[ir].mul(u), x1)[1](jnp.array([0.1, 3.3, 7.0], jnp.float32))",
    "jax.jvp(lambda b: b.at[ir].mul(u), (x1,), (x1,))",
    "jax.grad(lambda b: jnp.sum(b.at[ir].mul(u + jnp.nan)))(x1)",
    "jax.vjp(jax.jit(lambda b: jnp.sum(lax.scan(lambda q, _: (q.at[ir].mul(u), None), b, None, "
    "length=2)[0])), x1)[1](1.0)",
    "jax.linear_transpose(lambda y: x1.at[i].mul(y, unique_indices=True), u[:2])(x1)",
    "jax.linear_transpose(lambda y: x1.at[i].mul(y), u[:2])(x1)",
]


def describe(src, env, tree_leaves):
    """``src``'s outcome: each leaf's dtype, weak type and value, or the exception's type."""
    try:
        x = eval(src, env)
    except NotImplementedError as e:
        return ["raises", type(e).__name__]
    return [[str(leaf.dtype), bool(leaf.aval.weak_type), np.asarray(leaf).tolist()]
            for leaf in tree_leaves(x)]
