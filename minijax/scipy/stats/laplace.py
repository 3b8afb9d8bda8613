"""The Laplace (double exponential) distribution."""

from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.stats._common import promote, standardize


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("laplace.logpdf", x, loc, scale)
    return -(jnp.abs(x - loc) / scale + jnp.log(lax_const(x, 2) * scale))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("laplace.cdf", x, loc, scale)
    y = standardize(x, loc, scale)
    # JAX's lax._const constants: strong for a weak array x
    half, one = lax_const(x, 0.5), lax_const(x, 1)
    return jnp.where(y <= lax_const(x, 0), half * jnp.exp(y), one - half * jnp.exp(-y))
