"""The geometric distribution: trials up to the first success (support k >= 1)."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.special import xlog1py
from minijax.scipy.stats._common import promote


def logpmf(k, p, loc=0):
    k, p, loc = promote("geom.logpmf", k, p, loc)
    x = k - loc
    return jnp.where(x <= 0, -np.inf, xlog1py(x - 1, -p) + jnp.log(p))


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
