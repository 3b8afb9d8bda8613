"""Eager calls of hot ``jnp`` functions run as one cached jitted program, as in JAX.

Outside any transformation, ``jnp.sin(x)`` or ``x * 2.0`` would otherwise pay for the jnp layer
in Python (argument checks, promotion, broadcasting) and then dispatch each lax primitive it
binds on its own, device-putting Python scalars on every call. Wrapped with ``eager_jit``, the
call goes through jaxlib's C++ jit fast path instead: one signature check, one executable, the
scalar passed as a weakly typed argument (~4 µs instead of ~25 µs for ``x * 2.0``).

Under an eager transformation (grad, jvp, vmap, linearize over concrete values: no trace on
the stack builds a jaxpr) the call is one ``jit`` equation, whose derivative or batched form
runs as one compiled program again, as JAX's jitted jnp functions do: in float32 a fused
formula rounds differently from its ops run one by one, and JAX's eager gradients are the fused
ones (except the transpose of an ``inline=True`` function's tangent: JAX's linearization
inlines it, so it runs op by op). Called on a staging trace (jit, make_jaxpr) itself, a function
JAX jits with ``inline=True`` (most: the ufuncs, ``sum``) is called plainly, so the jaxpr stays
flat; under a transformation above a staging trace it is a ``jit`` equation to that
transformation, which the staging trace then inlines, as JAX's pjit staging rule does (so a
``jvp`` under ``jit`` types its tangent as the JVP of the call does: weak for a weak primal);
one JAX jits as a call (``inline=False``: ``jnp.where``'s ``_where``, ``var``, the random
samplers) is a ``jit`` equation there too, as in JAX's jaxprs, and a partitioned program
lowers it as a function call, through which Shardy propagates shardings as it does through JAX's.
Only functions whose every argument is an array or a hashable static option may be wrapped
(shape-dependent or value-dependent functions like ``nonzero`` must stay plain).
"""

from __future__ import annotations

import functools
import inspect
import operator

from minijax import core, dtypes
from minijax.interpreters.ad import JVPTracer, Zero
from minijax.interpreters.batching import BatchTracer
from minijax.interpreters.partial_eval import DynamicJaxprTrace, building_jaxpr
from minijax.jitting import jit
from minijax.jitting.args import split_static


def eager_jit(fn=None, *, static_argnames=(), list_argnames=(), index_argnames=(),
              fused_under_transforms=True, inline=True):
    """Decorator: ``fn`` runs jitted when called eagerly or under transformations; on a staging
    trace itself, plainly (``inline``) or as a ``jit`` equation (``inline=False``, for a function
    JAX jits without ``inline=True``). ``fused_under_transforms=False`` for a
    function JAX does not jit (``tensordot``): under any transformation its ops run one by
    one, as JAX's do; only the plain eager call takes the fast path.

    ``list_argnames``: the static options whose lists become tuples before the jitted call, as
    JAX's Python wrapper converts them before its jit (reductions' ``axis=[0, 1]``). A list in
    any other static option reaches jit as given and is its "Non-hashable static arguments"
    ValueError, as in JAX (``jnp.linalg.svd(x, subset_by_index=[0, 2])``), except in a function
    JAX does not jit (``fused_under_transforms=False``): there the function runs unjitted and
    meets JAX's own error (``jnp.vecdot(x, y, axis=[0])``'s TypeError).

    ``index_argnames``: the static options JAX's Python wrapper passes through
    ``operator.index`` before its jit (``argmax``'s ``axis``): a list or a float there is
    its TypeError, a NumPy integer or 0-d integer array becomes an int."""
    if fn is None:
        return functools.partial(eager_jit, static_argnames=static_argnames,
                                 list_argnames=list_argnames, index_argnames=index_argnames,
                                 fused_under_transforms=fused_under_transforms, inline=inline)
    call_when_staged = fused_under_transforms and not inline
    jitted = jit(fn, static_argnames=static_argnames or None, inline=inline)
    is_eval_trace_current = core.is_eval_trace_current
    static_positions = _positions(fn, static_argnames)
    list_positions = _positions(fn, list_argnames)
    index_positions = _positions(fn, index_argnames)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if any(_has_jax_array(a) for a in args):
            args = tuple(a.__jax_array__() if _has_jax_array(a) else a for a in args)
        if index_argnames:
            args, kwargs = _as_indices(args, kwargs, index_argnames, index_positions)
        eager = is_eval_trace_current()  # the hot case: checked once
        if eager or call_when_staged or (fused_under_transforms and _called(core.current_trace(),
                                                                            args)):
            if list_argnames:
                args, kwargs = _lists_as_tuples(args, kwargs, list_argnames, list_positions)
            try:
                return jitted(*args, **kwargs)
            except ValueError:
                if fused_under_transforms or _static_options_hash(
                        args, kwargs, static_positions, static_argnames):
                    raise
            return fn(*args, **kwargs)  # JAX's own code meets the option jit cannot hash
        if static_argnames and fused_under_transforms:
            # inlined, but its static options must still hash, as under JAX's jit(inline=True):
            # a traced value or a list there is JAX's "Non-hashable static arguments" ValueError
            split_static(*_lists_as_tuples(args, kwargs, list_argnames, list_positions),
                         static_positions, static_argnames)
        return fn(*args, **kwargs)

    wrapper._eager_jitted = jitted
    return wrapper


def _called(trace, args):
    """Whether the jitted call is made: on an eager shard_map's body or a transformation over
    it, always (JAX runs the call there as one program, typed by its jaxpr); on another staging
    trace itself, never. With no jaxpr being built, always: it runs fused. Above a staging
    trace the call only matters where a tangent's weak type is not its primal's (a strong
    tangent given for a Python float): the call's JVP types it as the primal's, as JAX's pjit
    JVP does. Elsewhere the staging trace would inline the call into the very equations the
    function makes when called plainly, so it is called plainly, which traces several times
    faster."""
    if type(trace) is DynamicJaxprTrace:
        return trace.runs_eagerly
    if not building_jaxpr(trace):
        return True
    return any(_retyped_tangent(a) for a in args)


_INEXACT = frozenset(d for d in dtypes._dtype_set if dtypes.is_inexact(d))


def _retyped_tangent(x):
    """Whether ``x``, or what it carries to a transformation below (a JVP's primal, a batched
    value), is a JVP tracer whose tangent's weak type is not its primal's, or whose tangent is
    an integer one. A JVP further down
    sees the call too (the JVP of a vjp, s24057-240: the vjp's own tangent is typed from its
    primal, the outer one need not be)."""
    while isinstance(x, core.Tracer):
        if type(x) is JVPTracer:
            if type(x.tangent) is not Zero:
                t_aval, p_aval = core.get_aval(x.tangent), core.get_aval(x.primal)
                # an integer tangent (a dot's with an integer preferred_element_type): the
                # call drops it (ad.drop_integer_tangents), as JAX's jit does
                if (t_aval.weak_type != p_aval.weak_type or t_aval.dtype not in _INEXACT
                        or t_aval.vma != p_aval.vma):
                    return True
            x = x.primal
        elif type(x) is BatchTracer:
            x = x.val
        else:
            return False
    return False


# type -> whether it converts itself with ``__jax_array__`` (flax.nnx's Variable): jnp
# functions take such values as the arrays they stand for, as JAX's do. A dict, because this
# check runs on every eager call.
_JAX_ARRAY_TYPES: dict[type, bool] = {}


def _has_jax_array(x) -> bool:
    t = type(x)
    has = _JAX_ARRAY_TYPES.get(t)
    if has is None:
        has = _JAX_ARRAY_TYPES[t] = hasattr(t, "__jax_array__")
    return has


def _positions(fn, names):
    params = list(inspect.signature(fn).parameters.values())
    return tuple(i for i, p in enumerate(params) if p.name in names
                 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _lists_as_tuples(args, kwargs, list_argnames, list_positions):
    """``axis=[0, 1]`` is fine for NumPy: the named options' lists become tuples for the key."""
    for name in list_argnames:
        if isinstance(kwargs.get(name), (list, tuple)):
            kwargs = dict(kwargs)
            kwargs[name] = _freeze(kwargs[name])
    for i in list_positions:
        if i < len(args) and isinstance(args[i], (list, tuple)):
            args = args[:i] + (_freeze(args[i]),) + args[i + 1:]
    return args, kwargs


def _as_indices(args, kwargs, index_argnames, index_positions):
    for name in index_argnames:
        value = kwargs.get(name)
        if value is not None and type(value) is not int:
            kwargs = dict(kwargs)
            kwargs[name] = operator.index(value)
    for i in index_positions:
        if i < len(args) and args[i] is not None and type(args[i]) is not int:
            args = args[:i] + (operator.index(args[i]),) + args[i + 1:]
    return args, kwargs


def _static_options_hash(args, kwargs, static_positions, static_argnames):
    try:
        split_static(args, kwargs, static_positions, static_argnames)
    except ValueError:  # its "Non-hashable static arguments"
        return False
    return True


def _freeze(value):
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value
