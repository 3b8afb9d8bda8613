"""NumPy's array creation routines: from existing data (``array``, ``asarray``, ``copy``,
``astype``, ``fromfunction`` ...), filled arrays (``zeros``/``ones``/``full``/``empty`` and their
``*_like`` forms), numerical ranges (``arange``, ``linspace``, ``logspace``, ``geomspace``,
``meshgrid``) and building matrices (``eye``, ``identity``, ``diag``, ``diagflat``, ``tri``,
``tril``, ``triu``, ``vander``).

Dtype rules are JAX's: 64-bit inputs are canonicalized (float64 → float32 with x64 off); a
Python scalar stays weakly typed (``jnp.array(1.0)`` is ``Array(1., dtype=float32,
weak_type=True)``, so ``asarray`` of a weak value is a no-op); a list takes the promoted dtype of
its elements and is strongly typed; ``arange`` of Python ints is int32, of floats float32.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

import minijax.numpy as jnp
from minijax import core, dtypes, lax
from minijax.core import ShapedArray, Tracer, WeakScalar, concrete_or_error
from minijax.interpreters.partial_eval import staged_literal
from minijax.lax import convert as lax_convert
from minijax.lax.copy import copy_p
from minijax.lax.families import const
from minijax.lax.sharding_constraint import explicit_out_sharding
from minijax.lowering.array import Array, device_copy, device_put_value, put_like
from minijax.numpy._eager import eager_jit
from minijax.sharding import device_put
from minijax.sharding_types import (
    AbstractMesh, NamedSharding, PartitionSpec, Sharding, current_mesh)
from minijax.tree_util import tree_map_internal
from minijax.numpy._util import (
    canonicalize_axis,
    check_arraylike,
    concrete_value,
    convert,
    is_array,
    is_arraylike,
    shape,
    to_inexact_dtype,
)

__all__ = [
    "array", "asarray", "copy", "zeros", "ones", "full", "empty", "zeros_like", "ones_like",
    "full_like", "empty_like", "arange", "linspace", "eye", "identity", "tri", "tril", "triu",
    "logspace", "geomspace", "meshgrid", "vander", "diag", "diagflat", "fromfunction",
    "asarray_chkfinite", "ascontiguousarray", "asanyarray", "astype",
]

_SCALARS = dtypes.python_scalar_types


def _canonical_shape(shape_):
    if isinstance(shape_, (int, np.integer)) or hasattr(shape_, "__index__"):
        shape_ = (shape_,)
    try:
        dims = tuple(operator.index(d) for d in shape_)
    except TypeError:
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {shape_!r}."
        ) from None
    if any(d < 0 for d in dims):
        raise ValueError(f"negative dimensions are not allowed, got shape {dims}")
    return dims


def _leaves(obj):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _leaves(o)
    else:
        yield obj


def array(object, dtype=None, copy=True, order="K", ndmin=0, *, device=None):  # noqa: A002
    """An Array from an array, a scalar or (nested) lists of them. Never aliases its input's
    host memory (Arrays are immutable), so ``copy`` only matters for API compatibility."""
    out = _array(object, dtype, copy, order, ndmin, "array")
    if device is None and type(out) is Array and not is_array(object):
        mesh = current_mesh()  # host data; an Array keeps its place
        if mesh is not None and not mesh.empty:  # as JAX's, whole on set_mesh's devices
            device = NamedSharding(mesh, PartitionSpec())
    return _place(out, device)


def _array(object, dtype, copy, order, ndmin, name):  # noqa: A002 - NumPy's name
    if order is not None and order != "K":  # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Only implemented for order='K'")
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, name)
    if hasattr(object, "__jax_array__"):  # a value standing for an array (flax's Variable)
        object = object.__jax_array__()
    if isinstance(getattr(object, "dtype", None), dtypes.ExtendedDType):
        # a typed key array: the same keys over a copy of their data, as JAX's jnp.array
        if dtype is not None and dtype != object.dtype:
            raise ValueError(f"Cannot convert_element_type from {object.dtype} to {dtype}")
        out = tree_map_internal(lambda data: array(data), object) if copy else object
    elif isinstance(object, (list, tuple)):
        try:
            out = _array_from_sequence(object, dtype)
        except TypeError:
            if not _holds_keys(object):
                raise
            # typed keys among the elements: stacked as JAX's (jnp.stack on their planes;
            # other values with them are its promotion ValueError), then made an array of keys
            return _array(_stack_nested(object), dtype, False, order, ndmin, name)
    elif is_array(object):
        weak = dtype is None and object.aval.weak_type
        if copy and isinstance(object, Tracer):
            object = copy_p.bind(object)  # JAX's _array_copy: a copy equation in the jaxpr
        out = convert(object, object.aval.dtype if dtype is None else dtype, weak)
        if copy and out is object and isinstance(out, Array):
            out = device_copy(out)  # a new buffer: donating ``object`` must not delete it
    elif type(object) in _SCALARS or isinstance(object, WeakScalar):
        value_dtype, weak = dtypes.dtype_of(object)
        weak = weak and dtype is None
        target = np.dtype(dtype or value_dtype)
        if dtype is not None and type(object) in _SCALARS:
            # JAX's coerce_to_array: NumPy converts the Python scalar itself, raising for one
            # out of the target's range (-1 or -1.0 to uint32, NaN or a complex to an int)
            np.asarray(object, target)
        elif type(object) is int and target.kind in "iu":  # NumPy would wrap around silently
            info = np.iinfo(target)
            if not info.min <= object <= info.max:
                raise OverflowError(f"Python int {object} too large to convert to {target.name}")
        value = np.asarray(np.asarray(object), target)
        # a bool kept as a bool is one in the literal too, as JAX's (a checkpoint returning it
        # gives back a bool)
        out = _scalar(object if type(object) is bool and target == dtypes.bool_ else value,
                      target, weak)
    else:
        value = np.asarray(object)
        if value.dtype == object_dtype:
            raise TypeError(f"minijax.numpy.array cannot convert {type(object).__name__}")
        value = value.astype(dtype or dtypes.canonicalize_dtype(value.dtype), copy=False)
        out = _scalar(value, value.dtype, False) if value.ndim == 0 else device_put_value(value)
    if ndmin > out.ndim:
        out = lax.expand_dims(out, tuple(range(ndmin - out.ndim)))
    return out


object_dtype = np.dtype(object)


def _scalar(value, dtype, weak):
    """A scalar ``value`` (rank-0 NumPy of ``dtype``, or a bool) as an Array, or, inside a
    jaxpr being built, as the literal JAX's ``jnp.array`` stages there (not a constvar)."""
    if not core.is_eval_trace_current():
        out = staged_literal(value, ShapedArray((), dtype, weak_type=weak))
        if out is not None:
            return out
    return device_put_value(value, weak_type=weak)


def _holds_keys(seq):
    return any(isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType)
               or (isinstance(x, (list, tuple)) and _holds_keys(x)) for x in seq)


def _stack_nested(seq):
    return jnp.stack([_stack_nested(x) if isinstance(x, (list, tuple)) else x for x in seq])


def _array_from_sequence(seq, dtype):
    leaves = list(_leaves(seq))
    for leaf in leaves:
        if isinstance(leaf, (list, tuple)):
            continue
        check_arraylike("array", leaf)
    if dtype is None:
        dtype = dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype()
    if any(isinstance(leaf, Tracer) for leaf in leaves):
        # Traced elements: joined with lax ops (NumPy cannot see inside a tracer), in JAX's form
        # (its jaxpr): each given a leading axis, concatenated in a tree of at most 16 (wide
        # concatenations compile slowly)
        parts = [lax.expand_dims(array(x, dtype, copy=False), (0,)) for x in seq]
        while len(parts) > 16:
            parts = [lax.concatenate(parts[i:i + 16], 0) for i in range(0, len(parts), 16)]
        return lax.concatenate(parts, 0)
    value = np.array(_host_tree(seq), dtype=dtype)
    out = device_put_value(value)
    # as in JAX, the result lies where a committed one-device element lies, committed
    for leaf in leaves:
        if type(leaf) is Array and leaf._committed and len(leaf.devices()) == 1:
            return put_like(out, leaf)
    return out


def _host_tree(obj):
    if isinstance(obj, (list, tuple)):
        return [_host_tree(o) for o in obj]
    if isinstance(obj, WeakScalar):
        return obj.val
    return np.asarray(obj) if isinstance(obj, Array) else obj


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    """``a`` as an Array (a no-op for an Array or tracer of that dtype)."""
    if order is not None and order != "K":  # JAX 0.10.2 refuses it for every input
        raise NotImplementedError("Only implemented for order='K'")
    # a named dtype makes the result strong even where it matches (JAX: weak_type only when
    # dtype is None), so a weak ``a`` goes through ``array``'s conversion
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "asarray")
    if is_array(a) and (dtype is None or (dtype == a.aval.dtype and not a.aval.weak_type)):
        return _place(a, device)
    return array(a, dtype=dtype, copy=False, order=order or "K", device=device)


def to_array(x):
    """Any arraylike as an Array or Tracer (scalars and NumPy values are put on the device)."""
    return x if is_array(x) else asarray(x)


def copy(a, order=None):
    return array(a, copy=True, order=order or "K")


# ------------------------------------------------------------------------------------------------
# Filled arrays


def _place(out, device, out_sharding=None):
    """``out`` on ``device`` (a Device or a Sharding) or ``out_sharding``, as JAX's
    ``device=``/``out_sharding=`` arguments put it (over Explicit mesh axes, its type)."""
    if device is not None and out_sharding is not None:
        raise ValueError("Only one of `device` or `out_sharding` can be set. Got "
                         f"device={device} and out_sharding={out_sharding}")
    if out_sharding is not None:
        explicit_out_sharding(out_sharding)  # JAX's refusal of a bare P outside a mesh
        device = out_sharding
    return out if device is None else device_put(out, device)


def _default_dtype(dtype, name):
    """The dtype a creation function ``name`` makes: float by default, else the one asked for
    (with JAX's warning where x64 is off and it is 64-bit)."""
    return dtypes.default_float_dtype() if dtype is None else dtypes.check_user_dtype(dtype, name)


def _filled(shape, fill_value, dtype, device, out_sharding):
    """``lax.full``, typed with ``out_sharding`` over Explicit mesh axes (JAX's
    ``broadcast_in_dim`` with a sharding), else placed."""
    typed = explicit_out_sharding(out_sharding) if device is None else None
    if typed is not None:
        return lax.full(_canonical_shape(shape), fill_value, dtype, sharding=typed)
    return _place(lax.full(_canonical_shape(shape), fill_value, dtype), device, out_sharding)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    return _filled(shape, 0, _default_dtype(dtype, "zeros"), device, out_sharding)


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    return _filled(shape, 1, _default_dtype(dtype, "ones"), device, out_sharding)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """Zeros: XLA has no uninitialized memory to hand out, and JAX does the same."""
    dtype = _default_dtype(dtype, "empty")
    return zeros(shape, dtype, device=device, out_sharding=out_sharding)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """``fill_value`` (a scalar, or an array broadcast to ``shape``) everywhere."""
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "full")
    if np.ndim(fill_value) == 0 and not is_array(fill_value):
        return _filled(shape, fill_value, dtype, device, out_sharding)
    return _place(_full(shape, fill_value, dtype), device, out_sharding)


def _full(shape, fill_value, dtype):
    check_arraylike("full", fill_value)
    shape_ = _canonical_shape(shape)
    if _ndim(fill_value) == 0:
        if is_array(fill_value):
            fill_value = convert(fill_value, dtype or fill_value.aval.dtype,
                                 dtype is None and fill_value.aval.weak_type)
            return lax.broadcast_in_dim(fill_value, shape_, ())
        return lax.full(shape_, fill_value, dtype)
    return jnp.broadcast_to(asarray(fill_value, dtype=dtype), shape_)


def _like(name, a, fill_value, dtype, shape_, device, out_sharding):
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, name)
    if _is_shape_dtype(a):  # a ShapeDtypeStruct, an aval or a duck-typed array (flax's)
        if device is None and out_sharding is None:
            device = _sharding_to_follow(a, shape_)
        return full(a.shape if shape_ is None else shape_, fill_value,
                    a.dtype if dtype is None else dtype, device=device,
                    out_sharding=out_sharding)
    check_arraylike(name, a)
    if shape_ is not None:
        shape_ = _canonical_shape(shape_)
    typed = explicit_out_sharding(out_sharding) if device is None else None
    out = lax.full_like(asarray(a), fill_value, dtype, shape_, sharding=typed)
    # on device or out_sharding when given, else where lax.full_like put it (JAX's rule: where
    # a concrete prototype lies)
    return _place(out, device, None if typed is not None else out_sharding)


def _sharding_to_follow(a, shape):
    """JAX's lax.full_like rule for a prototype that is no Array: its ``sharding`` (a
    concrete one) when it is committed (by default), not weak, and the shape is kept."""
    s = getattr(a, "sharding", None)
    if (not isinstance(s, Sharding) or isinstance(getattr(s, "mesh", None), AbstractMesh)
            or not getattr(a, "_committed", True) or getattr(a, "weak_type", False)
            or (shape is not None and _canonical_shape(shape) != tuple(a.shape))):
        return None
    return s


def _is_shape_dtype(a):
    return not is_arraylike(a) and hasattr(a, "shape") and hasattr(a, "dtype")


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return _like("zeros_like", a, 0, dtype, shape, device, out_sharding)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return _like("ones_like", a, 1, dtype, shape, device, out_sharding)


def empty_like(prototype, dtype=None, shape=None, *, device=None, out_sharding=None):
    # JAX 0.10.2's empty_like is its ones_like's code: its dtype warning says "ones_like"
    return _like("ones_like", prototype, 0, dtype, shape, device, out_sharding)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "full_like")
    typed = _is_shape_dtype(a)
    check_arraylike("full_like", *(() if typed else (a,)), fill_value)
    if _ndim(fill_value):
        out_shape = (_canonical_shape(shape) if shape is not None
                     else tuple(a.shape) if typed else _shape_of(a))
        out_dtype = dtype if dtype is not None else a.dtype if typed else dtypes.dtype_of(a)[0]
        # as JAX's: not where the prototype lies
        return _place(jnp.broadcast_to(asarray(fill_value, dtype=out_dtype), out_shape), device,
                      out_sharding)
    return _like("full_like", a, fill_value, dtype, shape, device, out_sharding)


def _ndim(x):
    return x.ndim if is_array(x) else np.ndim(x)


def _shape_of(a):
    return shape(a) if not isinstance(a, np.ndarray) else a.shape


# ------------------------------------------------------------------------------------------------
# Ranges


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Evenly spaced values in ``[start, stop)``; all arguments must be concrete (static).
    JAX's arithmetic, not NumPy's: ``start + step * iota`` with start and step first cast to the
    result dtype (floats narrower than 32 bits work in float32), so the values, e.g. of
    ``arange(2.5, 9, 1.5, dtype=int32)`` (``[2, 3, 4, 5, 6]``), are JAX's, and under a trace
    the range is computed in the program, not a constant."""
    start_name = "stop" if stop is None and step is None else "start"
    for name, v in ((start_name, start), ("stop", stop), ("step", step)):
        concrete_or_error(lambda x: x, v, f"jnp.arange (its {name} argument must be static)")
    given = [_concrete_scalar(x) for x in (start, stop, step) if x is not None]
    for name, v in zip((start_name, "stop", "step"), (start, stop, step)):
        if v is not None and np.ndim(v) != 0:
            raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={v}")
    dtype = (dtypes.canonicalize_dtype(dtypes.result_type(*given)) if dtype is None
             else dtypes.check_user_dtype(dtype, "arange"))
    if any(np.iscomplexobj(x) for x in given):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer supported"
                         " starting in JAX v0.10.0.")
    if stop is None:
        start, stop = 0, given[0]
    else:
        start, stop = given[0], given[1]
    if step is not None:
        step = given[2]
        work = (np.dtype(np.float32) if dtypes.is_float(dtype) and np.dtype(dtype).itemsize < 4
                else dtype)
        size = max(0, int(np.ceil((stop - start) / step)))
        out = lax.convert_element_type(
            lax.add(lax.convert_element_type(start, work),
                    lax.mul(lax.convert_element_type(step, work), lax.iota(work, size))), dtype)
    elif start == 0:
        typed = explicit_out_sharding(out_sharding) if device is None else None
        if typed is not None:  # JAX's iota with the sharding
            return lax.broadcasted_iota(dtype, (max(0, int(np.ceil(stop))),), 0,
                                        out_sharding=typed)
        out = lax.iota(dtype, max(0, int(np.ceil(stop))))
    else:
        out = lax.add(lax.convert_element_type(start, dtype),
                      lax.iota(dtype, max(0, int(np.ceil(stop - start)))))
    return _place(out, device, out_sharding)


def _concrete_scalar(x):
    """A concrete Array argument as its NumPy value (its dtype kept for the result type)."""
    return np.asarray(x) if isinstance(x, Array) else x


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (arrays allowed: the samples
    run along ``axis``). Computed as ``start * (1 - t) + stop * t`` (JAX's formula, exact at
    both ends): the jit ``_linspace``, as JAX's."""
    num = concrete_or_error(operator.index, num, "'num' argument of jnp.linspace")
    axis = concrete_or_error(operator.index, axis, "'axis' argument of jnp.linspace")
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "linspace")
    out = _linspace(start, stop, num, endpoint, retstep, dtype, axis)
    if device is None:
        return out
    return (_place(out[0], device), out[1]) if retstep else _place(out, device)


@eager_jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"), inline=False)
def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    check_arraylike("linspace", start, stop)
    if dtype is None:
        dtype = to_inexact_dtype(dtypes.result_type(start, stop))
    dtype = dtypes.canonicalize_dtype(dtype)
    compute = to_inexact_dtype(dtype)
    start = asarray(start, dtype=compute)
    stop = asarray(stop, dtype=compute)
    # JAX's sequence of equations: the bounds broadcast to one shape, then reshaped with the
    # sample axis inserted; the step (``delta``) is computed, and staged, whether or not
    # ``retstep`` asks for it
    bounds_shape = list(np.broadcast_shapes(start.shape, stop.shape))
    broadcast_start = jnp.broadcast_to(start, bounds_shape)
    broadcast_stop = jnp.broadcast_to(stop, bounds_shape)
    axis = canonicalize_axis(axis, len(bounds_shape) + 1)
    bounds_shape.insert(axis, 1)
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = convert(stop - start, compute) / asarray(div, dtype=compute)
        iota_shape = [1] * len(bounds_shape)
        iota_shape[axis] = div
        real_dtype = np.finfo(compute).dtype if dtypes.is_complex(compute) else compute
        step = lax.iota(real_dtype, div).reshape(iota_shape) / asarray(div, dtype=real_dtype)
        step = step.astype(compute)
        out = (broadcast_start.reshape(bounds_shape) * (1 - step)
               + broadcast_stop.reshape(bounds_shape) * step)
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(broadcast_stop, (axis,))], axis)
    elif num == 1:
        delta = asarray(np.nan if endpoint else stop - start, dtype=compute)
        out = broadcast_start.reshape(bounds_shape)
    else:  # no samples: no step either (a NaN of the computation dtype, as JAX's)
        delta = lax.full((), np.nan, compute)
        bounds_shape[axis] = 0
        out = lax.full(bounds_shape, 0, dtype)
    if dtypes.is_int(dtype) and not dtypes.is_int(out.dtype):
        out = lax.floor(out)
    out = convert(out, dtype)
    return (out, delta) if retstep else out


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """Ones on the ``k``-th diagonal of an ``N x M`` matrix, built from iotas (no constant)."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    k = operator.index(k)
    if N < 0 or M < 0:
        raise ValueError(f"negative dimensions are not allowed, got ({N}, {M})")
    dtype = _default_dtype(dtype, "eye")
    rows = lax.broadcasted_iota(dtypes.int32, (N, M), 0)
    cols = lax.broadcasted_iota(dtypes.int32, (N, M), 1)
    return _place(convert(lax.eq(lax.add(rows, const(rows, k)), cols), dtype), device)


def identity(n, dtype=None):
    return eye(n, dtype=None if dtype is None else dtypes.check_user_dtype(dtype, "identity"))


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k``-th diagonal."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    # JAX's order of equations: the row iota plus k, then the column iota
    rows = lax.add(lax.broadcasted_iota(dtypes.int32, (N, M), 0),
                   np.int32(operator.index(k)))
    cols = lax.broadcasted_iota(dtypes.int32, (N, M), 1)
    return convert(lax.ge(rows, cols), _default_dtype(dtype, "tri"))


def _tri_mask(m, k, lower):
    a = asarray(m)
    if a.ndim < 2:
        raise ValueError(f"Argument to jax.numpy.{'tril' if lower else 'triu'} must be at "
                         "least 2D")
    n_rows, n_cols = a.shape[-2:]
    # split as ``a`` over Explicit mesh axes (JAX's out_sharding here): select wants that
    split = a.aval.sharding if a.aval.explicit is not None else None
    mask = lax.broadcast(tri(n_rows, n_cols, k if lower else k - 1, dtype=dtypes.bool_),
                         a.shape[:-2], out_sharding=split)
    zeros = lax.full_like(a, 0)
    # triu keeps what tri(k - 1) leaves out: the select's operands swap, as JAX's
    return lax.select(mask, a, zeros) if lower else lax.select(mask, zeros, a)


@eager_jit(static_argnames=("k",), inline=False)
def tril(m, k=0):
    return _tri_mask(m, operator.index(k), True)


@eager_jit(static_argnames=("k",), inline=False)
def triu(m, k=0):
    return _tri_mask(m, operator.index(k), False)


# ------------------------------------------------------------------------------------------------
# Building matrices and grids, more ranges, conversions from existing data


def diag(v, k=0):
    check_arraylike("diag", v)
    return _diag(to_array(v), operator.index(k))


@eager_jit(static_argnames=("k",), inline=False)
def _diag(v, k):
    if v.ndim == 1:  # JAX's: the padded vector broadcast along rows, masked to the diagonal
        zero = lax.full_like(v, 0, shape=())
        n = v.shape[0] + abs(k)
        v = lax.pad(v, zero, ((max(0, -k), max(0, k), 0),))
        return jnp.where(eye(n, k=k, dtype=bool), v[:, None], zero)
    if v.ndim == 2:
        return jnp.diagonal(v, k)
    raise ValueError("diag input must be 1d or 2d")


def diagflat(v, k=0):
    """A scatter of the flattened ``v`` into zeros (JAX's: no jit, unlike ``diag``)."""
    check_arraylike("diagflat", v)
    v = jnp.ravel(to_array(v))
    k = operator.index(k)
    n = v.shape[0] + abs(k)
    res = zeros(n * n, v.dtype)  # first, as JAX's
    i = jnp.arange(0, n - abs(k))
    flat_index = i + k + i * n if k >= 0 else i + (i - k) * n
    return res.at[flat_index].set(v).reshape(n, n)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    xi = [jnp.ravel(to_array(x)) for x in xi]
    n = len(xi)
    shapes = [x.shape[0] for x in xi]
    if indexing == "xy" and n >= 2:
        shapes[0], shapes[1] = shapes[1], shapes[0]
    out = []
    for i, x in enumerate(xi):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        shape = [1] * n
        shape[pos] = x.shape[0]
        r = jnp.reshape(x, tuple(shape))
        out.append(r if sparse else jnp.broadcast_to(r, tuple(shapes)))
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    num = concrete_or_error(operator.index, num, "'num' argument of jnp.logspace")
    axis = concrete_or_error(operator.index, axis, "'axis' argument of jnp.logspace")
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "logspace")
    return _logspace(start, stop, num, endpoint, base, dtype, axis)


@eager_jit(static_argnames=("num", "endpoint", "dtype", "axis"), inline=False)
def _logspace(start, stop, num, endpoint, base, dtype, axis):
    """JAX's: the range in the result's inexact dtype (float16 stays float16), then ``base **``."""
    dtype, compute = _space_dtypes("logspace", start, stop, dtype)
    start, stop = asarray(start).astype(compute), asarray(stop).astype(compute)
    y = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    return lax.convert_element_type(jnp.power(base, y), dtype)


def _space_dtypes(name, start, stop, dtype):
    """The result dtype of logspace/geomspace and the inexact one they compute in."""
    check_arraylike(name, start, stop)
    dtype = (to_inexact_dtype(dtypes.result_type(start, stop)) if dtype is None
             else dtypes.canonicalize_dtype(dtype))
    return dtype, to_inexact_dtype(dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    num = concrete_or_error(operator.index, num, "'num' argument of jnp.geomspace")
    axis = concrete_or_error(operator.index, axis, "'axis' argument of jnp.geomspace")
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "geomspace")
    return _geomspace(start, stop, num, endpoint, dtype, axis)


@eager_jit(static_argnames=("num", "endpoint", "dtype", "axis"), inline=False)
def _geomspace(start, stop, num, endpoint, dtype, axis):
    """JAX's: ``sign * logspace`` of the magnitudes' log10 along axis 0, moved to ``axis``
    (its end points are not forced to ``start``/``stop`` as NumPy's are)."""
    dtype, compute = _space_dtypes("geomspace", start, stop, dtype)
    start, stop = asarray(start).astype(compute), asarray(stop).astype(compute)
    sign = jnp.sign(start)
    out = sign * logspace(jnp.log10(start / sign), jnp.log10(stop / sign), num,
                          endpoint=endpoint, base=10.0, dtype=compute, axis=0)
    return lax.convert_element_type(jnp.moveaxis(out, 0, canonicalize_axis(axis, out.ndim)),
                                    dtype)


@eager_jit(static_argnames=("N", "increasing"), inline=False)
def vander(x, N=None, increasing=False):
    x = to_array(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    cols = [ones_like(x) if p == 0 else x ** int(p) for p in powers]
    return jnp.stack(cols, axis=1) if cols else zeros((x.shape[0], 0), x.dtype)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    shape = tuple(operator.index(d) for d in shape)
    dt = dtypes.check_user_dtype(dtype, "arange")  # JAX's fromfunction calls arange
    coords = [lax.broadcasted_iota(dt, shape, i) for i in range(len(shape))]
    return function(*coords, **kwargs)


def asarray_chkfinite(a, dtype=None, order=None):
    a = asarray(a, dtype=dtype)
    h = concrete_value(a, "jnp.asarray_chkfinite")
    if h.dtype.kind in "fc" and not np.isfinite(h).all():
        raise ValueError("array must not contain infs or NaNs")
    return a


def ascontiguousarray(a, dtype=None):
    return asarray(a, dtype=dtype)


def asanyarray(a, dtype=None, order=None):
    return asarray(a, dtype=dtype)


def astype(x, dtype, /, *, copy=False, device=None):
    """``x`` converted to ``dtype`` (canonicalized: float64 is float32 unless x64 is on; None is
    the default float dtype). As JAX's: complex to bool is ``x != 0`` (a conversion keeps the
    real part only), complex to real or integer warns that it will soon raise."""
    check_arraylike("astype", x)
    x = to_array(x)
    dtype = (dtypes.default_float_dtype() if dtype is None
             else dtypes.check_user_dtype(dtype, "astype"))
    if x.dtype.kind == "c":
        if dtype == np.bool_:
            x = lax.ne(x, const(x, 0))
        elif dtype.kind != "c":
            warnings.warn(
                "Casting from complex to real dtypes will soon raise a ValueError. Please first "
                "use jnp.real or jnp.imag to take the real/imaginary component of your input.",
                DeprecationWarning, stacklevel=2)
    return _place(to_array(lax_convert._convert_element_type(
        x, dtype, warn_on_complex_to_real_cast=False)), device)
