"""jax.shard_map's signature (JAX 0.10.2), its errors, and shard_map nested in shard_map: cases
run by real JAX (tests/data/record_shard_map_api.py records what they give) and by minijax
(tests/test_shard_map_api.py). Each case takes ``ns`` (``api(jax)`` or ``api(minijax)``) and
returns something JSON can hold; ``outcome`` turns an exception into ``["error", type, message]``.
Meshes use the first 4 devices."""

import inspect
import types

import numpy as np


def api(lib):
    if lib.__name__ == "jax":
        from jax.experimental.shard_map import shard_map as old
    else:
        from minijax.experimental.shard_map import shard_map as old
    return types.SimpleNamespace(
        lib=lib, jnp=lib.numpy, lax=lib.lax, shard_map=lib.shard_map, old_shard_map=old,
        P=lib.sharding.PartitionSpec, Mesh=lib.sharding.Mesh, sharding=lib.sharding,
        devices=lib.devices()[:4])


def outcome(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001  (the error is what is recorded)
        return ["error", type(e).__name__, str(e)]
    return ["value", _plain(out)]


def _plain(x):
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    if x is None or isinstance(x, (str, bool, int, float)):
        return x
    return np.asarray(x).tolist()


def _mesh2(ns):
    return ns.Mesh(np.array(ns.devices).reshape(2, 2), ("i", "j"))


def _x(ns):
    return ns.jnp.arange(8.0)


# ------------------------------------------------------------------------------------------------
# The signature


def signature(ns):
    sig = inspect.signature(ns.shard_map)
    return [[p.name, p.kind.name, "required" if p.default is p.empty else repr(p.default)]
            for p in sig.parameters.values()]


def old_signature(ns):
    sig = inspect.signature(ns.old_shard_map)
    return [[p.name, p.kind.name, "required" if p.default is p.empty else repr(p.default)]
            for p in sig.parameters.values()]


def positional_mesh(ns):
    P = ns.P
    return outcome(lambda: ns.shard_map(lambda a: a, _mesh2(ns), P("i"), P("i"))(_x(ns)))


def missing_out_specs(ns):
    return outcome(lambda: ns.shard_map(lambda a: a, mesh=_mesh2(ns), in_specs=ns.P("i")))


def decorator(ns):
    P = ns.P

    @ns.shard_map(mesh=_mesh2(ns), in_specs=P("i"), out_specs=P("i"))
    def f(a):
        return a * 2 + ns.lax.axis_index("i")

    return outcome(lambda: f(_x(ns)))


def decorator_jit(ns):
    P = ns.P
    f = ns.lib.jit(ns.shard_map(mesh=_mesh2(ns), in_specs=P("i", None), out_specs=P("i"))(
        lambda a: ns.lax.psum(a, "j")))
    return outcome(lambda: f(ns.jnp.arange(8.0).reshape(4, 2)))


def empty_context_mesh(ns):
    P = ns.P
    return outcome(lambda: ns.shard_map(lambda a: a, in_specs=P("i"), out_specs=P("i"))(_x(ns)))


def set_mesh_context(ns):
    P = ns.P
    with ns.lib.set_mesh(_mesh2(ns)):
        return outcome(lambda: ns.shard_map(lambda a: ns.lax.psum(a, "j") + 1,
                                            in_specs=P("i"), out_specs=P("i"))(_x(ns)))


def abstract_mesh_in_body(ns):
    """What get_abstract_mesh says inside the body (axis names, sizes, types)."""
    P = ns.P
    seen = []

    def body(a):
        am = ns.sharding.get_abstract_mesh()
        seen.append([list(am.axis_names), list(am.axis_sizes),
                     [t.name for t in am.axis_types]])
        return a

    for axis_names in ({"i"}, {"j"}, set()):
        ns.shard_map(body, mesh=_mesh2(ns), in_specs=P(), out_specs=P(),
                     axis_names=axis_names)(_x(ns))
    with ns.lib.set_mesh(_mesh2(ns)):
        ns.shard_map(body, in_specs=P("i"), out_specs=P("i"), axis_names={"i"})(_x(ns))
    return seen


def infer_with_auto_axes(ns):
    return outcome(lambda: ns.shard_map(lambda a: a, mesh=_mesh2(ns), out_specs=ns.P("i"),
                                        axis_names={"i"})(_x(ns)))


def _explicit_mesh(ns):
    Explicit = ns.sharding.AxisType.Explicit
    return ns.Mesh(np.array(ns.devices).reshape(2, 2), ("i", "j"), (Explicit, Explicit))


def infer_from_shardings(ns):
    """Explicit axes: in_specs are read off the arguments' shardings (the manual axes kept);
    a replicated argument is replicated."""
    P = ns.P
    m = _explicit_mesh(ns)
    x = ns.lib.device_put(ns.jnp.arange(8.0).reshape(4, 2),
                          ns.sharding.NamedSharding(m, P("i", "j")))
    shapes = []

    def body(a, b):
        shapes.append([list(a.shape), list(b.shape)])
        return a * 2 + b.sum()

    out = ns.shard_map(body, mesh=m, out_specs=P("i"), axis_names={"i"})(x, ns.jnp.ones(3))
    return [_plain(out), shapes]


def partial_manual_axis_index(ns):
    """axis_index over the manual axis while others stay automatic."""
    P = ns.P
    f = ns.shard_map(lambda a: a + ns.lax.axis_index("i") * 100, mesh=_mesh2(ns),
                     in_specs=P("i"), out_specs=P("i"), axis_names={"i"})
    return outcome(lambda: [f(_x(ns)), ns.lib.jit(f)(_x(ns))])


def axis_names_not_a_set(ns):
    P = ns.P
    return outcome(lambda: ns.shard_map(lambda a: a, mesh=_mesh2(ns), in_specs=P("i"),
                                        out_specs=P("i"), axis_names=["i"])(_x(ns)))


def axis_names_not_in_mesh(ns):
    P = ns.P
    return outcome(lambda: ns.shard_map(lambda a: a, mesh=_mesh2(ns), in_specs=P("i"),
                                        out_specs=P("i"), axis_names={"z"})(_x(ns)))


def in_spec_names_auto_axis(ns):
    P = ns.P
    return outcome(lambda: ns.shard_map(lambda a: a, mesh=_mesh2(ns), in_specs=P("j"),
                                        out_specs=P("j"), axis_names={"i"})(_x(ns)))


def out_spec_names_auto_axis(ns):
    P = ns.P
    return outcome(lambda: ns.shard_map(lambda a: a, mesh=_mesh2(ns), in_specs=P("i"),
                                        out_specs=P("j"), axis_names={"i"})(_x(ns)))


def in_spec_not_a_spec(ns):
    P = ns.P
    return outcome(lambda: ns.shard_map(lambda a, n: a * n, mesh=_mesh2(ns), in_specs=(P("i"), 3),
                                        out_specs=P("i"))(_x(ns), 3))


def partial_manual_values(ns):
    """Manual over 'i' only; the body's psum is over 'i'."""
    P = ns.P
    f = ns.shard_map(lambda a: ns.lax.psum(a * a, "i"), mesh=_mesh2(ns), in_specs=P("i"),
                     out_specs=P(), axis_names={"i"})
    return outcome(lambda: [f(_x(ns)), ns.lib.jit(f)(_x(ns))])


def static_in_specs(ns):
    """None in in_specs: those arguments reach f as they are."""
    P = ns.P
    f = ns.shard_map(lambda a, n: a * n, mesh=_mesh2(ns), in_specs=(P("i"), None),
                     out_specs=P("i"))
    g = ns.shard_map(lambda a: a + 1, mesh=_mesh2(ns), in_specs=None, out_specs=P("i"))
    return outcome(lambda: [f(_x(ns), 3), g(ns.jnp.arange(2.0))])


def f_not_callable(ns):
    return outcome(lambda: ns.shard_map(3, mesh=_mesh2(ns), in_specs=ns.P("i"),
                                        out_specs=ns.P("i")))


def mesh_not_a_mesh(ns):
    return outcome(lambda: ns.shard_map(lambda a: a, mesh=3, in_specs=ns.P("i"),
                                        out_specs=ns.P("i"))(_x(ns)))


def old_api_positional(ns):
    P = ns.P
    f = ns.old_shard_map(lambda a: ns.lax.psum(a, ("i", "j")), _mesh2(ns), P(("i", "j")), P())
    g = ns.old_shard_map(lambda a: a, _mesh2(ns), P("i"), P(), check_rep=False)
    return outcome(lambda: [f(_x(ns)), g(_x(ns))])


def old_api_no_auto(ns):
    P = ns.P
    return outcome(lambda: ns.old_shard_map(lambda a: a, _mesh2(ns), P("i"), P("i"),
                                            auto=frozenset({"j"})))


def old_api_no_check_vma(ns):
    P = ns.P
    return outcome(lambda: ns.old_shard_map(lambda a: a, _mesh2(ns), P("i"), P("i"),
                                            check_vma=False))


def new_api_no_check_rep(ns):
    P = ns.P
    return outcome(lambda: ns.shard_map(lambda a: a, mesh=_mesh2(ns), in_specs=P("i"),
                                        out_specs=P("i"), check_rep=False))


# ------------------------------------------------------------------------------------------------
# shard_map nested in shard_map


def _nested(ns, inner=None, in_spec=None, out_spec=None, **inner_kw):
    P = ns.P
    inner = inner or (lambda y: ns.lax.psum(y, "j"))
    in_spec = P("j") if in_spec is None else in_spec
    out_spec = P() if out_spec is None else out_spec

    def outer(x):
        return ns.shard_map(inner, in_specs=in_spec, out_specs=out_spec, axis_names={"j"},
                            **inner_kw)(x) * 2

    return ns.shard_map(outer, mesh=_mesh2(ns), in_specs=P("i"), out_specs=P("i"),
                        axis_names={"i"})


def nested_psum(ns):
    f = _nested(ns)
    return outcome(lambda: [f(_x(ns)), ns.lib.jit(f)(_x(ns))])


def nested_body_types(ns):
    """The types inside: the inner body varies over both axes; its result over 'i' only."""
    seen = []

    def inner(y):
        seen.append(str(ns.lib.typeof(y)))
        out = ns.lax.psum(y, "j")
        seen.append(str(ns.lib.typeof(out)))
        return out

    f = _nested(ns, inner)
    text = str(ns.lib.make_jaxpr(f)(_x(ns)))
    return [seen, "f32[2]{V:(i,j)}" in text]


def nested_grad(ns):
    f = _nested(ns)
    loss = lambda x: ns.jnp.sum(f(x) * ns.jnp.arange(4.0))  # noqa: E731
    return outcome(lambda: [ns.lib.grad(loss)(_x(ns)), ns.lib.jit(ns.lib.grad(loss))(_x(ns))])


def nested_vmap(ns):
    f = _nested(ns)
    return outcome(lambda: ns.lib.vmap(f)(ns.jnp.arange(16.0).reshape(2, 8)))


def _nested_sin(ns):
    return _nested(ns, lambda y: ns.jnp.sin(y) * ns.lax.psum(y, "j"), out_spec=ns.P("j"))


def nested_nonlinear(ns):
    f = _nested_sin(ns)
    return outcome(lambda: [f(_x(ns)), ns.lib.jit(f)(_x(ns))])


def nested_nonlinear_jvp(ns):
    f = _nested_sin(ns)
    return outcome(lambda: ns.lib.jvp(f, (_x(ns),), (ns.jnp.linspace(-1.0, 1.0, 8),)))


def nested_nonlinear_jacfwd(ns):
    """(JAX 0.10.2's grad of this one fails (DuplicateSpecError in its residual specs); the
    test checks minijax's grad against this Jacobian.)"""
    f = _nested_sin(ns)
    return outcome(lambda: ns.lib.jacfwd(f)(_x(ns)))


def nested_nonlinear_vmap(ns):
    f = _nested_sin(ns)
    return outcome(lambda: ns.lib.vmap(f)(ns.jnp.arange(16.0).reshape(2, 8)))


def _nested_cos(ns):
    return _nested(ns, lambda y: ns.jnp.cos(y) * ns.lax.psum(y * y, "j"), out_spec=ns.P("j"))


def nested_cos_jacfwd_rows(ns):
    """JAX's forward-mode Jacobians at two points (its vmap of grad and its jit of jacrev of
    this fail: residual specs naming 'i' twice, and a region rebinding 'i'); the test checks
    minijax's reverse mode against them."""
    f = _nested_cos(ns)
    xs = ns.jnp.arange(16.0).reshape(2, 8) / 4
    return outcome(lambda: [ns.lib.jacfwd(f)(x) for x in xs])


def nested_axis_index(ns):
    lax = ns.lax
    f = _nested(ns, lambda y: y + lax.axis_index("i") + 10 * lax.axis_index("j"),
                out_spec=ns.P("j"))
    return outcome(lambda: [f(_x(ns)), ns.lib.jit(f)(_x(ns))])


def nested_over_no_new_axes(ns):
    """Inner axis_names left empty (every axis; 'i' is already manual) or naming only 'i'."""
    P = ns.P

    def outer(x):
        a = ns.shard_map(lambda y: y * 3, in_specs=P("j"), out_specs=P("j"))(x)
        b = ns.shard_map(lambda y: y + 1, in_specs=P(), out_specs=P(), axis_names={"i"})(x)
        return a + b

    f = ns.shard_map(outer, mesh=_mesh2(ns), in_specs=P("i"), out_specs=P("i"),
                     axis_names={"i"})
    return outcome(lambda: f(_x(ns)))


def nested_explicit_mesh(ns):
    """An explicit mesh inside a body must be the context's (the manual abstract mesh)."""
    return outcome(lambda: _nested(ns, mesh=_mesh2(ns))(_x(ns)))


def nested_spec_names_outer_axis(ns):
    return outcome(lambda: _nested(ns, in_spec=ns.P("i"))(_x(ns)))


CASES = {f.__name__: f for f in [
    signature, old_signature, positional_mesh, missing_out_specs, decorator, decorator_jit,
    empty_context_mesh, set_mesh_context, abstract_mesh_in_body, infer_with_auto_axes,
    infer_from_shardings, partial_manual_axis_index, axis_names_not_a_set, axis_names_not_in_mesh,
    in_spec_names_auto_axis, out_spec_names_auto_axis, in_spec_not_a_spec,
    partial_manual_values, static_in_specs, f_not_callable, mesh_not_a_mesh,
    old_api_positional, old_api_no_auto, old_api_no_check_vma, new_api_no_check_rep,
    nested_psum, nested_body_types, nested_grad, nested_vmap, nested_nonlinear,
    nested_nonlinear_jvp, nested_nonlinear_jacfwd, nested_nonlinear_vmap,
    nested_cos_jacfwd_rows, nested_axis_index,
    nested_over_no_new_axes, nested_explicit_mesh, nested_spec_names_outer_axis,
]}
