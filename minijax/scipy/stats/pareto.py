"""The Pareto distribution of shape ``b``: density b / y**(b + 1) for y = (x - loc)/scale >= 1."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.stats._common import promote, standardize


def logpdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.logpdf", x, b, loc, scale)
    y = standardize(x, loc, scale)
    log_probs = -(jnp.log(scale / b) + (b + 1) * jnp.log(y))
    return jnp.where(x < loc + scale, -np.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.cdf", x, b, loc, scale)
    y = standardize(x, loc, scale)
    return jnp.where(x < loc + scale, 0.0, 1 - y ** -b)


def logcdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.logcdf", x, b, loc, scale)
    y = standardize(x, loc, scale)
    return jnp.where(x < loc + scale, -np.inf, jnp.log1p(-(y ** -b)))


def logsf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.logsf", x, b, loc, scale)
    y = standardize(x, loc, scale)
    return jnp.where(x < loc + scale, 0.0, -b * jnp.log(y))


def sf(x, b, loc=0, scale=1):
    return jnp.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    q, b, loc, scale = promote("pareto.ppf", q, b, loc, scale)
    quantile = loc + scale * (1 - q) ** -(1 / b)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, quantile)
