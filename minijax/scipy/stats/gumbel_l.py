"""The left-skewed Gumbel distribution (of minima): cdf 1 - exp(-exp(z)), z = (x - loc)/scale.
Non-positive ``scale`` gives NaN."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.special import xlog1py, xlogy
from minijax.scipy.stats._common import promote, standardize


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(scale > 0, xlogy(-1, scale) + z - jnp.exp(z), np.nan)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logcdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(scale > 0, jnp.log(-jnp.expm1(-jnp.exp(z))), np.nan)


def cdf(x, loc=0, scale=1):
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    p, loc, scale = promote("gumbel_l.ppf", p, loc, scale)
    quantile = loc + scale * jnp.log(xlog1py(-1, -p))
    return jnp.where((p > 0) & (p < 1), quantile, np.nan)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logsf", x, loc, scale)
    return jnp.where(scale > 0, -jnp.exp(standardize(x, loc, scale)), np.nan)


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))
