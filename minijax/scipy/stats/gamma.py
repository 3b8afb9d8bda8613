"""The gamma distribution with shape ``a``."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.special import gammainc, gammaincc, gammaln, xlogy
from minijax.scipy.stats._common import promote, standardize


def logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    inside = x >= loc
    y = jnp.where(inside, standardize(x, loc, scale), 1)  # 1: a safe point for the gradient
    log_probs = xlogy(a - 1, y) - y - gammaln(a) - jnp.log(scale)
    return jnp.where(inside, log_probs, -np.inf)


def pdf(x, a, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.cdf", x, a, loc, scale)
    return gammainc(a, jnp.clip(standardize(x, loc, scale), 0, np.inf))


def logcdf(x, a, loc=0, scale=1):
    return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.sf", x, a, loc, scale)
    y = standardize(x, loc, scale)
    return jnp.where(y < 0, 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    return jnp.log(sf(x, a, loc, scale))
