"""The cases of tests/test_fidelity_r22_f.py, shared with its recorder (no jax import here)."""

# Each case: its source, evaluated with jax, jnp, np, special and stats in scope.
CASES = [
    # bernoulli.cdf's zero and one are lax._const of k: a weak k array gives a strong result,
    # a weak scalar k a weak one.
    "stats.bernoulli.cdf(jnp.asarray([True, False]), 0.3)",
    "stats.bernoulli.cdf(jnp.asarray([0, 1, -1, 2]), 0.3)",
    "stats.bernoulli.cdf(0.5, 0.3)",
    "stats.bernoulli.cdf(jnp.asarray([0.5, 2.0, np.nan], jnp.float16), 0.3)",
    "jax.jit(stats.bernoulli.cdf)(jnp.asarray([0, 1, -1]), 0.3)",
    # ndtr's constants are NumPy scalars of x's dtype (strong): a weak x gives a strong result,
    # and its 1/sqrt(2) is 0.5 * sqrt(2) rounded in x's dtype. norm's cdf family goes through it.
    "special.ndtr(0.5)",
    "special.ndtr(jnp.asarray([0, 1, -3]) + 0.5)",
    "special.log_ndtr(-2.0)",
    "special.ndtr(jnp.asarray([0.0, -0.0, 0.5, -0.7, 1.5, -5.0, 10.0, np.inf, np.nan], jnp.float32))",
    "stats.norm.cdf(jnp.asarray([0, 1, -1]), 0.5, 2.0)",
    "stats.norm.logcdf(1.5, 0.5, 2.0)",
    "stats.norm.sf(jnp.asarray([True, False]), 0.5, 2.0)",
    # norm.logpdf is JAX's log(2 pi scale**2) + quadratic over -2, with lax._const constants.
    "stats.norm.logpdf(jnp.asarray([0, 1, -1]), 0.5, 2.0)",
    "stats.norm.logpdf(jnp.asarray([0.5, 1.5, -3.0, 1e30, np.inf, np.nan], jnp.float32)[:, None],"
    " 0.5, jnp.asarray([0.0, 1.0, 0.5, 2.5, 7.0, -1.0, np.inf], jnp.float32))",
    # laplace's logpdf and cdf: lax._const constants, strong for a weak array x.
    "stats.laplace.logpdf(jnp.asarray([0, 1, -1]), 0.5, 2.0)",
    "stats.laplace.cdf(jnp.asarray([0, 1, -1, 5]), 0.5, 2.0)",
    "stats.laplace.cdf(1.5, 0.5, 2.0)",
    "stats.laplace.pdf(jnp.asarray([True, False]), 0.5, 2.0)",
    # logistic.logpdf's two is lax._const; uniform.cdf's zero and one are jnp.array(., x.dtype).
    "stats.logistic.logpdf(jnp.asarray([0, 1, -1, 5]), 0.5, 2.0)",
    "stats.logistic.pdf(jnp.asarray([True, False]), 0.5, 2.0)",
    "stats.logistic.logpdf(1.5, 0.5, 2.0)",
    "stats.uniform.cdf(jnp.asarray([0, 1, -1, 5]), 0.5, 2.0)",
    "stats.uniform.cdf(1.5, 0.5, 2.0)",
]
