"""Cases of tests/test_fidelity_r25_lead.py: each takes the ``jax`` module (real JAX when
recording, minijax under test) and returns a string of what a user sees."""

import numpy as np


def _sh(x, jax):
    return f"{jax.typeof(x)} {x.sharding}"


def make_mesh_default(jax):
    m = jax.make_mesh((2, 2), ("a", "b"))
    return f"{m} {m.axis_types} {str(m.axis_types[0])} {m.axis_types[0]!r}"


def make_mesh_errors(jax):
    out = []
    for args in [((2, 1), ("x",)), (("a",), ("x",)), ((16,), ("x",))]:
        try:
            jax.make_mesh(*args)
            out.append("ok")
        except ValueError as e:
            out.append(str(e))
    return " | ".join(out)


def _legacy_block(jax, axis_type):
    mesh = jax.make_mesh((2,), ("x",), axis_types=(axis_type,))
    P = jax.sharding.PartitionSpec
    out = []
    with mesh:
        out.append(repr(jax.sharding.get_abstract_mesh()))
        try:
            jax.jit(lambda x: x * 2, in_shardings=P("x"))(np.ones(4))
            out.append("jit ok")
        except RuntimeError as e:
            out.append(str(e).splitlines()[0])
        try:
            y = jax.jit(lambda x: jax.lax.with_sharding_constraint(x * 2, P("x")))(np.ones(4))
            out.append(str(y.sharding.spec))
        except ValueError as e:  # the mesh's repr differs (JAX's names the device kind)
            out.append(str(e).split(" and mesh=")[0])
    return " | ".join(out)


def legacy_block_auto(jax):
    return _legacy_block(jax, jax.sharding.AxisType.Auto)


def legacy_block_explicit(jax):
    return _legacy_block(jax, jax.sharding.AxisType.Explicit)


def _under_set_mesh(jax, axis_type):
    mesh = jax.make_mesh((2,), ("x",), axis_types=(axis_type,))
    jnp = jax.numpy
    a = jnp.arange(4.0)
    out = []
    with jax.sharding.set_mesh(mesh):
        for f in [lambda: jnp.ones(4) * 2, lambda: a * 2, lambda: jax.jit(lambda v: v * 2)(a),
                  lambda: jax.jit(lambda: jnp.ones(3))(), lambda: jnp.asarray(np.ones(3)),
                  lambda: jax.random.normal(jax.random.key(1), (3,))]:
            r = f()
            out.append(f"{jax.typeof(r)} {type(r.sharding).__name__} "
                       f"{getattr(r.sharding, 'mesh', None)} {r.sharding.is_fully_replicated}")
    out.append(type(a.sharding).__name__)
    return " | ".join(out)


def set_mesh_explicit(jax):
    return _under_set_mesh(jax, jax.sharding.AxisType.Explicit)


def set_mesh_auto(jax):
    return _under_set_mesh(jax, jax.sharding.AxisType.Auto)


def set_mesh_array_of_split_array(jax):
    # jnp.array/asarray of a device Array keeps its split (flax's promote_dtype)
    P, NS, jnp = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.numpy
    out = []
    for t in (jax.sharding.AxisType.Explicit, jax.sharding.AxisType.Auto):
        mesh = jax.make_mesh((2,), ("x",), axis_types=(t,))
        x = jax.device_put(np.arange(4.0, dtype=np.float32), NS(mesh, P("x")))
        with jax.sharding.set_mesh(mesh):
            for f in [lambda: jnp.array(x), lambda: jnp.asarray(x, jnp.float16),
                      lambda: jnp.array(x, jnp.float16)]:
                r = f()
                out.append(f"{jax.typeof(r)} {r.sharding.spec}")
    return " | ".join(out)


def like_a_shape_dtype_struct(jax):
    # zeros_like/ones_like of a ShapeDtypeStruct follow its sharding (lax.full_like's rule)
    P, NS, jnp = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.numpy
    out = []
    for t in (jax.sharding.AxisType.Auto, jax.sharding.AxisType.Explicit):
        mesh = jax.make_mesh((2,), ("x",), axis_types=(t,))
        s = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=NS(mesh, P("x")))
        for f in [lambda: jnp.zeros_like(s), lambda: jnp.ones_like(s, dtype=jnp.int32),
                  lambda: jnp.zeros_like(s, shape=(2,)), lambda: jnp.full_like(s, 2.0, shape=4)]:
            r = f()
            out.append(f"{jax.typeof(r)} {type(r.sharding).__name__} "
                       f"{getattr(r.sharding, 'spec', None)}")
    return " | ".join(out)


def auto_axes_eager(jax):
    # eager auto_axes: its body sees the axes Auto (flax's Embed under out_sharding)
    P, jnp = jax.sharding.PartitionSpec, jax.numpy
    mesh = jax.make_mesh((2,), ("X",))
    out = []
    with jax.sharding.set_mesh(mesh):
        x = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), P("X", None))
        idx = jnp.array([1, 5, 2, 7])
        f = jax.sharding.auto_axes(lambda a, i: jnp.take(a, i, axis=0), out_sharding=P("X"))
        for g in [f, jax.jit(f)]:
            r = g(x, idx)
            out.append(f"{jax.typeof(r)} {r.sharding.spec} {np.asarray(r)[:, 0].tolist()}")
        seen = []
        h = jax.sharding.auto_axes(lambda a: (seen.append(str(jax.typeof(a))), a * 2)[1],
                                   out_sharding=P("X"))
        out.append(f"{jax.typeof(h(x))} {seen}")
    return " | ".join(out)


def set_mesh_twice_same_function(jax):
    # one jitted function called under two meshes: each call runs on its own mesh
    f = jax.jit(lambda v: v + 1)
    out = []
    for n in (2, 4):
        with jax.sharding.set_mesh(jax.make_mesh((n,), ("x",))):
            out.append(str(len(f(np.ones(4)).sharding.device_set)))
    out.append(str(len(f(np.ones(4)).sharding.device_set)))
    return " ".join(out)


def shard_map_specs_vs_types(jax):
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((4,), ("x",))
    f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    out = []
    for a in [np.ones(4), jax.numpy.ones((4, 2)), jax.device_put(np.ones((4, 2)), NS(mesh, P("x"))),
              jax.device_put(np.ones((4, 4)), NS(mesh, P(None, "x")))]:
        for g in [f, jax.jit(f)]:
            try:
                out.append(str(jax.typeof(g(a))))
            except ValueError as e:
                out.append(str(e).split(". `in_specs`")[0])
    auto = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    g = jax.shard_map(lambda a: a * 2, mesh=auto, in_specs=P("x"), out_specs=P("x"))
    out.append(str(jax.typeof(g(np.ones(4)))))
    return " | ".join(out)


CASES = {f.__name__: f for f in [
    make_mesh_default, make_mesh_errors, legacy_block_auto, legacy_block_explicit,
    set_mesh_explicit, set_mesh_auto, set_mesh_array_of_split_array,
    set_mesh_twice_same_function, shard_map_specs_vs_types, like_a_shape_dtype_struct,
    auto_axes_eager]}
