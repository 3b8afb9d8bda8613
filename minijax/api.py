"""The user-facing transformations and device helpers (``minijax.jit``, ``make_jaxpr`` ...)."""

from __future__ import annotations

import functools

import jaxlib._jax as _jaxlib
import numpy as np

from minijax import core, dtypes, source_info
from minijax.autodiff import (
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linear_transpose,
    linearize,
    value_and_grad,
    vjp,
)
from minijax.config import config_context, explicit_device_get_scope
from minijax.core import ShapedArray, ensure_compile_time_eval
from minijax.custom_derivatives import closure_convert, custom_jvp, custom_vjp
from minijax.interpreters import ad
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.jitting import is_jitted, jit
from minijax.lowering import backends
from minijax.lowering import compile as _compile
from minijax.lowering.array import Array, device_put_value
from minijax.random._keys import PRNGKeyArray
from minijax.rematerialization import checkpoint, checkpoint_policies, remat
from minijax.stages import ShapeDtypeStruct
from minijax.sharding import device_put
from minijax.tree_util import _registry, register_pytree_node, tree_map
from minijax.vmapping import vmap

__all__ = [
    "ShapeDtypeStruct", "block_until_ready", "default_backend", "device_count", "device_get",
    "device_put", "devices", "eval_shape", "jit", "local_device_count", "local_devices",
    "make_jaxpr", "vmap",
    # autodiff (minijax/autodiff.py)
    "grad", "hessian", "jacfwd", "jacobian", "jacrev", "jvp", "linear_transpose", "linearize",
    "value_and_grad", "vjp",
    # custom rules and rematerialization (custom_derivatives.py, rematerialization.py)
    "checkpoint", "checkpoint_policies", "custom_jvp", "custom_vjp", "remat",
    # smaller names of the top-level API (below)
    "Device", "clear_caches", "closure_convert", "custom_gradient", "disable_jit",
    "effects_barrier", "ensure_compile_time_eval", "float0", "live_arrays", "named_call",
    "named_scope", "typeof",
]


def _static_positions(static_argnums, nargs):
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    return {i % nargs if i < 0 else i for i in static_argnums}


def make_jaxpr(fun, static_argnums=(), return_shape=False):
    """``make_jaxpr(f)(*args)``: the ClosedJaxpr of ``f`` traced at the args' shapes/dtypes."""

    def make(*args, **kwargs):
        static = _static_positions(static_argnums, len(args))
        dyn = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = _registry.flatten((dyn, kwargs))
        in_avals = [core.get_aval(x) for x in leaves]
        out_tree_box = []

        def flat_fun(*tracers):
            dyn_args, dyn_kwargs = in_tree.unflatten(tracers)
            it = iter(dyn_args)
            full = [args[i] if i in static else next(it) for i in range(len(args))]
            out_leaves, out_tree = _registry.flatten(fun(*full, **dyn_kwargs))
            out_tree_box.append(out_tree)
            return out_leaves

        closed = trace_to_jaxpr(flat_fun, in_avals)
        if return_shape:
            shapes = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in closed.out_avals]
            return closed, out_tree_box[0].unflatten(shapes)
        return closed

    return make


def eval_shape(fun, *args, **kwargs):
    """The output shapes/dtypes of ``fun(*args)`` as ShapeDtypeStructs, without running it
    (as JAX: the shape evaluation of ``jit(fun)``; a jitted ``fun`` with ``out_shardings``
    gives structs that say where the outputs will be). An abstract value (a ShapedArray) may
    stand for an argument, as in JAX."""
    args, kwargs = tree_map(
        lambda x: ShapeDtypeStruct(x.shape, x.dtype, x.weak_type)
        if isinstance(x, ShapedArray) else x, (args, kwargs))
    return (fun if is_jitted(fun) else jit(fun)).eval_shape(*args, **kwargs)


def device_get(x):
    """Every leaf of ``x`` on the host (an explicit transfer), by JAX's rule: an Array, or any
    value with ``__array__`` (a NumPy scalar too), as a NumPy array; a key array as a new one
    over its data brought back (JAX's extended-dtype rule); a tracer or other value itself.
    The copies are all started before the first is waited for, as in JAX."""
    with explicit_device_get_scope():
        for leaf in _registry.flatten(x)[0]:
            if type(leaf) is Array:
                leaf.copy_to_host_async()
        return tree_map(_device_get, x)


def _device_get(x):
    if isinstance(x, core.Tracer):
        return x
    if isinstance(x, PRNGKeyArray):
        if isinstance(x._data, core.Tracer):  # a traced key is a tracer in JAX
            return x
        return PRNGKeyArray(device_put_value(np.asarray(x._data)), x._impl)
    toarray = getattr(x, "__array__", None)
    return x if toarray is None else toarray()


def block_until_ready(x):
    for leaf in _registry.flatten(x)[0]:
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return x


def devices(backend=None):
    return backends.devices(backend)


def local_devices(process_index=None, backend=None):
    return backends.local_devices(backend)


def device_count(backend=None):
    return len(backends.devices(backend))


def local_device_count(backend=None):
    return len(backends.local_devices(backend))


def default_backend():
    return backends.default_backend()




# ------------------------------------------------------------------------------------------------
# Smaller top-level API names (jax.typeof, jax.disable_jit, jax.named_scope ...)

Device = _jaxlib.Device  # the class of every device jaxlib returns (CpuDevice, CudaDevice ...)
float0 = dtypes.float0  # the dtype of the tangent/cotangent of an integer or boolean value


def typeof(x):
    """The abstract value (ShapedArray: shape, dtype, weak type) of an array, tracer, scalar
    or typed key array (dtype ``key<fry>``)."""
    if isinstance(x, PRNGKeyArray):  # its data's type less the key dimensions
        return x.aval
    return core.get_aval(x)


def disable_jit(disable=True):
    """``with disable_jit():``: jitted functions run op by op in Python (config
    ``jax_disable_jit``), so prints and breakpoints inside them see concrete values."""
    return config_context("jax_disable_jit", disable)


def named_scope(name):
    """``with named_scope("layer1"):``: operations traced inside carry ``name`` (nested scopes
    join with ``/``) in their source info, which the lowering writes into the location of each
    op of the StableHLO/HLO (``jit_f/layer1/dot_general``) so profiles and dumps show it."""
    return source_info.extend_name_stack(name)


def named_call(fun, *, name=None):
    """``fun`` run under ``named_scope(name or fun.__name__)`` each time it is called."""
    scope = name if name is not None else getattr(fun, "__name__", "named_call")

    @functools.wraps(fun)
    def named(*args, **kwargs):
        with named_scope(scope):
            return fun(*args, **kwargs)

    return named


def clear_caches():
    """Drops every compiled program minijax holds in memory (jit caches, the per-primitive eager
    cache), so the next call of each function traces and compiles again."""
    _compile.clear_caches()


def live_arrays(platform=None):
    """Every Array alive on the backend of ``platform`` (default: the default backend)."""
    return backends.get_backend(platform).client.live_arrays()


def effects_barrier():
    """Waits until every computation dispatched so far has finished, so the host callbacks
    (``debug.print``, ``pure_callback`` ...) they make have all run."""
    for arr in live_arrays():
        arr.block_until_ready()


class _Residuals:
    """What ``custom_gradient``'s backward pass needs: the gradient rule traced to a jaxpr
    (static) and the values it closes over (the residual arrays)."""

    def __init__(self, jaxpr, in_tree, out_tree, consts):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts


register_pytree_node(
    _Residuals,
    lambda r: (r.consts, (r.jaxpr, r.in_tree, r.out_tree)),
    lambda aux, consts: _Residuals(*aux[:3], list(consts)),
)


def custom_gradient(fun):
    """``fun(*args) -> (out, vjp)``, where ``vjp(ct_out)`` returns the cotangents of ``args``,
    becomes a function returning ``out`` whose VJP is ``vjp`` (as ``jax.custom_gradient``)."""

    @custom_vjp
    def wrapped(*args, **kwargs):
        return fun(*args, **kwargs)[0]

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        ans_leaves, out_tree = _registry.flatten((ans,))
        in_tree_box = []

        def flat_rule(*cts):
            cts_in = rule(*out_tree.unflatten(cts))
            leaves, in_tree = _registry.flatten(cts_in)
            in_tree_box.append(in_tree)
            return leaves

        ct_avals = [ad.tangent_aval(core.get_aval(x)) for x in ans_leaves]
        closed = trace_to_jaxpr(flat_rule, ct_avals)
        return ans, _Residuals(closed.jaxpr, in_tree_box[0], out_tree, list(closed.consts))

    def bwd(res, cts):
        cts_leaves, out_tree = _registry.flatten((cts,))
        if out_tree != res.out_tree:
            raise TypeError(f"{res.out_tree}\n!=\n{out_tree}")
        cts_out = res.in_tree.unflatten(core.eval_jaxpr(res.jaxpr, res.consts, *cts_leaves))
        return (cts_out,) if res.in_tree.num_nodes == 1 else cts_out

    wrapped.defvjp(fwd, bwd)
    return wrapped


