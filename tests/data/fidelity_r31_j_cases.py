"""Cases of tests/test_fidelity_r31_j.py: typed PRNG key arrays in jax.lax's structural
functions (eagerly, under jit, vmap, the loops and grad), jnp.pad's modes, jnp.isin,
jnp.array_equal/array_equiv, and the key data's sharding of keys placed by jit's
out_shardings and device_put, evaluated by JAX 0.10.2 (the recorder, with 8 virtual CPU
devices) and by minijax. Each is an expression over SETUP's names giving a JSON-able outcome:
a key array as its dtype, shape and key data; an array as its dtype, shape and values; an
exception as its class and first line (``cls``: its class alone, where the words differ as for
plain arrays: minijax's lax names shapes with their dtype).
"""

DEVICES = 8

SETUP = """
lax, random = jax.lax, jax.random
NamedSharding, P, AxisType = jax.sharding.NamedSharding, jax.P, jax.sharding.AxisType
kd = random.key_data
k = random.split(random.key(0), 6)
k23 = k.reshape(2, 3)
kp = random.split(random.key(0, impl='philox4x32'), 6)
ev = jnp.arange(6) % 2 == 0
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
auto = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Auto,))
explicit = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))
k8 = random.split(random.key(0), 8)
k81 = k8.reshape(8, 1)
def spec(x):
    return str(x.sharding.spec)
"""

# jax.lax's structural functions on keys (JAX accepts them), eagerly
_LAX = [
    "lax.reshape(k, (2, 3))", "lax.reshape(k23, (3, 2))", "lax.slice(k, (1,), (5,), (2,))",
    "lax.slice(k23, (0, 1), (2, 3))", "lax.slice_in_dim(k, 1, 4)",
    "lax.slice_in_dim(k23, 0, 2, axis=1)", "lax.dynamic_slice(k, (2,), (3,))",
    "lax.dynamic_slice(k, (jnp.int32(5),), (3,))", "lax.dynamic_slice_in_dim(k, 2, 3)",
    "lax.dynamic_index_in_dim(k, 2, keepdims=False)", "lax.dynamic_index_in_dim(k23, 1, 1)",
    "lax.index_in_dim(k, 2)", "lax.index_in_dim(k23, -1, 1, keepdims=False)",
    "lax.concatenate([k, k[::-1]], 0)", "lax.concatenate([k23, k23], 1)",
    "lax.concatenate([k], 0)",
    "lax.broadcast_in_dim(k, (2, 6), (1,))", "lax.broadcast_in_dim(k[0], (3,), ())",
    "lax.broadcast(k, (2,))", "lax.broadcast(k[0], (2, 2))", "lax.squeeze(k[None], (0,))",
    "lax.squeeze(k23[:1], (0,))", "lax.expand_dims(k, (0,))", "lax.expand_dims(k, (1,))",
    "lax.transpose(k23, (1, 0))", "lax.rev(k, (0,))", "lax.rev(k23, (0, 1))",
    "lax.select_n(ev, k, k[::-1])", "lax.select(ev, k, k[::-1])",
    "lax.select_n(True, k, k[::-1])",
    "lax.select_n(jnp.arange(6) % 3, k, k[::-1], jnp.repeat(k[::2], 2))",
    "lax.dynamic_update_slice(k, k[:2], (1,))", "lax.dynamic_update_slice(k23, k23[:, :1], (1, 2))",
    "lax.dynamic_update_slice_in_dim(k, k[:2], 1, 0)",
    "lax.dynamic_update_index_in_dim(k, k[0], 1, 0)", "lax.eq(k, k[::-1])",
    "lax.ne(k, k[::-1])", "lax.eq(k, k[0])", "lax.ne(k23, k23)", "lax.full_like(k, 0)",
    "lax.full_like(k, 1)", "lax.full_like(k, 1, jnp.float32)", "lax.full_like(k, 0, shape=(2,))",
    "lax.collapse(k23, 0, 2)",
    "lax.gather(k, jnp.array([[1], [3]]), lax.GatherDimensionNumbers(offset_dims=(), "
    "collapsed_slice_dims=(0,), start_index_map=(0,)), (1,))",
    # errors in the keys' shape words
    "lax.dynamic_slice(k, (1,), (9,))", "lax.transpose(k, (1, 0))", "lax.squeeze(k, (0,))",
    "lax.rev(k, (1,))",
    "lax.broadcast_in_dim(k, (2, 5), (1,))",
    "lax.select_n(k, k, k)", "lax.pad(k, 0, [(1, 1, 0)])",
]
CASES = [f"out(lambda: {e})" for e in _LAX]
# more structural functions JAX runs on keys: lax.split, jnp's resize, diagflat and the index
# updates (keys set into keys; another value is .at[].set's refusal)
CASES += [f"out(lambda: {e})" for e in [
    "lax.split(k, (2, 4))", "lax.split(k23, (1, 2), axis=1)",
    "jax.jit(lambda a: lax.split(a, (3, 3)))(k)",
    "jnp.resize(k, (4,))", "jnp.resize(k23, (3, 3))", "jax.jit(lambda a: jnp.resize(a, (7,)))(k)",
    "jnp.diagflat(k[:2])", "jnp.diagflat(k[:2], 1)",
    "jnp.fill_diagonal(k23, k[0], inplace=False)", "jnp.fill_diagonal(k23, 0, inplace=False)",
    "jnp.fill_diagonal(k23, k[0])",
    "jnp.place(k, jnp.arange(6) > 2, k[:2], inplace=False)",
    "jnp.place(k, jnp.arange(6) > 2, 0, inplace=False)",
    "jnp.put(k, jnp.array([0, 4]), k[2:4], inplace=False)",
    "jnp.put(k, jnp.array([9]), k[2:3], mode='clip', inplace=False)",
    "jnp.put(k, jnp.array([0]), 0, inplace=False)",
    "jnp.put_along_axis(k23, jnp.array([[1], [0]]), k23[:, :1], 1, inplace=False)",
    "jnp.put_along_axis(k23, jnp.array([[1], [0]]), 0, 1, inplace=False)",
]]
# lax.full and lax.empty of the key dtype (JAX's extended dtype rule): keys of those words
CASES += [f"out(lambda: {e})" for e in [
    "lax.full((2,), 0, k.dtype)", "lax.full((2, 1), 1, k.dtype)", "lax.full((2,), k[1], k.dtype)",
    "lax.full((2,), k[1])", "lax.full((3,), 0.5, k.dtype)", "lax.full((2,), 7, kp.dtype)",
    "lax.empty((2,), k.dtype)",
    "jax.jit(lambda: lax.full((3,), 0, k.dtype))()", "jax.jit(lambda a: lax.full((2,), a))(k[2])",
    "jax.vmap(lambda a: lax.full((2,), a))(k[:3])",
]]
# the lax functions that do not move elements refuse keys in their dtype rule's words, eagerly
# as under jit; convert_element_type takes keys to their own dtype alone
CASES += [f"out(lambda: {e})" for e in [
    "lax.sub(k, k)", "lax.add(k, 1)", "lax.mul(k, k)", "lax.neg(k)", "lax.abs(k)", "lax.exp(k)",
    "jax.jit(lambda a: lax.sub(a, a))(k)", "jax.jit(lax.neg)(k)",
    "lax.convert_element_type(k, jnp.uint32)", "lax.convert_element_type(k, jnp.float64)",
    "lax.convert_element_type(k, k.dtype)",
    "lax.convert_element_type(jnp.zeros((3, 2), jnp.uint32), k.dtype)",
    "lax.convert_element_type(0, k.dtype)",
    "lax.convert_element_type(k, random.key(0, impl='rbg').dtype)",
    "jax.jit(lambda a: lax.convert_element_type(a, a.dtype))(k)",
    "jax.jit(lambda a: lax.convert_element_type(a, jnp.uint32))(k)",
]]
# jnp.array of keys: sequences of keys stacked, ndmin honoured
CASES += [f"out(lambda: {e})" for e in [
    "jnp.array([k[0], k[1]])", "jnp.array([[k[0]], [k[1]]])", "jnp.asarray([k[0], k[1]])",
    "jnp.array((k[0], k[1]))", "jnp.array(k, ndmin=3)", "jnp.array([k[0], 1])",
    "jnp.array(k, dtype=jnp.float32)", "jnp.array([k[0], k[1]], dtype=jnp.float32)",
    "jax.jit(lambda a, b: jnp.array([a, b]))(k[0], k[1])",
]]
# jnp's type predicates on keys
CASES += ["bool(jnp.isscalar(k[0]))", "bool(jnp.isscalar(k))", "bool(jnp.iscomplexobj(k))",
          "bool(jnp.isrealobj(k))"]
# words that differ as for plain arrays (minijax's lax names dtypes with the shapes)
CASES += [f"cls(lambda: {e})" for e in [
    "lax.eq(k, k[:2])", "lax.concatenate([k, k], 1)", "lax.slice(k, (1,), (9,))",
]]
# under jit, vmap, the loops and grad
CASES += [f"out(lambda: {e})" for e in [
    "jax.jit(lambda a: lax.reshape(a, (3, 2)))(k)",
    "jax.jit(lambda a: lax.concatenate([a, a[::-1]], 0))(k)",
    "jax.jit(lambda p, a: lax.select(p, a, a[::-1]))(ev, k)",
    "jax.jit(lambda a: lax.eq(a, a[::-1]))(k)",
    "jax.jit(lambda a, i: lax.dynamic_slice(a, (i,), (2,)))(k, 3)",
    "jax.jit(lambda a, b: lax.dynamic_update_slice(a, b, (2,)))(k, k[:3])",
    "jax.vmap(lambda a: lax.slice(a, (1,), (3,)))(k23)",
    "jax.vmap(lambda a, b: lax.dynamic_update_slice(a, b, (1,)))(k23, k23[:, :1])",
    "jax.vmap(lambda a: lax.concatenate([a, a], 0))(k23)",
    "jax.vmap(lambda p, a, b: lax.select(p, a, b))(jnp.array([True, False]), k23, k23[::-1])",
    "jax.vmap(lambda a, i: lax.dynamic_slice(a, (i,), (2,)))(k23, jnp.array([0, 1]))",
    "jax.vmap(lambda a, i: lax.dynamic_index_in_dim(a, i, keepdims=False))(k23, jnp.array([2, 0]))",
    "jax.vmap(lambda a: lax.rev(a, (0,)))(k23)",
    "jax.vmap(lax.transpose, (0, None))(k23[None], (1, 0))",
    "lax.fori_loop(0, 3, lambda i, a: lax.dynamic_update_index_in_dim(a, a[i + 1], i, 0), k)",
    "lax.scan(lambda c, x: (lax.select(lax.eq(x, c), c, x), lax.ne(c, x)), k[0], k)",
    "jax.grad(lambda x, a: x * random.uniform(lax.index_in_dim(a, 1, keepdims=False)))(1., k)",
]]
# jnp.pad's modes: those that move elements pad keys
CASES += [f"out(lambda: jnp.pad(k, 1, mode={m!r}))" for m in [
    "constant", "edge", "wrap", "reflect", "symmetric", "linear_ramp", "maximum", "minimum",
    "mean", "median", "empty", "foo"]]
CASES += [f"out(lambda: {e})" for e in [
    "jnp.pad(k23, ((1, 0), (0, 2)), mode='edge')", "jnp.pad(k, (2, 1), 'wrap')",
    "jnp.pad(k, 1, mode='edge', constant_values=1)",
    "jnp.pad(k, 2, mode='reflect', reflect_type='odd')",
    "jnp.pad(k, 2, mode='symmetric', reflect_type='odd')",
    "jnp.pad(k, 2, mode='symmetric', reflect_type='even')",
    "jnp.pad(k, 1, mode=lambda v, w, i, kw: None)",
    "jax.jit(lambda a: jnp.pad(a, (1, 2), mode='wrap'))(k)",
    "jax.vmap(lambda a: jnp.pad(a, 1, mode='edge'))(k23)",
]]
# jnp.isin: every pair compared with the keys' equality; the sorting methods refuse keys
CASES += [f"out(lambda: {e})" for e in [
    "jnp.isin(k, k[:2])", "jnp.isin(k, k[:2], invert=True)", "jnp.isin(k23, k[4])",
    "jnp.isin(k[4], k23)", "jnp.isin(k, k[:0])", "jnp.isin(k, k[:0], invert=True)",
    "jnp.isin(k, k[:2], method='compare_all')", "jnp.isin(k, k[:2], method='sort')",
    "jnp.isin(k, k[:2], method='binary_search')", "jnp.isin(k, k, method='foo')",
    "jnp.isin(k, 0)", "jnp.isin(0, k)", "jnp.isin(k, jnp.zeros(2, jnp.uint32))",
    "jax.jit(jnp.isin)(k, k[3:])", "jax.vmap(jnp.isin, (0, None))(k23, k[1:4])",
]]
# jnp.array_equal / array_equiv with keys
CASES += [f"out(lambda: {e})" for e in [
    "jnp.array_equal(k, 0)", "jnp.array_equal(0, k)", "jnp.array_equal(k[0], 0)",
    "jnp.array_equal(0, k[0])", "jnp.array_equal(k[0], jnp.uint32(0))",
    "jnp.array_equal(k, [1, 2])", "jnp.array_equal(k, k, equal_nan=True)",
    "jnp.array_equal(k, k[:2])", "jnp.array_equal(k, k[::-1])",
    "jnp.array_equal(k, jnp.zeros(6, jnp.uint32))", "jnp.array_equiv(k, k[0])",
    "jnp.array_equiv(k23, k[:3])", "jnp.array_equiv(0, k)", "jnp.array_equiv(k, k[:1])",
    # plain arrays (array_equiv is JAX's: only jnp's ValueError gives False)
    "jnp.array_equiv(jnp.ones((2, 3)), jnp.ones(4))",
    "jnp.array_equiv(jnp.ones((2, 3)), jnp.ones(3))",
    "jnp.array_equiv(jnp.ones(()), jnp.ones(2))",
]]
CASES += [f"cls(lambda: {e})" for e in [
    "jnp.array_equiv(k, k[:2])", "jnp.equal(k, k[:2])", "jnp.not_equal(k, k[:2])", "k == k[:2]",
    "jnp.array_equiv(jnp.ones(6), jnp.ones(2))",
    "jnp.array_equiv(jnp.ones((2, 3)), jnp.ones((3, 2)))",
]]
# the key data's sharding of keys placed by jit's out_shardings and device_put: the keys'
# spec and a None per key dimension
CASES += [
    "spec(kd(jax.jit(lambda a: a, out_shardings=NamedSharding(auto, P('x')))(k8)))",
    "spec(jax.jit(lambda a: a, out_shardings=NamedSharding(auto, P('x')))(k8))",
    "spec(kd(jax.jit(lambda a: a, out_shardings=NamedSharding(auto, P()))(k8)))",
    "spec(kd(jax.jit(lambda a: a, out_shardings=NamedSharding(auto, P('x')))(k81)))",
    "spec(jax.jit(lambda a: a, out_shardings=NamedSharding(auto, P('x')))(k81))",
    "spec(kd(jax.jit(lambda: random.split(random.key(0), 8), "
    "out_shardings=NamedSharding(auto, P('x')))()))",
    "spec(kd(jax.jit(lambda a: (a, a), out_shardings=(NamedSharding(auto, P('x')), "
    "NamedSharding(auto, P())))(k8)[1]))",
    "spec(kd(jax.jit(lambda a: random.wrap_key_data(a), "
    "out_shardings=NamedSharding(auto, P('x')))(kd(k8))))",
    "spec(jax.jit(lambda a: kd(a), out_shardings=NamedSharding(auto, P('x')))(k8))",
    "spec(kd(jax.jit(lambda a: a.reshape(8, 1), "
    "out_shardings=NamedSharding(explicit, P('x', None)))(k8)))",
    "spec(kd(jax.jit(lambda a: a, out_shardings=NamedSharding(explicit, P()))(k8)))",
    "spec(kd(jax.device_put(k8, NamedSharding(auto, P()))))",
    "spec(kd(jax.device_put(k81, NamedSharding(auto, P('x')))))",
    "spec(jax.device_put(k81, NamedSharding(auto, P('x'))))",
    "spec(kd(jax.tree.map(lambda x: x, jax.device_put(k81, NamedSharding(auto, P('x'))))))",
    "spec(kd(jax.device_put(k8, NamedSharding(auto, P('x')))))",
]
