"""minijax.random's compound and count samplers (pareto ... multinomial): JAX's samples bit for
bit (``tests/data/jax_random_distributions.json``, recorded from jax 0.10.2 on CPU by
``tests/data/record_jax_random_distributions.py``), goodness of fit against scipy.stats at
fixed keys (bounds a correct sampler fails with probability about 1e-5 per test; the keys are
fixed, so the tests are deterministic), shapes, dtypes and JAX's errors.
"""

import json
import os

import numpy as np
import pytest
import scipy.stats

import minijax
import minijax.numpy as jnp
from minijax import dtypes, random
from minijax.config import config_context

_DATA = os.path.join(os.path.dirname(__file__), "data", "jax_random_distributions.json")
with open(_DATA) as fh:
    CASES = json.load(fh)["cases"]

ON_CPU = minijax.default_backend() == "cpu"

# XLA fuses minijax's program for these differently from JAX's (maxwell's 3-term norm after
# erf_inv, complex normal's two halves), which moves a few results by one ulp.
ULP_CASES = {"random.double_sided_maxwell(k, 1.0, 2.0, (4,))",
             "random.double_sided_maxwell(k, jnp.zeros(2), 1.0)",
             "random.lognormal(k, shape=(3,), dtype=jnp.complex64)"}


def _expected(case):
    return np.frombuffer(bytes.fromhex(case["hex"]), dtype=case["dtype"]).reshape(case["shape"])


def _run(case, jit):
    with config_context("jax_enable_x64", case["x64"]):
        k = random.key(case["seed"]) if case["typed"] else random.PRNGKey(case["seed"])
        fn = lambda k: eval(case["expr"], dict(random=random, jnp=jnp, np=np, k=k))  # noqa: E731
        return np.asarray(minijax.jit(fn)(k) if jit else fn(k))


def _assert_matches(case, got):
    want = _expected(case)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    elif not ON_CPU:
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5)
    elif case["expr"] in ULP_CASES:
        for part in (np.real, np.imag):
            np.testing.assert_array_max_ulp(part(got), part(want), maxulp=4)
    else:
        np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("case", CASES, ids=[c["expr"] for c in CASES])
def test_jax_samples_eager(case):
    _assert_matches(case, _run(case, jit=False))


@pytest.mark.parametrize("case", CASES[::4], ids=[c["expr"] for c in CASES[::4]])
def test_jax_samples_jit(case):
    _assert_matches(case, _run(case, jit=True))


# ------------------------------------------------------------------------------------------------
# Goodness of fit

N = 4000
P_MIN = 1e-5


def _ks(samples, dist):
    samples = np.asarray(samples, np.float64).ravel()
    assert np.all(np.isfinite(samples))
    assert scipy.stats.kstest(samples, dist.cdf).pvalue > P_MIN


CONTINUOUS = [
    ("pareto", lambda k: random.pareto(k, 3.0, (N,)), scipy.stats.pareto(3.0)),
    ("t", lambda k: random.t(k, 4.0, (N,)), scipy.stats.t(4.0)),
    ("chisquare", lambda k: random.chisquare(k, 3.0, (N,)), scipy.stats.chi2(3.0)),
    ("f", lambda k: random.f(k, 3.0, 5.0, (N,)), scipy.stats.f(3.0, 5.0)),
    ("maxwell", lambda k: random.maxwell(k, (N,)), scipy.stats.maxwell()),
    ("weibull_min", lambda k: random.weibull_min(k, 2.0, 1.5, (N,)),
     scipy.stats.weibull_min(1.5, scale=2.0)),
    ("generalized_normal", lambda k: random.generalized_normal(k, 1.5, (N,)),
     scipy.stats.gennorm(1.5)),
    ("rayleigh", lambda k: random.rayleigh(k, 2.0, (N,)), scipy.stats.rayleigh(scale=2.0)),
    ("wald", lambda k: random.wald(k, 1.5, (N,)), scipy.stats.invgauss(1.5)),
    ("triangular", lambda k: random.triangular(k, 0.0, 0.3, 1.0, (N,)),
     scipy.stats.triang(0.3)),
    ("lognormal", lambda k: random.lognormal(k, 0.5, (N,)), scipy.stats.lognorm(0.5)),
]


@pytest.mark.parametrize("name,sample,dist", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_fits_scipy(name, sample, dist):
    _ks(sample(random.key(100)), dist)


def test_double_sided_maxwell_fits_scipy():
    x = np.asarray(random.double_sided_maxwell(random.key(101), 1.0, 2.0, (N,)))
    _ks(np.abs(x - 1.0) / 2.0, scipy.stats.maxwell())
    assert scipy.stats.binomtest(int(np.sum(x > 1.0)), N).pvalue > P_MIN  # symmetric


def test_ball_is_uniform_in_the_ball():
    d = 3
    x = np.asarray(random.ball(random.key(102), d, 2, (N,)), np.float64)
    assert x.shape == (N, d)
    r = np.linalg.norm(x, axis=-1)
    assert np.all(r <= 1)
    _ks(r ** d, scipy.stats.uniform())  # P(|x| <= r) = r**d
    u = x / r[:, None]  # directions uniform on the sphere: each coordinate uniform in [-1, 1]
    _ks(u[:, 0], scipy.stats.uniform(-1, 2))
    x1 = np.asarray(random.ball(random.key(103), 2, 1.0, (N,)), np.float64)
    assert np.all(np.abs(x1).sum(-1) <= 1)


def _chi2_counts(samples, pmf, support):
    """Pearson's test over ``support`` with the tails lumped into the end bins."""
    samples = np.asarray(samples).ravel()
    assert np.all(samples == np.floor(samples))
    lo, hi = support
    observed = np.array([np.sum(samples <= lo)]
                        + [np.sum(samples == v) for v in range(lo + 1, hi)]
                        + [np.sum(samples >= hi)])
    p = np.array([pmf.cdf(lo)] + [pmf.pmf(v) for v in range(lo + 1, hi)] + [pmf.sf(hi - 1)])
    assert scipy.stats.chisquare(observed, p * samples.size).pvalue > P_MIN


DISCRETE = [
    ("geometric", lambda k: random.geometric(k, 0.3, (N,)), scipy.stats.geom(0.3), (1, 12)),
    ("poisson_knuth", lambda k: random.poisson(k, 3.0, (N,)), scipy.stats.poisson(3.0),
     (0, 9)),
    ("poisson_rejection", lambda k: random.poisson(k, 25.0, (N,)), scipy.stats.poisson(25.0),
     (15, 36)),
    ("binomial_inversion", lambda k: random.binomial(k, 10, 0.3, (N,)),
     scipy.stats.binom(10, 0.3), (0, 7)),
    ("binomial_btrs", lambda k: random.binomial(k, 100, 0.6, (N,)),
     scipy.stats.binom(100, 0.6), (50, 71)),
]


@pytest.mark.parametrize("name,sample,dist,support", DISCRETE, ids=[c[0] for c in DISCRETE])
def test_discrete_fits_scipy(name, sample, dist, support):
    _chi2_counts(sample(random.key(104)), dist, support)


def test_multinomial_marginals_and_totals():
    p = np.array([0.2, 0.3, 0.5])
    x = np.asarray(random.multinomial(random.key(105), 20.0, jnp.asarray(p), shape=(N, 3)))
    assert x.shape == (N, 3) and x.dtype == np.float32
    np.testing.assert_array_equal(x.sum(-1), 20.0)
    for i in range(3):
        _chi2_counts(x[:, i], scipy.stats.binom(20, p[i]), (1, 14))


# ------------------------------------------------------------------------------------------------
# Shapes, dtypes, special values, transformations


def test_default_shapes_and_dtypes():
    k = random.key(0)
    assert random.pareto(k, jnp.ones((2, 3))).shape == (2, 3)
    assert random.t(k, jnp.ones(3), (2, 3)).shape == (2, 3)
    with pytest.raises(TypeError):  # lax.div of ranks 1 and 2, as in JAX
        random.f(k, jnp.ones(3), jnp.ones((2, 1)))
    assert random.maxwell(k).shape == ()
    assert random.ball(k, 4).shape == (4,)
    assert random.lognormal(k).shape == ()
    assert random.geometric(k, 0.5).dtype == np.int32
    assert random.poisson(k, 2.0).dtype == np.int32
    assert random.poisson(k, 2.0, dtype=np.uint8).dtype == np.uint8
    assert random.binomial(k, 5, 0.5).dtype == np.float32
    assert random.t(k, 2.0, dtype=jnp.bfloat16).dtype == jnp.bfloat16
    assert random.multinomial(k, 5, jnp.array([0.5, 0.5])).dtype == np.float32
    assert random.multinomial(k, 5, jnp.array([0.5, 0.5]), dtype=np.int32).dtype == np.int32


def test_double_sided_maxwell_appends_parameter_shape():
    k = random.key(0)
    assert random.double_sided_maxwell(k, jnp.zeros(2), 1.0).shape == (2, 2)
    assert random.double_sided_maxwell(k, jnp.zeros(2), 1.0, (3,)).shape == (3, 2)
    assert random.double_sided_maxwell(k, 0.0, 1.0, (3,)).shape == (3,)


def test_special_parameter_values():
    k = random.key(1)
    np.testing.assert_array_equal(random.poisson(k, jnp.zeros(4)), 0)
    b = np.asarray(random.binomial(k, jnp.array([-1.0, np.nan, np.inf, 5.0, 5.0]),
                                   jnp.array([0.5, 0.5, 0.5, np.nan, 1.0])))
    assert np.isnan(b[0]) and np.isnan(b[1]) and b[2] == np.inf and np.isnan(b[3])
    assert b[4] == 5.0
    assert np.all(np.asarray(random.geometric(k, 1.0, (5,))) == 1)


def test_vmap_over_keys_matches_a_loop():
    keys = random.split(random.key(2), 3)
    for fn in (lambda k: random.t(k, 3.0, (2,)), lambda k: random.poisson(k, 4.0, (2,)),
               lambda k: random.binomial(k, 30.0, 0.5, (2,))):
        np.testing.assert_array_equal(minijax.vmap(fn)(keys),
                                      np.stack([fn(keys[i]) for i in range(3)]))


def test_traced_parameters():
    k = random.key(3)
    want = random.pareto(k, jnp.float32(2.5), (3,))
    np.testing.assert_array_equal(minijax.jit(lambda b: random.pareto(k, b, (3,)))(2.5), want)
    got = minijax.jit(lambda p: random.generalized_normal(k, p, (3,)))(jnp.float32(1.5))
    np.testing.assert_allclose(got, random.generalized_normal(k, 1.5, (3,)), rtol=1e-6)


def test_ball_dimension_must_be_static():
    with pytest.raises(Exception, match="ball"):
        minijax.jit(lambda d: random.ball(random.key(0), d))(3)


def test_errors_as_jax():
    k = random.key(0)
    with pytest.raises(ValueError, match="dtype argument to `pareto` must be a float dtype"):
        random.pareto(k, 2.0, dtype=np.int32)
    with pytest.raises(ValueError, match="`geometric` must be an int dtype"):
        random.geometric(k, 0.5, dtype=np.float32)
    with pytest.raises(ValueError, match="`lognormal` must be a float or complex dtype"):
        random.lognormal(k, dtype=np.int32)
    with pytest.raises(dtypes.TypePromotionError, match="cannot safely cast"):
        random.pareto(k, jnp.float32(2.0), dtype=jnp.float16)
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                                         r"shapes=\[\(2,\), \(3,\)\]"):
        random.rayleigh(k, jnp.ones(3), (2,))
    with pytest.raises(ValueError, match=r"broadcast-compatible .* but got result \(3, 3\) for "
                                         r"shape argument \(3,\)"):
        random.rayleigh(k, jnp.ones((3, 1)), (3,))
    with pytest.raises(TypeError):
        random.geometric(k, [0.5, 0.5])
    with pytest.raises(TypeError, match="single key"):
        random.t(random.split(k), 2.0)


def test_bernoulli_high_mode_and_x64_default_p():
    k = random.key(4)
    # p far below float32 resolution: 'low' can never fire, 'high' does about p * n times
    p = 1e-8
    low = random.bernoulli(k, jnp.float32(p), (4,), mode="low")
    assert not np.any(np.asarray(low))
    u1, u2 = (np.asarray(a, np.float64) for a in random.uniform(k, (2, 4), jnp.float32))
    want = u2 * 2.0 ** -23 < np.float32(p) - u1
    np.testing.assert_array_equal(random.bernoulli(k, jnp.float32(p), (4,), mode="high"), want)
    with pytest.raises(ValueError, match="expected 'high' or 'low'"):
        random.bernoulli(k, 0.5, mode="mid")
    with config_context("jax_enable_x64", True):
        # JAX's default p is the Python float 0.5: float64 uniforms under x64
        np.testing.assert_array_equal(
            random.bernoulli(k, shape=(8,)),
            random.uniform(k, (8,), jnp.float64) < 0.5)


def test_key_dtype():
    assert random.key_dtype() == random.key(0).dtype
    assert str(random.key_dtype("threefry2x32")) == "key<fry>"
    assert str(random.key_dtype("rbg")) == "key<rbg>"  # as JAX 0.10.2
    with pytest.raises(ValueError, match="unrecognized PRNG implementation"):
        random.key_dtype("threefry")
