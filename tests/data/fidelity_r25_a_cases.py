"""Cases of tests/test_fidelity_r25_a.py (recorded by record_fidelity_r25_a.py): gathers and
scatters whose index is NumPy arrays, static integers beside arrays, negative, unsigned and
narrow indices, with slices, ``None`` and steps. Each is ``(function source, arguments
source)``, evaluated with ``jax``, ``jnp`` and ``np`` and SETUP's names; X64_CASES with 64-bit
dtypes on (masks give int64 indices, converted to the int32 of the gather)."""

SETUP = """
v8 = np.arange(8, dtype=np.float32)
sq = np.arange(9, dtype=np.float32).reshape(3, 3)
m = np.arange(12, dtype=np.float32).reshape(3, 4)
t = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
i2 = np.array([0, 2], np.int32)
"""

CASES = [
    ("lambda x: x[np.array([1, 2])]", "(v8,)"),
    ("lambda x: x[np.array([0, -1])]", "(v8,)"),
    ("lambda x: x[np.array([0, 2], np.uint8)]", "(v8,)"),
    ("lambda x: x[np.array([0, -2], np.int64)]", "(v8,)"),
    ("lambda x: x[np.array([0, -2], np.int8)]", "(v8,)"),
    ("lambda x: x[np.array([[0, 1], [2, -1]])]", "(v8,)"),
    ("lambda x: x[1, np.array([0, 2])]", "(m,)"),
    ("lambda x: x[np.array([0, 2]), -1]", "(m,)"),
    ("lambda x: x[np.array([0, 2]), np.int32(-1)]", "(m,)"),
    ("lambda x: x[np.array([0, 2]), np.uint8(1)]", "(m,)"),
    ("lambda x: x[np.array([0, 2]), 1:3]", "(m,)"),
    ("lambda x: x[:, np.array([0, -1])]", "(m,)"),
    ("lambda x: x[np.array([0, 2]), np.array([1, 3])]", "(m,)"),
    ("lambda x: x[np.array([[0], [2]]), np.array([1, 2, 3])]", "(m,)"),
    ("lambda x: x[np.array([0, 1]), :, np.array([1, 3])]", "(t,)"),
    ("lambda x: x[1, :, np.array([1, 3])]", "(t,)"),
    ("lambda x, i: x[i]", "(v8, i2)"),
    ("lambda x, i: x[1, i]", "(m, i2)"),
    ("lambda x: x[np.array([True, False, True])]", "(v8[:3],)"),
    ("lambda x: x[None, np.array([0, 1])]", "(v8,)"),
    ("lambda x: x[True, np.array([0, 1])]", "(v8,)"),
    ("lambda x: x.at[False].set(1.0)", "(v8,)"),
    ("lambda x: x.at[True, 2].add(1.0)", "(v8,)"),
    ("lambda x: x[::-2, np.array([0, 1])]", "(m,)"),
    ("lambda x: x.at[1].set(2.0)", "(v8,)"),
    ("lambda x: x.at[-1].set(2.0)", "(v8,)"),
    ("lambda x: x.at[np.int32(1)].add(5.0)", "(v8,)"),
    ("lambda x: x.at[1, 2].set(2.0)", "(m,)"),
    ("lambda x: x.at[np.int32(-1)].set(1.0)", "(m,)"),
    ("lambda x: x.at[np.uint8(1), -1].set(1.0)", "(m,)"),
    ("lambda x: x.at[1, 1:3].set(2.0)", "(m,)"),
    ("lambda x: x.at[2:5].set(2.0)", "(v8,)"),
    ("lambda x: x.at[1:7:2].set(1.0)", "(v8,)"),
    ("lambda x: x.at[::-3].add(1.0)", "(v8,)"),
    ("lambda x: x.at[np.array([1, 2])].set(2.0)", "(v8,)"),
    ("lambda x: x.at[np.array([0, -1])].add(2.0)", "(v8,)"),
    ("lambda x: x.at[np.array([0, 2], np.uint32)].add(2.0)", "(v8,)"),
    ("lambda x: x.at[1, np.array([0, -1])].set(2.0)", "(m,)"),
    ("lambda x: x.at[np.array([0, -1])].get()", "(v8,)"),
    ("lambda x: x.at[np.array([0, 9])].get(mode='fill', fill_value=0.0)", "(v8,)"),
    ("lambda x, i: x.at[i].set(1.0)", "(v8, i2)"),
    ("lambda x, i: x.at[i[0]].set(1.0)", "(v8, i2)"),
    ("jax.grad(lambda x: x[np.array([1, -1])].sum())", "(v8,)"),
    ("jax.grad(lambda x: x.at[1].set(2.0).sum())", "(v8,)"),
    ("jax.grad(lambda x: x[1, np.array([0, 2])].sum())", "(m,)"),
    ("jax.grad(lambda x: (x.at[np.array([0, -1]), 1:3].add(x[0, 0]) ** 2).sum())", "(m,)"),
    # diag & co.: a platform-dependent cond (no clamp, ``branches_platforms``) whose default
    # branch traces the gather of a[..., i, j] (printed once, before, as ``let jaxpr``)
    ("jnp.diag", "(v8[:3],)"),
    ("jnp.diag", "(sq,)"),
    ("lambda x: jnp.diag(x, 1)", "(sq,)"),
    ("jnp.diagonal", "(sq,)"),
    ("lambda x: jnp.diagonal(x, -1)", "(m,)"),
    ("lambda x: jnp.diagonal(x, 1, 2, 0)", "(t,)"),
    ("jnp.trace", "(sq,)"),
    ("jnp.trace", "(m,)"),
    ("jnp.diagflat", "(v8[:3],)"),
    ("lambda x: jnp.diagflat(x, -2)", "(v8[:2],)"),
    # grad of a jit around a cond: jit's partial evaluation meets the linearized cond's
    # tangent cond again, whose residuals are all operands: no second (forwarding) cond
    ("jax.grad(lambda x: jnp.diag(x).sum())", "(sq,)"),
    ("jax.grad(lambda x: (jnp.diagonal(x, 1) ** 2).sum())", "(m,)"),
    ("jax.grad(lambda x: jax.jit(lambda x: jax.lax.cond(x[0] > 0, jnp.sin, lambda x: x * x, x))"
     "(x).sum())", "(v8,)"),
]

# values only
VALUE_CASES = [
    ("jax.grad(lambda x: (jnp.trace(x) * x).sum())", "(sq,)"),
    ("jax.grad(lambda x: jnp.diagflat(x).sum())", "(v8[:3],)"),
]

X64_CASES = [
    ("lambda x: x[np.array([0, -1])]", "(v8,)"),
    ("lambda x: x[np.array([True, False, True])]", "(v8[:3],)"),
    ("lambda x: x[True, np.array([0, 1])]", "(v8,)"),
    ("lambda x: x.at[np.array([0, -1], np.int32)].add(1.0)", "(v8,)"),
    ("lambda x, i: x[1, i]", "(m, i2)"),
]
