"""The right-skewed Gumbel distribution (of maxima): cdf exp(-exp(-z)), z = (x - loc)/scale.
Non-positive ``scale`` gives NaN."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.special import xlogy
from minijax.scipy.stats._common import promote, standardize

_LOG_2 = float(np.log(2.0))


def _log1mexp(x):
    """log(1 - exp(-x)) for x >= 0: expm1 near 0, log1p beyond log 2 (Maechler's split)."""
    return jnp.where(x < _LOG_2, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(scale > 0, xlogy(-1, scale) - (z + jnp.exp(-z)), np.nan)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.logcdf", x, loc, scale)
    return jnp.where(scale > 0, -jnp.exp(-standardize(x, loc, scale)), np.nan)


def cdf(x, loc=0, scale=1):
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    p, loc, scale = promote("gumbel_r.ppf", p, loc, scale)
    quantile = loc - scale * jnp.log(xlogy(-1, p))
    return jnp.where((p > 0) & (p < 1), quantile, np.nan)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.sf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(scale > 0, 1 - jnp.exp(-jnp.exp(neg_z)), np.nan)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.logsf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(scale > 0, _log1mexp(jnp.exp(neg_z)), np.nan)
