"""Cases of tests/test_fidelity_r16_d.py (run 19000's s19003-19 and s19020-464, output
shardings; tools/difftest/triage_19000_d.md), evaluated under JAX 0.10.2 by
record_fidelity_r16_d.py and under minijax by the test. ``jax``, ``jnp``, ``lax``, ``np`` are
in scope; SETUP adds a 2-device mesh ``MESH``, ``put`` (axis 0 split over 'd') and the cases'
functions."""

SETUP = '''
MESH = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
put = lambda x: jax.device_put(x, jax.NamedSharding(MESH, jax.P("d")))
X4 = put(np.array([0.23, -0.42, 0.0, -1.08], np.float32))
X22 = put(np.array([[-0.11, -0.0047], [-0.023, 0.17]], np.float32))
W = np.linspace(0.5, 1.5, 8).reshape(2, 2, 2).astype(np.float32)
inf = np.inf

def window_max(v, *args):
    return lax.reduce_window(v, -jnp.inf, lax.max, *args)

def stack_grad(x):
    # s19020-464's f under grad: the cotangent of jnp.stack is one unstack
    return jax.grad(lambda x: jnp.sum(jnp.stack([x @ x.T, x @ x.T]) * W))(x)

def vjp_of_stack_grad(x):
    out, pullback = jax.vjp(stack_grad, x)
    return out, pullback(np.linspace(0.5, 1.5, 4).reshape(2, 2).astype(np.float32))

def prims(f, *args):
    return [e.primitive.name for e in jax.make_jaxpr(f)(*args).jaxpr.eqns]
'''

CASES = [
    # s19003-19: jacrev of a strided window max is one select_and_scatter_add, whose
    # batched form keeps the operand's sharding on the result's axis 1
    "jax.jit(jax.jacrev(lambda v: window_max(v, (3,), (2,), 'VALID')))(X4)",
    "jax.jit(jax.grad(lambda v: window_max(v, (2,), (2,), 'SAME').sum()))(X4)",
    "jax.jit(jax.grad(lambda v: window_max(v, (2,), (1,), 'SAME').sum()))(np.asarray(X4))",
    "prims(jax.grad(lambda v: window_max(v, (3,), (2,), 'VALID').sum()), np.ones(4, np.float32))",
    # base dilation and padding: the operand's holes are elements, their cotangents dropped
    "jax.grad(lambda v: (window_max(v, (3,), (2,), [(1, 2)], (2,)) * jnp.arange(1., 6.)).sum())"
    "(jnp.array([-inf, 2., -inf, 1., 3.]))",
    "jax.vmap(jax.grad(lambda v: window_max(v, (2,), (1,), 'SAME').sum()))"
    "(jnp.array([[-inf, -inf, 3.], [1., 2., 2.]]))",
    "jax.jacfwd(jax.grad(lambda v: (window_max(v, (2,), (1,), 'SAME') ** 2).sum()))"
    "(jnp.array([1., -2., 3.]))",
    "jax.grad(lambda v: window_max(v, (2,), (1,), 'VALID', None, (2,)).sum())(jnp.arange(6.))",
    # s19020-464: jnp.stack of a sequence is the stack primitive
    "jax.jit(vjp_of_stack_grad)(X22)",
    "prims(stack_grad, np.ones((2, 2), np.float32))",
    "jnp.stack([jnp.ones(2), jnp.ones((2, 2))])",
    "jnp.stack([])",
    "jnp.stack([jnp.ones(2)], out=jnp.ones(2))",
    "jnp.stack([1, 2.5], dtype=jnp.int32)",
    "jnp.stack([1., 2.])",
    "jnp.stack(np.ones((2, 3)), axis=-1)",
]


def describe(thunk, leaves):
    """A JSON-able outcome: per leaf (dtype, shape, weak type, values, sharding spec without
    trailing Nones, or None when not a NamedSharding), a list of names, or the error."""
    try:
        out = thunk()
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        return {"error": type(e).__name__, "message": str(e).splitlines()[0]}
    if isinstance(out, list) and all(isinstance(n, str) for n in out):
        return {"names": out}
    result = []
    for leaf in leaves(out):
        spec = getattr(getattr(leaf, "sharding", None), "spec", None)
        if spec is not None:
            spec = [p if p is None or isinstance(p, str) else list(p) for p in spec]
            while spec and spec[-1] is None:
                spec.pop()
        result.append([str(leaf.dtype), list(leaf.shape), bool(leaf.aval.weak_type),
                       np.asarray(leaf, np.float64).ravel().tolist(), spec])
    return {"leaves": result}


import numpy as np  # noqa: E402
