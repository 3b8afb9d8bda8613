"""Student's t distribution with ``df`` degrees of freedom."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.scipy.stats._common import promote, standardize


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    y = standardize(x, loc, scale)
    half_df = df / 2
    normalizer = (lax.lgamma(half_df) + jnp.log(scale * scale * np.pi * df) / 2
                  - lax.lgamma(half_df + 0.5))
    return -(normalizer + (half_df + 0.5) * jnp.log1p(y * y / df))


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))
