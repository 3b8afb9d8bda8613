"""The multinomial distribution: counts ``x`` (last axis) of ``n`` draws with probabilities ``p``."""

import numpy as np

from minijax import dtypes
from minijax import numpy as jnp
from minijax.numpy._util import promote_args_numeric
from minijax.scipy.special import gammaln, xlogy
from minijax.scipy.stats._common import promote


def logpmf(x, n, p):
    (p,) = promote("multinomial.logpmf", p)
    x, n = (jnp.asarray(v) for v in promote_args_numeric("multinomial.logpmf", x, n))
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    log_probs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    # As JAX: the whole of ``x`` (every batch) must sum to ``n``.
    return jnp.where(jnp.equal(jnp.sum(x), n), log_probs, -np.inf)


def pmf(x, n, p):
    return jnp.exp(logpmf(x, n, p))
