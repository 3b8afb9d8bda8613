"""The user-facing transformations and device helpers (``minijax.jit``, ``make_jaxpr`` ...)."""

from __future__ import annotations

import numpy as np

from minijax import core
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
from minijax.core import ShapedArray, Tracer
from minijax.custom_derivatives import custom_jvp, custom_vjp
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.jitting import jit
from minijax.lowering import backends
from minijax.lowering.array import Array, device_put_value
from minijax.rematerialization import checkpoint, checkpoint_policies, remat
from minijax.tree_util import _registry, tree_map
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
]


class ShapeDtypeStruct:
    """A shape and dtype standing in for an array (for ``eval_shape``, ``make_jaxpr``,
    ``lower``)."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, weak_type=False, sharding=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type
        self.sharding = sharding

    @property
    def aval(self):
        from minijax.dtypes import canonicalize_dtype

        return ShapedArray(self.shape, canonicalize_dtype(self.dtype), self.weak_type)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))

    def __repr__(self):
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


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
    """The output shapes/dtypes of ``fun(*args)`` as ShapeDtypeStructs, without running it."""
    closed, shapes = make_jaxpr(lambda *a, **k: fun(*a, **k), return_shape=True)(*args, **kwargs)
    # A jit with out_shardings: as in JAX, the structs say where the outputs will be.
    out_shardings = getattr(getattr(fun, "_jit", fun), "_out_shardings", None)
    if out_shardings is not None:
        from minijax import sharding as shd

        per_leaf = shd.broadcast_prefix(out_shardings, shapes, "jit out_shardings")
        leaves, tree = _registry.flatten(shapes)
        shapes = tree.unflatten([
            ShapeDtypeStruct(x.shape, x.dtype, x.weak_type,
                             None if g is None else shd.resolve(g, "jit out_shardings"))
            for x, g in zip(leaves, per_leaf)])
    return shapes


def _put_leaf(x, device):
    if isinstance(x, Tracer):
        return x  # inside a transformation device_put is the identity (placement is XLA's)
    if type(x) is Array:
        if device is None or x.devices() == {device}:
            return x
        return device_put_value(x._value, device, weak_type=x.weak_type)
    return device_put_value(x, device)


def device_put(x, device=None):
    """Puts every leaf of ``x`` on ``device`` as an Array: a device (default: the default
    device), a ``minijax.sharding`` Sharding (each device gets its slice), a PartitionSpec
    under ``with mesh:``, or a pytree prefix of these matching ``x``."""
    if device is None or hasattr(device, "platform"):
        return tree_map(lambda leaf: _put_leaf(leaf, device), x)
    from minijax import sharding as shd
    from minijax.jitting import _arg_paths

    per_leaf = shd.broadcast_prefix(device, x, "device_put")
    leaves, tree = _registry.flatten(x)
    paths = [p[len("args[0]"):] for p in _arg_paths((x,), {})]
    out = []
    for leaf, s, path in zip(leaves, per_leaf, paths):
        what = f"device_put of x{path}"
        if s is None or hasattr(s, "platform"):
            out.append(_put_leaf(leaf, s))
            continue
        s = shd.resolve(s, what)
        if isinstance(leaf, Tracer):  # under a transformation: a sharding constraint
            out.append(shd.with_sharding_constraint(leaf, s)
                       if isinstance(s, shd.NamedSharding) else leaf)
            continue
        out.append(shd.put(leaf, s, what))
    return tree.unflatten(out)


def device_get(x):
    """Copies every Array leaf of ``x`` to a NumPy array."""
    return tree_map(lambda leaf: np.asarray(leaf) if isinstance(leaf, Array) else leaf, x)


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


