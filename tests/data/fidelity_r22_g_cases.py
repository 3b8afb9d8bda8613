"""Cases of tests/test_fidelity_r22_g.py (helper r22_g's by-hand jnp sweep,
tools/difftest/sweep_numpy.py): source strings evaluated with jax/jnp/np and SETUP's names."""

SETUP = """
ORD = np.array([0.3, -1.2, 2.7, 4.0, -0.5, 1.0], np.float32)
M = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.7 - 3.0
N = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [4.0, -1.0, 2.0]], np.float32)
Q5 = jnp.array([0.0, 0.13, 0.5, 0.77, 1.0])
"""

# each value: dtype, weak type, shape and values (NaN-aware, exact)
VALUES = [
    # quantile's method="inverted_cdf" and weights= (minijax refused the method)
    "jnp.quantile(ORD, Q5, method='inverted_cdf')",
    "jnp.percentile(M, 37.0, axis=1, method='inverted_cdf')",
    "jnp.percentile(M, jnp.array([10., 60.]), axis=0, method='inverted_cdf', keepdims=True)",
    "jnp.quantile(M, 0.4, axis=(0, 1), method='inverted_cdf', keepdims=True)",
    "jnp.quantile(M, jnp.array([0.2, 0.9]), axis=1, method='inverted_cdf',"
    " weights=jnp.array([1, 2, 0, 3]))",
    "jnp.quantile(M, 0.5, axis=1, method='inverted_cdf', weights=jnp.array([1, -2, 0, 3]))",
    "jnp.nanquantile(N, jnp.array([0.2, 0.9]), axis=1, method='inverted_cdf')",
    "jnp.nanpercentile(N, 50, axis=0, method='inverted_cdf', weights=jnp.array([1., 2., .5]))",
    "jnp.quantile(N, 0.5, axis=0, method='inverted_cdf')",
    "jnp.quantile(np.array([3, 1, 2], np.int32), 0.3, method='inverted_cdf')",
    "jax.jit(lambda a: jnp.median(a, axis=0))(M)",
    "jax.grad(lambda a: jnp.quantile(a, 0.3, method='inverted_cdf'))(ORD)",
    # histogramdd/histogram2d count in default ints unless weighted or density (minijax: floats)
    "jnp.histogram2d(ORD, ORD[::-1], bins=3)[0]",
    "jnp.histogramdd(M.T[:, :3], bins=2)[0]",
    "jnp.histogram2d(ORD, ORD[::-1], bins=[2, 3], density=True)[0]",
    "jnp.histogram2d(ORD, ORD[::-1], bins=2, weights=np.arange(6))[0]",
    # gradient: JAX's formulas ((d * 0.5) / h inside; coordinates' three weights)
    "jnp.gradient(M, 2.0, 3.0)[1]",
    "jnp.gradient(ORD, jnp.cumsum(jnp.abs(ORD) + 0.1))",
    "jnp.gradient(M, jnp.arange(3.0), jnp.arange(4.0) ** 2)[1]",
    "jnp.gradient(ORD.astype(np.float16), 3)",
    # linspace's retstep without a step: a strong NaN of the computation dtype
    "jnp.linspace(2.0, 5.0, 1, retstep=True)[1]",
    "jnp.linspace(2.0, 5.0, 0, retstep=True)[1]",
    "jnp.linspace(jnp.array([1., 2.]), 5, 1, retstep=True, dtype=jnp.float16)[1]",
    # fmod of integers by 0 is 0, as remainder (minijax: XLA's rem, the dividend)
    "jnp.fmod(np.array([5, -1, 7, -128], np.int8), np.array([0, 0, 2, -1], np.int8))",
    "jnp.fmod(np.array([5, 0], np.uint32), np.uint32(0))",
    # frexp as JAX's _frexp: its derivative is t / 2**e (minijax: 0), and ldexp of subnormals
    # follows it (XLA on CPU flushes them: JAX returns the operand)
    "jax.grad(lambda v: jnp.frexp(v)[0].sum())(ORD)",
    "jnp.ldexp(np.array([1e-45, 1.17e-38, 5e-40, -2e-42, 1.0], np.float32),"
    " np.array([1, 1, 1, 1, -149], np.int32))",
]

# each: the error's class name and message
ERRORS = [
    "jnp.quantile(ORD, 0.5, method='hazen')",
    "jnp.quantile(ORD, 0.5, weights=ORD)",
    "jnp.quantile(M, 0.5, method='inverted_cdf', weights=jnp.ones(4))",
    "jnp.quantile(M, 0.5, axis=1, method='inverted_cdf', weights=jnp.ones(3))",
    "jnp.quantile(ORD, 0.5, method='inverted_cdf', weights=ORD + 1j)",
    "jnp.searchsorted(ORD, 1.0, side='middle')",
    "jnp.convolve(M, ORD)",
    "jnp.correlate(ORD, M)",
    "jnp.polyfit(np.arange(5), np.arange(5) * 2, 1)",
    "jnp.gradient(ORD[:1])",
    "jnp.gradient(M, 1.0, 2.0, 3.0)",
    "jnp.gradient(ORD, jnp.ones(3))",
    "jnp.einsum('ij,jk', M)",
    "jnp.tensordot(M, M, axes=3)",
    # argmax reads the shape at the axis as given first (Python's IndexError), as JAX's
    "jnp.argmax(M, axis=5)",
    "jnp.argmin(jnp.float32(1), axis=0)",
    "jnp.fix",
    # clip: JAX 0.10.2 has dropped a/a_min/a_max
    "jnp.clip(ORD, a_min=0.0)",
    "jnp.clip()",
    "jnp.clip(ORD + 1j, 0, 1)",
    # softmax/log_softmax: JAX 0.10.2 has dropped initial=
    "jax.nn.softmax(M, where=M > 0, initial=0.0)",
    "jax.nn.log_softmax(M, initial=0.0)",
]

# Python values
PY = [
    "jnp.einsum_path('ij,jk', M, M.T)[0]",
    "jnp.einsum_path('ij,jk,kl', M, M.T, M, optimize='greedy')[0]",
    "len(jnp.gradient(M, axis=()))",
    # jnp.where keeps a bool condition as it is (a weak one was made strong) and compares
    # another with 0 (minijax converted it to bool)
    "str(jax.make_jaxpr(lambda c: jnp.where(c == 0, 1, 2))(3))",
    "str(jax.make_jaxpr(lambda c: jnp.where(c, 1.0, 2))(np.ones(3, np.float32)))",
    "str(jax.make_jaxpr(jnp.frexp)(ORD))",
    "str(jax.make_jaxpr(lambda a: jnp.fmod(a, 3))(np.arange(3, dtype=np.int8)))",
]
