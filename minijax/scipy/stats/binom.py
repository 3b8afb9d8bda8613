"""The binomial distribution: successes in ``n`` trials of probability ``p``."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.special import gammaln, xlog1py, xlogy
from minijax.scipy.stats._common import promote


def logpmf(k, n, p, loc=0):
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb = gammaln(n + 1) - (gammaln(y + 1) + gammaln(n - y + 1))
    linear = xlogy(y, p) + xlog1py(n - y, -p)
    # A certain outcome (n = 0, or p at 0 or 1 with y at the matching end) has log 1 exactly.
    log_probs = jnp.where(((y == 0) & (n == 0)) | (linear == 0), 0.0, comb + linear)
    return jnp.where((k >= loc) & (k < loc + n + 1), log_probs, -np.inf)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
