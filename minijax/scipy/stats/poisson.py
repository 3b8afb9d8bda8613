"""The Poisson distribution with mean ``mu``."""

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import lax_const
from minijax.scipy.special import entr, gammaincc, gammaln, xlogy
from minijax.scipy.stats._common import promote


def logpmf(k, mu, loc=0):
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    zero = lax_const(k, 0)  # JAX's lax._const: a weak array k gives a strong result
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where(lax.lt(x, zero) | lax.ne(jnp.round(k), k), -np.inf, log_probs)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    k, mu, loc = promote("poisson.cdf", k, mu, loc)
    zero = lax_const(k, 0)
    x = lax.sub(k, loc)
    return jnp.where(lax.lt(x, zero), zero, gammaincc(jnp.floor(1 + x), mu))


def _entropy_by_sum(mu, max_k, upper):
    """-sum_k pmf log pmf over k < min(max_k, upper) (each column of ``mu`` its own bound)."""
    k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = jnp.where(k < upper[None, :], pmf(k, mu, 0), 0.0)
    return jnp.sum(entr(probs), axis=0)


@eager_jit(inline=False)  # a jit in JAX
def entropy(mu, loc=0):
    """The entropy: an exact sum for mu < 100 (over enough of the support), the asymptotic
    expansion 1/2 log(2 pi e mu) - 1/(12 mu) beyond."""
    mu, loc = jnp.asarray(mu), jnp.asarray(loc)
    mu, loc = promote("poisson.entropy", mu, loc)
    shape = jnp.broadcast_shapes(jnp.shape(mu), jnp.shape(loc))
    flat = jnp.ravel(mu)
    small = _entropy_by_sum(flat, 35, jnp.ceil(flat + 20))
    medium = _entropy_by_sum(flat, 250, jnp.ceil(flat + 10 * jnp.sqrt(flat) + 20))
    large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    out = jnp.where(flat == 0, 0.0,
                    jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
    return jnp.broadcast_to(jnp.reshape(out, jnp.shape(mu)), shape)
