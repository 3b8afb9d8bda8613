"""``jax.scipy.interpolate``: ``RegularGridInterpolator`` (linear or nearest, no bounds errors
under jit: points outside the grid get ``fill_value``, or are extrapolated when it is None)."""

import itertools

import numpy as np

from minijax import numpy as jnp
from minijax.numpy._util import check_arraylike, promote_dtypes_inexact
from minijax.tree_util import register_pytree_node

_METHODS = ("linear", "nearest")


def _ndim_coords_from_arrays(points, ndim=None):
    """Points as an array whose last axis holds the coordinates (a tuple gives one array per
    coordinate, broadcast together)."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        p = jnp.broadcast_arrays(*points)
        return jnp.stack(p, axis=-1).astype(float)
    check_arraylike("_ndim_coords_from_arrays", points)
    points = jnp.asarray(points)
    if points.ndim == 1:
        points = points.reshape(-1, 1) if ndim is None else points.reshape(-1, ndim)
    return points


class RegularGridInterpolator:
    """Interpolation on a rectilinear grid in any number of dimensions, as SciPy's; a pytree
    whose leaves are the grid, the values and the fill value."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        if method not in _METHODS:
            raise ValueError(f"method {method!r} is not defined")
        self.method = method
        self.bounds_error = bounds_error
        if self.bounds_error:
            # JAX 0.10.2 refuses it too, in these words
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > values.ndim:
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{values.ndim} dimensions")
        (values,) = promote_dtypes_inexact(jnp.asarray(values))
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if not jnp.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError(
                    "fill_value must be either 'None' or of a type compatible with values")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        method = self.method if method is None else method
        if method not in _METHODS:
            raise ValueError(f"method {method!r} is not defined")
        ndim = len(self.grid)
        xi = _ndim_coords_from_arrays(xi, ndim=ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[1]}, "
                             f"but this RegularGridInterpolator has dimension {ndim}")
        xi_shape = xi.shape
        xi = xi.reshape(-1, xi_shape[-1])
        indices, norm_distances, out_of_bounds = self._find_indices(xi.T)
        if method == "linear":
            result = self._evaluate_linear(indices, norm_distances)
        else:
            result = self._evaluate_nearest(indices, norm_distances)
        if self.fill_value is not None:
            bc_shape = result.shape[:1] + (1,) * (result.ndim - 1)
            result = jnp.where(out_of_bounds.reshape(bc_shape), self.fill_value, result)
        return result.reshape(xi_shape[:-1] + self.values.shape[ndim:])

    def _evaluate_linear(self, indices, norm_distances):
        # the values' trailing (non-grid) axes broadcast against the per-point weights
        vslice = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        values = jnp.asarray(0.0)
        for edge_indices in itertools.product(*[[i, i + 1] for i in indices]):
            weight = jnp.asarray(1.0)
            for ei, i, yi in zip(edge_indices, indices, norm_distances):
                weight = weight * jnp.where(ei == i, 1 - yi, yi)
            values = values + self.values[edge_indices] * weight[vslice]
        return values

    def _evaluate_nearest(self, indices, norm_distances):
        idx = [jnp.where(yi <= 0.5, i, i + 1) for i, yi in zip(indices, norm_distances)]
        return self.values[tuple(idx)]

    def _find_indices(self, xi):
        """Per axis, the cell index of each point (clamped to the grid, which extrapolates),
        its fractional position in the cell, and whether any coordinate is off the grid."""
        indices, norm_distances = [], []
        out_of_bounds = jnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            i = jnp.clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            indices.append(i)
            norm_distances.append((x - g[i]) / (g[i + 1] - g[i]))
            out_of_bounds = out_of_bounds | (x < g[0]) | (x > g[-1])
        return indices, norm_distances, out_of_bounds


register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]),
)
