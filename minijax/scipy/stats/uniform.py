"""The uniform distribution on [loc, loc + scale]."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.stats._common import promote


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("uniform.logpdf", x, loc, scale)
    return jnp.where((x > loc + scale) | (x < loc), -np.inf, -jnp.log(scale))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("uniform.cdf", x, loc, scale)
    # JAX's zero and one are jnp.array(0/1, x.dtype): strong, so the result is strong for a
    # weak x (a Python scalar too)
    zero, one = jnp.array(0, x.dtype), jnp.array(1, x.dtype)
    return jnp.select([x < loc, x > loc + scale, (x >= loc) & (x <= loc + scale)],
                      [zero, one, (x - loc) / scale])


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc + scale * q)
