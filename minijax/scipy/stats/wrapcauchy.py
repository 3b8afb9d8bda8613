"""The wrapped Cauchy distribution on [0, 2 pi] with shape ``c`` in (0, 1) (else NaN)."""

import numpy as np

from minijax import numpy as jnp
from minijax.scipy.stats._common import promote


def logpdf(x, c):
    x, c = promote("wrapcauchy.logpdf", x, c)
    log_probs = (jnp.log(1 - c * c) - jnp.log(2 * np.pi)
                 - jnp.log(1 + c * c - 2 * c * jnp.cos(x)))
    inside = jnp.where((x >= 0) & (x <= 2 * np.pi), log_probs, -np.inf)
    return jnp.where((c > 0) & (c < 1), inside, np.nan)


def pdf(x, c):
    return jnp.exp(logpdf(x, c))
