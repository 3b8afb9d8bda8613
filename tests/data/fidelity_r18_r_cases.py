"""Cases of tests/test_fidelity_r18_r.py (jnp.quantile as JAX 0.10.2's _quantile; run 21000
s21031-348), shared by the test and tests/data/record_fidelity_r18_r.py. Each case is an
expression over SETUP's names, evaluated under minijax or JAX."""
import math

SETUP = """
mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
def put(x, *spec):
    return jax.device_put(x, jax.NamedSharding(mesh, jax.P(*spec)))
x0 = np.array([[[1.5, 0.5, -0.0]], [[1.0, 0.0, 1.0]]], np.float16)
def f(x):
    return x - jnp.reciprocal(jnp.median(x, axis=0))
W = np.linspace(0.5, 1.5, 6).reshape(2, 3).astype(np.float16)
s21031_348 = jax.jit(jax.vmap(jax.grad(lambda x: jnp.sum(f(x) * W)), in_axes=1))
y = np.arange(48, dtype=np.float32).reshape(4, 2, 6) % 7 - 3
y[1, 0, 3] = np.nan
ties = np.array([[[0.5, -0.0], [0.0, 1.0]], [[0.5, 0.0], [-1.0, 0.5]]], np.float32)
x16 = np.array([0.1, 0.7, 1.3, 2.9, 5.1, 7.7, 9.9], np.float16)
"""

CASES = [
    # the record: the gradient keeps the operand's split (JAX's NaN where before the sort)
    "s21031_348(put(x0, 'd'))",
    # forward: one gather of whole slices keeps the kept axes' split
    "jax.jit(lambda x: jnp.median(x, axis=0))(put(y, None, 'd'))",
    "jax.jit(lambda x: jnp.quantile(x, jnp.array([0.2, 0.7]), axis=-1, method='nearest'))"
    "(put(y, 'd'))",
    "jax.jit(lambda x: jnp.nanquantile(x, 0.4, axis=-1, method='lower'))(put(y, 'd'))",
    "jax.jit(jax.grad(lambda x: jnp.nanmedian(x, axis=0).sum()))(put(y, None, None, 'd'))",
    # values: nearest takes the lower one on a tie; arithmetic in q's dtype
    "jnp.quantile(jnp.arange(4.0), jnp.array([0.5, 1 / 6]), method='nearest')",
    "jnp.quantile(x16, jnp.array([0.13, 0.37], jnp.bfloat16))",
    "jnp.quantile(x16.reshape(7, 1), 0.3, axis=(0, 1), keepdims=True)",
    "jnp.median(x16)",
    # ties of the stable sort resolve through JAX's axis permutation
    "jax.grad(lambda x: jnp.median(x, axis=(2, 0)).sum())(ties)",
    "jax.grad(lambda x: jnp.quantile(x, 0.3, axis=(0, 1), method='nearest').sum())(ties)",
    # errors: an integer q reaches floor; an empty axis fails the gather's shape check
    "jnp.quantile(jnp.arange(4.0), 0)",
    "jnp.nanquantile(jnp.ones((3, 0)), 0.3, axis=1)",
]


def describe(out, leaves):
    """dtype, shape, weak type, spec (trailing Nones dropped) and values of each leaf."""
    desc = []
    for leaf in leaves(out):
        spec = getattr(getattr(leaf, "sharding", None), "spec", None)
        spec = list(spec) if spec is not None else None
        while spec and spec[-1] is None:
            spec.pop()
        vals = [None if math.isnan(v) else v for v in leaf.astype("float32").ravel().tolist()]
        desc.append([str(leaf.dtype), list(leaf.shape), bool(leaf.weak_type), spec, vals])
    return desc
