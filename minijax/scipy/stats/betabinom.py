"""The beta-binomial distribution: binomial trials whose success probability is Beta(a, b)."""

import numpy as np

from minijax import numpy as jnp
from minijax.numpy._eager import eager_jit
from minijax.scipy.special import betaln
from minijax.scipy.stats._common import promote


@eager_jit(inline=False)  # a jit in JAX
def logpmf(k, n, a, b, loc=0):
    k, n, a, b, loc = promote("betabinom.logpmf", k, n, a, b, loc)
    y = jnp.floor(k) - loc
    log_comb = -(jnp.log1p(n) + betaln(n - y + 1, y + 1))
    log_probs = log_comb + betaln(y + a, n - y + b) - betaln(a, b)
    log_probs = jnp.where((y == 0) & (n == 0), 0.0, log_probs)
    # JAX's support test (y < -loc, not y < 0) is kept so results match it exactly.
    log_probs = jnp.where((y < -loc) | (y > n) | (y + a <= 0), -np.inf, log_probs)
    return jnp.where((n < 0) | (a <= 0) | (b <= 0), np.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    return jnp.exp(logpmf(k, n, a, b, loc))
