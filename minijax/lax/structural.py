"""Structural primitives: ops that move, copy or select elements without computing new values.

``broadcast_in_dim``, ``tile``, ``reshape``, ``squeeze``, ``transpose``, ``rev``, ``pad``,
``concatenate``, ``slice``, ``split`` and ``iota``, each with its rules beside it (except the
transposes of ``broadcast_in_dim``, ``tile`` and ``pad``, which are sums and sit in ``reductions.py``),
plus JAX's wrappers built from them (``broadcast``, ``expand_dims``, ``slice_in_dim``,
``full``, ``full_like`` ...). The dynamic slices, indexed by operands, are in ``indexing.py``.

Semantics follow ``jax.lax`` (names, params, signatures, which wrapper is sugar for which
primitive); the notable points:

- Static params (shapes, dims, padding) are tuples of Python ints, so they hash (the eager
  cache keys on them) and print as JAX prints them. Wrappers convert NumPy ints; a traced
  value where a static int is needed raises ``ConcretizationTypeError``.
- ``reshape`` takes no ``-1`` (that is ``jnp.reshape``'s convenience); its ``dimensions``
  param, when given, is a transpose applied first.
- ``pad`` accepts negative low/high padding (StableHLO crops), interior padding must be >= 0.
- ``full`` is ``broadcast_in_dim`` of a converted scalar, which stages as a literal.
- Wrappers that would be identities on an array (reshape to the same shape, identity
  transpose ...) return the operand unchanged and add no equation, as JAX's do.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray, Tracer, WeakScalar, concrete_or_error, get_aval
from minijax.errors import JAXTypeError
from minijax.interpreters import ad, batching, lax_ops
from minijax.interpreters.batching import not_mapped, to_val_axis
from minijax.interpreters.partial_eval import staged_literal
from minijax.lax.convert import _convert_element_type
from minijax.lax.elementwise import select_n
from minijax.lax.extended import extended_array_types, lax_mix_error, on_planes
from minijax.lax.families import check_same_dtypes, coerce_scalars, const
from minijax.lowering.array import Array, device_put_value, put_like
from minijax.lowering.stablehlo import dense_i64, ir_constant, tensor_type
from minijax.source_info import with_user_line
from minijax.lax import sharding_rules
from minijax.lax.sharding_constraint import explicit_out_sharding, reshard
from minijax.sharding_types import AbstractMesh, NamedSharding, Sharding, put

# fmt: off
__all__ = [
    "broadcast_in_dim", "broadcast", "broadcast_to_rank", "reshape", "squeeze", "expand_dims",
    "transpose", "rev", "pad", "concatenate", "slice", "slice_in_dim", "index_in_dim", "split",
    "iota", "broadcasted_iota", "full", "full_like", "zeros_like_array", "tile",
    "broadcast_in_dim_p", "reshape_p", "squeeze_p", "transpose_p", "rev_p", "pad_p",
    "concatenate_p", "slice_p", "split_p", "iota_p", "tile_p",
]
# fmt: on

# ------------------------------------------------------------------------------------------------
# Helpers: static params and error text


def _is_array(x):
    """A minijax Array or tracer: what the identity fast paths may return as is (NumPy values
    and WeakScalars must still go through a primitive to become Arrays)."""
    return isinstance(x, (Tracer, Array))


def _static_int(x, what):
    """``x`` as a Python int; tracers raise ConcretizationTypeError naming ``what``."""
    return concrete_or_error(operator.index, x, what)


def _static_ints(seq, fun, arg, keep_numpy=False):
    """A sequence of static ints as a tuple of Python ints (a hashable, printable param).

    ``keep_numpy``: NumPy integers stay as given, as in JAX's params that take the sequence
    unconverted (``broadcast_dimensions``, ``padding_config``, slice indices): its jaxprs print
    them as ``np.int64(1)``."""
    if isinstance(seq, Tracer) or not hasattr(seq, "__iter__"):
        raise TypeError(with_user_line(
            f"{fun} {arg} must be a 1D sequence of concrete integers, got {seq!r}."
        ))
    try:
        return tuple(d if keep_numpy and isinstance(d, np.integer)
                     else _static_int(d, f"the {arg} argument of {fun}") for d in seq)
    except JAXTypeError:  # a traced entry: its ConcretizationTypeError says what to do
        raise
    except TypeError:  # a float, a nested sequence ...
        raise TypeError(with_user_line(
            f"{fun} {arg} must be a 1D sequence of concrete integers, got {seq!r}."
        )) from None


def _canonicalize_axis(axis, ndim, fun):
    """A non-negative axis; out-of-range axes raise JAX's canonicalize_axis ValueError."""
    axis = _static_int(axis, f"the axis argument of {fun}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def _check_shapelike(name, arg, shape):
    """Every entry of a static shape-like param is a non-negative int."""
    if not all(isinstance(d, (int, np.integer)) for d in shape):
        raise TypeError(f"{name} {arg} must have every element be an integer, got {shape}.")
    if not all(d >= 0 for d in shape):
        raise TypeError(f"{name} {arg} must have every element be nonnegative, got {shape}.")


def _shapes(*avals):
    return ", ".join(a.str_short(True) for a in avals)


def _result_type(ctx):
    return tensor_type(ctx.avals_out[0])


# ------------------------------------------------------------------------------------------------
# broadcast_in_dim[shape broadcast_dimensions]


def _broadcast_in_dim_rule(operand, *, shape, broadcast_dimensions, sharding):
    """JAX's checks, in its order and words. ``broadcast_dimensions`` need not be sorted: an
    unsorted one transposes (StableHLO's broadcast_in_dim takes any order)."""
    name = "broadcast_in_dim"
    dims = broadcast_dimensions
    _check_shapelike(name, "shape", shape)
    _check_shapelike(name, "broadcast_dimensions", dims)
    if len(dims) != operand.ndim:
        raise TypeError(
            f"{name} broadcast_dimensions must have length equal to operand ndim; got "
            f"broadcast_dimensions {dims} for operand ndim {operand.ndim}.")
    if len(shape) < operand.ndim:
        raise TypeError(
            f"{name} target broadcast shape must have equal or higher rank to the operand "
            f"shape; got operand ndim {operand.ndim} and target broadcast ndim {len(shape)}.")
    if not set(dims) <= set(range(len(shape))):
        raise TypeError(
            f"{name} broadcast_dimensions must be a subset of output dimensions, got {dims} "
            f"for operand ndim {operand.ndim} and shape {shape}.")
    if any(d != 1 and d != shape[i] for d, i in zip(operand.shape, dims)):
        raise TypeError(  # the trailing space is JAX's
            f"{name} operand dimension sizes must either be 1, or be equal to their "
            f"corresponding dimensions in the target broadcast shape; got operand of shape "
            f"{operand.shape}, target broadcast shape {shape}, broadcast_dimensions {dims} ")
    if len(set(dims)) != len(dims):
        raise TypeError(
            f"{name} broadcast_dimensions must not contain duplicates, got "
            f"broadcast_dimensions {dims}")
    out = operand.update(shape=shape)
    return out if sharding is None else out.update(explicit=core.explicit_of(sharding, shape))


def _forwards_operand(operand, out):
    """JAX's forwarding rule: a broadcast to the operand's own type is the operand, whatever
    ``broadcast_dimensions`` say (``(1, 0)`` on a square operand does not transpose it). JAX
    drops the equation from every jaxpr it stages, an eager op's too (it runs as the jit of
    the op)."""
    return operand == out


def _broadcast_in_dim_lowering(ctx, x, *, shape, broadcast_dimensions, sharding):
    if _forwards_operand(ctx.avals_in[0], ctx.avals_out[0]):
        return x  # an eager op (staged ones are forwarded by the jaxpr trace)
    return hlo.broadcast_in_dim(_result_type(ctx), x, dense_i64(broadcast_dimensions))


broadcast_in_dim_p = Primitive("broadcast_in_dim")
broadcast_in_dim_p.def_abstract_eval(_broadcast_in_dim_rule)
broadcast_in_dim_p.own_memory_space = True  # its operand's, a scalar's too (as JAX's)
broadcast_in_dim_p.def_lowering(_broadcast_in_dim_lowering)
broadcast_in_dim_p.forwards_operand = _forwards_operand
# As JAX's rule: ``shape`` is the binder's type, so not shown, nor is ``sharding`` (JAX's param,
# always None here: types carry no sharding); no dimensions, nothing shown.
broadcast_in_dim_p.pp_params = lambda p: (
    {"broadcast_dimensions": p["broadcast_dimensions"]} if p["broadcast_dimensions"] else {})


def _broadcast_in_dim_batching(args, dims, *, shape, broadcast_dimensions, sharding):
    """As JAX's rule: the batch axis moves to the front of the operand and of the result (so
    later elementwise ops meet JAX's layout, and XLA makes JAX's rewrites)."""
    (x,), (d,) = args, dims
    x = batching.moveaxis(x, d, 0)
    if sharding is not None:  # the batch axis keeps its split
        sharding = sharding.update(spec=(get_aval(x).parts()[0], *sharding.spec,
                                         *(None,) * (len(shape) - len(sharding.spec))))
    out = broadcast_in_dim_p.bind(
        x, shape=(get_aval(x).shape[0], *shape),
        # NumPy's sum, as JAX's rule: its jaxprs print the moved dimensions as np.int64(2)
        broadcast_dimensions=(0, *np.add(1, broadcast_dimensions)), sharding=sharding)
    return out, 0


broadcast_in_dim_p.def_batching(_broadcast_in_dim_batching)


def _reshape_to(x, shape):
    """``x`` in ``shape`` (same size); no equation when it already has it."""
    shape = tuple(shape)
    if get_aval(x).shape == shape:
        return x
    return reshape_p.bind(x, new_sizes=shape, dimensions=None, sharding=None)


def broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None):
    """``operand`` broadcast to ``shape``; operand axis i becomes axis broadcast_dimensions[i].
    ``out_sharding`` (a NamedSharding over Explicit axes) types the result's split."""
    if type(operand) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(broadcast_in_dim, (0,), (operand, shape, broadcast_dimensions),
                         {"out_sharding": out_sharding})
    shape = _static_ints(shape, "broadcast_in_dim", "shape")
    dims = _static_ints(broadcast_dimensions, "broadcast_in_dim", "broadcast_dimensions",
                        keep_numpy=True)
    typed = explicit_out_sharding(out_sharding, api_name="broadcast_in_dim")
    # As JAX's: an array whose rank is the shape's, given no dimensions, is returned unchecked
    # (only a scalar to () passes the rule's checks)
    if (get_aval(operand).ndim == len(shape) and not dims and _is_array(operand)
            and out_sharding is None):
        return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims,
                                   sharding=typed)


def broadcast(operand, sizes, *, out_sharding=None):
    """``operand`` with new leading axes of ``sizes``: ``broadcast(f32[3], (2,))`` is f32[2,3];
    typed ``out_sharding`` over Explicit mesh axes (with no new axis: a reshard, as JAX's)."""
    sizes = _static_ints(sizes, "broadcast", "sizes")
    typed = explicit_out_sharding(out_sharding)
    if typed is not None:
        if not sizes:
            return reshard(operand, typed)
        shape = get_aval(operand).shape
        return broadcast_in_dim(operand, sizes + shape,
                                tuple(range(len(sizes), len(sizes) + len(shape))),
                                out_sharding=typed)
    if not sizes and _is_array(operand):
        return operand
    if not sizes and np.ndim(operand) == 0:
        # JAX's broadcast to no new axes is ``asarray``: a host scalar (``full((), 0.)``) stages
        # no equation, it is a literal of the jaxpr being built
        return _scalar_constant(operand)
    shape = get_aval(operand).shape
    dims = tuple(range(len(sizes), len(sizes) + len(shape)))
    return broadcast_in_dim(operand, sizes + shape, dims)


def _scalar_constant(value):
    """A host scalar (NumPy, WeakScalar) as JAX's ``asarray`` makes it: inside a jaxpr being
    built the literal, else an Array."""
    aval = get_aval(value)
    if not core.is_eval_trace_current():
        out = staged_literal(np.asarray(value), aval)
        if out is not None:
            return out
    return device_put_value(value, weak_type=aval.weak_type)


def broadcast_to_rank(x, rank):
    """``x`` with leading size-1 axes added until it has ``rank`` axes."""
    ndim = get_aval(x).ndim
    if ndim == rank:
        return x
    return broadcast(x, (1,) * (rank - ndim))


# ------------------------------------------------------------------------------------------------
# tile[reps]: the operand repeated reps[i] times along each axis i (JAX 0.10's tile_p; its
# transpose, a sum over the repeats, is in reductions.py).


def _tile_rule(operand, *, reps):
    if operand.ndim != len(reps):
        raise TypeError(
            f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
            f"and x.ndim={operand.ndim}."
        )
    shape = tuple(np.multiply(operand.shape, reps))
    if not all(isinstance(d, (int, np.integer)) for d in shape):  # JAX's shape check
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {shape!r}."
        )
    return operand.update(shape=tuple(int(d) for d in shape))


def _tile_lowering(ctx, x, *, reps):
    """As JAX lowers it: a size-1 axis before each operand axis, broadcast to the repeats,
    then merged with it."""
    (aval,) = ctx.avals_in
    expanded = aval.update(shape=tuple(k for n in aval.shape for k in (1, n)))
    x = hlo.reshape(tensor_type(expanded), x)
    tiled = aval.update(shape=tuple(k for pair in zip(reps, aval.shape) for k in pair))
    x = hlo.broadcast_in_dim(tensor_type(tiled), x, dense_i64(range(2 * aval.ndim)))
    return hlo.reshape(_result_type(ctx), x)


tile_p = Primitive("tile")
tile_p.def_abstract_eval(_tile_rule)
tile_p.def_lowering(_tile_lowering)


def _tile_batching(args, dims, *, reps):
    (x,), (d,) = args, dims
    return tile(x, reps[:d] + (1,) + reps[d:]), d


tile_p.def_batching(_tile_batching)


def tile(operand, reps):
    """``operand`` repeated ``reps[i]`` times along each axis i (``len(reps) == ndim``)."""
    return tile_p.bind(operand, reps=tuple(reps))


# ------------------------------------------------------------------------------------------------
# reshape[new_sizes dimensions sharding]: ``sharding`` is JAX's param, always None here (types
# carry no sharding)


def _reshape_rule(operand, *, new_sizes, dimensions, sharding):
    if not all(d >= 0 for d in new_sizes):  # JAX's words (a -1, jnp.reshape's, included)
        raise TypeError(f"reshape new_sizes must all be positive, got {new_sizes}.")
    _check_shapelike("reshape", "new_sizes", new_sizes)
    if int(np.prod(new_sizes, dtype=np.int64)) != operand.size:
        raise TypeError(
            f"reshape total size must be unchanged, got {operand.str_short(True)} -> {new_sizes}."
        )
    if dimensions is not None and sorted(dimensions) != list(range(operand.ndim)):
        raise TypeError(
            f"reshape dimensions must be a permutation of operand dimensions, got dimensions "
            f"{dimensions} for operand {operand.str_short(True)}."
        )
    out = operand.update(shape=new_sizes)
    return out if sharding is None else out.update(explicit=core.explicit_of(sharding,
                                                                             new_sizes))


def _reshape_lowering(ctx, x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        x = hlo.transpose(x, dense_i64(dimensions))
    return hlo.reshape(_result_type(ctx), x)


reshape_p = Primitive("reshape")
reshape_p.def_abstract_eval(_reshape_rule)
reshape_p.def_lowering(_reshape_lowering)


def _reshape_batching(args, dims, *, new_sizes, dimensions, sharding):
    """The batch axis goes to the front through reshape's own ``dimensions`` transpose."""
    (x,), (d,) = args, dims
    aval = get_aval(x)
    order = range(aval.ndim - 1) if dimensions is None else dimensions
    perm = (d,) + tuple(to_val_axis(a, d) for a in order)
    perm = None if perm == tuple(range(aval.ndim)) else perm
    out = reshape_p.bind(x, new_sizes=(aval.shape[d], *new_sizes), dimensions=perm,
                         sharding=sharding)
    return out, 0


reshape_p.def_batching(_reshape_batching)


def _reshape_transpose(ct, operand, *, new_sizes, dimensions, sharding):
    shape = operand.aval.shape
    if dimensions is None:
        return [_reshape_to(ct, shape)]
    unflat = _reshape_to(ct, tuple(shape[d] for d in dimensions))
    return [transpose(unflat, tuple(int(i) for i in np.argsort(dimensions)))]


ad.deflinear(reshape_p, _reshape_transpose)


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
    """``operand`` (transposed by ``dimensions`` first, if given) in the shape ``new_sizes``,
    split over Explicit mesh axes as ``out_sharding`` says (else as JAX's rule derives)."""
    if type(operand) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(reshape, (0,), (operand, new_sizes, dimensions),
                         {"out_sharding": out_sharding})
    new_sizes = _static_ints(new_sizes, "reshape", "new_sizes")
    shape = get_aval(operand).shape
    if dimensions is not None:
        dimensions = _static_ints(dimensions, "reshape", "dimensions")
        if dimensions == tuple(range(len(shape))):
            dimensions = None  # the identity permutation is no transpose
    typed = explicit_out_sharding(out_sharding)
    if (dimensions is None and new_sizes == shape and shape and _is_array(operand)
            and typed is None):
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dimensions, sharding=typed)


# ------------------------------------------------------------------------------------------------
# squeeze[dimensions] and expand_dims


def _squeeze_rule(operand, *, dimensions):
    # JAX 0.10.2's words (its _compute_squeeze_shape)
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"dimensions are not unique: {dimensions}")
    if not all(0 <= d < operand.ndim for d in dimensions):
        raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
    if any(operand.shape[d] != 1 for d in dimensions):
        raise ValueError(
            "cannot select an axis to squeeze out which has size not equal to one, "
            f"got shape={operand.shape} and dimensions={dimensions}"
        )
    shape = tuple(s for i, s in enumerate(operand.shape) if i not in dimensions)
    return operand.update(shape=shape)


def _squeeze_lowering(ctx, x, *, dimensions):
    return hlo.reshape(_result_type(ctx), x)


squeeze_p = Primitive("squeeze")
squeeze_p.def_abstract_eval(_squeeze_rule)
squeeze_p.def_lowering(_squeeze_lowering)


def _squeeze_batching(args, dims, *, dimensions):
    """JAX's rule: the batch axis moved to the front first (a transpose unless it is there),
    so vmap of ``x[..., 0]`` or convolve's squeeze prints as JAX's."""
    x = batching.moveaxis(args[0], dims[0], 0)
    return squeeze_p.bind(x, dimensions=tuple(d + 1 for d in dimensions)), 0


squeeze_p.def_batching(_squeeze_batching)
# the cotangent gets its size-1 axes back with expand_dims (a broadcast_in_dim), as JAX's
# transpose does, not with a reshape
ad.deflinear(squeeze_p, lambda ct, x, *, dimensions: [expand_dims(ct, dimensions)])


def squeeze(array, dimensions):
    """``array`` without the size-1 axes ``dimensions`` (negative axes count from the end)."""
    if type(array) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(squeeze, (0,), (array, dimensions), {})
    ndim = get_aval(array).ndim
    dims = tuple(sorted(_canonicalize_axis(d, ndim, "squeeze") for d in dimensions))
    if not dims and _is_array(array):
        return array
    return squeeze_p.bind(array, dimensions=dims)


def expand_dims(array, dimensions):
    """``array`` with size-1 axes inserted at ``dimensions`` (a ``broadcast_in_dim``)."""
    # as JAX's: the given axes checked for repeats, then each taken by operator.index
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    shape = get_aval(array).shape
    ndim_out = len(shape) + len(dimensions)
    dims = [_canonicalize_axis(d, ndim_out, "expand_dims") for d in dimensions]
    if len(set(dims)) != len(dims):  # e.g. (0, -3) on a rank-1 array name the same axis
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    result_shape = list(shape)
    for d in sorted(dims):
        result_shape.insert(d, 1)
    kept = tuple(i for i in range(ndim_out) if i not in dims)
    return broadcast_in_dim(array, result_shape, kept)


# ------------------------------------------------------------------------------------------------
# transpose[permutation] and rev[dimensions]


def _transpose_rule(operand, *, permutation):
    if tuple(sorted(permutation)) != tuple(range(operand.ndim)):
        raise TypeError(
            f"transpose permutation isn't a permutation of operand dimensions, got "
            f"permutation {permutation} for operand shape {operand.shape}."
        )
    return operand.update(shape=tuple(operand.shape[p] for p in permutation))


transpose_p = Primitive("transpose")
transpose_p.def_abstract_eval(_transpose_rule)
transpose_p.def_lowering(lambda ctx, x, *, permutation: hlo.transpose(x, dense_i64(permutation)))


def _transpose_batching(args, dims, *, permutation):
    # As JAX: the batch axis moves to the front within the one transpose (its output sharding
    # follows from that program), and an identity permutation of an array is no transpose.
    (x,), (d,) = args, dims
    perm = (d,) + tuple(to_val_axis(p, d) for p in permutation)
    return transpose(x, perm), 0


transpose_p.def_batching(_transpose_batching)
ad.deflinear(transpose_p, lambda ct, x, *, permutation: [
    transpose(ct, tuple(int(i) for i in np.argsort(permutation)))])


def transpose(operand, permutation):
    """Axis i of the result is axis ``permutation[i]`` of ``operand``."""
    if type(operand) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(transpose, (0,), (operand, permutation), {})
    permutation = tuple(_static_int(d, "the permutation argument of transpose")
                        for d in permutation)  # as JAX's: operator.index of each
    if permutation == tuple(range(get_aval(operand).ndim)) and _is_array(operand):
        return operand
    return transpose_p.bind(operand, permutation=permutation)


def _rev_rule(operand, *, dimensions):
    # JAX 0.10.2's checks, in its order and words
    _check_shapelike("rev", "dimensions", dimensions)
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not max(dimensions) < operand.ndim:
        raise TypeError(
            f"rev dimensions must all be less than operand ndim, got dimensions {dimensions} "
            f"for operand ndim {operand.ndim}."
        )
    return operand


rev_p = Primitive("rev")
rev_p.def_abstract_eval(_rev_rule)
rev_p.def_lowering(lambda ctx, x, *, dimensions: hlo.reverse(x, dense_i64(dimensions)))
rev_p.def_batching(batching.axis_param_rule(rev_p, "dimensions"))
ad.deflinear(rev_p, lambda ct, x, *, dimensions: [rev(ct, dimensions)])


def rev(operand, dimensions):
    """``operand`` with the order of elements reversed along ``dimensions``."""
    if type(operand) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(rev, (0,), (operand, dimensions), {})
    dimensions = tuple(dimensions)  # JAX's: an int is Python's "'int' object is not iterable"
    if not all(isinstance(d, (int, np.integer, Tracer)) for d in dimensions):
        raise TypeError(with_user_line(  # JAX's shape rule's words (a float, a str, None ...)
            "rev dimensions must have every element be an integer type, got "
            f"{tuple(map(type, dimensions))}."))
    return rev_p.bind(operand, dimensions=_static_ints(dimensions, "rev", "dimensions"))


# ------------------------------------------------------------------------------------------------
# pad[padding_config]


def _pad_rule(operand, padding_value, *, padding_config):
    if operand.dtype != padding_value.dtype:
        raise TypeError(
            "pad operand and padding_value must be same dtype: got "
            f"{operand.dtype} and {padding_value.dtype}."  # str: float0 as JAX spells it
        )
    if padding_value.ndim != 0:
        raise TypeError(
            f"pad padding_value must be a scalar, got {_shapes(operand, padding_value)}."
        )
    if len(padding_config) != operand.ndim:
        raise ValueError(
            f"pad: length of padding_config must equal the number of axes of operand, got "
            f"padding_config {padding_config} for operand {operand.str_short(True)}."
        )
    if any(interior < 0 for _, _, interior in padding_config):
        raise ValueError(
            f"pad: interior padding in padding_config must be nonnegative, got padding_config "
            f"{padding_config} for operand {operand.str_short(True)}."
        )
    shape = tuple(  # Python ints (the config may hold NumPy ones)
        int(lo + hi + (d + (d - 1) * interior if d else 0))
        for (lo, hi, interior), d in zip(padding_config, operand.shape)
    )
    if any(d < 0 for d in shape):
        raise ValueError(
            f"pad: dimension size after padding is not at least 0, got result shape {shape} "
            f"for padding_config {padding_config} and operand {operand.str_short(True)}."
        )
    weak = operand.weak_type and padding_value.weak_type
    return ShapedArray(shape, operand.dtype, weak)


def _pad_lowering(ctx, x, padding_value, *, padding_config):
    lows, highs, interiors = zip(*padding_config) if padding_config else ((), (), ())
    return hlo.pad(x, padding_value, dense_i64(lows), dense_i64(highs), dense_i64(interiors))


pad_p = Primitive("pad")
pad_p.def_abstract_eval(_pad_rule)
pad_p.def_lowering(_pad_lowering)


def _pad_batching(args, dims, *, padding_config):
    """As JAX's rule: no padding along the batch axis, which stays where it is (an unmapped
    operand is broadcast to a front one). A per-example padding value: pad with a zero, then
    select the value where the batched mask of operand positions says not."""
    (x, value), (xd, vd) = args, dims
    if xd is not_mapped:
        x, xd = batching.bdim_at_front(x, xd, batching.axis_size(args, dims), np_dims=False), 0
    config = padding_config[:xd] + ((0, 0, 0),) + padding_config[xd:]
    if vd is not_mapped:
        return pad_p.bind(x, value, padding_config=config), xd
    v_aval = get_aval(value)
    zero = WeakScalar(0, v_aval.dtype) if v_aval.weak_type else np.zeros((), v_aval.dtype)
    padded = pad_p.bind(x, zero, padding_config=config)
    is_operand = pad(full_like(x, True, np.bool_), False, config)
    value = broadcast_in_dim(value, get_aval(padded).shape, (xd,))
    return select_n(is_operand, value, padded), xd


pad_p.def_batching(_pad_batching)


def _pad_mix_error(values):
    # JAX 0.10.2's words (its shape rule's dtype check)
    a, b = (getattr(v, "dtype", None) or dtypes.dtype_of(v)[0] for v in values)
    return TypeError(f"pad operand and padding_value must be same dtype: got {a} and {b}.")


def pad(operand, padding_value, padding_config):
    """``operand`` padded by ``padding_config``: one (low, high, interior) triple per axis.

    Negative low/high remove elements from that edge; interior inserts ``interior`` copies of
    ``padding_value`` between neighbouring elements.
    """
    if type(operand) in extended_array_types or type(padding_value) in extended_array_types:
        # typed keys: each key word's plane (lax.extended); JAX's words for another value
        return on_planes(pad, (0, 1), (operand, padding_value, padding_config), {},
                         mix_error=_pad_mix_error)
    config = tuple(_static_ints(t, "pad", "padding_config entry", keep_numpy=True)
                   for t in padding_config)
    if any(len(t) != 3 for t in config):
        raise TypeError(with_user_line(
            f"pad padding_config must be (low, high, interior) triples, got {config}."
        ))
    operand, padding_value = coerce_scalars(operand, padding_value)
    return pad_p.bind(operand, padding_value, padding_config=config)


# ------------------------------------------------------------------------------------------------
# concatenate[dimension]


def _concatenate_rule(*operands, dimension):
    name = "concatenate"
    if not operands:
        raise TypeError("concatenate expects at least one operand, got 0.")
    check_same_dtypes(name, operands)
    if len({o.ndim for o in operands}) != 1:
        raise TypeError(
            f"Cannot concatenate arrays with different numbers of dimensions: got "
            f"{_shapes(*operands)}."
        )
    if not 0 <= dimension < operands[0].ndim:
        raise TypeError(
            f"concatenate dimension out of bounds: dimension {dimension} for shapes "
            f"{_shapes(*operands)}."
        )
    others = {o.shape[:dimension] + o.shape[dimension + 1:] for o in operands}
    if len(others) != 1:
        raise TypeError(
            f"Cannot concatenate arrays with shapes that differ in dimensions other than the "
            f"one being concatenated: concatenating along dimension {dimension} for shapes "
            f"{_shapes(*operands)}."
        )
    shape = list(operands[0].shape)
    shape[dimension] = builtins.sum(o.shape[dimension] for o in operands)
    weak = all(o.weak_type for o in operands)
    return ShapedArray(shape, operands[0].dtype, weak)


concatenate_p = Primitive("concatenate")
concatenate_p.def_abstract_eval(_concatenate_rule)
concatenate_p.def_lowering(lambda ctx, *xs, dimension: hlo.concatenate(list(xs), dimension))


def _concatenate_batching(args, dims, *, dimension):
    """Every operand's batch to axis 0 (unmapped ones broadcast), as JAX 0.10.2's rule: where
    the transposes fall decides how Shardy carries a split operand through."""
    size = batching.axis_size(args, dims)
    operands = [batching.bdim_to(x, d, 0, size, np_dims=False) for x, d in zip(args, dims)]
    return concatenate_p.bind(*operands, dimension=dimension + 1), 0


concatenate_p.def_batching(_concatenate_batching)


def _concatenate_transpose(ct, *operands, dimension):
    """JAX's rule: the cotangent split into every operand's piece (one ``split``; the pieces
    of operands that are not linear are unused)."""
    sizes = [(x.aval if ad.is_undefined_primal(x) else get_aval(x)).shape[dimension]
             for x in operands]
    return split(ct, sizes, axis=dimension)


ad.deflinear(concatenate_p, _concatenate_transpose, data=True)


def concatenate(operands, dimension):
    """The arrays ``operands`` joined along the existing axis ``dimension``."""
    operands = list(operands)
    if not operands:
        raise ValueError(with_user_line("concatenate requires a non-empty sequences of arrays"))
    if type(operands[0]) in extended_array_types or type(operands[-1]) in extended_array_types:
        # typed keys: each key word's plane (lax.extended). Only the end operands are looked
        # at, the least cost on the common path: keys among the middle ones alone are mixed
        # operands (an error either way), refused at dispatch in other words
        return on_planes(concatenate, (0,), (operands, dimension), {},
                         mix_error=lax_mix_error("concatenate"))
    if len(operands) == 1 and _is_array(operands[0]):
        return operands[0]
    dimension = _static_int(dimension, "the dimension argument of concatenate")
    return concatenate_p.bind(*operands, dimension=dimension)


# ------------------------------------------------------------------------------------------------
# slice[start_indices limit_indices strides]


def _slice_rule(operand, *, start_indices, limit_indices, strides):
    # JAX 0.10.2's checks, order and words (its _slice_shape_rule): a negative index or
    # stride is its _check_shapelike's refusal; strides all 1 are not checked further
    _check_shapelike("slice", "start_indices", start_indices)
    _check_shapelike("slice", "limit_indices", limit_indices)
    if len(start_indices) != operand.ndim:
        raise TypeError(
            "slice start_indices must have length equal to the number of dimensions of the "
            f"operand, got indices {start_indices} for operand shape {operand.shape}."
        )
    if len(limit_indices) != len(start_indices):
        raise TypeError(
            "slice limit_indices must have the same length as start_indices, got "
            f"start_indices {start_indices} and limit_indices {limit_indices}."
        )
    if any(lim > d for lim, d in zip(limit_indices, operand.shape)):
        raise TypeError(
            "slice limit_indices must be less than or equal to operand shape, got "
            f"limit_indices {limit_indices} for operand shape {operand.shape}."
        )
    if any(lim < s for s, lim in zip(start_indices, limit_indices)):
        raise TypeError(
            "slice limit_indices must be greater than or equal to start_indices, got "
            f"start_indices {start_indices} and limit_indices {limit_indices}."
        )
    diff = [int(lim - s) for s, lim in zip(start_indices, limit_indices)]
    if strides is not None and tuple(strides) != (1,) * operand.ndim:
        _check_shapelike("slice", "strides", strides)
        if len(strides) != operand.ndim:
            raise TypeError(
                "slice strides must have length equal to the number of dimensions of the "
                f"operand, got strides {strides} for operand shape {operand.shape}."
            )
        # JAX's core.stride_dim: a zero stride is Python's ZeroDivisionError
        diff = [max((d - 1) // int(st) + 1, 0) for d, st in zip(diff, strides)]
    return operand.update(shape=tuple(diff))


def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides):
    strides = (1,) * len(start_indices) if strides is None else strides
    return hlo.slice(x, dense_i64(start_indices), dense_i64(limit_indices), dense_i64(strides))


slice_p = Primitive("slice")
slice_p.def_abstract_eval(_slice_rule)
slice_p.def_lowering(_slice_lowering)


def _slice_batching(args, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = args, dims
    size = get_aval(x).shape[d]
    out = slice_p.bind(
        x,
        start_indices=start_indices[:d] + (0,) + start_indices[d:],
        limit_indices=limit_indices[:d] + (size,) + limit_indices[d:],
        strides=None if strides is None else strides[:d] + (1,) + strides[d:],
    )
    return out, d


slice_p.def_batching(_slice_batching)


def _slice_transpose(ct, operand, *, start_indices, limit_indices, strides):
    """ct padded with zeros back to the operand's shape (strides become interior padding)."""
    shape, ct_shape = operand.aval.shape, get_aval(ct).shape
    # The high and (strided) interior paddings are NumPy ints, as JAX's rule computes them
    # (np.subtract): its jaxprs print padding_config=((0, np.int64(1), 0),)
    if strides is None or all(s == 1 for s in strides):
        config = zip(start_indices, np.subtract(shape, limit_indices), (0,) * len(shape))
    else:
        ends = np.add(start_indices, np.where(np.array(ct_shape) == 0, 0,  # one past the last
                                              np.add(1, np.multiply(np.subtract(ct_shape, 1),
                                                                    strides))))
        config = zip(start_indices, np.subtract(shape, ends), np.subtract(strides, 1))
    # JAX pads with lax._const(ct, 0): weak only for a weak rank-0 ct, so a weak ct of rank
    # >= 1 comes back strong
    ct_aval = get_aval(ct)
    zero = const(ct, 0) if ct_aval.weak_type and not ct_aval.shape else np.zeros((), ct_aval.dtype)
    return [pad(ct, zero, config)]


ad.deflinear(slice_p, _slice_transpose)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001 (JAX's name)
    """``operand[start:limit:stride, ...]`` with static, in-bounds, non-negative indices."""
    if type(operand) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(slice, (0,), (operand, start_indices, limit_indices, strides), {})
    return slice_p.bind(
        operand, start_indices=_slice_ints(start_indices, "start_indices"),
        limit_indices=_slice_ints(limit_indices, "limit_indices"),
        strides=None if strides is None else _slice_ints(strides, "strides"),
    )


def _slice_ints(seq, arg):
    """A slice param as a tuple of ints; a float entry is JAX's shape-rule refusal."""
    if isinstance(seq, (tuple, list)) and any(isinstance(d, (float, np.floating)) for d in seq):
        raise TypeError(f"slice {arg} must have every element be an integer type, got "
                        f"{tuple(map(type, seq))}.")
    return _static_ints(seq, "slice", arg, keep_numpy=True)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """``slice`` along one ``axis``; None means the axis' start/end, negatives count back."""
    shape = get_aval(operand).shape
    # JAX indexes the shape with the axis as given: one out of range is Python's IndexError
    # ("tuple index out of range"), a negative one counts back
    size = shape[axis]
    axis = operator.index(axis) % len(shape)
    start = 0 if start_index is None else _static_int(start_index, "slice_in_dim start_index")
    limit = size if limit_index is None else _static_int(limit_index, "slice_in_dim limit_index")
    start = start + size if start < 0 else start
    limit = limit + size if limit < 0 else limit
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, stride
    return slice(operand, starts, limits, strides)


# ------------------------------------------------------------------------------------------------
# split[sizes axis]: consecutive pieces of one operand along an axis (jnp.split's primitive, as
# in JAX). Its transpose is one concatenate of the pieces' cotangents, where one slice per piece
# would transpose to a full-size pad per piece and the adds between them.


def _split_rule(operand, *, sizes, axis):
    if not 0 <= axis < operand.ndim:
        raise TypeError(
            f"split axis {axis} is out of bounds for operand {operand.str_short(True)}.")
    if any(size < 0 for size in sizes) or builtins.sum(sizes) != operand.shape[axis]:
        raise TypeError(
            f"split sizes must be non-negative and sum to the size of axis {axis} "
            f"({operand.shape[axis]}) of operand {operand.str_short(True)}, got sizes {sizes}."
        )
    shape = list(operand.shape)
    return [operand.update(shape=tuple(shape[:axis] + [size] + shape[axis + 1:]))
            for size in sizes]


def _split_lowering(ctx, x, *, sizes, axis):
    ndim, outs, start = len(ctx.avals_in[0].shape), [], 0
    for aval, size in zip(ctx.avals_out, sizes):
        starts, limits = [0] * ndim, list(aval.shape)
        starts[axis], limits[axis] = start, start + size
        outs.append(hlo.slice(x, dense_i64(starts), dense_i64(limits), dense_i64([1] * ndim)))
        start += size
    return outs


split_p = Primitive("split", multiple_results=True)
split_p.def_abstract_eval(_split_rule)
split_p.def_lowering(_split_lowering)


def _split_batching(args, dims, *, sizes, axis):
    (x,), (d,) = args, dims
    outs = split_p.bind(x, sizes=sizes, axis=axis + (d <= axis))
    return outs, [d] * len(outs)


split_p.def_batching(_split_batching)


def _split_transpose(cts, operand, *, sizes, axis):
    cts = [ad.instantiate_zeros(ct) for ct in cts]
    return [concatenate_p.bind(*cts, dimension=axis)]


ad.deflinear(split_p, _split_transpose)


def split(operand, sizes, axis=0):
    """The pieces of ``operand`` of ``sizes`` along ``axis`` (they must sum to its size), as
    ``jax.lax.split``."""
    if type(operand) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(split, (0,), (operand, sizes, axis), {})
    aval = get_aval(operand)
    axis = _static_int(axis, "the axis argument of split")
    if not -aval.ndim <= axis < aval.ndim:
        raise ValueError(with_user_line(
            f"split: axis {axis} is out of bounds for an array of rank {aval.ndim}"))
    sizes = _static_ints(sizes, "split", "sizes", keep_numpy=True)
    return split_p.bind(operand, sizes=sizes, axis=axis % aval.ndim)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """Element ``index`` along ``axis`` (a negative index counts back), keeping the axis or not."""
    shape = get_aval(operand).shape
    # JAX's int(axis) (a float axis truncated), then its IndexError for one out of range
    index, axis = _static_int(index, "the index argument of index_in_dim"), int(axis)
    size = shape[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:  # JAX's check and words
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    index = wrapped
    result = slice_in_dim(operand, index, index + 1, 1, axis)
    return result if keepdims else squeeze(result, (axis,))


# ------------------------------------------------------------------------------------------------
# empty2[dtype memory_space]: JAX's scalar of no particular value (zero here), which fills the
# residual slots a cond branch does not populate


def _empty2_rule(*, dtype, memory_space):
    return ShapedArray((), dtype, memory_space=memory_space)


empty2_p = Primitive("empty2")
empty2_p.def_abstract_eval(_empty2_rule)
empty2_p.def_lowering(lambda ctx, *, dtype, memory_space: ir_constant(np.zeros((), dtype)))
empty2_p.def_batching(batching.never_batched_rule(empty2_p))
ad.defjvp_zero(empty2_p)


def empty_like(aval):
    """A value of type ``aval`` that nothing reads (JAX's ``ad_util.empty_like_aval``):
    ``empty2``, varying where ``aval`` does, broadcast to its shape."""
    out = empty2_p.bind(dtype=aval.dtype, memory_space=aval.memory_space)
    if aval.vma:
        out = lax_ops.pvary(out, tuple(sorted(aval.vma, key=str)))
    return broadcast_in_dim(out, aval.shape, ())


# ------------------------------------------------------------------------------------------------
# iota[dtype shape dimension sharding]: ``sharding`` as reshape's


def _iota_rule(*, dtype, shape, dimension, sharding):
    if dtype == dtypes.bool_:
        raise TypeError(
            f"iota does not accept dtype {dtype.name}. Accepted dtypes are integer, floating "
            "and complex types."
        )
    _check_shapelike("iota", "shape", shape)
    if not 0 <= dimension < len(shape):
        raise ValueError(
            f"iota dimension must be between 0 and len(shape), got dimension={dimension} for "
            f"shape={shape}"
        )
    explicit = None if sharding is None else core.explicit_of(sharding, shape)
    return ShapedArray(shape, dtype, explicit=explicit)


iota_p = Primitive("iota")
iota_p.def_abstract_eval(_iota_rule)
iota_p.def_lowering(lambda ctx, *, dtype, shape, dimension, sharding:
                    hlo.iota(_result_type(ctx), dimension))
iota_p.def_batching(batching.never_batched_rule(iota_p))
ad.defjvp_zero(iota_p)


def broadcasted_iota(dtype, shape, dimension, *, out_sharding=None):
    """An array of ``shape`` whose value at each index is that index along ``dimension``,
    split over Explicit mesh axes as ``out_sharding`` says."""
    dtype = dtypes.canonicalize_dtype(dtype)
    shape = _static_ints(shape, "broadcasted_iota", "shape")
    dimension = _static_int(dimension, "the dimension argument of broadcasted_iota")
    return iota_p.bind(dtype=dtype, shape=shape, dimension=dimension,
                       sharding=explicit_out_sharding(out_sharding))


def iota(dtype, size):
    """``[0, 1, ..., size - 1]`` of ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0)


# ------------------------------------------------------------------------------------------------
# full, full_like, zeros_like_array: broadcast_in_dim of a converted scalar


def _scalar_of(fill_value, dtype, weak_type):
    """``fill_value`` as a rank-0 value of ``dtype``: on the host when it is concrete (so it
    stages as a literal), with ``convert_element_type`` when it is traced or on a device."""
    if _is_array(fill_value) or (
            np.dtype(dtype).kind in "iu" and isinstance(fill_value, (float, complex, np.inexact))
            and not np.isfinite(fill_value)):
        # as JAX's: a non-finite value converts on the device (XLA saturates inf to the
        # integer's max), or is folded by NumPy under a staging trace
        return _convert_element_type(fill_value, dtype, weak_type)
    if (type(fill_value) in (float, complex) and weak_type
            and dtypes.python_scalar_dtype(fill_value) == dtype):
        return fill_value  # as JAX stages it: unrounded in a jaxpr (``0.1:f32[]``)
    # NumPy's cast, as JAX's: a Python int wraps (``full(2, 2**40, float16)`` is inf)
    value = np.asarray(fill_value).astype(dtype)
    return WeakScalar(value, dtype) if weak_type else value


def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of ``shape`` filled with the scalar ``fill_value`` (as ``dtype`` if given),
    split over Explicit mesh axes as ``sharding`` says."""
    shape = _static_ints(shape, "full", "shape")
    if np.shape(fill_value):
        raise TypeError(with_user_line(
            f"full must be called with scalar fill_value, got fill_value.shape "
            f"{np.shape(fill_value)}."
        ))
    value_dtype, value_weak = dtypes.dtype_of(fill_value)
    weak_type = dtype is None and value_weak
    dtype = (value_dtype if dtype is None else
             dtypes.canonicalize_dtype(dtype, allow_extended_dtype=True))
    if isinstance(dtype, dtypes.ExtendedDType):  # typed keys: their dtype's rule (JAX's too)
        return dtype._full(shape, fill_value, sharding)
    scalar = _scalar_of(fill_value, dtype, weak_type)
    if isinstance(sharding, Sharding) and not (isinstance(sharding, NamedSharding) and
                                               isinstance(sharding.mesh, AbstractMesh)):
        # JAX's rule for a sharding on devices (its docstring: "ignored in jitted mode"):
        # outside a trace it places the filled array there (committed, not weakly typed);
        # under one the result is unsplit
        if core.current_trace() is core.eval_trace and not isinstance(scalar, Tracer):
            return put(np.full(shape, np.asarray(scalar), dtype), sharding, "full")
        return broadcast(scalar, shape)
    typed = explicit_out_sharding(sharding)
    if typed is None:
        return broadcast(scalar, shape)
    return broadcast_in_dim(scalar, shape, (), out_sharding=typed)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """An array like ``x`` (its shape and dtype unless given) filled with ``fill_value``; split
    as ``x``'s type over Explicit mesh axes unless ``shape`` or ``sharding`` says otherwise."""
    if type(x) in extended_array_types:  # typed keys: each key word's plane (lax.extended)
        return on_planes(full_like, (0,), (x, fill_value, dtype, shape, sharding), {})
    x_shape = tuple(np.shape(x)) if not hasattr(x, "shape") else tuple(x.shape)
    fill_shape = x_shape if shape is None else _static_ints(shape, "full_like", "shape")
    x_dtype, x_weak = dtypes.dtype_of(x)
    weak_type = dtype is None and x_weak
    dtype = x_dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    if sharding is None and shape is None and getattr(get_aval(x), "explicit", None) is not None:
        sharding = get_aval(x).sharding
    scalar = _scalar_of(fill_value, dtype, weak_type)
    typed = explicit_out_sharding(sharding)
    out = (broadcast(scalar, fill_shape) if typed is None else
           broadcast_in_dim(scalar, fill_shape, (), out_sharding=typed))
    if isinstance(x, Tracer) and get_aval(x).vma:
        # as JAX's: inside shard_map the result varies over the manual axes ``x`` varies over
        # (so ``vjp(f, x)[1](jnp.ones_like(x))`` passes the cotangent type check)
        out = core.insert_pvary((out, x))[0]
    if sharding is None and type(x) is Array and type(out) is Array and not weak_type:
        return _like_prototype(out, x)
    return out


def _like_prototype(out, x):
    """JAX's rule for a concrete prototype (not weakly typed): the result lies where ``x``
    lies, committed as it is; of another shape only where ``x`` is replicated (one device
    too), else on the default device."""
    if out.shape != x.shape and not x.sharding.is_fully_replicated:
        return out
    if out._sharding._memory_kind != x._sharding._memory_kind:
        # JAX builds the result with the prototype's sharding over the device-memory buffer it
        # filled: jaxlib refuses the pair
        raise ValueError(
            "Memory kind mismatch with xla::PjRtBuffers. Got sharding with memory kind "
            f"'{x._sharding._memory_kind}' and a buffer with memory_kind "
            f"'{out._sharding._memory_kind}'")
    return put_like(out, x)


def zeros_like_array(x):
    """Zeros of ``x``'s shape and dtype."""
    return full_like(x, 0)

# Sharding rules (operands split over Explicit mesh axes)
broadcast_in_dim_p.sharding_rule = sharding_rules.broadcast_in_dim
reshape_p.sharding_rule = sharding_rules.reshape
squeeze_p.sharding_rule = sharding_rules.squeeze
transpose_p.sharding_rule = sharding_rules.transpose
rev_p.sharding_rule = sharding_rules.operand(0)
concatenate_p.sharding_rule = sharding_rules.concatenate
pad_p.sharding_rule = sharding_rules.varying_shape("padding", _pad_rule)
slice_p.sharding_rule = sharding_rules.varying_shape("slicing", _slice_rule)
split_p.sharding_rule = sharding_rules.varying_shape("split", _split_rule)
tile_p.sharding_rule = sharding_rules.tile
