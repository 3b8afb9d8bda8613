"""The chi-squared distribution with ``df`` degrees of freedom: gamma(df / 2, scale 2).

The formulas follow JAX's term by term (its ``lax._const`` constants, strong unless the example
is a weak scalar, and its order of operations), so weak types and values match it exactly."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.special import gammainc, gammaincc
from minijax.scipy.stats._common import promote


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.logpdf", x, df, loc, scale)
    one, two = lax_const(x, 1), lax_const(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    df_on_two = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(df_on_two, one), lax.log(y)), lax.div(y, two))
    nrml_cnst = lax.neg(lax.add(lax.lgamma(df_on_two), lax.div(lax.mul(lax.log(two), df), two)))
    log_probs = lax.add(lax.sub(nrml_cnst, lax.log(scale)), kernel)
    return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x, df, loc=0, scale=1):
    return lax.exp(logpdf(x, df, loc, scale))


def _half_df_and_y(x, df, loc, scale):
    """JAX's gammainc arguments: ``df / 2`` and ``(x - loc) / (2 scale)`` clamped to [0, inf]."""
    two = lax_const(scale, 2)
    y = lax.div(lax.sub(x, loc), lax.mul(scale, two))
    return lax.div(df, two), lax.clamp(lax_const(x, 0), y, lax_const(x, np.inf))


def cdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.cdf", x, df, loc, scale)
    return gammainc(*_half_df_and_y(x, df, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    return lax.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.sf", x, df, loc, scale)
    return gammaincc(*_half_df_and_y(x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
    return lax.log(sf(x, df, loc, scale))
