"""Cases for tests/test_fidelity_r23_a.py: source strings evaluated under JAX 0.10.2 (by
record_fidelity_r23_a.py) and under minijax (by the test), in an environment holding ``jax``,
``jnp``, ``np`` and what SETUP defines."""

SETUP = '''
X = np.arange(6, dtype=np.float32).reshape(2, 3)
S = np.float32(2.0)
I = np.array([[0, 1, 0], [1, 0, 1]], np.int32)
U8 = np.arange(6, dtype=np.uint8).reshape(2, 3)
B3 = np.arange(24).reshape(2, 3, 4) % 3
def err(f, *args):
    """The error ``f(*args)`` raises, eagerly and under jit: [type name, message] each."""
    out = []
    for g in (f, jax.jit(f)):
        try:
            g(*args)
            out.append(None)
        except Exception as e:
            out.append([type(e).__name__, str(e)])
    return out
'''

# [type name, whole message] eagerly and under jit
ERRORS = [
    # an out-of-range axis: a plain ValueError (NumPy's AxisError before)
    "err(lambda x: jnp.sum(x, axis=2), X)",
    "err(lambda x: jnp.sum(x, axis=0), S)",
    "err(lambda x: jnp.cumsum(x, axis=-3), X)",
    "err(lambda x: jnp.sort(x, axis=2), X)",
    "err(lambda x: jnp.concatenate([x, x], axis=2), X)",
    "err(lambda x: jnp.take_along_axis(x, I, axis=-3), X)",
    "err(lambda x: jnp.moveaxis(x, 0, 2), X)",
    "err(lambda x: jnp.expand_dims(x, 3), X)",
    # mean/var/std read the shape at the axis first: IndexError (but not with where=)
    "err(lambda x: jnp.mean(x, axis=2), X)",
    "err(lambda x: jnp.var(x, axis=0), S)",
    "err(lambda x: jnp.std(x, axis=(0, -3)), X)",
    "err(lambda x: jnp.mean(x, axis=2, where=x > 1), X)",
    "err(lambda x: jnp.mean(x, axis=(0, 0)), X)",
    "err(lambda x: jnp.split(x, 1, axis=2), X)",
    "err(lambda x: jnp.array_split(x, 1, axis=-3), X)",
    # swapaxes swaps entries of a NumPy array (so do packbits/unpackbits)
    "err(lambda x: jnp.swapaxes(x, 0, 2), X)",
    "err(lambda x: jnp.swapaxes(x, -3, 0), X)",
    "err(lambda x: jnp.packbits(x, axis=2), U8)",
    "err(lambda x: jnp.packbits(x, axis=0), np.uint8(3))",
    "err(lambda x: jnp.unpackbits(x, axis=(0, 1)), U8)",
    # repeats: each function's own words
    "err(lambda x: jnp.squeeze(x, axis=(0, -2)), X)",
    "err(lambda x: jnp.expand_dims(x, (0, 0)), X)",
    "err(lambda x: jnp.expand_dims(x, (0, -2)), S)",
    "err(lambda x: jnp.flip(x, axis=(0, -2)), X)",
    "err(lambda x: jnp.average(x, axis=(0, 0)), X)",
    "err(lambda x: jnp.trapezoid(x, axis=(0, 0)), X)",
    # a float axis: "not iterable" (JAX tries it as an index, then as a sequence)
    "err(lambda x: jnp.sum(x, axis=1.5), X)",
    "err(lambda x: jnp.squeeze(x, axis=1.5), X)",
    "err(lambda x: jnp.average(x, axis=1.5), X)",
    "err(lambda x: jnp.rollaxis(x, 0, 3), X)",
    "err(lambda x: jnp.put_along_axis(x, I, 9.0, axis=2, inplace=False), X)",
    "err(lambda x: jnp.put_along_axis(x, I, 9.0, axis=-3, inplace=False), X)",
    "err(lambda x: jnp.put_along_axis(x, I, 9.0, axis=1), X)",
    "err(lambda x: jnp.put_along_axis(x, I, 9.0, axis=None, inplace=False), X)",
    "err(lambda x: jnp.put_along_axis(x, I[:1], np.ones((2, 3)), axis=1, inplace=False), X)",
    "err(lambda x: jnp.average(x, axis=1, weights=np.ones(2)), X)",
    "err(lambda x: jnp.average(x, weights=np.ones(3)), X)",
    "err(lambda x: jnp.fabs(x), np.complex64(1j))",
    # check_arraylike's words; a string passes it and fails at JAX's asarray
    "err(lambda: jnp.sum([1, 2]))",
    "err(lambda: jnp.concatenate([np.ones(2), (1.0,)]))",
    "err(lambda: jnp.histogram(np.ones(3), bins='auto'))",
    "err(lambda: jnp.flip('a'))",
]

# [type name, the message's start]: the rest is a lax error's or a tracer's text, worded
# otherwise in minijax (lax's shape errors, the tracer's repr: not this area)
ERROR_STARTS = [
    ("err(lambda x: jnp.diff(x), S)", "diff requires input that is at least one dimensional"),
    ("err(lambda x: jnp.permute_dims(x, (0, -3)), X)", None),
    ("err(lambda x: jnp.moveaxis(x, (0, 0), (1, 0)), X)", None),
    ("err(lambda x: jnp.remainder(x, x), np.complex64(1j))", None),
]

VALUES = [
    "jnp.put_along_axis(X, I.ravel(), 9.0, axis=None, inplace=False)",
    "jnp.average(X, axis=(1, 0), weights=np.arange(6.).reshape(3, 2))",
    "jnp.average(X, axis=0, weights=np.arange(2.), returned=True)[1]",
    "jnp.packbits(B3, axis=1, bitorder='little')",
    "jnp.packbits(B3)",
    "jnp.unpackbits(U8, axis=0, count=5)",
    "jnp.unpackbits(U8, axis=1, count=30, bitorder='little')",
    "jnp.unpackbits(np.uint8(5))",
    "jnp.remainder(np.array([-7, 7], np.int32), np.array([2, -3], np.int32))",
]

JAXPRS = [
    "jax.make_jaxpr(lambda x: jnp.packbits(x, axis=0))(U8)",
    "jax.make_jaxpr(lambda x: jnp.unpackbits(x, axis=1, count=10))(U8)",
]

# jnp.einsum_path's second element: opt_einsum's PathInfo (its printed report, costs)
EINSUM_PATHS = [
    ("ij,jk", [(3, 4), (4, 5)], "greedy"),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)], "optimal"),
    ("ij->i", [(3, 4)], "greedy"),
    ("i,j", [(3,), (4,)], "greedy"),
    ("ij,ji", [(2, 3), (3, 2)], "greedy"),
    ("...ij,...jk", [(2, 3, 4), (2, 4, 5)], "greedy"),
    ("ijk,jkl", [(2, 3, 4), (3, 4, 5)], False),
    ("i,ij,j", [(3,), (3, 4), (4,)], True),
    ("abc,cd,de,ea", [(2, 3, 4), (4, 5), (5, 6), (6, 2)], "optimal"),
]
