"""``jax.scipy.stats``: one module per distribution, as in JAX (``stats.norm.logpdf`` ...)."""

from minijax.scipy.stats import (  # noqa: F401
    bernoulli,
    beta,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    geom,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    t,
    uniform,
)
