"""``pmap``: a function mapped over one axis of its arguments, one slice per device.

As in JAX 0.10, ``pmap`` is SPMD machinery, not a runtime of its own: ``pmap(f)(*args)`` is
``jit`` of ``shard_map`` over a 1-D mesh of the first ``n`` devices (``n`` the mapped axis
size) whose one axis is ``axis_name``. An argument mapped along axis ``a`` gets the spec
``P(None, ..., axis_name)`` (``axis_name`` at position ``a``), so each device holds a slice of
size 1 there, which the body squeezes away before calling ``f``; an output with ``out_axes=a``
gets a size-1 axis inserted at ``a`` and the same spec, so the result is one global Array
sharded over the devices along its mapped axis. ``in_axes``/``out_axes`` ``None`` is
``P()``: the value is replicated (for an output: each device computed the same value and one
copy is returned; as in JAX this is not checked).

Everything else comes from those two transformations: collectives over ``axis_name`` inside
``f`` are shard_map's, ``grad``/``vmap`` of a pmap are shard_map's rules, and under another
trace (``jit(pmap(f))``, ``grad``) the jit is traced inline, so the pmap is one
``shard_map`` equation of the outer program. The jitted function takes the flattened argument
leaves; one is built per (argument structure, ``in_axes`` per leaf, static arguments,
devices), and the jit caches the compiled program per shapes and dtypes as usual.

In a multi-process job an eager call works as JAX's: each process passes its own slices (the
mapped axis as long as it has devices), the mesh holds every process's devices grouped by
process, the arguments become global Arrays and the results come back as each process's part.

``device_put_replicated`` and ``device_put_sharded`` build pmap's input layout directly: a
new leading axis with one slot per device, ``NamedSharding(Mesh(devices, name), P(name))``.
(JAX 0.10 removed them from the ``jax`` namespace in favour of ``device_put``; minijax keeps
them for programs written against earlier JAX.)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence

import numpy as np

from minijax import core, distributed, lax
from minijax.core import Tracer, get_aval
from minijax.interpreters.batching import extend_axis_env
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.jitting import jit
from minijax.lowering import backends
from minijax.lowering import compile as _compile
from minijax.lowering.array import Array, device_put_value, put_global
from minijax.shard_map import shard_map
from minijax.sharding import Mesh, NamedSharding, PartitionSpec
from minijax.source_info import with_user_line
from minijax.tree_util import (
    _registry,
    keystr,
    tree_flatten_with_path_internal,
    tree_leaves,
    tree_map,
    tree_map_internal,
)
from minijax.vmapping import flatten_axes

__all__ = ["device_put_replicated", "device_put_sharded", "pmap"]

_DEFAULT_AXIS_NAME = "_internal_pmap_axis_name"  # JAX's name for an unnamed pmap axis


def _index_tuple(x):
    return (operator.index(x),) if not isinstance(x, (tuple, list)) else tuple(
        operator.index(i) for i in x)


def _check_axes_tree(what, axes):
    if not all(type(a) is int for a in tree_leaves(axes)):
        raise TypeError(f"pmap {what} must be an int, None, or (nested) container with those "
                        f"types as leaves, but got {axes}.")


def _spec(axis_name, axis):
    """The PartitionSpec of a value mapped along ``axis`` (None: not mapped)."""
    return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Maps ``fun`` over axis ``in_axes`` of its arguments, running each slice on its own
    device (the first ``n`` devices, or ``devices``, where ``n`` is the mapped axis size).

    ``axis_name`` names the mapped axis for collectives inside ``fun`` (``lax.psum(x, 'i')``).
    ``in_axes``/``out_axes``: an int, None, or a pytree prefix of the positional arguments /
    the result with those leaves (keyword arguments are always mapped over axis 0).
    ``static_broadcasted_argnums``: positional arguments passed to ``fun`` as Python values
    (hashable; a new value retraces). ``donate_argnums``: positional arguments whose buffers
    the computation may reuse. The result is a global Array sharded over the devices along
    its mapped axis (``out_axes=None``: replicated, one copy)."""
    if not callable(fun):
        raise TypeError(f"pmap expects a callable as its first argument, got {fun!r}")
    axis_name = _DEFAULT_AXIS_NAME if axis_name is None else axis_name
    if not isinstance(axis_name, str):
        raise TypeError(f"pmap axis_name must be a string in minijax (mesh axes are named by "
                        f"strings), got {axis_name!r}")
    if devices is not None:
        if not devices:
            raise ValueError("'devices' argument to pmap must be non-empty, or None.")
        devices = tuple(devices)
    _check_axes_tree("in_axes", in_axes)
    _check_axes_tree("out_axes", out_axes)
    static = _index_tuple(static_broadcasted_argnums)
    donate = _index_tuple(donate_argnums)
    # donate_argnums count positional arguments; the jitted function sees the dynamic ones
    donate = tuple(sorted(i - sum(s < i for s in static) for i in donate if i not in static))
    built = {}

    def prepare(args, kwargs):
        """(jitted function of the flat leaves, the leaves it takes, the (args, kwargs)
        structure, whether the outputs go back to per-process slices)."""
        if static:
            if max(static) >= len(args):
                raise ValueError(
                    f"pmapped function has static_broadcasted_argnums={static} but was called "
                    f"with only {len(args)} positional argument{'s' if len(args) != 1 else ''}."
                    " All static broadcasted arguments must be passed positionally.")
            static_vals = tuple((i, args[i]) for i in static)
            try:
                hash(static_vals)
            except TypeError:
                raise ValueError(
                    "pmap static_broadcasted_argnums must be hashable (they are part of the "
                    f"cache key); got {[v for _, v in static_vals]!r}") from None
            dyn_args = tuple(a for i, a in enumerate(args) if i not in static)
            dyn_in_axes = (tuple(in_axes[i] for i in range(len(args)) if i not in static)
                           if isinstance(in_axes, tuple) and len(in_axes) == len(args)
                           else in_axes)
        else:
            static_vals, dyn_args, dyn_in_axes = (), args, in_axes
        leaves, in_tree = _registry.flatten((dyn_args, kwargs))
        axes = _flat_in_axes(dyn_in_axes, dyn_args, kwargs, in_tree)
        axes = tuple(_canonical_axis(x, a, i, dyn_args, kwargs)
                     for i, (x, a) in enumerate(zip(leaves, axes)))
        size = _mapped_size(leaves, axes, dyn_args, kwargs)
        # a multi-process job called eagerly: each process passes its local slices (JAX's
        # host-local arrays), and the pmap spans every process's devices
        multi = distributed.process_count() > 1 and core.is_eval_trace_current()
        mesh_devices = _mesh_devices(size, devices, backend, axis_size, leaves, axes,
                                     dyn_args, kwargs, multi)
        key = (in_tree, axes, static_vals, tuple(d.id for d in mesh_devices))
        fn = built.get(key)
        if fn is None:
            if len(built) > 64:
                built.clear()
            fn = built[key] = _build(fun, dict(static_vals), in_tree, axes, out_axes,
                                     axis_name, mesh_devices, donate, len(dyn_args))
        if multi:
            leaves = _local_to_global(leaves, axes, mesh_devices, axis_name)
        return fn, leaves, in_tree, multi

    @functools.wraps(fun)
    def pmapped(*args, **kwargs):
        fn, leaves, _, multi = prepare(args, kwargs)
        out = fn(*leaves)
        return _global_to_local(out, axis_name) if multi else out

    def lower(*args, **kwargs):
        fn, leaves, in_tree, _ = prepare(args, kwargs)
        lowered = fn.lower(*leaves)

        def compile_():
            compiled = lowered.compile()

            def call(*cargs, **ckwargs):
                cfn, cleaves, ctree, multi = prepare(cargs, ckwargs)
                if ctree != in_tree or cfn is not fn:
                    raise TypeError(
                        f"Compiled pmap({getattr(fun, '__name__', 'fun')}) was compiled for "
                        f"arguments with structure {in_tree} on other settings than this call's "
                        f"(structure {ctree})")
                out = compiled(*cleaves)
                return _global_to_local(out, axis_name) if multi else out

            return _compile.Compiled(compiled._executable, call, lowered)

        return _compile.Lowered(lowered._lowering, lowered.jaxpr, lowered.name, compile_)

    pmapped.lower = lower
    return pmapped


def _build(fun, static_vals, in_tree, in_axes_flat, out_axes, axis_name, mesh_devices, donate,
           n_dyn):
    """``jit(shard_map(body))`` of the flat argument leaves, laid out over a 1-D mesh."""
    mesh = Mesh(np.array(mesh_devices, dtype=object), (axis_name,))
    n = len(mesh_devices)

    def call_fun(leaves):
        dyn_args, kwargs = in_tree.unflatten(leaves)
        if static_vals:
            it = iter(dyn_args)
            args = [static_vals[i] if i in static_vals else next(it)
                    for i in range(len(dyn_args) + len(static_vals))]
        else:
            args = dyn_args
        return fun(*args, **kwargs)

    def per_device(*leaves):  # one device's slices: the mapped axes squeezed away
        return call_fun([x if a is None else lax.squeeze(x, (a,))
                         for x, a in zip(leaves, in_axes_flat)])

    in_specs = tuple(_spec(axis_name, a) for a in in_axes_flat)

    def body(traced, *leaves):
        if traced is None:
            out = per_device(*leaves)
        else:  # ``fun`` was already traced to learn its output ranks: run that jaxpr instead
            closed, tree = traced
            out = tree.unflatten(core.eval_jaxpr(closed.jaxpr, closed.consts, *leaves))
        out_leaves, out_tree = _registry.flatten(out)
        axes = flatten_axes("pmap out_axes", out_tree, out_axes)
        res = []
        for x, a, (path, _) in zip(out_leaves, axes, tree_flatten_with_path_internal(out)[0]):
            if a is not None:
                a = _canonical_out_axis(get_aval(x).ndim, a, "output" + keystr(path))
                x = lax.expand_dims(x, (a,))
            res.append(x)
        return out_tree.unflatten(res)

    def out_specs_for(local_avals):
        """The out_specs (``out_axes`` as PartitionSpecs), and ``fun`` traced if that was needed
        to make them: a negative out axis counts from the end of the mapped result, so it needs
        the output's rank. The body then runs that trace, so ``fun`` is traced once, as in JAX."""
        if not any(a < 0 for a in tree_leaves(out_axes)):
            specs = tree_map(lambda a: _spec(axis_name, a), out_axes, is_leaf=lambda a: a is None)
            return specs, None
        trees = []

        def flat(*xs):
            out = per_device(*xs)
            leaves, tree = _registry.flatten(out)
            trees.append(tree)
            return leaves

        with extend_axis_env([(axis_name, n)]):
            closed = trace_to_jaxpr(flat, local_avals)
        axes = flatten_axes("pmap out_axes", trees[0], out_axes)
        specs = [None if a is None else _spec(axis_name, a % (v.ndim + 1))
                 for a, v in zip(axes, closed.out_avals)]
        specs = trees[0].unflatten([PartitionSpec() if s is None else s for s in specs])
        return specs, (closed, trees[0])

    def flat_fun(*leaves):
        local = [_per_device_aval(get_aval(x), a) for x, a in zip(leaves, in_axes_flat)]
        out_specs, traced = out_specs_for(local)
        mapped = shard_map(functools.partial(body, traced), mesh=mesh, in_specs=in_specs,
                           out_specs=out_specs, check_vma=False)
        return mapped(*leaves)

    flat_fun.__name__ = "_fun"  # JAX's name for the function pmap jits: its module is jit__fun
    # donation is per positional argument; the jit sees leaves (keyword ones are never donated)
    per_arg = [len(_registry.flatten(a)[0]) for a in in_tree.unflatten([0] * in_tree.num_leaves)[0]]
    starts = np.cumsum([0] + per_arg).tolist()
    donate_leaves = tuple(j for i in donate if i < n_dyn for j in range(starts[i], starts[i + 1]))
    # As JAX, the results' shardings are given (the lowered text carries them) where out_axes
    # name them before tracing; a negative out axis needs the output's rank, so Shardy's
    # propagation places those results.
    out_shardings = None
    if not any(a < 0 for a in tree_leaves(out_axes)):
        out_shardings = tree_map(lambda a: NamedSharding(mesh, _spec(axis_name, a)), out_axes,
                                 is_leaf=lambda a: a is None)
    return jit(flat_fun, in_shardings=tuple(NamedSharding(mesh, s) for s in in_specs),
               out_shardings=out_shardings, donate_argnums=donate_leaves)


# ------------------------------------------------------------------------------------------------
# in_axes, sizes and devices, with errors that name the argument


def _leaf_paths(args, kwargs):
    paths = ["args" + keystr(p) for p, _ in tree_flatten_with_path_internal(tuple(args))[0]]
    return paths + ["kwargs" + keystr(p) for p, _ in tree_flatten_with_path_internal(kwargs)[0]]


def _flat_in_axes(in_axes, args, kwargs, in_tree):
    """One axis (int or None) per leaf of ``(args, kwargs)``; keyword arguments get 0."""
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise ValueError(with_user_line(
            f"pmap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got len(in_axes)={len(in_axes)}, "
            f"len(args)={len(args)}."
            + (" Arguments passed by keyword are not covered by in_axes (they are mapped over "
               "axis 0)." if kwargs else "")))
    n_pos = len(_registry.flatten(tuple(args))[0])
    pos = flatten_axes("pmap in_axes", _registry.flatten(tuple(args))[1], in_axes)
    return pos + [0] * (in_tree.num_leaves - n_pos)


def _canonical_axis(x, a, i, args, kwargs):
    if a is None:
        return None
    try:
        ndim = get_aval(x).ndim
    except TypeError:
        raise TypeError(with_user_line(
            f"pmap was requested to map {_leaf_paths(args, kwargs)[i]} along axis {a}, but it is "
            f"a {type(x).__name__}, not an array; give it in_axes=None or make it static "
            f"(static_broadcasted_argnums).")) from None
    if not -ndim <= a < ndim:
        raise ValueError(with_user_line(
            f"pmap was requested to map its argument {_leaf_paths(args, kwargs)[i]} along axis "
            f"{a}, which implies that its rank should be at least {a + 1 if a >= 0 else -a}, but "
            f"it is only {ndim} (its type is {get_aval(x).str_short(True)})."))
    return a % ndim


def _mapped_size(leaves, axes, args, kwargs):
    sizes = [(i, get_aval(x).shape[a]) for i, (x, a) in enumerate(zip(leaves, axes))
             if a is not None]
    if not sizes:
        raise ValueError(with_user_line(
            "pmap requires at least one argument with a mapped axis (in_axes is None for "
            "every argument, or there are no arguments)."))
    if len({s for _, s in sizes}) > 1:
        paths = _leaf_paths(args, kwargs)
        lines = [f"  {paths[i]} of type {get_aval(leaves[i]).str_short(True)}: axis {axes[i]} has "
                 f"size {s}" for i, s in sizes]
        raise ValueError(with_user_line(
            "pmap got inconsistent sizes for the array axes to be mapped:\n" + "\n".join(lines)))
    return sizes[0][1]


def _mesh_devices(size, devices, backend, axis_size, leaves, axes, args, kwargs, multi):
    """The devices the pmap runs on: the first ``size`` of ``devices`` (default: all devices
    of ``backend``); ``size`` must be ``len(devices)`` when they are given. In a multi-process
    job (``multi``) ``size`` counts this process's devices and the pmap spans all processes'
    (``devices``, or every device grouped by process, as JAX orders them)."""

    def error(msg):
        i = next(i for i, a in enumerate(axes) if a is not None)
        return ValueError(with_user_line(
            f"{msg}: {_leaf_paths(args, kwargs)[i]} of type {get_aval(leaves[i]).str_short(True)} "
            f"(mapped along axis {axes[i]})."))

    if size == 0:
        raise error("pmap got a mapped axis of size 0")
    if multi:
        everything = devices if devices is not None else tuple(sorted(
            backends.devices(backend), key=lambda d: d.process_index))
        local = [d for d in everything if d.process_index == distributed.process_index()]
        total = size * distributed.process_count()
        if axis_size is not None and axis_size != total:
            raise error(f"Specified axis_size {axis_size} doesn't match the global axis size "
                        f"{total} ({size} on each of {distributed.process_count()} processes)")
        if size != len(local):
            raise error(f"pmap in a multi-process job maps this process's data over its "
                        f"{len(local)} devices, so the mapped axis must have size {len(local)}, "
                        f"but it has size {size}")
        return tuple(everything)
    if axis_size is not None and axis_size != size:
        raise error(f"Specified axis_size {axis_size} doesn't match received axis_size {size}")
    if devices is not None:
        if size != len(devices):
            raise error(f"pmap was given {len(devices)} devices, so the mapped axis must have "
                        f"size {len(devices)}, but it has size {size}")
        return devices
    available = backends.devices(backend)
    if size > len(available):
        raise error(f"pmap: the mapped axis has size {size}, but only {len(available)} devices "
                    f"are available (one per slice)")
    return tuple(available[:size])


def _local_to_global(leaves, axes, mesh_devices, axis_name):
    """Each process's slices (host-local arrays) as global Arrays over every process's devices:
    the mapped axis grows by the number of processes."""
    mesh = Mesh(np.array(mesh_devices, dtype=object), (axis_name,))
    local = [d for d in mesh_devices if d.process_index == distributed.process_index()]
    out = []
    for x, a in zip(leaves, axes):
        aval = get_aval(x)
        shape = list(aval.shape)
        if a is not None:
            shape[a] *= distributed.process_count()
        shape = tuple(shape)
        value = np.asarray(x._value if type(x) is Array else x, dtype=aval.dtype)
        sharding = NamedSharding(mesh, _spec(axis_name, a))
        if a is None:  # replicated: every local device gets the whole value
            out.append(distributed.make_array_from_single_device_arrays(
                shape, sharding, [device_put_value(value, d) for d in local]))
        else:
            out.append(distributed.make_array_from_process_local_data(sharding, value, shape))
    return out


def _global_to_local(out, axis_name):
    """Each global output as this process's part: an Array over its own devices whose mapped
    axis has one slot per local device (a replicated output stays whole)."""
    n = distributed.process_count()

    def local(x):
        spec = x.sharding.spec
        mesh = x.sharding.mesh
        devs = [d for d in mesh.devices.flat if d.process_index == distributed.process_index()]
        local_mesh = Mesh(np.array(devs, dtype=object), (axis_name,))
        shape = tuple(d // n if i < len(spec) and spec[i] == axis_name else d
                      for i, d in enumerate(x.shape))
        return distributed.make_array_from_single_device_arrays(
            shape, NamedSharding(local_mesh, spec), [s.data for s in x.addressable_shards])

    return tree_map_internal(local, out)


def _per_device_aval(aval, axis):
    return aval if axis is None else aval.update(
        shape=aval.shape[:axis] + (1,) + aval.shape[axis + 1:])


def _canonical_out_axis(ndim, axis, path):
    """``axis`` of an output of per-device rank ``ndim`` once the mapped axis is inserted."""
    if not -(ndim + 1) <= axis < ndim + 1:
        raise ValueError(with_user_line(
            f"pmap out_axes={axis} is out of bounds for {path}, whose mapped result has rank "
            f"{ndim + 1}."))
    return axis % (ndim + 1)


# ------------------------------------------------------------------------------------------------
# Placing data as pmap lays it out: one slot of a new leading axis per device


def _put_stacked(value, aval, devices, axis_name):
    """Host ``value`` (leading axis: one slot per device) as an Array with slot i on
    ``devices[i]``."""
    mesh = Mesh(np.array(devices, dtype=object), (axis_name,))
    target = NamedSharding(mesh, PartitionSpec(axis_name))._to_jaxlib(aval.ndim)
    return put_global(value, aval, target)


def _host_value(x, aval):
    if isinstance(x, Tracer):
        raise TypeError("device_put_replicated/device_put_sharded place concrete data; they "
                        "cannot be used inside a transformation (got a traced "
                        f"{aval.str_short(True)})")
    return np.asarray(x._value if type(x) is Array else x, dtype=aval.dtype)


def device_put_replicated(x, devices):
    """Every leaf of ``x`` broadcast along a new leading axis of size ``len(devices)``, slot i
    on ``devices[i]`` (pmap's layout of a replicated value)."""
    if not isinstance(devices, Sequence) or not devices:
        raise ValueError("`devices` argument to `device_put_replicated must be a non-empty "
                         "sequence.")
    n = len(devices)

    def put(leaf):
        aval = get_aval(leaf)
        value = _host_value(leaf, aval)
        return _put_stacked(np.broadcast_to(value, (n,) + value.shape),
                            aval.update(shape=(n,) + aval.shape), devices,
                            "_device_put_replicated")

    return tree_map_internal(put, x)


def device_put_sharded(shards, devices):
    """``shards`` (a sequence of pytrees of one structure, one per device) stacked leaf by leaf
    along a new leading axis, slot i on ``devices[i]``."""
    if not isinstance(shards, Sequence):
        raise TypeError(f"device_put_sharded `shards` input must be a sequence; got "
                        f"{type(shards)}")
    if len(shards) != len(devices):
        raise ValueError(f"len(shards) = {len(shards)} must equal len(devices) = "
                         f"{len(devices)}.")

    def put(*xs):
        avals = [get_aval(x) for x in xs]
        for a1, a2 in zip(avals[:-1], avals[1:]):
            if a1 != a2:
                raise ValueError("the shards passed to device_put_sharded must have consistent "
                                 f"shape and dtype, but got {a1.str_short(True)} and "
                                 f"{a2.str_short(True)}.")
        value = np.stack([_host_value(x, a) for x, a in zip(xs, avals)])
        return _put_stacked(value, avals[0].update(shape=(len(xs),) + avals[0].shape), devices,
                            "_device_put_sharded")

    return tree_map_internal(put, shards[0], *shards[1:])
