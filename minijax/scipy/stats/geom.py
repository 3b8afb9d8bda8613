"""The geometric distribution: trials up to the first success (support k >= 1).

Written term by term as JAX's (``lax_const`` constants: a weak array ``k`` gives a strong
result)."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.special import xlog1py
from minijax.scipy.stats._common import promote


def logpmf(k, p, loc=0):
    k, p, loc = promote("geom.logpmf", k, p, loc)
    zero, one = lax_const(k, 0), lax_const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlog1py(lax.sub(x, one), -p) + lax.log(p)
    return jnp.where(lax.le(x, zero), -np.inf, log_probs)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
