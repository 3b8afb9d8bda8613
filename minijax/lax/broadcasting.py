"""``lax.broadcast_shapes``: the shape NumPy broadcasting gives a set of shapes."""

from __future__ import annotations

import operator

__all__ = ["broadcast_shapes"]


def broadcast_shapes(*shapes):
    """The shape that results from NumPy broadcasting of ``shapes`` (``(3, 1), (4,)`` gives
    ``(3, 4)``); a ValueError for incompatible shapes.

    As in JAX, a lone shape, or a longest shape the others are trailing parts of, is returned
    as given (a list stays a list); otherwise the result is a tuple.
    """
    if not shapes:
        raise TypeError("broadcast_shapes requires at least one shape")
    for shape in shapes:
        _check_shape(shape)
    first, *rest = shapes
    if not rest:
        return first
    result = max(shapes, key=len)
    ndim = len(result)
    if ndim == 0 or all(tuple(result[ndim - len(s):]) == tuple(s) for s in shapes):
        return result
    out = []
    for dims in zip(*[(1,) * (ndim - len(s)) + tuple(s) for s in shapes]):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _check_shape(shape):
    try:
        dims = [operator.index(d) for d in (shape if not isinstance(shape, int) else (shape,))]
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape}.") from None
    if any(d < 0 for d in dims):
        raise TypeError("Only non-negative indices are allowed when broadcasting static shapes, "
                        f"but got shape {shape!r}.")
