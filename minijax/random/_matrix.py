"""Matrix-valued samplers: multivariate_normal (through a factor of the covariance) and
orthogonal (Haar-distributed, through a sign-corrected QR of a Gaussian matrix), as JAX."""

from __future__ import annotations

import operator

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.random._distributions import _as_array, _check_shape, _float_dtype, normal
from minijax.random._keys import _shape_tuple, _single

__all__ = ["multivariate_normal", "orthogonal"]


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Samples of N(mean, cov); ``method`` factors cov: 'cholesky' (default), 'eigh' or 'svd'
    (the latter two accept singular covariances)."""
    data, _ = _single("multivariate_normal", key)
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = _float_dtype("multivariate_normal", dtype)
    mean = lax.convert_element_type(_as_array(mean), dtype)
    cov = lax.convert_element_type(_as_array(cov), dtype)
    if mean.ndim < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{mean.ndim}")
    if cov.ndim < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{cov.ndim}")
    n = mean.shape[-1]
    if cov.shape[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {cov.shape}.")
    if shape is None:
        shape = tuple(np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
    else:
        shape = _shape_tuple("multivariate_normal", shape)
        _check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = jnp.linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = jnp.linalg.cholesky(cov)
    samples = normal(data, shape + (n,), dtype)
    # mean + factor @ sample, batched over the leading axes ('...ij,...j->...i')
    return mean + jnp.matmul(factor, samples[..., None])[..., 0]


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Haar-random matrices with orthonormal columns or rows: shape ``(*shape, n, m)``
    (``m`` defaults to ``n``)."""
    data, _ = _single("orthogonal", key)
    shape = _shape_tuple("orthogonal", shape)
    dtype = _float_dtype("normal", dtype, allow_complex=True)  # JAX's error names its normal
    n = operator.index(n)
    m = n if m is None else operator.index(m)
    z = normal(data, (*shape, max(n, m), min(n, m)), dtype)
    q, r = jnp.linalg.qr(z)
    # QR is unique once diag(r) > 0; fixing its signs makes q Haar-distributed
    d = jnp.diagonal(r, axis1=-2, axis2=-1)
    x = q * jnp.expand_dims(d / jnp.abs(d).astype(d.dtype), -2)
    if n < m:
        x = jnp.conj(jnp.swapaxes(x, -1, -2)) if dtypes.is_complex(dtype) else \
            jnp.swapaxes(x, -1, -2)
    return x
