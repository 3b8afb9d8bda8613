"""Cases of tests/test_fidelity_r29_b.py: an aval's strings (``str``, ``repr``, ``str_short``
with JAX 0.10.2's defaults: full dtype names unless ``short_dtypes``, the mesh's axis types with
``mesh_axis_types``) for dtypes, weak types, a jit's tracer, a shard_map body's varying type,
Explicit shardings, refs and tokens (FINDINGS 280); and ``lax.broadcast_in_dim``'s values,
jaxprs, vmap and jvp with unsorted ``broadcast_dimensions``, the forwarding of a broadcast to
the operand's own shape (after the checks, eager and staged), and its refusals in JAX's words
and order (FINDINGS 269). Evaluated by JAX 0.10.2 (the recorder) and by minijax; each case is
an expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
import inspect
P = jax.sharding.PartitionSpec
bid = jax.lax.broadcast_in_dim
def outcome(thunk, n=1):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, *str(e).split(chr(10))[:n]]
    if isinstance(out, (str, bool)):
        return out
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
def jaxpr(f, *args):
    return outcome(lambda: str(jax.make_jaxpr(f)(*args)))
def strs(a):
    return [str(a), repr(a), a.str_short(), a.str_short(True), a.str_short(short_dtypes=True),
            a.str_short(short_dtypes=True, mesh_axis_types=True),
            a.str_short(mesh_axis_types=True)]
def traced_strs(f, x):
    got = []
    f(lambda y: got.append(strs(jax.typeof(y))) or y)(x)
    return got[0]
def float0_zero():
    return jax.grad(lambda x, i: x, argnums=1, allow_int=True)(1.0, 2)
one_mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ('i',))
def in_shard_map(x):
    return traced_strs(lambda g: jax.shard_map(g, mesh=one_mesh, in_specs=P('i'),
                                               out_specs=P('i')), x)
def explicit_strs(axis_types, jitted=False):
    mesh = jax.make_mesh((1, 1), ('a', 'b'), axis_types=axis_types)
    with jax.set_mesh(mesh):
        y = jax.device_put(jnp.ones((4, 2)), P('a'))
        return traced_strs(jax.jit, y) if jitted else strs(jax.typeof(y))
x23 = jnp.arange(6.).reshape(2, 3)
sq = jnp.arange(4.).reshape(2, 2)
v3 = jnp.arange(3.)
w24 = jnp.arange(24.).reshape(3, 4, 2)
"""

_VALUES = [
    "jnp.ones(3)", "1.0", "jnp.arange(4, dtype=jnp.int8).reshape(2, 2)", "jnp.ones((), bool)",
    "jnp.ones(2, jnp.bfloat16)", "jnp.ones(2, jnp.uint16)", "jnp.ones(2, jnp.complex64)",
    "jnp.ones(2, jnp.float8_e4m3fn)", "jax.random.key(0)", "float0_zero()",
]

CASES = []
# FINDINGS 280: JAX's defaults and signature
CASES += ["str(inspect.signature(type(jax.typeof(1.0)).str_short))"]
CASES += [f"strs(jax.typeof({v}))" for v in _VALUES]
CASES += [
    "traced_strs(jax.jit, jnp.ones(2, jnp.int32))",
    "traced_strs(jax.jit, 2.0)",
    "in_shard_map(jnp.ones(4))",
    "traced_strs(jax.jit, jnp.ones(4)) + in_shard_map(jnp.ones(4))",
    "explicit_strs((jax.sharding.AxisType.Explicit, jax.sharding.AxisType.Auto))",
    "explicit_strs((jax.sharding.AxisType.Explicit, jax.sharding.AxisType.Explicit), True)",
    "[str(jax.typeof(jax.new_ref(jnp.ones(2)))), repr(jax.typeof(jax.new_ref(jnp.ones(2)))),"
    " jax.typeof(jax.new_ref(jnp.ones(2))).str_short(),"
    " jax.typeof(jax.new_ref(jnp.ones(2))).str_short(True)]",
    "[jax.typeof(jax.lax.create_token()).str_short(),"
    " jax.typeof(jax.lax.create_token()).str_short(True, True)]",
    # a jaxpr still prints short names
    "jaxpr(lambda x: x * 2, jnp.ones(3, jnp.int8))",
    "outcome(lambda: jax.typeof(1.0).str_short(True, True, True))",
    "outcome(lambda: jax.typeof(1.0).str_short(foo=1))",
]
# FINDINGS 269: unsorted broadcast_dimensions transpose, eager, under jit and in jaxprs
CASES += [
    "outcome(lambda: bid(x23, (3, 4, 2), (2, 0)))",
    "outcome(lambda: jax.jit(lambda x: bid(x, (3, 4, 2), (2, 0)))(x23))",
    "jaxpr(lambda x: bid(x, (3, 4, 2), (2, 0)), x23)",
    "outcome(lambda: bid(x23, (3, 2), (1, 0)))",
    "outcome(lambda: jax.jit(lambda x: bid(x, (3, 2), (1, 0)))(x23))",
    "outcome(lambda: bid(v3, (3, 2), (np.int64(0),)))",
    "jaxpr(lambda x: bid(x, (3, 2), (np.int64(0),)), v3)",
    "jaxpr(lambda x: bid(x, [2, 3], [1]), v3)",
    # vmap (the moved dimensions are NumPy ints, as JAX's rule makes them) and jvp
    "outcome(lambda: jax.vmap(lambda x: bid(x, (3, 4, 2), (2, 0)))(jnp.stack([x23, x23 + 1])))",
    "jaxpr(jax.vmap(lambda x: bid(x, (3, 4, 2), (2, 0))), jnp.stack([x23, x23 + 1]))",
    "outcome(lambda: jax.vmap(lambda x: bid(x, (3, 4, 2), (2, 0)), in_axes=1)"
    "(jnp.stack([x23, x23 + 1], 1)))",
    "jaxpr(jax.vmap(lambda x: bid(x, (2, 3), (1,))), jnp.ones((4, 3)))",
    "jaxpr(jax.vmap(lambda x: bid(x, (2, 3), ())), jnp.ones(4))",
    "outcome(lambda: jax.vmap(lambda x: bid(x, (2, 2), (1, 0)))(jnp.arange(8.).reshape(2, 2, 2)))",
    "outcome(lambda: jax.jvp(lambda x: bid(x, (3, 4, 2), (2, 0)), (x23,), (x23,))[1])",
    # a reordering that moves only size-1 axes has JAX's gradient
    "outcome(lambda: jax.grad(lambda x: (bid(x, (3, 4, 2), (2, 1)) * w24).sum())(jnp.ones((1, 4))))",
    # to the operand's own shape: checked, then forwarded (a square operand is not transposed)
    "outcome(lambda: bid(sq, (2, 2), (1, 0)))",
    "outcome(lambda: jax.jit(lambda x: bid(x, (2, 2), (1, 0)))(sq))",
    "jaxpr(lambda x: bid(x, (2, 2), (1, 0)), sq)",
    "jaxpr(lambda x: bid(x, x.shape, range(x.ndim)), x23)",
    "jaxpr(lambda x: bid(x, x.shape, (0, 1)) * 2, x23)",
    "outcome(lambda: bid(x23, x23.shape, (0, 1)))",
    "bid(x23, x23.shape, (0, 1)) is x23",
    "outcome(lambda: jax.grad(lambda x: (bid(x, (2, 2), (1, 0)) * sq).sum())(sq))",
    "jaxpr(jax.grad(lambda x: bid(x, (2, 2), (1, 0)).sum()), sq)",
    "outcome(lambda: jax.vmap(lambda x: bid(x, (3,), (0,)) * 2)(jnp.ones((4, 3))))",
    "jaxpr(jax.vmap(lambda x: bid(x, (3,), (0,)) * 2), jnp.ones((4, 3)))",
    "jaxpr(lambda o: bid(o, (), ()), 1.0)",
    "jaxpr(lambda: bid(np.float32(1), (), ()))",
    "jaxpr(lambda: bid(2.0, (2, 3), ()))",
    "outcome(lambda: bid(np.arange(3.), (2, 3), (1,)))",
    # an array of the shape's rank given no dimensions is returned as it is (JAX's shortcut)
    "outcome(lambda: bid(x23, (5, 5), ()))",
    "jaxpr(lambda x: bid(x, (5, 5), ()), x23)",
]
_BAD = [
    # (operand, shape, broadcast_dimensions)
    ("x23", (2, 3), (0,)),        # rank of broadcast_dimensions
    ("v3", (2, 3), (0, 1)),
    ("x23", (2, 4), (0, 1)),      # an operand dimension neither 1 nor the output's
    ("x23", (3, 2), (0, 1)),
    ("x23", (2, 3), (0, 2)),      # out of range
    ("v3", (3,), (5,)),
    ("x23", (2, 2, 3), (1, 1)),   # duplicates, sizes checked first
    ("jnp.ones((1, 1))", (2, 3), (1, 1)),  # duplicates
    ("x23", (2, 3), (0, -1)),     # negative
    ("v3", (3,), (-1,)),
    ("x23", (3,), (0, 1)),        # shape too short
    ("x23", (6,), (0,)),
    ("v3", (3, -1), (0,)),        # negative shape
    ("sq", (2, 2), (0, 0)),       # to the operand's own shape: checked before forwarding
    ("sq", (2, 2), (0, 5)),
]
for _o, _s, _d in _BAD:
    CASES.append(f"outcome(lambda: bid({_o}, {_s}, {_d}))")
    CASES.append(f"outcome(lambda: jax.jit(lambda o: bid(o, {_s}, {_d}))({_o}))")
CASES += [
    # out_sharding: a NamedSharding or a PartitionSpec only; a bare P needs a mesh
    "outcome(lambda: bid(v3, (2, 3), (1,), out_sharding=3))",
    "outcome(lambda: bid(v3, (2, 3), (1,), out_sharding='x'))",
    "outcome(lambda: bid(v3, (2, 3), (1,), out_sharding=P()))",
    "outcome(lambda: jax.jit(lambda o: bid(o, (2, 3), (1,), out_sharding=P()))(v3))",
    "outcome(lambda: bid(v3, (3,), (0,), out_sharding=P('x')))",
]
