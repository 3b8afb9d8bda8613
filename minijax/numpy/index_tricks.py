"""``jnp.mgrid``, ``jnp.ogrid``, ``jnp.r_``, ``jnp.c_`` (indexable objects that build minijax
arrays with JAX's dtype rules) and NumPy's ``s_``/``index_exp``, which JAX re-exports.

A slice ``start:stop:step`` stands for ``jnp.arange(start, stop, step)``; an imaginary step
``Nj`` for ``jnp.linspace(start, stop, N)``. The bounds must be concrete, as in JAX.
"""

from __future__ import annotations

import numpy as np

from minijax.config import numpy_dtype_promotion
from minijax.core import concrete_or_error
from minijax.numpy._util import promote_dtypes
from minijax.numpy.creation import arange, array, linspace, meshgrid
from minijax.numpy.manipulation import concatenate, expand_dims, stack, transpose

__all__ = ["c_", "index_exp", "mgrid", "ogrid", "r_", "s_"]

s_ = np.s_
index_exp = np.index_exp


def _grid_1d(s, op_name):
    start = concrete_or_error(None, s.start, f"slice start of jnp.{op_name}") or 0
    stop = concrete_or_error(None, s.stop, f"slice stop of jnp.{op_name}")
    step = concrete_or_error(None, s.step, f"slice step of jnp.{op_name}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


def _grids(key, op_name):
    grids = [_grid_1d(k, op_name) for k in key]
    # The grids share one dtype even under strict promotion (mgrid[0:2, 0:1:3j] is float).
    with numpy_dtype_promotion("standard"):
        return promote_dtypes(*grids)


class _Mgrid:
    """``jnp.mgrid``: the dense ``meshgrid(..., indexing='ij')`` of the slices, stacked."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "mgrid")
        grids = meshgrid(*_grids(key, "mgrid"), indexing="ij", sparse=False)
        return stack(grids, 0) if grids else arange(0)


class _Ogrid:
    """``jnp.ogrid``: the open (sparse) ``meshgrid(..., indexing='ij')`` of the slices."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "ogrid")
        return meshgrid(*_grids(key, "ogrid"), indexing="ij", sparse=True)


class _AxisConcat:
    """Concatenates slices, scalars and array-likes along ``axis``. A leading string
    directive ``'axis,ndmin,trans1d'`` (or ``'r'``/``'c'``: a 1-D result becomes a row or a
    column) overrides the defaults, as in NumPy."""

    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if items and isinstance(items[0], str):
            directive, items = items[0], items[1:]
            if directive == "r":
                params[-1] = 0
            elif directive == "c":
                params[-1] = 1
            else:
                vec = directive.split(",")
                vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + [params[-1]]
                try:
                    params = [int(v) for v in vec]
                except ValueError as err:
                    raise ValueError(f"could not understand directive {directive!r}") from err
        axis, ndmin, trans1d, matrix = params
        parts = []
        for item in items:
            if isinstance(item, slice):
                part, item_ndim = _grid_1d(item, self.op_name), 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                part = array(item, copy=False)
                item_ndim = part.ndim
            part = array(part, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                # NumPy's rule: the item's own axes move to position trans1d of the result.
                order = tuple(range(ndmin))
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                part = transpose(part, order[shift:] + order[:shift])
            parts.append(part)
        out = concatenate(tuple(parts), axis=axis)
        if matrix != -1 and out.ndim == 1:
            out = expand_dims(out, matrix)
        return out

    def __len__(self):
        return 0


class RClass(_AxisConcat):
    """``jnp.r_``: concatenation along the first axis (items made at least 1-D)."""

    axis, ndmin, trans1d, op_name = 0, 1, -1, "r_"


class CClass(_AxisConcat):
    """``jnp.c_``: concatenation along the last axis (items made at least 2-D, 1-D items as
    columns)."""

    axis, ndmin, trans1d, op_name = -1, 2, 0, "c_"


mgrid = _Mgrid()
ogrid = _Ogrid()
r_ = RClass()
c_ = CClass()
for _obj in (_Mgrid, _Ogrid, RClass, CClass):
    _obj.__module__ = "minijax.numpy"
del _obj
