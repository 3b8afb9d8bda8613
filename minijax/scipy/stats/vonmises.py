"""The von Mises distribution on the circle with concentration ``kappa`` (> 0, else NaN)."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.scipy.stats._common import promote


def logpdf(x, kappa):
    x, kappa = promote("vonmises.logpdf", x, kappa)
    # i0e(kappa) = exp(-kappa) I0(kappa): the normalizer without overflow for large kappa.
    log_probs = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa))
    return jnp.where(kappa > 0, log_probs, np.nan)


def pdf(x, kappa):
    return jnp.exp(logpdf(x, kappa))
