"""The normal distribution N(loc, scale**2)."""

import numpy as np

from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy import special
from minijax.scipy.stats._common import promote, standardize

def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.logpdf", x, loc, scale)
    # JAX's formula and its lax._const constants (strong for a weak array x)
    scale_sqrd = jnp.square(scale)
    log_normalizer = jnp.log(lax_const(x, 2 * np.pi) * scale_sqrd)
    quadratic = jnp.square(x - loc) / scale_sqrd
    return (log_normalizer + quadratic) / lax_const(x, -2)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.cdf", x, loc, scale)
    return special.ndtr(standardize(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.logcdf", x, loc, scale)
    return special.log_ndtr(standardize(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
    return jnp.asarray(special.ndtri(q) * scale + loc, float)


def isf(q, loc=0, scale=1):
    return ppf(1 - jnp.asarray(q), loc, scale)
