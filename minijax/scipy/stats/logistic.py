"""The logistic distribution, written term by term as JAX's (``lax_const`` constants: a weak
array ``x`` gives a strong result where JAX's does)."""

from minijax import lax
from minijax.numpy._util import lax_const
from minijax import numpy as jnp
from minijax.scipy.special import expit, logit
from minijax.scipy.stats._common import promote


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.logpdf", x, loc, scale)
    x = lax.div(lax.sub(x, loc), scale)
    two = lax_const(x, 2)
    half_x = lax.div(x, two)
    return lax.sub(lax.mul(lax.neg(two), jnp.logaddexp(half_x, lax.neg(half_x))), lax.log(scale))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.cdf", x, loc, scale)
    return expit(lax.div(lax.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.sf", x, loc, scale)
    return expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def ppf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(logit(x), scale), loc)


def isf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)
