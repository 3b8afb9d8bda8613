"""The left-skewed Gumbel distribution (of minima): cdf 1 - exp(-exp(z)), z = (x - loc)/scale.
Non-positive ``scale`` gives NaN.

Written term by term as JAX's (its order of operations and ``lax_const`` constants), so values
and weak types match bit for bit."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.special import xlog1py, xlogy
from minijax.scipy.stats._common import promote


def _scale_ok(scale):
    return lax.gt(scale, lax_const(scale, 0))


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_pdf = lax.add(xlogy(-1, scale), lax.sub(z, lax.exp(z)))
    return jnp.where(_scale_ok(scale), log_pdf, np.nan)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logcdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_cdf = lax.log(-lax.expm1(lax.neg(lax.exp(z))))
    return jnp.where(_scale_ok(scale), log_cdf, np.nan)


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    p, loc, scale = promote("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, lax_const(p, 0)), lax.lt(p, lax_const(p, 1)))
    quantile = lax.add(loc, lax.mul(scale, lax.log(xlog1py(-1, lax.neg(p)))))
    return jnp.where(ok, quantile, np.nan)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logsf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_scale_ok(scale), lax.neg(lax.exp(z)), np.nan)


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))
