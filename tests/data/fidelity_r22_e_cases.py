"""Cases of tests/test_fidelity_r22_e.py, each a source string over ``jax``, ``jnp``, ``lax``,
``np`` and SETUP's names, evaluated as is under JAX 0.10.2 (tests/data/record_fidelity_r22_e.py)
and under minijax (the test):

1. ``lax.argmax``/``argmin`` pass ``axis`` on unchanged: a negative one is JAX's ValueError
   (eager, jit, and vmap, whose message names the batched shape); ``jnp.argmax`` normalizes it.
2. ``dot_general`` (``matmul``, ``einsum``) of float operands with an integer (or bool)
   ``preferred_element_type``: the sum is taken in the float type and converted, saturating;
   only a type narrower than a non-floating result is refused.
3. scan's transpose of a weak carry the body makes strong (triage_17000_r R3's reproducer;
   its other probes are tests/test_fidelity_r16_g.py's).
"""
import numpy as np

SETUP = """
X = jnp.arange(6.).reshape(2, 3)
A = jnp.array([[1.7, -2.6, 0.5], [3.5, 2.5, -0.5]], jnp.float32)
B = jnp.array([1.0, 1.0, 0.0], jnp.float32)
DN = (((1,), (0,)), ((), ()))
COL = (((1,), (0,)), ((), ()))
V = jnp.array([[3e9], [-3e9], [1e30], [np.nan], [np.inf], [-np.inf], [2.5], [-2.5], [-0.7],
               [300.], [255.7]], jnp.float32)
BA = jnp.arange(24., dtype=jnp.float32).reshape(2, 3, 4) / 7 - 1
BB = jnp.arange(24., dtype=jnp.float32).reshape(2, 4, 3) / 5 - 2
BDN = (((2,), (1,)), ((0,), (0,)))
I32 = np.array([1, 2], np.int32)
D1 = (((0,), (0,)), ((), ()))
dg = lambda a, b, dn, t: lax.dot_general(a, b, dn, preferred_element_type=t)
"""

CASES = [
    # 1. argmax / argmin axes
    "lax.argmax(X, -1, jnp.int32)",
    "lax.argmin(X, -2, jnp.int32)",
    "lax.argmax(X, 2, jnp.int32)",
    "lax.argmax(X, np.int64(-1), jnp.int32)",
    "jax.jit(lambda x: lax.argmax(x, -1, jnp.int32))(X)",
    "jax.vmap(lambda x: lax.argmax(x, -1, jnp.int32))(X)",
    "jax.vmap(lambda x: lax.argmin(x, -1, jnp.int32), in_axes=1)(jnp.ones((2, 3, 4)))",
    "jax.vmap(lambda x: lax.argmin(x, 1, jnp.int32))(X)",
    "jax.vmap(lambda x: lax.argmin(x, 0, jnp.int32), in_axes=1)(jnp.arange(24.).reshape(2, 3, 4))",
    "str(jax.make_jaxpr(lambda x: jnp.argmax(x, axis=-1))(X))",
    "jnp.argmin(X, axis=-2, keepdims=True)",
    "lax.argmax(X, 0, jnp.float32)",
    "lax.argmin(jnp.zeros((2, 0)), 1, jnp.int32)",
    # 2. float operands, integer preferred_element_type
    "dg(A, B, DN, jnp.int32), dg(A, B, DN, jnp.int8), dg(A, B, DN, jnp.uint8), dg(A, B, DN, bool)",
    "jax.jit(dg, static_argnums=(2, 3))(A, B, DN, jnp.int32)",
    "dg(V, jnp.ones(1), COL, jnp.int32), dg(V, jnp.ones(1), COL, jnp.uint8),"
    " dg(V, jnp.ones(1), COL, jnp.int8)",
    "dg(jnp.array([0.5, 0.5]), jnp.ones(2), D1, jnp.int32),"
    " dg(jnp.array([2e9, 2e9, -3e9]), jnp.ones(3), D1, jnp.int32),"
    " dg(jnp.array([-3., 5.]), jnp.ones(2), D1, jnp.uint8)",
    "dg(BA, BB, BDN, jnp.int32), dg(BA, BB, BDN, jnp.uint32)",
    "dg(BA.astype(jnp.float16), BB.astype(jnp.float16), BDN, jnp.int32),"
    " dg(BA.astype(jnp.bfloat16), BB.astype(jnp.bfloat16), BDN, jnp.int8)",
    "dg(A, B.astype(jnp.int32), DN, jnp.int32),"
    " dg(A.astype(jnp.float16), B.astype(jnp.int8), DN, jnp.int32)",
    "dg(A.astype(jnp.complex64), B.astype(jnp.complex64), DN, jnp.int32),"
    " dg(2.5, 1.5, (((), ()), ((), ())), jnp.int32)",
    "jnp.matmul(A, B, preferred_element_type=jnp.int32),"
    " jnp.einsum('ij,j->i', A, B, preferred_element_type=jnp.int32),"
    " jnp.dot(A, B, preferred_element_type=jnp.int16)",
    "str(jax.make_jaxpr(lambda a, b: jnp.einsum('ij,j->i', a, b,"
    " preferred_element_type=jnp.int32))(A, B))",
    "jax.vmap(lambda a: dg(a, B, D1, jnp.int32))(A)",
    "jax.grad(lambda a: dg(a, B, DN, jnp.int32).astype(jnp.float32).sum())(A)",
    # which preferred types are narrower than the result
    "dg(I32, I32, D1, jnp.int8)",
    "dg(I32, I32, D1, jnp.float16)",
    "dg(I32, I32, D1, bool)",
    "dg(I32, I32, D1, jnp.complex64), dg(I32.astype(bool), I32.astype(bool), D1, jnp.int8)",
    "dg(I32.astype(jnp.complex64), I32.astype(jnp.complex64), D1, jnp.float16)",
    "dg(I32.astype(jnp.complex64) * (1 + 1j), I32.astype(jnp.complex64), D1, jnp.float32),"
    " dg(I32.astype(jnp.float32), I32.astype(jnp.float32), D1, jnp.float16)",
    # 3. scan transpose: triage_17000_r R3's (s17106-66's) reproducer
    "jax.vjp(lambda c: lax.scan(lambda c, _: (np.float32(-.25) + jnp.heaviside(c, c), None), c,"
    " None, length=2)[0] ** -1, -2.36)[1](np.float32(1))",
    "jax.grad(lambda c: lax.scan(lambda c, _: (c * np.float32(-.25), None), c, None,"
    " length=2)[0])(-2.36)",
]


def _leaf(x):
    if isinstance(x, str):
        return x
    a = np.asarray(x)
    values = [a.real.tolist(), a.imag.tolist()] if a.dtype.kind == "c" else a.tolist()
    return [str(a.dtype), list(a.shape), values, bool(getattr(x, "weak_type", False))]


def outcome(src, env, tree_leaves):
    """The outcome of ``src``: its leaves (arrays as dtype, shape, values and weak type), or
    its error's type and first line."""
    try:
        out = eval(src, env)
    except Exception as e:  # noqa: BLE001 (errors are outcomes too)
        return ["error", type(e).__name__, str(e).split("\n")[0]]
    return [_leaf(x) for x in (tree_leaves(out) if not isinstance(out, str) else [out])]
