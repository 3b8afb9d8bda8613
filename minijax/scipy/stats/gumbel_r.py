"""The right-skewed Gumbel distribution (of maxima): cdf exp(-exp(-z)), z = (x - loc)/scale.
Non-positive ``scale`` gives NaN.

Written term by term as JAX's (its order of operations and ``lax_const`` constants), so values
and weak types match bit for bit."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.nn import log1mexp
from minijax.numpy._util import lax_const
from minijax.scipy.special import xlogy
from minijax.scipy.stats._common import promote


def _scale_ok(scale):
    return lax.gt(scale, lax_const(scale, 0))


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_pdf = lax.add(xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
    return jnp.where(_scale_ok(scale), log_pdf, np.nan)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.logcdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_scale_ok(scale), lax.neg(lax.exp(lax.neg(z))), np.nan)


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    p, loc, scale = promote("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, lax_const(p, 0)), lax.lt(p, lax_const(p, 1)))
    quantile = lax.sub(loc, lax.mul(scale, lax.log(xlogy(-1, p))))
    return jnp.where(ok, quantile, np.nan)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.sf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    sf_ = lax.sub(lax_const(x, 1), lax.exp(lax.neg(lax.exp(neg_z))))
    return jnp.where(_scale_ok(scale), sf_, np.nan)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.logsf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    # jax.nn.log1mexp, with its custom derivative g / expm1(x)
    return jnp.where(_scale_ok(scale), log1mexp(lax.exp(neg_z)), np.nan)
