"""Cases of tests/test_fidelity_r25_f.py (helper r25_f), run by it under minijax and by
record_fidelity_r25_f.py under JAX 0.10.2. ``SETUP`` runs once (``jax``, ``jnp``, ``lax``, ``np``
given); each case is an expression whose outcome (``outcome``: the result's types, where it
lies and whether it is committed, or the error's type and whole message) is compared; minijax's
name of the jnp function before a message and its user-line suffix are left out."""

SETUP = """
AxisType, NamedSharding = jax.sharding.AxisType, jax.sharding.NamedSharding
P, SingleDeviceSharding = jax.sharding.PartitionSpec, jax.sharding.SingleDeviceSharding
reshard = jax.sharding.reshard
mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
devs = jax.devices()

def put(shape, spec):
    return jax.device_put(np.arange(np.prod(shape), dtype=np.float32).reshape(shape),
                          NamedSharding(mesh, spec))

xy, xN, NN, x4 = put((8, 4), P("x", "y")), put((8, 4), P("x")), put((8, 4), P()), put((4, 4), P("x"))
one_device = jax.device_put(np.ones((8, 4), np.float32), devs[0])
inc = lambda a: a + 1

def in_mesh(thunk):
    with jax.set_mesh(mesh):
        return thunk()

def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:  # the error is the outcome
        return f"ERR {type(e).__name__}: {e}"
    if isinstance(out, str):
        return out
    if callable(out) and not hasattr(out, "shape"):
        return "a jitted function"
    if not isinstance(out, (tuple, list)):
        out = [out]
    shown = []
    for o in out:
        s = o.sharding
        where = (f"on {s.mesh}" if isinstance(s, NamedSharding) else
                 f"on device {min(d.id for d in s.device_set)}")
        shown.append(f"{jax.typeof(o)} {where} committed={o.committed}")
    return "; ".join(shown)
"""

CASES = [
    # PartitionSpec checks: JAX's check_pspec (NamedSharding) and prepare_axis_resources (jit,
    # with_sharding_constraint), in its words and exception types
    'NamedSharding(mesh, P("x", "y", "x", "y"))',
    'NamedSharding(mesh, P("z", "z"))',
    'NamedSharding(mesh, P(None, "z"))',
    'NamedSharding(mesh, P(P.UNCONSTRAINED))',
    'in_mesh(lambda: reshard(NN, P("x", "x")))',
    'in_mesh(lambda: jax.jit(lambda a: reshard(a, P("z")))(NN))',
    'in_mesh(lambda: jax.jit(lambda a: jnp.dot(a, a.T, out_sharding=P("x", "x")))(xN))',
    'in_mesh(lambda: jax.jit(lambda a: lax.with_sharding_constraint(a, P("y", "y")))(NN))',
    'in_mesh(lambda: jax.jit(inc, in_shardings=P("x", "x")))',
    'in_mesh(lambda: jax.jit(inc, out_shardings=P(("y", "x"), "y")))',
    'in_mesh(lambda: jax.jit(inc, in_shardings=P(P.UNCONSTRAINED)))',
    'in_mesh(lambda: jax.jit(inc, in_shardings=P("q"))(NN))',
    'jax.jit(inc, in_shardings=P("x"))(np.ones((8, 4)))',
    # a spec longer than the rank: trailing None entries dropped (JAX's type), else its assert
    'in_mesh(lambda: jax.jit(lambda a: reshard(a, P("x", None, None)))(NN))',
    'in_mesh(lambda: reshard(NN, P("x", None, None)))',
    'in_mesh(lambda: reshard(NN, P(None, None, "x")))',
    'in_mesh(lambda: reshard(NN, P("x")))',
    # jit(in_shardings=) and a committed argument laid out otherwise: refused, on any mesh
    'jax.jit(inc, in_shardings=NamedSharding(mesh, P()))(xy)',
    'jax.jit(inc, in_shardings=NamedSharding(mesh, P("x")))(one_device)',
    'jax.jit(inc, in_shardings=NamedSharding(mesh, P()))(one_device)',
    'jax.jit(inc, in_shardings=NamedSharding(mesh, P("x", None)))(xN)',
    'jax.jit(inc, in_shardings=NamedSharding(mesh, P("x")))(jnp.ones((8, 4)))',
    'jax.jit(inc, in_shardings=SingleDeviceSharding(devs[0]))(xy)',
    # lax.full(sharding=) on devices: placed outside a trace, ignored under one
    'lax.full((8, 4), 2.0, sharding=NamedSharding(mesh, P("x")))',
    'lax.full((8, 4), 2, jnp.int32, sharding=SingleDeviceSharding(devs[1]))',
    'jax.jit(lambda: lax.full((8, 4), 2.0, sharding=NamedSharding(mesh, P("x"))))()',
    'in_mesh(lambda: jax.jit(lambda: lax.full((8, 4), 2.0, sharding=NamedSharding(mesh.abstract_mesh, P("x"))))())',
    # jnp.unstack is lax.unstack (its sharding rule); eager indexing of a multi-device Array
    # that takes part of an axis gathers (gather's error), a whole-axis one slices
    'in_mesh(lambda: jnp.unstack(x4, axis=0))',
    'in_mesh(lambda: jax.jit(lambda a: jnp.unstack(a, axis=1))(xN))',
    'jnp.unstack([[1.0, 2.0], [3.0, 4.0]])',
    'str(jax.make_jaxpr(jnp.unstack)(np.ones((2, 3), np.float32)))',
    'in_mesh(lambda: xy[3])',
    'in_mesh(lambda: NN[3])',
    'in_mesh(lambda: xN[::-1])',
    'in_mesh(lambda: xy[None])',
    'in_mesh(lambda: jax.jit(lambda a: a[3])(xy))',
]
