"""The exponential distribution with rate 1 / scale."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.stats._common import promote


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.logpdf", x, loc, scale)
    log_probs = -((x - loc) / scale + jnp.log(scale))
    return jnp.where(x < loc, -np.inf, log_probs)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.cdf", x, loc, scale)
    neg_y = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(neg_y), -jnp.expm1(neg_y))


def logcdf(x, loc=0, scale=1):
    return jnp.log1p(-sf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.logsf", x, loc, scale)
    neg_y = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(neg_y), neg_y)


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("expon.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc - scale * jnp.log1p(-q))
