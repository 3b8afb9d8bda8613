"""The logistic distribution."""

from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.special import expit, logit
from minijax.scipy.stats._common import promote, standardize


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.logpdf", x, loc, scale)
    two = lax_const(x, 2)  # JAX's lax._const: strong for a weak array x
    half = standardize(x, loc, scale) / two
    return lax_const(x, -2) * jnp.logaddexp(half, -half) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.cdf", x, loc, scale)
    return expit(standardize(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.sf", x, loc, scale)
    return expit(-standardize(x, loc, scale))


def ppf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.ppf", x, loc, scale)
    return logit(x) * scale + loc


def isf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.isf", x, loc, scale)
    return -logit(x) * scale + loc
