"""The beta distribution on [loc, loc + scale].

The formulas follow JAX's term by term (its ``lax._const`` constants, strong unless the example
is a weak scalar, and its order of operations), so weak types and values match it exactly."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.special import betainc, betaln, xlog1py, xlogy
from minijax.scipy.stats._common import promote


def logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("beta.logpdf", x, a, b, loc, scale)
    one, zero = lax_const(x, 1), lax_const(a, 0)
    shape_term = lax.neg(betaln(a, b))
    y = lax.div(lax.sub(x, loc), scale)
    log_linear_term = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(shape_term, log_linear_term), lax.log(scale))
    out = jnp.where(lax.gt(x, lax.add(loc, scale)) | lax.lt(x, loc), -np.inf, log_probs)
    return jnp.where(lax.le(a, zero) | lax.le(b, zero) | lax.le(scale, zero), np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
    return lax.exp(logpdf(x, a, b, loc, scale))


def _clipped(x, loc, scale):
    return lax.clamp(lax_const(x, 0), lax.div(lax.sub(x, loc), scale), lax_const(x, 1))


def cdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, _clipped(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - _clipped(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    return lax.log(sf(x, a, b, loc, scale))
