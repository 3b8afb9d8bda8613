"""The gamma distribution with shape ``a``.

The formulas follow JAX's term by term (its ``lax._const`` constants, strong unless the example
is a weak scalar, and its order of operations), so weak types and values match it exactly."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.special import gammainc, gammaincc, gammaln, xlogy
from minijax.scipy.stats._common import promote


def logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = lax_const(x, 1)
    y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)  # 1: a safe point for the gradient
    log_linear_term = lax.sub(xlogy(lax.sub(a, one), y), y)
    shape_terms = lax.add(gammaln(a), lax.log(scale))
    return jnp.where(ok, lax.sub(log_linear_term, shape_terms), -np.inf)


def pdf(x, a, loc=0, scale=1):
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.cdf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return gammainc(a, lax.clamp(lax_const(x, 0), y, lax_const(x, np.inf)))


def logcdf(x, a, loc=0, scale=1):
    return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(lax.lt(y, lax_const(y, 0)), 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    return lax.log(sf(x, a, loc, scale))
