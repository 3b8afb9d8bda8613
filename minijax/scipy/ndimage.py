"""``jax.scipy.ndimage``: ``map_coordinates`` (spline orders 0 and 1, as JAX)."""

from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.jitting import jit

__all__ = ["map_coordinates"]


def _mirror_index_fixer(index, size):
    s = size - 1  # the half-wavelength of the triangular wave |x - round(x)|, scaled
    return jnp.abs((index + s) % (2 * s) - s)


def _reflect_index_fixer(index, size):
    return jnp.floor_divide(_mirror_index_fixer(2 * index + 1, 2 * size + 1) - 1, 2)


# How each mode maps an index outside [0, size) back inside ('constant' masks it instead).
_INDEX_FIXERS = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror_index_fixer,
    "reflect": _reflect_index_fixer,
}


def _round_half_away_from_zero(a):
    return a if dtypes.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest_indices_and_weights(coordinate):
    index = _round_half_away_from_zero(coordinate).astype(np.int32)
    return [(index, coordinate.dtype.type(1))]


def _linear_indices_and_weights(coordinate):
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


@jit(static_argnums=(2, 3))
def _map_coordinates(input, coordinates, order, mode, cval):
    input_arr = jnp.asarray(input)
    coordinate_arrs = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, input_arr.dtype)
    if len(coordinates) != input_arr.ndim:
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coordinates)} != {input_arr.ndim}")
    index_fixer = _INDEX_FIXERS.get(mode)
    if index_fixer is None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}.")
    if order == 0:
        interp_fun = _nearest_indices_and_weights
    elif order == 1:
        interp_fun = _linear_indices_and_weights
    else:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            "jax.scipy.ndimage.map_coordinates currently requires order<=1")

    # Per axis: the (index, in-bounds mask or None, weight) of each interpolation node.
    nodes_per_axis = []
    for coordinate, size in zip(coordinate_arrs, input_arr.shape):
        nodes = []
        for index, weight in interp_fun(coordinate):
            valid = (0 <= index) & (index < size) if mode == "constant" else None
            nodes.append((index_fixer(index, size), valid, weight))
        nodes_per_axis.append(nodes)

    outputs = []
    for items in itertools.product(*nodes_per_axis):
        indices, validities, weights = zip(*items)
        contribution = input_arr[indices]
        if validities[0] is not None:
            contribution = jnp.where(functools.reduce(operator.and_, validities),
                                     contribution, cval)
        outputs.append(functools.reduce(operator.mul, weights) * contribution)
    result = sum(outputs[1:], outputs[0])
    if dtypes.issubdtype(input_arr.dtype, np.integer):
        result = _round_half_away_from_zero(result)
    return result.astype(input_arr.dtype)


def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0):
    """``input`` interpolated at ``coordinates`` (one array per axis of ``input``, all of
    the result's shape) by nearest-neighbour (``order=0``) or linear (``order=1``)
    interpolation. ``mode`` extends ``input`` past its edges: 'constant' (``cval``),
    'nearest', 'wrap', 'mirror' or 'reflect', as SciPy; integer inputs round half away from
    zero."""
    return _map_coordinates(input, coordinates, order, mode, cval)
