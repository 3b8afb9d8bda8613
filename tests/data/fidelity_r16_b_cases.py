"""Cases of tests/test_fidelity_r16_b.py (run 19000's s19013-606 and s19029-272:
tools/difftest/triage_19000_b.md), evaluated under JAX 0.10.2 by record_fidelity_r16_b.py and
under minijax by the test, each as ``describe`` writes it (dtype, shape, weak type, exact
bits)."""

SETUP = """
x0 = jnp.asarray(np.array([[0.043701171875, 0.484375, 0.49609375],
                           [0.451171875, 1.9921875, 0.259765625],
                           [0.107421875, 1.6328125, 2.0625]], dtype=jnp.bfloat16))
def norm_f32(x):
    return lax.convert_element_type(jnp.linalg.norm(x, axis=None, keepdims=True), jnp.float32)
xs = jnp.asarray(np.linspace(-4, 4, 401, dtype=np.float32))
ts = jnp.full(xs.shape, 0.7, jnp.float32)
"""

CASES = [
    # s19013-606: the kept axis comes before the sum's convert back to bfloat16, so XLA drops
    # the bf16 round trip of the square root (a value that is no bfloat16)
    "jax.checkpoint(jax.jit(norm_f32), policy=jax.checkpoint_policies.everything_saveable)(x0)",
    "jax.jit(norm_f32)(x0)",
    "jax.jit(lambda x: jnp.linalg.norm(x, axis=(0, 1), keepdims=True).astype(jnp.float32))(x0)",
    # norms of empty matrices: amax with initial=0
    "jnp.linalg.norm(np.zeros((0, 3), np.float32), ord=1)",
    "jnp.linalg.norm(np.zeros((3, 0), np.float32), ord=np.inf)",
    "jnp.linalg.norm(np.zeros((0, 3), np.float32), ord=2, keepdims=True)",
    # p-norms raise |x| to an array exponent (lax.pow, not integer_pow)
    "jnp.linalg.vector_norm(x0.astype(jnp.float32), ord=3)",
    "jnp.linalg.norm(x0, ord=-2, axis=0)",
    "jnp.linalg.vector_norm(np.array([[1, -2], [3, 0]], np.int32), ord=1, keepdims=True)",
    # s19029-272: gelu's eager JVP runs each jnp ufunc's derivative as one program (tanh's
    # fused formula rounds differently from its ops run one by one)
    "jax.jvp(lambda x: jax.nn.gelu(x, approximate=True), (xs,), (ts,))",
    "jax.jvp(lambda x: jax.nn.gelu(x, approximate=False), (xs,), (ts,))",
]


def describe(value, leaves):
    return [[str(v.dtype), list(v.shape), bool(getattr(v, "weak_type", False)),
             __import__("numpy").asarray(v).tobytes().hex()] for v in leaves(value)]
