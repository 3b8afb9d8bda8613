"""The negative binomial distribution: failures before the ``n``-th success of probability ``p``."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.special import gammaln, xlogy
from minijax.scipy.stats._common import promote


def logpmf(k, n, p, loc=0):
    k, n, p, loc = promote("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    log_comb = gammaln(y + n) - gammaln(n) - gammaln(y + 1)
    log_probs = log_comb + xlogy(n, p) + xlogy(y, 1 - p)
    return jnp.where(k < loc, -np.inf, log_probs)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
