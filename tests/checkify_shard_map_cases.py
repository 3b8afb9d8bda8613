"""checkify through shard_map and pmap: cases run both by real JAX (to record its messages,
tests/data/record_checkify_shard_map.py) and by minijax (tests/test_checkify_shard_map.py).

Each case takes ``ns`` (``api(jax)`` or ``api(minijax)``) and returns what the Error says:
``get()`` and the message ``throw()`` raises (None where there is no error). Meshes use the
first 4 devices."""

import types

import numpy as np


def api(lib):
    """The names the cases use, from ``jax`` or ``minijax``."""
    if lib.__name__ == "jax":
        from jax import shard_map as _shard_map
        from jax.experimental import checkify

        def shard_map(f, mesh, in_specs, out_specs, checked=True):
            return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                              check_vma=checked)
    else:
        from minijax.experimental import checkify
        from minijax.shard_map import shard_map as _shard_map

        def shard_map(f, mesh, in_specs, out_specs, checked=True):
            return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                              check_vma=checked)

    return types.SimpleNamespace(
        jit=lib.jit, pmap=lib.pmap, vmap=lib.vmap, jnp=lib.numpy, checkify=checkify,
        shard_map=shard_map, Mesh=lib.sharding.Mesh, P=lib.sharding.PartitionSpec,
        devices=lib.devices()[:4])


def _outcome(err):
    try:
        err.throw()
        thrown = None
    except Exception as e:  # noqa: BLE001 (the message is the outcome)
        thrown = str(e)
    return {"get": err.get(), "throw": thrown}


def _positive(ns):
    def f(x):
        ns.checkify.check(ns.jnp.all(x > 0), "x must be positive, got {}", x)
        return ns.jnp.sin(x)

    return f


def _mesh_1d(ns):
    return ns.Mesh(np.array(ns.devices), ("x",))


def _mesh_2d(ns):
    return ns.Mesh(np.array(ns.devices).reshape(2, 2), ("a", "b"))


X = np.array([1.0, 2.0, -3.0, 4.0], np.float32)


def shard_map_1d(ns):
    g = ns.shard_map(_positive(ns), _mesh_1d(ns), ns.P("x"), ns.P("x"))
    return _outcome(ns.checkify.checkify(g)(X)[0])


def shard_map_1d_jit(ns):
    g = ns.shard_map(_positive(ns), _mesh_1d(ns), ns.P("x"), ns.P("x"))
    return _outcome(ns.jit(ns.checkify.checkify(g))(X)[0])


def shard_map_2d(ns):
    g = ns.shard_map(_positive(ns), _mesh_2d(ns), ns.P("a", "b"), ns.P("a", "b"))
    return _outcome(ns.checkify.checkify(g)(X.reshape(2, 2))[0])


def shard_map_2d_one_axis(ns):
    # split over 'b' only: the failing block is on devices 1 and 3 (a-major order)
    g = ns.shard_map(_positive(ns), _mesh_2d(ns), ns.P("b"), ns.P("b"), checked=False)
    return _outcome(ns.checkify.checkify(g)(np.array([1.0, -2.0], np.float32))[0])


def pmap_user(ns):
    return _outcome(ns.checkify.checkify(ns.pmap(_positive(ns), axis_name="i"))(X)[0])


def jit_pmap_user(ns):
    fn = ns.jit(ns.checkify.checkify(ns.pmap(_positive(ns), axis_name="i")))
    return _outcome(fn(X)[0])


def pmap_no_error(ns):
    return _outcome(ns.checkify.checkify(ns.pmap(_positive(ns), axis_name="i"))(np.abs(X))[0])


def pmap_two_checks(ns):
    # several slots fail, with different checks: throw() reduces them as JAX does
    def f(x):
        ns.checkify.check(x > -5, "big {}", x)
        ns.checkify.check(x > 0, "pos {}", x)
        return ns.jnp.log(x)

    fn = ns.checkify.checkify(ns.pmap(f, axis_name="i"), errors=ns.checkify.user_checks)
    return _outcome(fn(np.array([-6.0, -1.0, 2.0, -2.0], np.float32))[0])


def check_before_shard_map(ns):
    g = ns.shard_map(_positive(ns), _mesh_1d(ns), ns.P("x"), ns.P("x"))

    def f(x):
        ns.checkify.check(x[0] > 5, "before {}", x[0])
        return g(x)

    return _outcome(ns.checkify.checkify(f)(ns.jnp.asarray(X))[0])


def pmap_nan(ns):
    fn = ns.checkify.checkify(ns.pmap(ns.jnp.log), errors=ns.checkify.nan_checks)
    return _outcome(fn(X)[0])


def jit_pmap_div(ns):
    fn = ns.jit(ns.checkify.checkify(ns.pmap(lambda x: 10 // x), errors=ns.checkify.div_checks))
    return _outcome(fn(np.array([1, 2, 0, 4], np.int32))[0])


def pmap_all_checks_pass(ns):
    fn = ns.checkify.checkify(ns.pmap(lambda x: 10 // x), errors=ns.checkify.all_checks)
    return _outcome(fn(np.array([1, 2, 3, 4], np.int32))[0])


def vmap_of_shard_map(ns):
    g = ns.shard_map(_positive(ns), _mesh_1d(ns), ns.P("x"), ns.P("x"))
    xs = np.stack([np.abs(X), X])
    return _outcome(ns.vmap(ns.checkify.checkify(g))(xs)[0])


def check_error_of_batched(ns):
    err = ns.checkify.checkify(ns.pmap(_positive(ns), axis_name="i"))(
        np.array([-1.0, 2.0, -3.0, 4.0], np.float32))[0]

    def g(x):
        ns.checkify.check_error(err)
        return x

    return _outcome(ns.checkify.checkify(g)(np.float32(1.0))[0])


CASES = {f.__name__: f for f in [
    shard_map_1d, shard_map_1d_jit, shard_map_2d, shard_map_2d_one_axis, pmap_user,
    jit_pmap_user, pmap_no_error, pmap_two_checks, check_before_shard_map, pmap_nan,
    jit_pmap_div, pmap_all_checks_pass, vmap_of_shard_map, check_error_of_batched]}
