"""Cases of tests/test_fidelity_r30_e.py: the sharding API against JAX 0.10.2 (the recorder,
with 8 virtual CPU devices): ``reshard``'s refusals (an Auto axis, a target that is no
NamedSharding or PartitionSpec), the spec an Array reports (a computed result's from its
type on Explicit axes, device_put's as given), ``with_sharding_constraint`` given a layout
``Format``, and ``device_put``'s staged equation. Each is an expression over SETUP's names
giving a JSON-able outcome.
"""

DEVICES = 8

SETUP = """
NamedSharding, P, AxisType = jax.sharding.NamedSharding, jax.P, jax.sharding.AxisType
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        # JAX's source line (file:line:col) is not minijax's (file:line)
        return [type(e).__name__, str(e).split(chr(10))[0].split(" This error occurs at")[0]]
    return out
emesh = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))
amesh = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Auto,))
emesh2 = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
amesh2 = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)
x16 = jnp.arange(16.)
def spec(a):
    return str(a.sharding.spec)
def under(mesh, thunk):
    with jax.sharding.set_mesh(mesh):
        return outcome(thunk)
"""

_RESHARD = [
    "under(amesh, lambda: spec(jax.sharding.reshard(x16, P('x'))))",
    "under(amesh, lambda: spec(jax.jit(lambda a: jax.sharding.reshard(a, P('x')))(x16)))",
    "under(emesh, lambda: spec(jax.sharding.reshard(x16, NamedSharding(amesh, P('x')))))",
    "outcome(lambda: spec(jax.sharding.reshard(x16, NamedSharding(amesh, P('x')))))",
    "outcome(lambda: spec(jax.sharding.reshard(x16, NamedSharding(amesh, P()))))",
    "under(emesh, lambda: spec(jax.sharding.reshard(x16, jax.devices()[0])))",
    "under(emesh, lambda: spec(jax.sharding.reshard(x16, 3)))",
    "under(emesh, lambda: spec(jax.sharding.reshard(x16, None)))",
    "under(emesh, lambda: spec(jax.sharding.reshard(x16, P('x'))))",
    "outcome(lambda: spec(jax.sharding.reshard(x16, NamedSharding(emesh, P('x')))))",
    "outcome(lambda: spec(jax.sharding.reshard(x16, P('x'))))",
    "under(amesh2, lambda: spec(jax.sharding.reshard(jnp.ones((8, 4)), P(None, 'y'))))",
]
CASES = _RESHARD
