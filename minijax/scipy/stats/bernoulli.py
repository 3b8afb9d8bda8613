"""The Bernoulli distribution: 1 with probability ``p``."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._util import lax_const
from minijax.scipy.special import xlog1py, xlogy
from minijax.scipy.stats._common import promote


def logpmf(k, p, loc=0):
    k, p, loc = promote("bernoulli.logpmf", k, p, loc)
    # JAX's lax._const of k: strong unless k is a weak scalar.
    zero, one = lax_const(k, 0), lax_const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, p) + xlog1py(lax.sub(one, x), -p)
    return jnp.where(lax.lt(x, zero) | lax.gt(x, one), -np.inf, log_probs)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    k, p = promote("bernoulli.cdf", k, p)
    # JAX's zero and one are lax._const of k: strong unless k is a weak scalar, so a weak k
    # array (an integer k beside a Python float p) gives a strong result.
    zero, one = lax_const(k, 0), lax_const(k, 1)
    invalid = jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one)
    return jnp.select([invalid, k < zero, (k >= zero) & (k < one), k >= one],
                      [np.nan, zero, one - p, one])


def ppf(q, p):
    q, p = promote("bernoulli.ppf", q, p)
    zero, one = lax_const(q, 0), lax_const(q, 1)  # weak for a Python-scalar q, as JAX's
    invalid = jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return jnp.where(invalid, np.nan, jnp.where(lax.le(q, one - p), zero, one))
