"""The chi-squared distribution with ``df`` degrees of freedom: gamma(df / 2, scale 2)."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.scipy.special import gammainc, gammaincc
from minijax.scipy.stats._common import promote, standardize

_LOG2 = float(np.log(2))


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.logpdf", x, df, loc, scale)
    y = standardize(x, loc, scale)
    half_df = df / 2
    kernel = (half_df - 1) * jnp.log(y) - y / 2
    log_probs = -(lax.lgamma(half_df) + _LOG2 * half_df) - jnp.log(scale) + kernel
    return jnp.where(x < loc, -np.inf, log_probs)


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.cdf", x, df, loc, scale)
    return gammainc(df / 2, jnp.clip((x - loc) / (scale * 2), 0, np.inf))


def logcdf(x, df, loc=0, scale=1):
    return jnp.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.sf", x, df, loc, scale)
    return gammaincc(df / 2, jnp.clip((x - loc) / (scale * 2), 0, np.inf))


def logsf(x, df, loc=0, scale=1):
    return jnp.log(sf(x, df, loc, scale))
