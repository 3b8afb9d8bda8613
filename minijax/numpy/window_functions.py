"""NumPy's window functions: ``hamming``, ``hanning``, ``blackman``, ``bartlett``,
``kaiser`` (each in the default float dtype, as JAX).
"""

from __future__ import annotations

import operator

import minijax.numpy as jnp
from minijax import dtypes
from minijax.numpy._util import convert
from minijax.numpy.math import i0

__all__ = [
    "hamming", "hanning", "blackman", "bartlett", "kaiser",
]


def _cosine_window(M, terms):
    """``sum_k a_k cos(2 pi k n / (M - 1))`` for ``n < M`` (ones for ``M <= 1``, as NumPy):
    the generalized cosine windows (hamming, hanning, blackman)."""
    M = operator.index(M)
    if M <= 1:
        return jnp.ones((max(M, 0),), dtypes.default_float_dtype())
    n = jnp.arange(M, dtype=dtypes.default_float_dtype())
    out = terms[0]
    for k, a in enumerate(terms[1:], start=1):
        out = out + a * jnp.cos(2 * k * jnp.pi * n / (M - 1))
    return out


def hamming(M):
    return _cosine_window(M, (0.54, -0.46))


def hanning(M):
    return _cosine_window(M, (0.5, -0.5))


def blackman(M):
    return _cosine_window(M, (0.42, -0.5, 0.08))


def bartlett(M):
    M = operator.index(M)
    if M <= 1:
        return jnp.ones((max(M, 0),), dtypes.default_float_dtype())
    n = jnp.arange(M, dtype=dtypes.default_float_dtype())
    return 1 - jnp.abs(2 * n - M + 1) / (M - 1)


def kaiser(M, beta):
    M = operator.index(M)
    if M <= 1:
        return jnp.ones((max(M, 0),), dtypes.default_float_dtype())
    n = jnp.arange(M, dtype=dtypes.default_float_dtype())
    alpha = (M - 1) / 2.0
    return i0(beta * jnp.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(
        convert(beta, dtypes.default_float_dtype()))
