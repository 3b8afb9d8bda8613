"""The Pareto distribution of shape ``b``: density b / y**(b + 1) for y = (x - loc)/scale >= 1.

Written term by term as JAX's (``lax_const`` constants: a weak array ``x`` gives a strong
result where JAX's does)."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.stats._common import promote


def _scaled(x, loc, scale):
    return lax.div(lax.sub(x, loc), scale)


def _below_support(x, loc, scale):
    return lax.lt(x, lax.add(loc, scale))


def logpdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.logpdf", x, b, loc, scale)
    one = lax_const(x, 1)
    normalize_term = lax.log(lax.div(scale, b))
    log_probs = lax.neg(
        lax.add(normalize_term, lax.mul(lax.add(b, one), lax.log(_scaled(x, loc, scale)))))
    return jnp.where(_below_support(x, loc, scale), -np.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
    return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.cdf", x, b, loc, scale)
    one, zero = lax_const(x, 1), lax_const(x, 0)
    cdf_ = lax.sub(one, lax.pow(_scaled(x, loc, scale), lax.neg(b)))
    return jnp.where(_below_support(x, loc, scale), zero, cdf_)


def logcdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.logcdf", x, b, loc, scale)
    logcdf_ = lax.log1p(lax.neg(lax.pow(_scaled(x, loc, scale), lax.neg(b))))
    return jnp.where(_below_support(x, loc, scale), -np.inf, logcdf_)


def logsf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.logsf", x, b, loc, scale)
    zero = lax_const(x, 0)
    logsf_ = lax.neg(lax.mul(b, lax.log(_scaled(x, loc, scale))))
    return jnp.where(_below_support(x, loc, scale), zero, logsf_)


def sf(x, b, loc=0, scale=1):
    return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    q, b, loc, scale = promote("pareto.ppf", q, b, loc, scale)
    one = lax_const(q, 1)
    quantile = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, quantile)
