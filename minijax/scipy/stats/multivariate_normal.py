"""The multivariate normal distribution N(mean, cov) over the last axis."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import promote_dtypes_inexact

_LOG_2PI = float(np.log(2 * np.pi))


def logpdf(x, mean, cov, allow_singular=None):
    """A scalar ``cov`` is an isotropic variance; a matrix is factored by Cholesky."""
    if allow_singular is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(mean), jnp.asarray(cov))
    if not mean.shape:
        return -0.5 * jnp.square(x - mean) / cov - 0.5 * (_LOG_2PI + jnp.log(cov))
    n = mean.shape[-1]
    if not cov.shape:
        y = x - mean
        return -0.5 * jnp.einsum("...i,...i->...", y, y) / cov - n / 2 * (_LOG_2PI + jnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    chol = lax.cholesky(cov)
    diff = x - mean
    batch = jnp.broadcast_shapes(chol.shape[:-2], diff.shape[:-1])
    chol = jnp.broadcast_to(chol, batch + (n, n))
    # L y = x - mean, solved with the residual as a column.
    y = lax.triangular_solve(chol, jnp.broadcast_to(diff, batch + (n,))[..., None],
                             left_side=True, lower=True)[..., 0]
    return (-0.5 * jnp.einsum("...i,...i->...", y, y) - n / 2 * _LOG_2PI
            - jnp.sum(jnp.log(jnp.diagonal(chol, axis1=-2, axis2=-1)), -1))


def pdf(x, mean, cov):
    return jnp.exp(logpdf(x, mean, cov))
