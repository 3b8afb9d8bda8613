"""The Laplace (double exponential) distribution."""

from minijax import numpy as jnp
from minijax.scipy.stats._common import promote, standardize


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("laplace.logpdf", x, loc, scale)
    return -(jnp.abs(x - loc) / scale + jnp.log(2 * scale))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("laplace.cdf", x, loc, scale)
    y = standardize(x, loc, scale)
    return jnp.where(y <= 0, 0.5 * jnp.exp(y), 1 - 0.5 * jnp.exp(-y))
