"""The Dirichlet distribution; the components of ``x`` run along its first axis."""

import numpy as np

from minijax import numpy as jnp
from minijax.numpy._util import promote_dtypes_inexact
from minijax.scipy.special import gammaln, xlogy


def _is_simplex(x):
    return jnp.all(x > 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1) < 1e-6)


def logpdf(x, alpha):
    """``x`` may omit its last component (it is then 1 - sum of the others)."""
    x, alpha = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(alpha))
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                         f"entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, 1 - jnp.sum(x, 0, keepdims=True)], axis=0)
    normalizer = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    alpha = jnp.reshape(alpha, alpha.shape + (1,) * (x.ndim - 1))
    log_probs = jnp.sum(xlogy(alpha - 1, x), axis=0) - normalizer
    return jnp.where(_is_simplex(x), log_probs, -np.inf)


def pdf(x, alpha):
    return jnp.exp(logpdf(x, alpha))
