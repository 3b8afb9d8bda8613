"""Basic indexing (``x[...]``): integers, slices (any step), ``None``, ``Ellipsis`` and traced
integer scalars.

Static parts become one ``lax.slice`` (positive strides), a ``lax.rev`` for negative steps and a
``lax.squeeze`` for integer indices; ``None`` adds axes with ``expand_dims``. A traced (or
device) integer scalar becomes a ``dynamic_slice`` of size 1 whose start is wrapped when
negative, as NumPy counts from the end (XLA then clamps it into bounds, as JAX does).

Advanced indexing (integer arrays, boolean masks) needs ``gather``, which arrives with a later
issue; it raises ``IndexError`` saying so.
"""

from __future__ import annotations

import operator

import numpy as np

from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.lowering.array import Array
from minijax.numpy._util import to_array

__all__ = ["getitem"]


def _is_dynamic_int(i):
    """A traced or on-device integer scalar (a bool is a mask, not an index)."""
    if not isinstance(i, (Tracer, Array)):
        return False
    aval = i.aval
    return aval.ndim == 0 and dtypes.is_int(aval.dtype)


def _advanced_error(idx):
    what = type(idx).__name__
    if isinstance(idx, (Tracer, Array, np.ndarray)):
        what = f"an array of shape {tuple(idx.shape)} and dtype {idx.dtype}"
    return IndexError(
        f"Advanced indexing (integer arrays, lists and boolean masks; got {what}) needs the "
        "gather primitive, which minijax does not have yet: it comes with the numpy gather "
        "issue. Use integer scalars, slices, None and ... for now, or lax.dynamic_slice."
    )


def _normalize(index, ndim):
    """The index as a tuple with the Ellipsis expanded into full slices."""
    if not isinstance(index, tuple):
        index = (index,)
    for i in index:
        if i is None or i is Ellipsis or isinstance(i, slice):
            continue
        if isinstance(i, (bool, np.bool_)):
            raise _advanced_error(i)
        if _is_dynamic_int(i):
            continue
        if isinstance(i, (Tracer, Array, np.ndarray, list)):
            if isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype.kind in "iu":
                continue
            raise _advanced_error(i)
        try:
            operator.index(i)
        except TypeError:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                f"integer or boolean arrays are valid indices, got {i!r}") from None
    n_ellipsis = sum(i is Ellipsis for i in index)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(i is not None and i is not Ellipsis for i in index)
    if used > ndim:
        raise IndexError(
            f"Too many indices: array is {ndim}-dimensional, but {used} were indexed")
    if n_ellipsis:
        at = next(k for k, i in enumerate(index) if i is Ellipsis)
        index = index[:at] + (slice(None),) * (ndim - used) + index[at + 1:]
    else:
        index = index + (slice(None),) * (ndim - used)
    return index


def getitem(x, index):
    """``x[index]`` for basic indices; see the module docstring."""
    x = to_array(x)
    index = _normalize(index, x.ndim)
    shape = x.shape
    starts, limits, strides = [], [], []
    reverse, squeeze, dynamic = [], [], {}
    new_axes = []  # positions of None in the result
    out_pos, dim = 0, 0
    for i in index:
        if i is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        n = shape[dim]
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            picked = range(start, stop, step)
            if len(picked) == 0:
                starts.append(0), limits.append(0), strides.append(1)
            elif step > 0:
                starts.append(picked[0]), limits.append(picked[-1] + 1), strides.append(step)
            else:  # take the same elements in increasing order, then reverse the axis
                starts.append(picked[-1]), limits.append(picked[0] + 1), strides.append(-step)
                reverse.append(dim)
            out_pos += 1
        elif _is_dynamic_int(i):
            starts.append(0), limits.append(n), strides.append(1)
            dynamic[dim] = i
            squeeze.append(dim)
        else:
            k = operator.index(i)
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {n}")
            k = k + n if k < 0 else k
            starts.append(k), limits.append(k + 1), strides.append(1)
            squeeze.append(dim)
        dim += 1
    if starts != [0] * len(shape) or tuple(limits) != shape or any(s != 1 for s in strides):
        strides_arg = None if all(s == 1 for s in strides) else tuple(strides)
        x = lax.slice(x, tuple(starts), tuple(limits), strides_arg)
    if dynamic:
        x = _dynamic_index(x, dynamic)
    if reverse:
        x = lax.rev(x, tuple(reverse))
    if squeeze:
        x = lax.squeeze(x, tuple(squeeze))
    if new_axes:
        x = lax.expand_dims(x, tuple(new_axes))
    return x


def _dynamic_index(x, dynamic):
    """A size-1 ``dynamic_slice`` on each axis indexed by a traced integer. ``dynamic_slice``
    itself wraps negative starts once (``i + n``) and XLA clamps, as in JAX; the static zeros
    of the other axes are Python ints, so they adopt the index dtype."""
    starts = [dynamic.get(ax, 0) for ax in range(x.ndim)]
    sizes = tuple(1 if ax in dynamic else n for ax, n in enumerate(x.shape))
    return lax.dynamic_slice(x, starts, sizes)
