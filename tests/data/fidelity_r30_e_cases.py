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
# placed on a mesh of Explicit axes (x16 split, r16/r84 replicated, y84 split by rows)
xe = jax.device_put(x16, NamedSharding(emesh, P('x')))
r16 = jax.device_put(x16, NamedSharding(emesh, P()))
r84 = jax.device_put(jnp.ones((8, 4)), NamedSharding(emesh, P()))
y84 = jax.device_put(jnp.ones((8, 4)), NamedSharding(emesh, P('x')))
y2 = jax.device_put(jnp.ones((8, 4)), NamedSharding(emesh2, P('x')))
# on Auto axes (other shapes)
ya = jax.device_put(jnp.ones((8, 6)), NamedSharding(amesh2, P('x', None)))
ra = jax.device_put(jnp.ones(24), NamedSharding(amesh2, P(None)))
xa = jax.device_put(jnp.arange(32.), NamedSharding(amesh, P('x')))
import importlib
_layout = importlib.import_module(jax.__name__ + ".experimental.layout")
Format, Layout = _layout.Format, _layout.Layout
x82 = jnp.arange(16.).reshape(8, 2)
sx = NamedSharding(amesh, P('x'))
def fmt(*major_to_minor):
    return Format(Layout(major_to_minor), sx)
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
# computed results on Explicit axes: named by their type; device_put's: as given
_SPECS = [
    "under(emesh, lambda: [spec(jnp.sum(xe)), spec(r16 * 2), spec(xe * 2), spec(r16)])",
    "under(emesh, lambda: [spec(y84 * 2), spec(y84.sum(0)), spec(y84.sum(1)), spec(r84 + 1)])",
    "under(emesh, lambda: [spec(jnp.ones((8, 4))), spec(jnp.zeros(3)), spec(jnp.arange(8))])",
    "under(emesh, lambda: [spec(jax.device_put(jnp.ones((8, 4)), P('x', None))), "
    "spec(jax.device_put(jnp.ones((8, 4)), P(None))), spec(jax.device_put(r84, P(None, None))), "
    "spec(jax.device_put(r84, P())), spec(jax.device_put(y84, P('x', None)))])",
    "under(emesh, lambda: [spec(jax.jit(lambda a: a * 2)(r16)), spec(jax.jit(jnp.sum)(xe)), "
    "spec(jax.jit(lambda a: a * 2)(y84)), spec(jax.jit(lambda a: a.T)(y84))])",
    "outcome(lambda: [spec(y84 * 2), spec(r84 * 2), spec(jnp.sum(r84)), spec(y84.T), "
    "spec(jax.jit(lambda a: a + 1)(r84))])",
    "outcome(lambda: [spec(y2 * 2), spec(y2.sum(0)), spec(y2.T), spec(jax.jit(lambda a: a * a)(y2))])",
    "outcome(lambda: [spec(jax.device_put(jnp.ones((8, 4)), NamedSharding(emesh, P(None, None)))), "
    "spec(jax.device_put(x16, NamedSharding(emesh, P(None)))), "
    "spec(jax.device_put(xe, NamedSharding(emesh, P(None))))])",
    "outcome(lambda: [str(r16.sharding), str(jax.device_put(r16, NamedSharding(emesh, P())).sharding)])",
    # (an Auto result named by no input's sharding, ya.sum(0): JAX's P(), minijax's the spec
    # device_put first gave that layout, ra's P(None,); FINDINGS)
    "outcome(lambda: [spec(ya), spec(ya * 2), spec(ya.T), spec(ra), spec(ra * 2)])",
    # jit's out_shardings: as given
    "outcome(lambda: [spec(jax.jit(lambda a: a * 2, out_shardings=NamedSharding(emesh, P('x')))(r84)), "
    "spec(jax.jit(lambda a: a * 2, out_shardings=NamedSharding(emesh, P()))(r84)), "
    "spec(jax.jit(lambda a: (a, a + 1), out_shardings=(NamedSharding(emesh, P('x')), None))(r84)[1])])",
    "outcome(lambda: [spec(jax.jit(lambda a: a * 2, out_shardings=NamedSharding(amesh2, P('x', None)))(ya)), "
    "spec(jax.jit(lambda a: a + 2, out_shardings=NamedSharding(amesh2, P(None, None)))(ya))])",
    "outcome(lambda: jax.device_put(r16, NamedSharding(emesh, P())) is r16)",
    "outcome(lambda: jax.device_put(r16, NamedSharding(emesh, P(None))) is r16)",
]
# device_put under a transformation: JAX's device_put equation (one per call, every leaf)
_DP = [
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, jax.devices()[0]))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, NamedSharding(amesh, P('x'))))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, NamedSharding(emesh, P('x'))))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, jax.sharding.SingleDeviceSharding(jax.devices()[0])))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, may_alias=False))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, donate=True))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, jax.devices()[0], src=jax.devices()[0]))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put((a, a * 2), jax.devices()[0]))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put((a, 2.0), (jax.devices()[0], None)))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, jax.memory.Space.Host))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.device_put(3.0))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.grad(lambda b: jax.device_put(b, jax.devices()[0]).sum())(a))(x16)))",
    "outcome(lambda: str(jax.make_jaxpr(jax.vmap(lambda a: jax.device_put(a, jax.devices()[0])))(x16)))",
    "under(emesh, lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, P('x')))(x16)))",
    "under(emesh, lambda: str(jax.make_jaxpr(lambda a: jax.device_put(a, P('x'), may_alias=True))(x16)))",
    # values, and the lowered program: a placement in the default memory is nothing
    "outcome(lambda: jax.jit(lambda a: jax.device_put(a, jax.devices()[0]) * 2)(x16).tolist())",
    "outcome(lambda: jax.jit(lambda a: jax.device_put(a, NamedSharding(amesh, P('x'))) * 2)(x16).tolist())",
    "outcome(lambda: spec(jax.jit(lambda a: jax.device_put(a, NamedSharding(amesh, P('x'))) * 2)(x16)))",
    "outcome(lambda: jax.jit(lambda a: jax.device_put(a, jax.devices()[0])).lower(x16).as_text() "
    "== jax.jit(lambda a: a).lower(x16).as_text())",
    "outcome(lambda: jax.jit(lambda a: jax.device_put(a, NamedSharding(amesh, P('x')))).lower(xa).as_text() "
    "== jax.jit(lambda a: a).lower(xa).as_text())",
    "outcome(lambda: jax.jit(lambda a: jax.device_put(a, NamedSharding(emesh, P('x'))))(x16 + 1).tolist())",
    "outcome(lambda: str(jax.typeof(jax.jit(lambda a: jax.device_put(a, NamedSharding(emesh, P('x'))))(x16 + 1))))",
]
# with_sharding_constraint given a layout Format: the sharding, and the layout as a
# LayoutConstraint (an eager placement keeps the default layout: FINDINGS)
_FMT = [
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.lax.with_sharding_constraint(a, fmt(1, 0)))(x82)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.lax.with_sharding_constraint(a, fmt(0, 1)))(x82)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.lax.with_sharding_constraint(a, Format(None, sx)))(x82)))",
    "outcome(lambda: str(jax.make_jaxpr(lambda a: jax.lax.with_sharding_constraint((a, a), (fmt(0, 1), None)))(x82)))",
    "outcome(lambda: [spec(jax.jit(lambda a: jax.lax.with_sharding_constraint(a, fmt(0, 1)))(x82)), "
    "jax.jit(lambda a: jax.lax.with_sharding_constraint(a, fmt(0, 1)) * 2)(x82).tolist()])",
    "outcome(lambda: [spec(jax.lax.with_sharding_constraint(x82, fmt(1, 0))), "
    "jax.lax.with_sharding_constraint(x82, fmt(0, 1)).tolist()])",
    "outcome(lambda: [l.strip() for l in jax.jit(lambda a: jax.lax.with_sharding_constraint(a, fmt(0, 1)))"
    ".lower(x82).as_text().splitlines() if 'LayoutConstraint' in l or 'sharding_constraint' in l])",
    "outcome(lambda: jax.grad(lambda a: jax.lax.with_sharding_constraint(a * a, fmt(0, 1)).sum())(x82).tolist())",
    "outcome(lambda: str(jax.make_jaxpr(jax.vmap(lambda a: jax.lax.with_sharding_constraint(a, "
    "Format(Layout((0,)), NamedSharding(amesh, P())))))(x82)))",
    "outcome(lambda: jax.jit(lambda a: jax.lax.with_sharding_constraint(a, Format(Layout((0,)), sx)))(x82))",
    "outcome(lambda: str(jax.make_jaxpr(jax.vmap(lambda a: jax.lax.with_sharding_constraint(a, "
    "NamedSharding(amesh, P('x')))))(jnp.ones((3, 8)))))",
    "outcome(lambda: str(jax.make_jaxpr(jax.vmap(lambda a: jax.lax.with_sharding_constraint(a, "
    "NamedSharding(amesh, P(None, 'x'))), in_axes=1))(jnp.ones((2, 3, 8)))))",
    "outcome(lambda: jax.vmap(lambda a: jax.lax.with_sharding_constraint(a * 2, "
    "NamedSharding(amesh, P('x'))))(jnp.ones((3, 8))).tolist())",
    "outcome(lambda: jax.lax.with_sharding_constraint(x16, None))",
]
CASES = _RESHARD + _SPECS + _DP + _FMT
