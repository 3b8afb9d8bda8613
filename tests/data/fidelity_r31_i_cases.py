"""Cases of tests/test_fidelity_r31_i.py: the sharding differences FINDINGS 294 left open,
against JAX 0.10.2 (the recorder, with 8 virtual CPU devices): an op on an Array of one mesh
after the same op on the same layout over another mesh of the same devices (other axis types
or names), eagerly and under jit, in both orders, keeps its own mesh's type and sharding.
Each is an expression over SETUP's names giving a JSON-able outcome.
"""

DEVICES = 8

SETUP = """
NamedSharding, P, AxisType = jax.sharding.NamedSharding, jax.P, jax.sharding.AxisType
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return out
amesh = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Auto,))
emesh = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))
ymesh = jax.make_mesh((8,), ('y',), axis_types=(AxisType.Auto,))
eymesh = jax.make_mesh((8,), ('y',), axis_types=(AxisType.Explicit,))
def desc(a):
    return [str(a.sharding.spec), list(a.sharding.mesh.axis_names), str(jax.typeof(a))]
def put(shape, mesh, spec):
    return jax.device_put(jnp.arange(float(np.prod(shape))).reshape(shape), NamedSharding(mesh, spec))
def in_turn(f, *arrays):
    # f on each array in turn: the later ones meet the entries the earlier ones made
    return [desc(f(a)) for a in arrays]
"""

# An op on the same layout over meshes of the same devices: each its own mesh's result
_MESHES = [
    "outcome(lambda: in_turn(lambda a: a * 2, put((8, 5), amesh, P('x')), put((8, 5), emesh, P('x'))))",
    "outcome(lambda: in_turn(lambda a: a + 1, put((8, 6), emesh, P('x')), put((8, 6), amesh, P('x'))))",
    "outcome(lambda: in_turn(jax.jit(lambda a: a * 3), put((8, 5), amesh, P('x')), put((8, 5), emesh, P('x'))))",
    "outcome(lambda: in_turn(jax.jit(lambda a: a - 3), put((8, 5), emesh, P('x')), put((8, 5), amesh, P('x'))))",
    "outcome(lambda: in_turn(lambda a: a - 1, put((8, 7), amesh, P()), put((8, 7), emesh, P())))",
    "outcome(lambda: in_turn(lambda a: a * 5, put((8, 3), amesh, P('x')), put((8, 3), ymesh, P('y'))))",
    "outcome(lambda: in_turn(lambda a: a * 5, put((8, 3), emesh, P('x')), put((8, 3), eymesh, P('y'))))",
    "outcome(lambda: in_turn(jax.jit(lambda a: a.sum(1)), put((8, 9), amesh, P('x')), "
    "put((8, 9), emesh, P('x')), put((8, 9), eymesh, P('y')), put((8, 9), amesh, P('x'))))",
    "outcome(lambda: [(a * 2).tolist() for a in (put((8, 2), amesh, P('x')), put((8, 2), emesh, P('x')))])",
]
CASES = _MESHES
