"""The cases of tests/test_fidelity_r22_h.py, shared with its recorder (no jax import here)."""

# The variate's and a parameter's special values (those of tools/difftest/sweep_scipy.py).
X = ("jnp.asarray([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.25, 0.9, 2.0, -2.5, 5.0, 10.0, 30.0, 100.0,"
     " 1e-30, -1e-30, 1e-40, 1e30, -1e30, 3.4e38, -3.4e38, np.inf, -np.inf, np.nan], jnp.float32)")
P = ("jnp.asarray([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, 7.0, 1e-30, 1e30, np.inf, -np.inf, np.nan],"
     " jnp.float32)")
XC, PR = X + "[:, None]", P + "[None, :]"
G = "jnp.asarray([0.3, 0.5, 0.9, 1.5, 2.0, 3.0, 7.5, 0.0, -0.7, 1e-30, 30.0, np.inf, np.nan], jnp.float32)"
# The 1-D operands are all 13 long, as G, so cases share their eager ops' executables (each
# shape of each op compiles once): the lengths are not what is checked.
INTS = "jnp.asarray([0, 1, 2, -1, 5, 30, 3, 4, 7, 10, -2, 100, 6])"
BOOLS = "jnp.asarray(np.arange(13) % 3 == 0)"
F16 = "jnp.asarray([0.0, 0.5, 0.9, 2.0, 5.0, 1e30, np.inf, np.nan], jnp.{})"


def _grad(f, n):
    """vmap(grad) of ``f`` w.r.t. x and its first parameter at G, the other parameters fixed."""
    return f"jax.vmap(jax.grad({f}, argnums=(0, 1)), (0,) + (None,) * {n})({G}, " + \
        ", ".join(["jnp.float32(2.0)"] + ["jnp.float32(3.0)"] * (n - 1)) + ")"


# Each case: its source, evaluated with jax, jnp, np and stats in scope. Its result is a
# float array or a tuple of them (gradients).
CASES = [
    # JAX's formulas use lax._const (strong unless the example is a weak scalar): an int or bool
    # x array beside Python-float parameters gives a strong result, a Python scalar a weak one.
    f"stats.bernoulli.logpmf({INTS}, 0.3)",
    f"stats.bernoulli.pmf({BOOLS}, 0.3)",
    "stats.bernoulli.ppf(0.5, 0.3)",
    f"stats.bernoulli.ppf({INTS}, 0.3)",
    f"stats.beta.logpdf({INTS}, 2.0, 3.0, 0.5, 2.0)",
    f"stats.beta.cdf({BOOLS}, 2.0, 3.0)",
    "stats.beta.sf(1.5, 2.0, 3.0, 0.5, 2.0)",
    f"stats.betabinom.pmf({INTS}, 5.0, 2.0, 3.0)",
    f"stats.cauchy.logpdf({INTS}, 0.5, 2.0)",
    f"stats.cauchy.cdf({BOOLS}, 0.5, 2.0)",
    f"stats.cauchy.ppf({INTS}, 0.5, 2.0)",
    f"stats.chi2.logpdf({INTS}, 3.0)",
    f"stats.chi2.sf({INTS}, 3.0, 0.5, 2.0)",
    f"stats.gamma.pdf({INTS}, 2.0, 0.5, 2.0)",
    f"stats.gamma.cdf({BOOLS}, 2.0)",
    # Values bit for bit (JAX's order of operations), on the grids where they differed most.
    f"stats.beta.pdf({XC}, {PR}, jnp.float32(3.0), jnp.float32(0.5), jnp.float32(2.0))",
    f"stats.beta.logpdf({XC}, jnp.float32(2.0), {PR}, jnp.float32(0.5), jnp.float32(2.0))",
    # (a and b both (1, 12): the two grids share one compile of JAX's jitted logpmf)
    f"stats.betabinom.pmf({XC}, jnp.float32(5.0), jnp.full((1, 12), 2.0, jnp.float32), {PR})",
    f"stats.betabinom.pmf({XC}, jnp.float32(5.0), {PR}, jnp.full((1, 12), 3.0, jnp.float32))",
    f"stats.gamma.pdf({XC}, {PR}, jnp.float32(0.5), jnp.float32(2.0))",
    f"stats.cauchy.sf({XC}, jnp.float32(0.5), {PR})",
    f"stats.chi2.logpdf({XC}, {PR}, jnp.float32(0.5), jnp.float32(2.0))",
    # Low precision, weak parameters.
    f"stats.beta.pdf({F16.format('float16')}, 2.0, 3.0, 0.5, 2.0)",
    f"stats.beta.pdf({F16.format('bfloat16')}, 2.0, 3.0, 0.5, 2.0)",
    f"stats.betabinom.pmf({F16.format('bfloat16')}, 5.0, 2.0, 3.0)",
    f"stats.cauchy.logsf({F16.format('float16')}, 0.5, 2.0)",
    # Gradients: at x = inf JAX's lax.clamp passes no tangent (jnp.clip's would be 0.5), so the
    # cdf/sf family's gradient is 0 there, not NaN; the others are 1-2 ulp formula differences.
    _grad("stats.gamma.cdf", 3),
    _grad("stats.gamma.logcdf", 3),
    _grad("stats.chi2.cdf", 3),
    _grad("stats.chi2.logcdf", 3),
    _grad("stats.chi2.sf", 3),
    _grad("stats.chi2.logsf", 3),
    _grad("stats.chi2.logpdf", 3),
    _grad("stats.betabinom.pmf", 3),
    _grad("stats.cauchy.logcdf", 2),
    _grad("stats.cauchy.logsf", 2),
    _grad("stats.beta.pdf", 4),
]
