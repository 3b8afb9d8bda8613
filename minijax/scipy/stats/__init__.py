"""``jax.scipy.stats``: one module per distribution, as in JAX (``stats.norm.logpdf`` ...)."""

from minijax.scipy.stats import (  # noqa: F401
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
from minijax.scipy.stats._core import mode, rankdata, sem  # noqa: F401
from minijax.scipy.stats._kde import gaussian_kde  # noqa: F401
