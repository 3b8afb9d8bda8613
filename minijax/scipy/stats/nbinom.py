"""The negative binomial distribution: failures before the ``n``-th success of probability ``p``.

Written term by term as JAX's (its grouping of the log terms and ``lax_const`` constants), so
values and weak types match bit for bit."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.special import gammaln, xlogy
from minijax.scipy.stats._common import promote


def logpmf(k, n, p, loc=0):
    k, n, p, loc = promote("nbinom.logpmf", k, n, p, loc)
    one = lax_const(k, 1)
    y = lax.sub(k, loc)
    comb_term = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
    log_linear_term = lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p)))
    log_probs = lax.add(comb_term, log_linear_term)
    return jnp.where(lax.lt(k, loc), -np.inf, log_probs)


def pmf(k, n, p, loc=0):
    return lax.exp(logpmf(k, n, p, loc))
