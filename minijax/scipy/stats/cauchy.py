"""The Cauchy distribution."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.stats._common import promote, standardize


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("cauchy.logpdf", x, loc, scale)
    y = standardize(x, loc, scale)
    return -(jnp.log(np.pi * scale) + jnp.log1p(y * y))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("cauchy.cdf", x, loc, scale)
    return 0.5 + jnp.arctan(standardize(x, loc, scale)) / np.pi


def logcdf(x, loc=0, scale=1):
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("cauchy.ppf", q, loc, scale)
    return jnp.tan(np.pi * q - np.pi / 2) * scale + loc


def isf(q, loc=0, scale=1):
    q, loc, scale = promote("cauchy.isf", q, loc, scale)
    return jnp.tan(np.pi / 2 - np.pi * q) * scale + loc
