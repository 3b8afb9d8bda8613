"""Op-table entries: the structural primitives (broadcast, reshape, transpose, pad, slices ...).

The op table passes only arrays to ``fn``/``ref``, so static params (permutations, slice
bounds, padding configs) are derived from the drawn shapes inside closures, one entry per
configuration. Dynamic-slice start indices are drawn as int scalars (in bounds, negative, and
out of bounds on both sides of each axis, so wrapping of negatives and XLA's clamping are
exercised) and passed as operands: eagerly they are NumPy values (wrapped on the host), under
jit they are traced (wrapped with ``select_n``), and both must agree with the NumPy reference.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from minijax import lax
from tests.ops.op_db import ZERO_DERIVATIVE, GradSpec, array, register, shapes

BF16 = np.dtype(ml_dtypes.bfloat16)
ALL_DTYPES = [np.float32, BF16, np.int32, np.uint8, np.bool_]
NUM_DTYPES = [np.float32, BF16, np.int32, np.uint8]  # iota has no bool
INDEX_DTYPES = [np.int32, np.int8, np.uint8]

# ------------------------------------------------------------------------------------------------
# Strategies


def _operand(min_dims=0, max_dims=3, dtypes=ALL_DTYPES):
    """One array (as a 1-tuple) of a drawn shape and dtype."""

    @st.composite
    def strat(draw):
        shape = draw(shapes(min_dims=min_dims, max_dims=max_dims))
        return (draw(array(shape, draw(st.sampled_from(dtypes)))),)

    return strat()


def _with_scalar(min_dims=0):
    """An array and a rank-0 array of the same dtype (a padding or fill value)."""

    @st.composite
    def strat(draw):
        dtype = draw(st.sampled_from(ALL_DTYPES))
        x = draw(array(draw(shapes(min_dims=min_dims)), dtype))
        return x, draw(array((), dtype))

    return strat()


def _with_unit_axes():
    """An array with size-1 axes inserted at drawn positions (something to squeeze)."""

    @st.composite
    def strat(draw):
        shape = list(draw(shapes(max_dims=2)))
        for _ in range(draw(st.integers(1, 2))):
            shape.insert(draw(st.integers(0, len(shape))), 1)
        return (draw(array(tuple(shape), draw(st.sampled_from(ALL_DTYPES)))),)

    return strat()


def _concat_operands(axis):
    """Three arrays equal in every dimension but ``axis`` (0 or -1)."""

    @st.composite
    def strat(draw):
        base = list(draw(shapes(min_dims=1)))
        dtype = draw(st.sampled_from(ALL_DTYPES))
        out = []
        for _ in range(3):
            base[axis] = draw(st.integers(1, 4))
            out.append(draw(array(tuple(base), dtype)))
        return tuple(out)

    return strat()


def _indices(dims, draw):
    """One start index per size in ``dims``, in [-dim - 2, dim + 2]: in bounds, wrapped
    negatives, and out of bounds on both sides (clamped) are all likely."""
    dtype = np.dtype(draw(st.sampled_from(INDEX_DTYPES)))
    if dtype.kind == "u":
        return tuple(np.asarray(draw(st.integers(0, d + 2)), dtype) for d in dims)
    return tuple(np.asarray(draw(st.integers(-d - 2, d + 2)), dtype) for d in dims)


def _with_indices(axis=None, update=False, min_dims=0):
    """``(x, [update,] *start_indices)``: one index per axis (or one for ``axis`` only)."""

    @st.composite
    def strat(draw):
        dtype = draw(st.sampled_from(ALL_DTYPES))
        x = draw(array(draw(shapes(min_dims=min_dims)), dtype))
        extra = (draw(array(_half(x.shape), dtype)),) if update else ()
        dims = x.shape if axis is None else (x.shape[axis],)
        return (x, *extra, *_indices(dims, draw))

    return strat()


# ------------------------------------------------------------------------------------------------
# Params derived from a shape, and NumPy references


def _half(shape):
    return tuple((d + 1) // 2 for d in shape)


def _rotate(ndim):
    return tuple(range(1, ndim)) + (0,) if ndim else ()


def _slice_params(shape):
    starts = tuple(d // 3 for d in shape)
    limits = tuple(d - d // 4 for d in shape)
    strides = tuple(1 + i % 2 for i in range(len(shape)))
    return starts, limits, strides


def _pad_config(shape):
    """Low/high padding that includes negatives (crops) and interior padding, kept valid."""
    per_axis = [(1, 2, 0), (-1, 1, 1), (-1, -1, 3)]
    config = []
    for i, d in enumerate(shape):
        lo, hi, interior = per_axis[i % 3]
        if d + (d - 1) * interior + lo + hi < 0:  # too small to crop both edges
            hi = 0
        config.append((lo, hi, interior))
    return tuple(config)


def _pad_negative_config(shape):
    return tuple((-2, 3, i % 2) for i in range(len(shape)))


def np_pad(x, value, config):
    """``lax.pad`` in NumPy: interior-dilate, then pad (positive) or crop (negative) each edge."""
    value = np.asarray(value, x.dtype)
    for axis, (lo, hi, interior) in enumerate(config):
        d = x.shape[axis]
        if interior and d > 1:
            dilated = list(x.shape)
            dilated[axis] = d + (d - 1) * interior
            y = np.full(dilated, value, x.dtype)
            index = [slice(None)] * x.ndim
            index[axis] = slice(None, None, interior + 1)
            y[tuple(index)] = x
            x = y
        x = _np_edge(x, value, axis, max(lo, 0), max(hi, 0))
        crop = [slice(None)] * x.ndim
        crop[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(crop)]
    return x


def _np_edge(x, value, axis, lo, hi):
    def block(n):
        shape = list(x.shape)
        shape[axis] = n
        return np.full(shape, value, x.dtype)

    return np.concatenate([block(lo), x, block(hi)], axis=axis)


def np_start(i, dim, size):
    """XLA's start index: a negative index wraps once (``i + dim``), then clamps in bounds."""
    i = int(i)
    i = i + dim if i < 0 else i
    return min(max(i, 0), dim - size)


def np_dynamic_slice(x, starts, sizes):
    starts = [np_start(i, d, s) for i, d, s in zip(starts, x.shape, sizes)]
    return x[tuple(slice(i, i + s) for i, s in zip(starts, sizes))]


def np_dynamic_update_slice(x, update, starts):
    starts = [np_start(i, d, s) for i, d, s in zip(starts, x.shape, update.shape)]
    out = x.copy()
    out[tuple(slice(i, i + s) for i, s in zip(starts, update.shape))] = update
    return out


def _np_slice(x, starts, limits, strides):
    return x[tuple(slice(a, b, s) for a, b, s in zip(starts, limits, strides))]


def _inserted(shape, axis, size):
    return shape[:axis] + (size,) + shape[axis:]


# ------------------------------------------------------------------------------------------------
# broadcast_in_dim and its wrappers


def _grow_units(shape):  # size-1 operand axes broadcast to 3 in the target
    return tuple(3 if d == 1 else d for d in shape)


register(
    "structural_broadcast_in_dim_leading",
    lambda x: lax.broadcast_in_dim(x, (2, *_grow_units(x.shape)), tuple(range(1, x.ndim + 1))),
    lambda x: np.broadcast_to(x, (2, *_grow_units(x.shape))),
    _operand(),
)
register(
    "structural_broadcast_in_dim_middle",
    lambda x: lax.broadcast_in_dim(
        x, _inserted(x.shape, 1, 4), (0,) + tuple(range(2, x.ndim + 1))
    ),
    lambda x: np.broadcast_to(np.expand_dims(x, 1), _inserted(x.shape, 1, 4)),
    _operand(min_dims=1),
)
register(
    "structural_broadcast",
    lambda x: lax.broadcast(x, (2, 3)),
    lambda x: np.broadcast_to(x, (2, 3, *x.shape)),
    _operand(),
)
register(
    "structural_broadcast_to_rank",
    lambda x: lax.broadcast_to_rank(x, 4),
    lambda x: x.reshape((1,) * (4 - x.ndim) + x.shape),
    _operand(),
)

# ------------------------------------------------------------------------------------------------
# reshape, squeeze, expand_dims

register(
    "structural_reshape_reversed_shape",
    lambda x: lax.reshape(x, x.shape[::-1] + (1,)),
    lambda x: x.reshape(x.shape[::-1] + (1,)),
    _operand(),
)
register(
    "structural_reshape_flatten",
    lambda x: lax.reshape(x, (x.size,)),
    lambda x: x.reshape(-1),
    _operand(),
)
register(
    "structural_reshape_with_dimensions",  # transposes (rotation) first, then reshapes
    lambda x: lax.reshape(x, (x.size,), dimensions=_rotate(x.ndim)),
    lambda x: np.transpose(x, _rotate(x.ndim)).reshape(-1),
    _operand(min_dims=1),
)
register(
    "structural_squeeze",  # negative dims name the unit axes from the end
    lambda x: lax.squeeze(x, [i - x.ndim for i, d in enumerate(x.shape) if d == 1]),
    lambda x: np.squeeze(x, axis=tuple(i for i, d in enumerate(x.shape) if d == 1)),
    _with_unit_axes(),
)
register(
    "structural_expand_dims",
    lambda x: lax.expand_dims(x, (0, -1)),
    lambda x: np.expand_dims(x, (0, -1)),
    _operand(),
)

# ------------------------------------------------------------------------------------------------
# transpose, rev

register(
    "structural_transpose_reversed",
    lambda x: lax.transpose(x, tuple(range(x.ndim))[::-1]),
    lambda x: np.transpose(x),
    _operand(),
)
register(
    "structural_transpose_rotate",
    lambda x: lax.transpose(x, _rotate(x.ndim)),
    lambda x: np.transpose(x, _rotate(x.ndim)),
    _operand(min_dims=2),
)
register(
    "structural_rev_all",
    lambda x: lax.rev(x, tuple(range(x.ndim))),
    lambda x: np.flip(x, axis=tuple(range(x.ndim))),
    _operand(),
)
register(
    "structural_rev_last",
    lambda x: lax.rev(x, (x.ndim - 1,)),
    lambda x: np.flip(x, axis=-1),
    _operand(min_dims=1),
)

# ------------------------------------------------------------------------------------------------
# pad: the padding value is an operand (a rank-0 array of the operand's dtype)

register(
    "structural_pad",
    lambda x, v: lax.pad(x, v, _pad_config(x.shape)),
    lambda x, v: np_pad(x, v, _pad_config(x.shape)),
    _with_scalar(),
)
register(
    "structural_pad_negative",
    lambda x, v: lax.pad(x, v, _pad_negative_config(x.shape)),
    lambda x, v: np_pad(x, v, _pad_negative_config(x.shape)),
    _with_scalar(min_dims=1),
)

# ------------------------------------------------------------------------------------------------
# concatenate

register(
    "structural_concatenate_first",
    lambda *xs: lax.concatenate(xs, 0),
    lambda *xs: np.concatenate(xs, 0),
    _concat_operands(0),
)
register(
    "structural_concatenate_last",
    lambda *xs: lax.concatenate(xs, xs[0].ndim - 1),
    lambda *xs: np.concatenate(xs, -1),
    _concat_operands(-1),
)

# ------------------------------------------------------------------------------------------------
# copy

register("structural_copy", lambda x: lax.copy_p.bind(x), lambda x: x.copy(), _operand())

# ------------------------------------------------------------------------------------------------
# stack / unstack


def _stack_operands():
    """Three arrays of one shape and dtype."""

    @st.composite
    def strat(draw):
        shape, dtype = draw(shapes()), draw(st.sampled_from(ALL_DTYPES))
        return tuple(draw(array(shape, dtype)) for _ in range(3))

    return strat()


register(
    "structural_stack_last",
    lambda *xs: lax.stack(xs, axis=-1),
    lambda *xs: np.stack(xs, axis=-1),
    _stack_operands(),
)
register(
    "structural_unstack_first",
    lambda x: lax.unstack(x, axis=0),
    lambda x: tuple(x),
    _operand(min_dims=1),
)

# ------------------------------------------------------------------------------------------------
# split


def _split_sizes(n):
    """Three pieces tiling a size-n axis, the middle one empty when n < 2."""
    return (n // 2, n - n // 2 - n // 3, n // 3)


def _np_split(x, sizes, axis):
    return tuple(np.split(x, np.cumsum(sizes)[:-1].tolist(), axis=axis))


register(
    "structural_split_first",
    lambda x: lax.split(x, _split_sizes(x.shape[0]), axis=0),
    lambda x: _np_split(x, _split_sizes(x.shape[0]), 0),
    _operand(min_dims=1),
)
register(
    "structural_split_last",  # negative axis
    lambda x: lax.split(x, _split_sizes(x.shape[-1]), axis=-1),
    lambda x: _np_split(x, _split_sizes(x.shape[-1]), x.ndim - 1),
    _operand(min_dims=1),
)

# ------------------------------------------------------------------------------------------------
# slice and its wrappers

register(
    "structural_slice_strided",
    lambda x: lax.slice(x, *_slice_params(x.shape)),
    lambda x: _np_slice(x, *_slice_params(x.shape)),
    _operand(),
)
register(
    "structural_slice_unit_strides",
    lambda x: lax.slice(x, _slice_params(x.shape)[0], _slice_params(x.shape)[1]),
    lambda x: _np_slice(x, *_slice_params(x.shape)[:2], (1,) * x.ndim),
    _operand(),
)
register(
    "structural_slice_in_dim",  # negative limit, None start, stride 2, negative axis
    lambda x: lax.slice_in_dim(x, None, -1, stride=2, axis=-1),
    lambda x: x[..., :-1:2],
    _operand(min_dims=1),
)
register(
    "structural_index_in_dim",
    lambda x: lax.index_in_dim(x, -1, axis=0, keepdims=False),
    lambda x: x[-1],
    _operand(min_dims=1),
)
register(
    "structural_index_in_dim_keepdims",
    lambda x: lax.index_in_dim(x, 0, axis=x.ndim - 1),
    lambda x: x[..., :1],
    _operand(min_dims=1),
)

# ------------------------------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice and their wrappers: start indices are operands

register(
    "structural_dynamic_slice",
    lambda x, *idx: lax.dynamic_slice(x, idx, _half(x.shape)),
    lambda x, *idx: np_dynamic_slice(x, idx, _half(x.shape)),
    _with_indices(),
)
register(
    "structural_dynamic_update_slice",
    lambda x, u, *idx: lax.dynamic_update_slice(x, u, idx),
    lambda x, u, *idx: np_dynamic_update_slice(x, u, idx),
    _with_indices(update=True),
)
register(
    "structural_dynamic_slice_in_dim",
    lambda x, i: lax.dynamic_slice_in_dim(x, i, (x.shape[-1] + 1) // 2, axis=-1),
    lambda x, i: np_dynamic_slice(
        x, (0,) * (x.ndim - 1) + (i,), x.shape[:-1] + ((x.shape[-1] + 1) // 2,)
    ),
    _with_indices(axis=-1, min_dims=1),
)
register(
    "structural_dynamic_index_in_dim",
    lambda x, i: lax.dynamic_index_in_dim(x, i, axis=0, keepdims=False),
    lambda x, i: np_dynamic_slice(x, (i,) + (0,) * (x.ndim - 1), (1,) + x.shape[1:])[0],
    _with_indices(axis=0, min_dims=1),
)


def _update_row():
    """``(x, row, index)``: ``row`` has ``x``'s shape without axis 0."""

    @st.composite
    def strat(draw):
        dtype = draw(st.sampled_from(ALL_DTYPES))
        x = draw(array(draw(shapes(min_dims=1)), dtype))
        return (x, draw(array(x.shape[1:], dtype)), *_indices(x.shape[:1], draw))

    return strat()


register(
    "structural_dynamic_update_index_in_dim",  # the update lacks the indexed axis
    lambda x, row, i: lax.dynamic_update_index_in_dim(x, row, i, 0),
    lambda x, row, i: np_dynamic_update_slice(x, row[None], (i,) + (0,) * (x.ndim - 1)),
    _update_row(),
)
register(
    "structural_dynamic_update_slice_in_dim",
    lambda x, u, *idx: lax.dynamic_update_slice_in_dim(x, u, idx[0], axis=0),
    lambda x, u, *idx: np_dynamic_update_slice(x, u, (idx[0],) + (0,) * (x.ndim - 1)),
    _with_indices(axis=0, update=True, min_dims=1),
)

# ------------------------------------------------------------------------------------------------
# iota, full, full_like: the operand only supplies a shape and dtype (or the fill value)


def _np_broadcasted_iota(dtype, shape, dimension):
    index = np.arange(shape[dimension]).reshape([-1 if i == dimension else 1 for i in
                                                 range(len(shape))])
    return np.broadcast_to(index, shape).astype(dtype)


register(
    "structural_iota",
    lambda x: lax.iota(x.dtype, x.shape[0]),
    lambda x: np.arange(x.shape[0]).astype(x.dtype),
    _operand(min_dims=1, max_dims=1, dtypes=NUM_DTYPES),
    grad=ZERO_DERIVATIVE,
)
register(
    "structural_broadcasted_iota",
    lambda x: lax.broadcasted_iota(x.dtype, x.shape, x.ndim - 1),
    lambda x: _np_broadcasted_iota(x.dtype, x.shape, x.ndim - 1),
    _operand(min_dims=1, dtypes=NUM_DTYPES),
    grad=ZERO_DERIVATIVE,
)
register(
    "structural_full",  # the fill value is an operand: traced under jit, a literal eagerly
    lambda x, v: lax.full(x.shape, v),
    lambda x, v: np.full(x.shape, v, v.dtype),
    _with_scalar(),
)
register(
    "structural_full_as_float32",
    lambda x, v: lax.full(x.shape, v, np.float32),
    lambda x, v: np.full(x.shape, v.astype(np.float32), np.float32),
    _with_scalar(),
    # a float32 round trip of the fill value: see convert_element_type[float32]'s step
    grad=GradSpec(eps=1.0, tol=2e-3),
)
register(
    "structural_full_like",
    lambda x: lax.full_like(x, 3),
    lambda x: np.full(x.shape, np.asarray(3).astype(x.dtype), x.dtype),
    _operand(),
    grad=ZERO_DERIVATIVE,
)
register(
    "structural_zeros_like_array",
    lambda x: lax.zeros_like_array(x),
    lambda x: np.zeros(x.shape, x.dtype),
    _operand(),
    grad=ZERO_DERIVATIVE,
)
