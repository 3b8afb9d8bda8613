"""The generalized normal distribution: density beta / (2 Gamma(1/beta)) exp(-|x|**beta)."""

from minijax import lax
from minijax import numpy as jnp
from minijax.scipy.stats._common import promote


def logpdf(x, beta):
    x, beta = promote("gennorm.logpdf", x, beta)
    return jnp.log(0.5 * beta) - lax.lgamma(1 / beta) - jnp.abs(x) ** beta


def cdf(x, beta):
    x, beta = promote("gennorm.cdf", x, beta)
    return 0.5 * (1 + jnp.sign(x) * lax.igamma(1 / beta, jnp.abs(x) ** beta))


def pdf(x, beta):
    return jnp.exp(logpdf(x, beta))
