"""Host callbacks: Python functions called from inside compiled programs.

Two primitives, both lowered to an XLA custom call (``xla_ffi_python_{cpu,gpu}_callback``)
whose ``index`` attribute names the function's position in the module's ``host_callbacks`` list
(the lowering returns it with the module; compiling hands it to the executable; see
JAXLIB_NOTES §6):

- ``debug_callback`` (``minijax.debug.callback`` / ``minijax.debug.print``): no results, kept
  alive by ``has_side_effect``. ``ordered=True`` threads a token from one ordered callback to
  the next, so XLA runs them in program order (each nested region starts its own chain).
  Eagerly the function just runs. Under ``grad``/``jvp`` it sees the primal values (tangents
  are dropped); under ``vmap`` it runs once per batch element, as in JAX.
- ``pure_callback`` (``minijax.pure_callback``): results of declared shapes/dtypes; no side
  effect, so XLA may drop or deduplicate it. ``vmap_method`` is "sequential" (a loop),
  "expand_dims" or "broadcast_all" (one call with the batch axis in front).

Executables with callbacks are never written to the persistent cache (functions cannot be
saved); a deserialized one run without them crashes jaxlib.
"""

from __future__ import annotations

import traceback

import numpy as np

from minijax import dtypes, lax
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import ad, batching
from minijax.lowering.backends import JaxRuntimeError
from minijax.lowering.array import device_put_value
from minijax.tree_util import _registry


class _HostFn:
    """A hashable wrapper (by identity) so it can sit in equation params and cache keys."""

    __slots__ = ("fn", "name", "__weakref__")

    def __init__(self, fn, name):
        self.fn = fn
        self.name = name

    def __repr__(self):
        return self.name


# ------------------------------------------------------------------------------------------------
# Running a callback (the lowering's custom call: ModuleContext.emit_host_call)


def _flat_numpy(args):
    return [np.asarray(a) for a in args]


def _call_eagerly(callback, result_avals, args):
    """A pure or io callback run outside jit. JAX runs it through a compiled program, so an
    exception the callback raises reaches the caller as the JaxRuntimeError XLA raises; so it
    does here."""
    try:
        outs = callback.fn(*_flat_numpy(args))
    except Exception as e:
        raise JaxRuntimeError("INTERNAL: CpuCallback error calling callback: "
                              + "".join(traceback.format_exception(e))) from e
    return [device_put_value(o) for o in _checked_results(callback, result_avals, outs)]


# ------------------------------------------------------------------------------------------------
# debug_callback


debug_callback_p = Primitive("debug_callback", multiple_results=True)
debug_callback_p.effectful = True  # never removed as dead code
debug_callback_p.def_abstract_eval(lambda *avals, callback, ordered: [])
debug_callback_p.own_memory_space = True  # as pure_callback_p


@debug_callback_p.def_impl
def _debug_callback_impl(*args, callback, ordered):
    callback.fn(*_flat_numpy(args))
    return []


def _debug_callback_lowering(ctx, *operands, callback, ordered):
    def host(*arrays):
        callback.fn(*arrays)
        return ()

    # JAX places an unordered debug callback as every host call, an ordered one not at all
    ctx.module_ctx.emit_host_call(host, operands, [], True, ordered and "debug_callback",
                                  placed=not ordered)
    return []


debug_callback_p.def_lowering(_debug_callback_lowering)


def _debug_callback_jvp(primals, tangents, *, callback, ordered):
    debug_callback_p.bind(*primals, callback=callback, ordered=ordered)
    return [], []


ad.primitive_jvps[debug_callback_p] = _debug_callback_jvp


def _debug_callback_batching(vals, dims, *, callback, ordered):
    size = batching.axis_size(vals, dims)
    for i in range(size):
        args = [
            v if d is batching.not_mapped else lax.index_in_dim(v, i, d, keepdims=False)
            for v, d in zip(vals, dims)
        ]
        debug_callback_p.bind(*args, callback=callback, ordered=ordered)
    return [], []


debug_callback_p.def_batching(_debug_callback_batching)
ad.primitive_transposes[debug_callback_p] = lambda cts, *args, **params: [None] * len(args)


def debug_callback(fn, *args, ordered=False, **kwargs):
    """Calls ``fn(*args, **kwargs)`` on the host with concrete NumPy values, also from inside
    ``jit``/``vmap``/``grad``; returns None (``ordered=True`` keeps program order)."""
    leaves, tree = _registry.flatten((args, kwargs))

    def flat_fn(*arrays):
        a, k = tree.unflatten(list(arrays))
        fn(*a, **k)

    name = getattr(fn, "__name__", "callback")
    debug_callback_p.bind(*leaves, callback=_HostFn(flat_fn, name), ordered=bool(ordered))
    return None


# ------------------------------------------------------------------------------------------------
# pure_callback


pure_callback_p = Primitive("pure_callback", multiple_results=True)


def _pure_abstract_eval(*avals, callback, result_avals, vmap_method):
    return list(result_avals)


pure_callback_p.def_abstract_eval(_pure_abstract_eval)
# a callback's results have the types it declares, whatever memory its operands are in
pure_callback_p.own_memory_space = True


def _call_pure(callback, result_avals, arrays):
    return _checked_results(callback, result_avals, callback.fn(*arrays))


def _checked_results(callback, result_avals, outs):
    if len(outs) != len(result_avals):
        raise TypeError(
            f"pure_callback {callback.name} returned {len(outs)} results, but "
            f"result_shape_dtypes declares {len(result_avals)}"
        )
    fixed = []
    for o, a in zip(outs, result_avals):
        o = np.asarray(o)
        if o.shape != a.shape or o.dtype != a.dtype:
            raise TypeError(
                f"pure_callback {callback.name} returned {o.dtype.name}{list(o.shape)}, but "
                f"result_shape_dtypes declares {a.str_short(True)}"
            )
        fixed.append(o)
    return fixed


@pure_callback_p.def_impl
def _pure_impl(*args, callback, result_avals, vmap_method):
    return _call_eagerly(callback, result_avals, args)


def _pure_lowering(ctx, *operands, callback, result_avals, vmap_method):
    def host(*arrays):
        return _call_pure(callback, result_avals, arrays)

    return ctx.module_ctx.emit_host_call(host, operands, result_avals, False, False)


pure_callback_p.def_lowering(_pure_lowering)


def _pure_batching(vals, dims, *, callback, result_avals, vmap_method):
    size = batching.axis_size(vals, dims)
    if vmap_method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        moved = []
        for v, d in zip(vals, dims):
            if d is batching.not_mapped:
                # legacy_vectorized (JAX's old vectorized=True) passes an unbatched one as is
                if vmap_method == "expand_dims":
                    v = lax.expand_dims(v, (0,))
                elif vmap_method == "broadcast_all":
                    v = batching.broadcast_batched(v, size, 0)
            else:
                v = batching.moveaxis(v, d, 0)
            moved.append(v)
        batched_avals = tuple(ShapedArray((size,) + a.shape, a.dtype) for a in result_avals)
        outs = pure_callback_p.bind(
            *moved, callback=callback, result_avals=batched_avals, vmap_method=vmap_method
        )
        return outs, [0] * len(outs)
    if vmap_method not in (None, "sequential", "sequential_unrolled"):
        raise ValueError(f"pure_callback: unknown vmap_method {vmap_method!r}")
    if vmap_method is None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            "'legacy_vectorized'. Got vmap_method=None.")
    per = []
    for i in range(size):
        args = [
            v if d is batching.not_mapped else lax.index_in_dim(v, i, d, keepdims=False)
            for v, d in zip(vals, dims)
        ]
        per.append(pure_callback_p.bind(
            *args, callback=callback, result_avals=result_avals, vmap_method=vmap_method
        ))
    outs = [
        lax.concatenate([lax.expand_dims(p[j], (0,)) for p in per], 0)
        for j in range(len(result_avals))
    ]
    return outs, [0] * len(outs)


pure_callback_p.def_batching(_pure_batching)


def _pure_jvp(primals, tangents, **params):
    raise ValueError(
        f"pure_callback {params['callback'].name} cannot be differentiated; wrap it in "
        "minijax.custom_jvp or custom_vjp to give it a derivative"
    )


ad.primitive_jvps[pure_callback_p] = _pure_jvp


def pure_callback(callback, result_shape_dtypes, *args, vmap_method=None, **kwargs):
    """``callback(*args, **kwargs)`` on the host with NumPy values; returns arrays shaped like
    ``result_shape_dtypes`` (a pytree of objects with ``.shape`` and ``.dtype``)."""
    leaves, tree = _registry.flatten((args, kwargs))
    res_leaves, res_tree = _registry.flatten(result_shape_dtypes)
    result_avals = tuple(
        ShapedArray(tuple(r.shape), dtypes.canonicalize_dtype(np.dtype(r.dtype)))
        for r in res_leaves
    )

    def flat_fn(*arrays):
        a, k = tree.unflatten(list(arrays))
        out = callback(*a, **k)
        out_leaves, out_tree = _registry.flatten(out)
        if out_tree != res_tree:
            raise TypeError(
                f"pure_callback {name} returned a value with structure {out_tree}, but "
                f"result_shape_dtypes has structure {res_tree}"
            )
        return out_leaves

    name = getattr(callback, "__name__", "callback")
    outs = pure_callback_p.bind(
        *leaves, callback=_HostFn(flat_fn, name), result_avals=result_avals,
        vmap_method=vmap_method,
    )
    return res_tree.unflatten(outs)



# ------------------------------------------------------------------------------------------------
# io_callback


io_callback_p = Primitive("io_callback", multiple_results=True)
io_callback_p.effectful = True  # a side effect: never removed, never deduplicated
io_callback_p.own_memory_space = True  # as pure_callback_p


@io_callback_p.def_abstract_eval
def _io_abstract_eval(*avals, callback, result_avals, ordered):
    return list(result_avals)


@io_callback_p.def_impl
def _io_impl(*args, callback, result_avals, ordered):
    return _call_eagerly(callback, result_avals, args)


def _io_lowering(ctx, *operands, callback, result_avals, ordered):
    def host(*arrays):
        return _call_pure(callback, result_avals, arrays)

    return ctx.module_ctx.emit_host_call(host, operands, result_avals, True,
                                         ordered and "io_callback")


io_callback_p.def_lowering(_io_lowering)


def _io_batching(vals, dims, *, callback, result_avals, ordered):
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    # one call per example, in order, as JAX's sequential vmap of an io_callback
    size = batching.axis_size(vals, dims)
    per = []
    for i in range(size):
        args = [v if d is batching.not_mapped else lax.index_in_dim(v, i, d, keepdims=False)
                for v, d in zip(vals, dims)]
        per.append(io_callback_p.bind(*args, callback=callback, result_avals=result_avals,
                                      ordered=ordered))
    outs = [lax.concatenate([lax.expand_dims(p[j], (0,)) for p in per], 0)
            for j in range(len(result_avals))]
    return outs, [0] * len(outs)


def _io_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


io_callback_p.def_batching(_io_batching)
ad.primitive_jvps[io_callback_p] = _io_jvp


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False, **kwargs):
    """``callback(*args, **kwargs)`` on the host for its side effects, with NumPy values;
    returns arrays shaped like ``result_shape_dtypes``. Unlike ``pure_callback`` XLA never
    drops or repeats it; ``ordered=True`` keeps program order among ordered callbacks.
    ``sharding`` is accepted for JAX's signature: minijax runs the callback where XLA puts
    it (one device's worth of data on a single device)."""
    del sharding
    leaves, tree = _registry.flatten((args, kwargs))
    res_leaves, res_tree = _registry.flatten(result_shape_dtypes)
    result_avals = tuple(
        ShapedArray(tuple(r.shape), dtypes.canonicalize_dtype(np.dtype(r.dtype)))
        for r in res_leaves
    )
    name = getattr(callback, "__name__", "callback")

    def flat_fn(*arrays):
        a, k = tree.unflatten(list(arrays))
        out_leaves, out_tree = _registry.flatten(callback(*a, **k))
        if out_tree != res_tree:
            raise TypeError(
                f"io_callback {name} returned a value with structure {out_tree}, but "
                f"result_shape_dtypes has structure {res_tree}"
            )
        return out_leaves

    outs = io_callback_p.bind(*leaves, callback=_HostFn(flat_fn, name),
                              result_avals=result_avals, ordered=bool(ordered))
    return res_tree.unflatten(outs)
