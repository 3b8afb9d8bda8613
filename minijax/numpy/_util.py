"""Shared helpers of ``minijax.numpy``: argument checks, dtype promotion, NumPy broadcasting.

jnp functions accept what NumPy accepts (arrays, tracers, NumPy values, Python scalars) and
hand lax operands of ONE dtype and ONE shape (or rank 0), because lax never promotes:

- ``promote_dtypes``: JAX's lattice with weak types (``minijax.dtypes.result_type``). A Python
  scalar that joins a weak result stays a weakly typed literal (``mul b 2.0:bf16[]``), so
  ``bf16_array * 2.0`` stays bfloat16 and ``int32_array + 1.5`` becomes float32.
- ``promote_shapes``: NumPy broadcasting with ``lax.broadcast_in_dim``; rank-0 operands are left
  alone, since every lax elementwise op broadcasts them itself (smaller jaxprs).
- ``promote_ranks``: for the binary ufuncs and ``promote_args*`` (JAX's ``promote_shapes``),
  only the ranks are made equal (leading size-1 axes); the lax op broadcasts the size-1 axes
  itself, or refuses same-rank shapes with its TypeError, as JAX's does. ``x / x.sum(-1,
  keepdims=True)`` then binds ``div f32[n,k] f32[n,1]``, and its derivative keeps the row
  sums, not an n-by-k copy of them, from the forward pass.

``lax`` is looked up at call time (``lax.add``), never bound at import, so this package imports
even while the lax families are being filled in.
"""

from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from minijax import core, dtypes, lax
from minijax.config import config
from minijax.core import Tracer, WeakScalar, get_aval
from minijax.interpreters.ad import JVPTracer
from minijax.lax.convert import _convert_element_type, _tangent_retyped
from minijax.lax.extended import extended_array_types, is_extended, on_planes, promotion_error
from minijax.lax import sharding_rules
from minijax.lax.families import const
from minijax.lowering.array import Array
from minijax.source_info import note_user_line

_SCALAR_TYPES = dtypes.python_scalar_types


def is_array(x):
    """An on-device or traced value (what lax ops return)."""
    return isinstance(x, (Tracer, Array))


def is_arraylike(x):
    return (
        is_array(x)
        or type(x) in _SCALAR_TYPES
        or isinstance(x, (np.ndarray, np.generic, WeakScalar))
    )


def check_arraylike(name, *args):
    """jnp functions refuse lists and tuples (JAX's rule: convert with ``jnp.array`` first), in
    JAX's words."""
    for i, x in enumerate(args):
        if not is_arraylike(x):
            if type(x) in extended_array_types:  # typed keys: JAX's words for ``name``
                raise x._refusal(name, args)
            if isinstance(x, (str, bytes)):
                # a NumPy scalar to JAX's check, refused when JAX converts it (lax.asarray)
                raise TypeError(f"asarray: expected ArrayLike, got {x} of type {type(x)}.")
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got {type(x)} at position {i}.")


def on_extended_arrays(fn, operands, join=None, on_keys=None, mix_error=promotion_error):
    """``fn`` accepting arrays of an extended dtype, as JAX's structural jnp functions (reshape,
    take, stack, where ...) do: ``lax.extended.on_planes`` runs it on each word plane (see
    there for ``operands`` and ``join``). Keys mixed with other operands are ``mix_error``
    (JAX's promotion ValueError by default), or ``fn``'s own refusal where it has a ``join``. A function that takes keys
    only in some uses (``pad``'s modes) or not plane by plane (``isin``) gives
    ``on_keys(fn, args, kwargs, refusal)`` to run instead. ``fn`` refuses such arrays itself (they
    are no arraylike), so they are looked for only once it has raised: the common path pays
    one call, nothing more."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if not any(is_extended(x) for x in (*args, *kwargs.values())):
                raise
            refusal = e
        if on_keys is not None:
            return on_keys(fn, args, kwargs, refusal)
        return on_planes(fn, operands, args, kwargs, join,
                         mix_error if join is None else lambda values: refusal)

    return wrapped


def ndim(x):
    return get_aval(x).ndim if not isinstance(x, np.ndarray) else x.ndim


def shape(x):
    return tuple(get_aval(x).shape) if not isinstance(x, np.ndarray) else x.shape


# ------------------------------------------------------------------------------------------------
# Dtypes


def convert(x, dtype, weak_type=False):
    """``x`` (any arraylike) as a lax operand of ``dtype``.

    Python scalars stay scalars (a weak ``WeakScalar`` or a strong 0-d NumPy value: both are
    inline literals in a jaxpr); NumPy arrays are converted on the host; arrays and tracers go
    through ``convert_element_type`` (a no-op when nothing changes).
    """
    dtype = dtypes.canonicalize_dtype(dtype)
    aval = getattr(x, "aval", None)
    if (aval is not None and aval.dtype == dtype and aval.weak_type == weak_type
            and not (type(x) is JVPTracer and _tangent_retyped(x))):
        return x  # the common case under tracing: nothing to convert
    if type(x) in (float, complex) and weak_type and dtypes.python_scalar_dtype(x) == dtype:
        return x  # already so: JAX stages it unrounded (``0.5772156649015329:f32[]``)
    if type(x) in _SCALAR_TYPES:
        return WeakScalar(x, dtype) if weak_type else dtypes.python_scalar_as(x, dtype)[()]
    if isinstance(x, WeakScalar):
        return WeakScalar(x.val, dtype) if weak_type else x.val.astype(dtype)[()]
    if isinstance(x, (np.ndarray, np.generic)) and not weak_type:
        return np.asarray(x).astype(dtype, copy=False)
    # a NumPy bool array beside a weak Python scalar becomes a weak array, as in JAX
    return _convert_element_type(x, dtype, weak_type=weak_type)


def _shared_dtype(args):
    """The dtype when every argument is an array/tracer of that one dtype and one weakness:
    promotion would change nothing (the common case when tracing a model), so skip it."""
    first = getattr(args[0], "aval", None)
    if first is None or (first.weak_type and first.dtype == dtypes.bool_):
        return None  # a weak bool (a comparison of weak values) promotes to a strong one
    for x in args[1:]:
        aval = getattr(x, "aval", None)
        if aval is None or aval.dtype != first.dtype or aval.weak_type != first.weak_type:
            return None
    for x in args:
        if type(x) is JVPTracer and _tangent_retyped(x):
            return None  # an eager tangent typed otherwise than its primal: converted (as JAX's)
    return first.dtype


def promote_dtypes(*args):
    """All arguments converted to their common (JAX-promoted) dtype."""
    if len(args) < 2:
        return [_as_operand(x) for x in args]
    if _shared_dtype(args) is not None:
        return list(args)
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [convert(x, dtype, weak) for x in args]


def to_inexact_dtype(dtype):
    """JAX's table: bool and integers of up to 32 bits become float32, 64-bit integers float64
    (float32 unless x64 is on), so ``jnp.sin`` of int32 is float32 even under x64."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return dtype
    wide = dtype.itemsize == 8
    return dtypes.canonicalize_dtype(np.float64) if wide else np.dtype(np.float32)


def to_numeric_dtype(dtype):
    """JAX's: bool becomes int32 even under x64 (``jnp.square`` of bools is int32)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.int32) if dtype == dtypes.bool_ else dtype


def promote_dtypes_inexact(*args):
    """Promotion, then integer/bool results become the default float (``true_divide``, ``sin``)."""
    shared = _shared_dtype(args)
    if shared is not None and dtypes.is_inexact(shared):
        return list(args)
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = to_inexact_dtype(dtype)
    return [convert(x, dtype, weak) for x in args]


def promote_dtypes_numeric(*args):
    """Promotion, then bool becomes int32 (``power``, ``square`` of bools)."""
    shared = _shared_dtype(args)
    if shared is not None and shared != dtypes.bool_:
        return list(args)
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = to_numeric_dtype(dtype)
    return [convert(x, dtype, weak) for x in args]


def _as_operand(x):
    """A single argument as a lax operand: scalars keep their (weak) Python dtype."""
    if type(x) in _SCALAR_TYPES:
        dtype, weak = dtypes.dtype_of(x)
        return convert(x, dtype, weak)
    if isinstance(x, (np.ndarray, np.generic)):
        return convert(x, dtypes.canonicalize_dtype(x.dtype))
    return x


# ------------------------------------------------------------------------------------------------
# Shapes


def broadcast_shapes(*shapes):
    """NumPy's broadcasting of shapes; ValueError (as JAX) when they do not broadcast."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for s in shapes:
        offset = ndim - len(s)
        for i, d in enumerate(s):
            r = result[offset + i]
            if d != r:
                if r == 1:
                    result[offset + i] = d
                elif d != 1:  # JAX's message; a note names the user's line
                    e = ValueError("Incompatible shapes for broadcasting: "
                                   f"shapes={[tuple(s) for s in shapes]}")
                    note_user_line(e)
                    raise e
    return tuple(result)


def broadcast_to_shape(x, shape, out_sharding=None):
    """``x`` broadcast to ``shape`` with one ``broadcast_in_dim`` (nothing if already there),
    typed with ``out_sharding`` if given (see ``broadcast_sharding``)."""
    shape = tuple(shape)
    x_shape = globals()["shape"](x)
    if x_shape == shape:
        return x
    if (out_sharding is None and isinstance(x, np.ndarray) and x.ndim
            and _host_broadcast_is_small(x, shape)):
        return np.broadcast_to(x, shape)  # a host array stays on the host (one constant)
    lead = len(shape) - len(x_shape)
    if lead < 0 or any(d != 1 and d != shape[lead + i] for i, d in enumerate(x_shape)):
        raise ValueError(f"Incompatible shapes for broadcasting: {x_shape} and requested {shape}")
    # Scalars (Python, WeakScalar) go in as they are: they become literals under jit. A size-1
    # operand axis may map onto a larger output axis (broadcast_in_dim's own rule).
    dims = tuple(range(lead, len(shape)))
    return lax.broadcast_in_dim(x, shape, dims, out_sharding=out_sharding)


def broadcast_sharding(*args):
    """The sharding type NumPy broadcasting gives operands split over Explicit mesh axes
    (JAX's ``lax.broadcast_shardings``), or None when none is split."""
    avals = [core.get_aval(a) for a in args]
    explicit = [a for a in avals if a.explicit is not None]
    if not explicit:
        return None
    ndim = max(a.ndim for a in avals)
    padded = [a.update(shape=(1,) * (ndim - a.ndim) + a.shape,
                       explicit=None if a.explicit is None else
                       (a.explicit[0], (None,) * (ndim - a.ndim) + a.explicit[1]))
              for a in avals]
    parts = sharding_rules.broadcasting("broadcast_shardings")(*padded)
    return core.typed_sharding(explicit[0].explicit[0], parts)


# A host array broadcast on the host becomes one constant of the broadcast size; under jit a
# large one is an extra program argument read from memory on every call (a (S, S) causal mask
# against (batch, heads, S, S) scores: 128 MiB). Beyond this size the broadcast is staged.
_HOST_BROADCAST_MAX_ELEMENTS = 1 << 12


def _host_broadcast_is_small(x, shape):
    return int(np.prod(shape)) <= max(x.size, _HOST_BROADCAST_MAX_ELEMENTS)


def check_rank_promotion(name, shapes, nonscalar):
    """jax_numpy_rank_promotion: 'warn' or 'raise' when broadcasting would give non-scalar
    operands of function ``name`` leading axes (scalars broadcast freely), as JAX."""
    mode = config.jax_numpy_rank_promotion
    if mode == "allow" or name is None or len({len(s) for s in nonscalar}) < 2:
        return
    shown = " ".join(map(str, shapes))
    if mode == "warn":
        warnings.warn(
            f"Following NumPy automatic rank promotion for {name} on shapes {shown}. Set the "
            "jax_numpy_rank_promotion config option to 'allow' to disable this warning; for more "
            "information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    else:
        raise ValueError(
            f"Operands could not be broadcast together for {name} on shapes {shown} and with "
            "the config option jax_numpy_rank_promotion='raise'. For more information, see "
            "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


def promote_ranks(*args, name=None):
    """NumPy broadcasting left to lax: non-scalar arguments get the common rank (leading
    size-1 axes) and lax's elementwise ops broadcast size-1 axes (ValueError, as JAX, when the
    shapes do not broadcast). ``name`` is the jnp function, for jax_numpy_rank_promotion."""
    shapes = [shape(x) for x in args]
    nonscalar = [s for s in shapes if s]
    if len({len(s) for s in nonscalar}) < 2:
        # one rank: the lax op broadcasts, or refuses with its TypeError, as JAX's
        # _promote_shapes leaves it
        return list(args)
    check_rank_promotion(name, shapes, nonscalar)
    rank = len(broadcast_shapes(*shapes))
    return [x if not s or len(s) == rank else broadcast_to_shape(x, (1,) * (rank - len(s)) + s)
            for x, s in zip(args, shapes)]


def promote_shapes(*args, name=None):
    """NumPy broadcasting: every non-scalar argument gets the common shape. ``name`` is the jnp
    function, for jax_numpy_rank_promotion."""
    shapes = [shape(x) for x in args]
    nonscalar = [s for s in shapes if s]
    if not nonscalar or all(s == nonscalar[0] for s in nonscalar):
        return list(args)
    check_rank_promotion(name, shapes, nonscalar)
    result = broadcast_shapes(*shapes)
    return [x if not s else broadcast_to_shape(x, result) for x, s in zip(args, shapes)]


def check_no_float0s(name, *args):
    """JAX's refusal of a float0 operand (a gradient taken with respect to an integer): a NumPy
    value (a gradient's TypedNdArray) or a tracer of one. Every jnp operation passes here, so
    it reads types, not ``get_aval``, for the common operands."""
    for x in args:
        if (type(x) in _NUMPY_ARRAYS and x.dtype == dtypes.float0) or (
                isinstance(x, Tracer) and x.aval.dtype == dtypes.float0):
            raise TypeError(
                f"Called {name} with a float0 array. float0s do not support any operations by "
                "design because they are not compatible with non-trivial vector spaces. No "
                "implicit dtype conversion is done. You can use np.zeros_like(arr, "
                "dtype=np.float) to cast a float0 array to a regular zeros array. \nIf you "
                "didn't expect to get a float0 you might have accidentally taken a gradient "
                "with respect to an integer argument.")


_NUMPY_ARRAYS = (np.ndarray, dtypes.TypedNdArray)


def promote_args(name, *args):
    check_arraylike(name, *args)
    check_no_float0s(name, *args)
    return promote_ranks(*promote_dtypes(*args), name=name)


def promote_args_inexact(name, *args):
    check_arraylike(name, *args)
    check_no_float0s(name, *args)
    return promote_ranks(*promote_dtypes_inexact(*args), name=name)


def promote_args_numeric(name, *args):
    check_arraylike(name, *args)
    check_no_float0s(name, *args)
    return promote_ranks(*promote_dtypes_numeric(*args), name=name)


def lax_const(example, val):
    """JAX's ``lax._const``: ``val`` in ``example``'s dtype, weak for a weak rank-0 ``example``
    (or a Python scalar), else a strong NumPy constant, so a weak array meeting it turns strong
    (``x != 0``, ``x * (pi / 180)`` ... on weak arrays are strong in JAX)."""
    dtype, weak = dtypes.dtype_of(example)
    if not (weak and np.ndim(example) == 0):
        return np.array(val, dtype)
    if dtype.kind in "fc":
        # a float or complex of the default precision stays a Python scalar, unrounded in a
        # jaxpr (``mul 3.141592653589793:f32[] x``), as JAX's
        val = complex(val) if dtype.kind == "c" else float(val)
        if dtypes.python_scalar_dtype(val) == dtype:
            return val
    return const(example, val)


# ------------------------------------------------------------------------------------------------
# Axes


def canonicalize_axis(axis, num_dims):
    """``axis`` as a non-negative int; a plain ValueError if out of range (JAX's, not NumPy's
    AxisError: a caller that meets JAX's IndexError first must raise it itself)."""
    axis = operator.index(axis)
    if not -num_dims <= axis < num_dims:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {num_dims}")
    return axis + num_dims if axis < 0 else axis


def index_tuple(x):
    """An int or a sequence of ints as a tuple of ints, as JAX reads ``axis`` (so a float is
    "'float' object is not iterable")."""
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def canonicalize_axes(axis, num_dims):
    """``None`` → every axis; an int or a sequence → a tuple of distinct non-negative axes."""
    if axis is None:
        return tuple(range(num_dims))
    axes = tuple(canonicalize_axis(a, num_dims) for a in index_tuple(axis))
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return axes


def concrete_value(x, what):
    """``x``'s value as a NumPy array, for functions whose output shape depends on it (a tracer
    here is an error naming ``what``)."""
    if isinstance(x, Tracer):
        raise x._concretization_error(what)
    return np.asarray(x)
