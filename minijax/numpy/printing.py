"""``jnp``'s print options and ``array_str``/``array_repr``: minijax arrays print through
NumPy (``Array.__repr__`` formats the host value with ``np.array2string``), so these are
NumPy's own, as in JAX 0.10.2."""

from __future__ import annotations

import numpy as np

__all__ = ["array_repr", "array_str", "get_printoptions", "printoptions", "set_printoptions"]

array_str = np.array_str
array_repr = np.array_repr


def get_printoptions():
    """Alias of ``numpy.get_printoptions``."""
    return np.get_printoptions()


def printoptions(*args, **kwargs):
    """Alias of ``numpy.printoptions`` (a context manager)."""
    return np.printoptions(*args, **kwargs)


def set_printoptions(*args, **kwargs):
    """Alias of ``numpy.set_printoptions``."""
    return np.set_printoptions(*args, **kwargs)
