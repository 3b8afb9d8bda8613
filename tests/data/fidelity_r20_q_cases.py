"""Cases for tests/test_fidelity_r20_q.py: each wrapped jnp/nn/random function given a list
where it takes a static option that may hold a sequence. JAX 0.10.2 either converts the list
in its Python wrapper before its jit (the call computes what the tuple gives) or lets it reach
its jit (``ValueError: Non-hashable static arguments are not supported``)."""

SETUP = """
x = jnp.arange(24.0).reshape(2, 3, 4)
m = jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
v = jnp.arange(6.0)
key = jax.random.key(0)
"""

# (list-valued call, the same call with tuples): both run; the outcome of the first is recorded
CASES = [
    ("jnp.sum(x, axis=[0, 2])", "jnp.sum(x, axis=(0, 2))"),
    ("jnp.prod(x, axis=[0, 2])", "jnp.prod(x, axis=(0, 2))"),
    ("jnp.min(x, axis=[0, 2])", "jnp.min(x, axis=(0, 2))"),
    ("jnp.all(x, axis=[0, 2])", "jnp.all(x, axis=(0, 2))"),
    ("jnp.any(x, axis=[0, 2])", "jnp.any(x, axis=(0, 2))"),
    ("jnp.std(x, axis=[0, 2])", "jnp.std(x, axis=(0, 2))"),
    ("jnp.mean(x, axis=[0, 2])", "jnp.mean(x, axis=(0, 2))"),
    ("jnp.var(x, axis=[0, 2])", "jnp.var(x, axis=(0, 2))"),
    ("jnp.max(x, axis=[0, 2])", "jnp.max(x, axis=(0, 2))"),
    ("jnp.count_nonzero(x, axis=[0, 2])", "jnp.count_nonzero(x, axis=(0, 2))"),
    ("jnp.ptp(x, axis=[0, 2])", "jnp.ptp(x, axis=(0, 2))"),
    ("jnp.average(x, axis=[0, 2])", "jnp.average(x, axis=(0, 2))"),
    ("jnp.nansum(x, axis=[0, 2])", "jnp.nansum(x, axis=(0, 2))"),
    ("jnp.nanmean(x, axis=[0, 2])", "jnp.nanmean(x, axis=(0, 2))"),
    ("jnp.nanmax(x, axis=[0, 2])", "jnp.nanmax(x, axis=(0, 2))"),
    ("jnp.nanmin(x, axis=[0, 2])", "jnp.nanmin(x, axis=(0, 2))"),
    ("jnp.nanstd(x, axis=[0, 2])", "jnp.nanstd(x, axis=(0, 2))"),
    ("jnp.nanvar(x, axis=[0, 2])", "jnp.nanvar(x, axis=(0, 2))"),
    ("jnp.nanprod(x, axis=[0, 2])", "jnp.nanprod(x, axis=(0, 2))"),
    ("jnp.median(x, axis=[0, 2])", "jnp.median(x, axis=(0, 2))"),
    ("jnp.nanmedian(x, axis=[0, 2])", "jnp.nanmedian(x, axis=(0, 2))"),
    ("jnp.quantile(x, 0.5, axis=[0, 2])", "jnp.quantile(x, 0.5, axis=(0, 2))"),
    ("jnp.percentile(x, 50.0, axis=[0, 2])", "jnp.percentile(x, 50.0, axis=(0, 2))"),
    ("jnp.flip(x, axis=[0, 2])", "jnp.flip(x, axis=(0, 2))"),
    ("jnp.roll(x, [1, 2], axis=[0, 2])", "jnp.roll(x, (1, 2), axis=(0, 2))"),
    ("jnp.rot90(x, axes=[0, 2])", "jnp.rot90(x, axes=(0, 2))"),
    ("jnp.resize(v, [2, 4])", "jnp.resize(v, (2, 4))"),
    ("jnp.pad(v, [1, 2])", "jnp.pad(v, (1, 2))"),
    ("jnp.pad(v, [[1, 2]], mode='constant', constant_values=[[5.0, 6.0]])",
     "jnp.pad(v, ((1, 2),), mode='constant', constant_values=((5.0, 6.0),))"),
    ("jnp.pad(v, 2, mode='linear_ramp', end_values=[1.0, 2.0])",
     "jnp.pad(v, 2, mode='linear_ramp', end_values=(1.0, 2.0))"),
    ("jnp.pad(v, 2, mode='mean', stat_length=[1, 2])",
     "jnp.pad(v, 2, mode='mean', stat_length=(1, 2))"),
    ("jnp.gradient(x, axis=[0, 2])", "jnp.gradient(x, axis=(0, 2))"),
    ("jnp.tensordot(x, x, axes=[[0, 1], [0, 1]])", "jnp.tensordot(x, x, axes=((0, 1), (0, 1)))"),
    ("jnp.linalg.norm(x, axis=[0, 2])", "jnp.linalg.norm(x, axis=(0, 2))"),
    ("jnp.linalg.svd(m, subset_by_index=[0, 2])", "jnp.linalg.svd(m, subset_by_index=(0, 2))"),
    ("jnp.partition(v, [1, 3])", "jnp.partition(v, (1, 3))"),
    ("jnp.argpartition(v, [1, 3])", "jnp.argpartition(v, (1, 3))"),
    ("jnp.fft.fftn(x, s=[2, 4], axes=[0, 2])", "jnp.fft.fftn(x, s=(2, 4), axes=(0, 2))"),
    ("jnp.polyfit(v, v * v, [1, 2])", "jnp.polyfit(v, v * v, (1, 2))"),
    ("jnp.piecewise(v, [v < 2, v >= 2], [lambda t: t, lambda t: -t])",
     "jnp.piecewise(v, [v < 2, v >= 2], (lambda t: t, lambda t: -t))"),
    ("jax.nn.log_softmax(x, axis=[0, 2])", "jax.nn.log_softmax(x, axis=(0, 2))"),
    ("jax.nn.logmeanexp(x, axis=[0, 2])", "jax.nn.logmeanexp(x, axis=(0, 2))"),
    ("jax.nn.standardize(x, axis=[0, 2])", "jax.nn.standardize(x, axis=(0, 2))"),
    ("jax.random.uniform(key, [2, 3])", "jax.random.uniform(key, (2, 3))"),
    ("jax.random.normal(key, [2, 3])", "jax.random.normal(key, (2, 3))"),
    ("jax.random.bernoulli(key, 0.5, [2, 3])", "jax.random.bernoulli(key, 0.5, (2, 3))"),
    ("jax.random.randint(key, [2, 3], 0, 5)", "jax.random.randint(key, (2, 3), 0, 5)"),
    ("jax.random.gumbel(key, [2, 3])", "jax.random.gumbel(key, (2, 3))"),
    ("jax.random.truncated_normal(key, -1.0, 1.0, [2, 3])",
     "jax.random.truncated_normal(key, -1.0, 1.0, (2, 3))"),
    ("jax.random.pareto(key, 2.0, [2, 3])", "jax.random.pareto(key, 2.0, (2, 3))"),
    ("jax.random.split(key, [2, 3]).shape", "jax.random.split(key, (2, 3)).shape"),
    ("jax.random.bits(key, [2, 3])", "jax.random.bits(key, (2, 3))"),
]


def outcome(env, list_src, tuple_src, tree_leaves):
    """``["same"]`` when the list call computes what the tuple call does, else the error's
    type and message."""
    import numpy as np
    try:
        got = eval(list_src, env)
    except Exception as e:  # noqa: BLE001 - the outcome recorded
        return [type(e).__name__, str(e)]
    want = eval(tuple_src, env)
    same = all(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
               for a, b in zip(tree_leaves(got), tree_leaves(want)))
    return ["same" if same else "different"]


def staged_outcome(env, list_src, make_jaxpr):
    """The list-valued call traced with ``x``, ``v`` and ``m`` as make_jaxpr's arguments: the
    inlined jit still requires hashable static arguments, and says so in the same words."""
    try:
        make_jaxpr(lambda x, v, m: eval(list_src, {**env, "x": x, "v": v, "m": m}))(
            env["x"], env["v"], env["m"])
    except Exception as e:  # noqa: BLE001 - the outcome recorded
        return [type(e).__name__, str(e)]
    return ["traced"]
