"""The beta-binomial distribution: binomial trials whose success probability is Beta(a, b).

The formula follows JAX's term by term (its ``lax._const`` constants and order of operations),
so weak types and values match it exactly."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import lax_const
from minijax.scipy.special import betaln
from minijax.scipy.stats._common import promote


@eager_jit(inline=False)  # a jit in JAX
def logpmf(k, n, a, b, loc=0):
    k, n, a, b, loc = promote("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = lax_const(y, 1), lax_const(y, 0)
    combiln = lax.neg(lax.add(lax.log1p(n),
                              betaln(lax.add(lax.sub(n, y), one), lax.add(y, one))))
    beta_lns = lax.sub(betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)), betaln(a, b))
    log_probs = lax.add(combiln, beta_lns)
    log_probs = jnp.where(lax.eq(y, zero) & lax.eq(n, zero), 0.0, log_probs)
    # JAX's support test (y < -loc, not y < 0) is kept so results match it exactly.
    y_cond = lax.lt(y, lax.neg(loc)) | lax.gt(y, n) | lax.le(lax.add(y, a), zero)
    log_probs = jnp.where(y_cond, -np.inf, log_probs)
    return jnp.where(lax.lt(n, zero) | lax.le(a, zero) | lax.le(b, zero), np.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    return lax.exp(logpmf(k, n, a, b, loc))
