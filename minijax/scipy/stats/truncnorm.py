"""The normal distribution truncated to [a, b] (in standard units: the support is
[loc + a scale, loc + b scale]). ``a >= b`` gives NaN."""

import numpy as np

from minijax import numpy as jnp
from minijax.nn.functions import logsumexp
from minijax.numpy._eager import eager_jit
from minijax.scipy.special import log_ndtr, ndtr
from minijax.scipy.stats import norm
from minijax.scipy.stats._common import promote, standardize


def _log_diff(x, y):
    """log(exp(x) - exp(y)) for x >= y."""
    return logsumexp(jnp.array([x, y]), b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]),
                     axis=0)


def _log_gauss_mass(a, b):
    """log(ndtr(b) - ndtr(a)), from whichever tail keeps the difference accurate."""
    a, b = jnp.broadcast_arrays(jnp.asarray(a), jnp.asarray(b))
    left, right = b <= 0, a > 0
    # Both in the right tail: mirror to the left one, where log_ndtr has its precision.
    a_tail = jnp.where(right, -b, a)
    b_tail = jnp.where(right, -a, b)
    mass_tail = _log_diff(log_ndtr(b_tail), log_ndtr(a_tail))
    mass_central = jnp.log1p(-ndtr(a) - ndtr(-b))
    return jnp.where(left | right, mass_tail, mass_central)


@eager_jit(inline=False)  # a jit in JAX
def logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("truncnorm.logpdf", x, a, b, loc, scale)
    val = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    z = standardize(x, loc, scale)
    val = jnp.where((z < a) | (z > b), -np.inf, val)
    return jnp.where(a >= b, np.nan, val)


def pdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, b, loc, scale))


@eager_jit(inline=False)  # a jit in JAX
def logcdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = jnp.broadcast_arrays(x, a, b)
    z = standardize(x, loc, scale)
    log_mass = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, z) - log_mass
    log_sf = _log_gauss_mass(z, b) - log_mass
    # Near 1 the cdf is better as log1p(-sf).
    log_cdf = jnp.select([z >= b, z <= a, log_cdf > -0.1, z > a],
                         [0, -np.inf, jnp.log1p(-jnp.exp(log_sf)), log_cdf])
    return jnp.where(a >= b, np.nan, log_cdf)


@eager_jit(inline=False)  # a jit in JAX
def cdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logcdf(x, a, b, loc, scale))


@eager_jit(inline=False)  # a jit in JAX
def logsf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


@eager_jit(inline=False)  # a jit in JAX
def sf(x, a, b, loc=0, scale=1):
    return jnp.exp(logsf(x, a, b, loc, scale))
