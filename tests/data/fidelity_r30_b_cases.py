"""Cases of tests/test_fidelity_r30_b.py: typed PRNG key arrays in jnp's structural functions
(eagerly, under jit and vmap), their ``.at[]``, operators, ``pprint``, ``_committed``, ``dir``
and the key data's sharding, evaluated by JAX 0.10.2 (the recorder, with 8 virtual CPU devices)
and by minijax. Each is an expression over SETUP's names giving a JSON-able outcome: a key
array as its dtype, shape and key data; an array as its dtype, shape and values; an exception
as its class and first line (``cls``: its class alone, where only the words of sharding errors
differ).
"""

DEVICES = 8

SETUP = """
NamedSharding, P, AxisType = jax.sharding.NamedSharding, jax.P, jax.sharding.AxisType
kd = jax.random.key_data
k = jax.random.split(jax.random.key(0), 6).reshape(2, 3)
k3 = jax.random.split(jax.random.key(1), 3)
k1 = jax.random.key(1)
kp = jax.random.split(jax.random.key(0, impl='philox4x32'), 3)
c = jnp.array([True, False, True])
def show(r):
    if isinstance(r, (list, tuple)):
        return [type(r).__name__, [show(x) for x in r]]
    if jnp.issubdtype(r.dtype, jax.dtypes.prng_key):
        return ["key", str(r.dtype), list(r.shape), np.asarray(kd(r)).tolist()]
    return [str(r.dtype), list(r.shape), np.asarray(r).tolist()]
def out(thunk):
    try:
        r = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return show(r)
def cls(thunk):
    try:
        r = thunk()
    except Exception as e:
        return type(e).__name__
    return show(r)
mesh = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Auto,))
emesh = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))
ks = jax.device_put(jax.random.split(jax.random.key(0), 8), NamedSharding(mesh, P('x')))
def explicit(f):
    with jax.set_mesh(emesh):
        ke = jax.device_put(jax.random.split(jax.random.key(0), 8), NamedSharding(emesh, P('x')))
        r = f(ke)
        return [str(jax.typeof(r)), str(r.sharding.spec)]
"""

# jnp's structural functions on keys (JAX accepts these), eagerly
_STRUCTURAL = [
    "jnp.take(k, jnp.array([1, 0]), axis=1)", "jnp.take(k, jnp.array([1, 0]))",
    "jnp.take(k, 1, axis=-1)", "jnp.take(k3, jnp.array([5]), mode='fill')",
    "jnp.take_along_axis(k, jnp.array([[0], [1]]), axis=1)", "jnp.reshape(k, (3, 2))",
    "jnp.reshape(k, -1)", "jnp.ravel(k)", "jnp.stack([k, k])", "jnp.stack([k3, k3], axis=1)",
    "jnp.concatenate([k, k], axis=1)", "jnp.concatenate([k3, k1[None]])",
    "jnp.hstack([k, k])", "jnp.vstack([k, k])", "jnp.dstack([k, k])",
    "jnp.column_stack([k, k])", "jnp.block([k, k])", "jnp.where(c, k, k[::-1])",
    "jnp.where(c, k3, k1)", "jnp.squeeze(k[:1])", "jnp.expand_dims(k, 0)",
    "jnp.expand_dims(k, -1)", "jnp.broadcast_to(k1, (3,))", "jnp.broadcast_arrays(k1, k)",
    "jnp.flip(k)", "jnp.flip(k, 0)", "jnp.fliplr(k)", "jnp.flipud(k)", "jnp.roll(k, 1)",
    "jnp.roll(k, 1, axis=1)", "jnp.tile(k, 2)", "jnp.tile(k3, (2, 1))",
    "jnp.repeat(k, 2, axis=0)", "jnp.repeat(k3, 2)", "jnp.transpose(k)",
    "jnp.swapaxes(k, 0, 1)", "jnp.moveaxis(k, 0, 1)", "jnp.rollaxis(k, 1)",
    "jnp.permute_dims(k, (1, 0))", "jnp.matrix_transpose(k)", "jnp.unstack(k)",
    "jnp.atleast_1d(k1)", "jnp.atleast_2d(k1)", "jnp.atleast_3d(k3)",
    "jnp.split(k, 3, axis=1)", "jnp.array_split(k, 2, axis=1)", "jnp.hsplit(k, 3)",
    "jnp.vsplit(k, 2)", "jnp.rot90(k)", "jnp.append(k, k)", "jnp.append(k3, k1[None])",
    "jnp.delete(k, 0, axis=0)", "jnp.insert(k, 0, k1, axis=1)", "jnp.diagonal(k)",
    "jnp.triu(jnp.stack([k3, k3, k3]))", "jnp.tril(jnp.stack([k3, k3, k3]), -1)",
    "jnp.compress(jnp.array([True, False]), k, axis=0)",
    "jnp.extract(jnp.array([[True, False, True]] * 2), k)",
    "jnp.choose(jnp.array([0, 1, 0]), [k[0], k[1]])", "jnp.zeros_like(k)", "jnp.ones_like(k3)",
    "jnp.full_like(k3, 5)", "jnp.empty_like(k)", "jnp.zeros_like(k3, dtype=jnp.float32)",
    "jnp.full_like(k3, 5, dtype=jnp.int32)", "jnp.ones_like(kp)", "jnp.stack([kp, kp])",
    "jnp.where(c, kp, kp[0])",
]
CASES = [f"out(lambda: {e})" for e in _STRUCTURAL]
# under jit and vmap
CASES += [
    "out(lambda: jax.jit(lambda k: jnp.take(k, jnp.array([2, 0]), axis=0))(k3))",
    "out(lambda: jax.jit(lambda k: jnp.reshape(k, (3, 2)))(k))",
    "out(lambda: jax.jit(lambda k, j: jnp.stack([k, j]))(k3, k3[::-1]))",
    "out(lambda: jax.jit(lambda c, k: jnp.where(c, k, k[::-1]))(c, k3))",
    "out(lambda: jax.jit(lambda k: jnp.split(k, 3))(k3))",
    "out(lambda: jax.jit(lambda k: k.at[1].set(k[0]))(k3))",
    "out(lambda: jax.vmap(lambda k: jnp.stack([k, k]))(k3))",
    "out(lambda: jax.vmap(lambda k: jnp.flip(k))(k))",
    "out(lambda: jax.vmap(lambda k, i: jnp.take(k, i))(k, jnp.array([2, 0])))",
    "out(lambda: jax.vmap(lambda k: jnp.broadcast_to(k, (2,)))(k3))",
    "out(lambda: jax.vmap(lambda k: k.at[0].set(k[2]))(k))",
    "out(lambda: jax.vmap(lambda r: jax.random.split(r[1]))(k))",
]
# refusals: mixing keys with other arrays or impls, and functions JAX refuses
CASES += [f"out(lambda: {e})" for e in [
    "jnp.stack([k3, jnp.zeros(3, 'uint32')])", "jnp.stack([jnp.zeros(3, 'uint32'), k3])",
    "jnp.where(c, k3, 0)", "jnp.append(k3, 0)",
    "jnp.take(k3, 0, axis=3)", "jnp.reshape(k3, (4,))", "jnp.squeeze(k3, 0)",
]]
# keys of two impls: JAX names either dtype (its promotion reads a set)
CASES += ["cls(lambda: jnp.concatenate([k3, kp]))"]
# .at[] on keys
CASES += [f"out(lambda: {e})" for e in [
    "k3.at[0].set(k1)", "k3.at[1].get()", "k3.at[1:].set(k1)",
    "k3.at[jnp.array([0, 2])].set(k3[1])", "k.at[:, 0].set(k3[:2])", "k3.at[5].get(mode='fill')",
    "k3.at[5].get(mode='fill', fill_value=0)", "k3.at[jnp.array([2, 2])].get()",
    "k3.at[0].apply(lambda x: x)", "k3.at[0].add(k1)", "k3.at[0].set(0)",
    "k3.at[0].set(jnp.uint32(0))", "k3.at[0].set(jax.random.key(0, impl='rbg'))",
    "k3.at[0].min(k1)", "k3.at[0].multiply(k1)",
]]
# operators
_OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift",
        "rshift", "divmod", "lt", "le", "gt", "ge", "eq", "ne"]
CASES += [f"out(lambda: k3.__{op}__({other}))" for op in _OPS
          for other in ("k3", "k1", "2", "2.0", "jnp.ones(3, 'uint8')")]
CASES += [f"out(lambda: {e})" for e in [
    "k1 + 0", "0 + k1", "2 * k3", "2 - k3", "2.0 / k3", "2 ** k3", "1 | k3", "0 < k3", "0 == k3",
    "k3 ** jnp.int32(2)", "k3 ** jnp.ones(3, 'int32')", "k3 + np.float64(1)", "k3 + [1, 2, 3]",
    "-k1", "+k1", "abs(k1)", "~k1", "round(k1)", "k3 @ k3", "k1 @ k1", "k3 @ 2",
    "k3 @ jnp.ones(3, 'uint32')", "k3 == k1", "k3 != k1", "k3 == k3", "int(k1)", "float(k1)",
    "complex(k1)", "hex(k1)", "divmod(k3, 2)",
    "jax.jit(lambda a, b: a == b)(k3, k1)", "jax.jit(lambda a: a + 1)(k3)",
    "jax.jit(lambda a: a < a)(k3)",
]]
# pprint (its lines without the functions' addresses), _committed, dir
CASES += [
    "[l for l in k3.pprint().split(chr(10)) if ' at 0x' not in l]",
    "[l for l in jax.random.key(0, impl='rbg').pprint().split(chr(10)) if ' at 0x' not in l]",
    "out(lambda: jax.jit(lambda k: k.pprint())(k3))",
    "[k3._committed, k3.committed, jax.device_put(k3, jax.devices()[1])._committed]",
    "[jax.device_get(k3)._committed, type(jax.device_get(k3)).__name__, jax.device_get(k3) is k3]",
    "show(jax.device_get(k3))",
    "show(k3._base_array)",
    "sorted(a for a in set(dir(k3)) - set(dir(jnp.zeros(1))) if not a.startswith('_'))",
    "[a for a in ('format', 'tobytes', 'tolist', 'weak_type', 'pprint', 'at') if a in dir(k3)]",
]
# the key data's sharding (its physical one), keys on Explicit axes
CASES += [
    "str(kd(ks).sharding.spec)", "str(ks.sharding.spec)",
    "str(jax.jit(kd)(ks).sharding.spec)", "str(jnp.take(ks, jnp.arange(8), axis=0).sharding.spec)",
    "str(jnp.reshape(ks, (2, 4)).sharding.spec)",
    "explicit(lambda ke: kd(ke))", "explicit(lambda ke: ke)", "explicit(lambda ke: jnp.flip(ke))",
    "explicit(lambda ke: jnp.stack([ke, ke]))", "explicit(lambda ke: jax.jit(jnp.flip)(ke))",
    "cls(lambda: explicit(lambda ke: ke[::2]))",
    "cls(lambda: explicit(lambda ke: jnp.take(ke, jnp.arange(4), axis=0)))",
    "cls(lambda: explicit(lambda ke: jnp.reshape(ke, (2, 4))))",
    "cls(lambda: explicit(lambda ke: ke.at[0].set(ke[1])))",
]
# jnp functions refusing keys, in JAX's words for each
_BINARY = ["add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "remainder",
           "mod", "power", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
           "right_shift", "divmod", "less", "less_equal", "greater", "greater_equal", "maximum",
           "minimum", "arctan2", "logical_and", "hypot", "fmod", "copysign", "logaddexp"]
CASES += [f"out(lambda: jnp.{f}({a}, {b}))" for f in _BINARY
          for a, b in (("k3", "0"), ("0", "k3"), ("k3", "k3"), ("k3", "jnp.ones(3)"))]
CASES += [f"out(lambda: jnp.{f}(k3))" for f in [
    "negative", "abs", "absolute", "invert", "bitwise_not", "logical_not", "sign", "exp", "sqrt",
    "square", "round", "floor", "sum", "max", "argmax", "argmin", "mean", "cumsum", "sort",
    "argsort", "unique", "nonzero", "flatnonzero", "argwhere", "count_nonzero", "any", "all"]]
CASES += [f"out(lambda: {e})" for e in [
    "jnp.clip(k3, k3)", "jnp.searchsorted(k3, k3)", "jnp.pad(k3, 1)",
    "jnp.select([c], [k3])", "jnp.equal(k3, 0)", "jnp.not_equal(0, k3)",
    "jax.jit(lambda k: jnp.add(k, 1))(k3)", "jax.vmap(lambda k: jnp.sort(k))(k)",
]]
# jnp functions JAX runs on keys elementwise
CASES += [f"out(lambda: {e})" for e in [
    "jnp.positive(k3)", "jnp.real(k3)", "jnp.imag(k3)", "jnp.conj(k3)", "jnp.conjugate(k3)",
    "jnp.isnan(k3)", "jnp.isfinite(k3)", "jnp.isinf(k3)", "jnp.equal(k3, k3[::-1])",
    "jnp.not_equal(k3, k3[0])", "jnp.equal(k3[0], k3)", "jnp.equal(k3, kp)", "jnp.add(k3, kp)",
    "k3 == kp", "k3 - kp",
    "jax.jit(jnp.equal)(k3, k3[::-1])", "jax.vmap(jnp.not_equal)(k3, k3[::-1])",
    "jnp.array_equal(k3, k3)", "jnp.array_equiv(k3, k3)", "jnp.array_equiv(k3, k3[::-1])",
    "jnp.array_equiv(k3[:1], k3[0])", "jnp.array_equiv(k3, 0)",
]]
