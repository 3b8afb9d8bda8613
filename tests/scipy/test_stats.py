"""minijax.scipy.stats against scipy.stats: every function of each distribution eagerly and
under jit on hypothesis-drawn points and parameters (one fixed shape), plus edge points outside
the support; result dtypes as JAX's; gradients of the log densities by central differences."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minijax
from minijax.scipy import stats
from minijax.test_util import check_grads

N = 10


def _floats(data, lo, hi, shape=(N,), dtype=np.float32):
    lo_d, hi_d = dtype(lo), dtype(hi)
    lo_d = np.nextafter(lo_d, dtype(np.inf)) if lo_d < lo else lo_d
    hi_d = np.nextafter(hi_d, dtype(-np.inf)) if hi_d > hi else hi_d
    width = 32 if dtype == np.float32 else 64
    x = data.draw(hnp.arrays(dtype, shape, elements=st.floats(float(lo_d), float(hi_d),
                                                               width=width)))
    return np.where(np.abs(x) < 1e-30, dtype(0), x)


# name: (minijax module, scipy distribution, parameter domains, point domain, quantile funcs)
CONTINUOUS = {
    "norm": (stats.norm, ss.norm, [(-2, 2), (0.5, 3)], (-6, 6)),
    "laplace": (stats.laplace, ss.laplace, [(-2, 2), (0.5, 3)], (-6, 6)),
    "logistic": (stats.logistic, ss.logistic, [(-2, 2), (0.5, 3)], (-6, 6)),
    "cauchy": (stats.cauchy, ss.cauchy, [(-2, 2), (0.5, 3)], (-6, 6)),
    "uniform": (stats.uniform, ss.uniform, [(-2, 2), (0.5, 3)], (-3, 6)),
    "expon": (stats.expon, ss.expon, [(-2, 2), (0.5, 3)], (-3, 8)),
    "t": (stats.t, ss.t, [(0.5, 10), (-2, 2), (0.5, 3)], (-6, 6)),
    "beta": (stats.beta, ss.beta, [(0.5, 5), (0.5, 5), (-1, 1), (0.5, 3)], (-1.5, 4.5)),
    "gamma": (stats.gamma, ss.gamma, [(0.5, 6), (-1, 1), (0.5, 3)], (-1, 15)),
    "chi2": (stats.chi2, ss.chi2, [(0.5, 8), (-1, 1), (0.5, 3)], (-1, 20)),
}
_POINT_FUNCS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
_QUANTILE_FUNCS = ("ppf", "isf")


_JITTED = {}  # one jit per function, so every example reuses its compiled program


def _jit(fn):
    if fn not in _JITTED:
        _JITTED[fn] = minijax.jit(fn)
    return _JITTED[fn]


def _compare(fn, ref, args, rtol=2e-4, atol=2e-6, dtype=np.float32):
    expected = ref(*[np.asarray(a, np.float64) for a in args])
    for out in (fn(*args), _jit(fn)(*args)):
        assert out.dtype == dtype, out.dtype
        np.testing.assert_allclose(np.asarray(out, np.float64), expected, rtol=rtol, atol=atol,
                                   equal_nan=True)


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
@given(data=st.data())
def test_continuous(name, data):
    mod, dist, param_domains, (lo, hi) = CONTINUOUS[name]
    params = [_floats(data, a, b) for a, b in param_domains]
    x = _floats(data, lo, hi)
    # Not within float32 noise of the support's edge (x == loc): there a density with a pole
    # or a CDF that underflows says nothing about the code.
    loc = params[-2]
    x = np.where(np.abs(x - loc) < 1e-3, x + np.float32(0.01), x).astype(np.float32)
    for f in _POINT_FUNCS:
        if hasattr(mod, f):
            # log densities far in the tails are large: compare them relatively
            _compare(getattr(mod, f), getattr(dist, f), (x, *params), atol=1e-5)
    q = _floats(data, 0.01, 0.99)
    for f in _QUANTILE_FUNCS:
        if hasattr(mod, f):
            _compare(getattr(mod, f), getattr(dist, f), (q, *params), rtol=1e-3, atol=1e-4)


def test_functions_match_jax():
    """Each module has exactly the functions jax.scipy.stats 0.10.2's has."""
    expected = {
        "norm": "cdf isf logcdf logpdf logsf pdf ppf sf", "t": "logpdf pdf",
        "beta": "cdf logcdf logpdf logsf pdf sf", "gamma": "cdf logcdf logpdf logsf pdf sf",
        "chi2": "cdf logcdf logpdf logsf pdf sf", "expon": "cdf logcdf logpdf logsf pdf ppf sf",
        "laplace": "cdf logpdf pdf", "logistic": "cdf isf logpdf pdf ppf sf",
        "cauchy": "cdf isf logcdf logpdf logsf pdf ppf sf", "uniform": "cdf logpdf pdf ppf",
        "bernoulli": "cdf logpmf pmf ppf", "poisson": "cdf entropy logpmf pmf",
        "binom": "logpmf pmf", "geom": "logpmf pmf", "multivariate_normal": "logpdf pdf",
        "dirichlet": "logpdf pdf",
    }
    for name, funcs in expected.items():
        mod = getattr(stats, name)
        have = {f for f in dir(mod) if not f.startswith("_") and callable(getattr(mod, f))
                and getattr(getattr(mod, f), "__module__", "") == mod.__name__}
        assert have == set(funcs.split()), (name, have)


def test_edges_outside_support():
    x = np.array([-1.0, 0.0, 1.0, 2.0], np.float32)
    np.testing.assert_array_equal(stats.beta.logpdf(x, 2.0, 3.0)[np.array([0, 3])],
                                  [-np.inf, -np.inf])  # (a list index is JAX's TypeError)
    np.testing.assert_array_equal(stats.gamma.logpdf(x, 2.0)[0], -np.inf)
    np.testing.assert_allclose(stats.uniform.cdf(x, 0.0, 1.5), ss.uniform.cdf(x, 0.0, 1.5), rtol=1e-6)
    assert np.isnan(stats.beta.logpdf(0.5, -1.0, 2.0))
    np.testing.assert_allclose(stats.gamma.sf(x, 2.0), ss.gamma.sf(x, 2.0), rtol=1e-5)
    np.testing.assert_allclose(stats.expon.ppf(np.array([-0.1, 0.0, 1.0, 1.1]), 0.0, 2.0),
                               ss.expon.ppf([-0.1, 0.0, 1.0, 1.1], 0.0, 2.0))
    # integers become the default float, as in JAX
    assert stats.norm.logpdf(1).dtype == np.float32
    assert stats.poisson.logpmf(np.arange(3), 2).dtype == np.float32


@given(data=st.data())
def test_discrete(data):
    k = data.draw(hnp.arrays(np.float32, (N,), elements=st.integers(-2, 12).map(float)))
    p = _floats(data, 0.05, 0.95)
    mu = _floats(data, 0.1, 8)
    n = data.draw(hnp.arrays(np.float32, (N,), elements=st.integers(0, 10).map(float)))
    cases = [
        (stats.bernoulli.logpmf, ss.bernoulli.logpmf, (k, p)),
        (stats.bernoulli.pmf, ss.bernoulli.pmf, (k, p)),
        (stats.bernoulli.cdf, ss.bernoulli.cdf, (k, p)),
        (stats.bernoulli.ppf, ss.bernoulli.ppf, (p, mu / 8)),
        (stats.poisson.logpmf, ss.poisson.logpmf, (k, mu)),
        (stats.poisson.pmf, ss.poisson.pmf, (k, mu)),
        (stats.poisson.cdf, ss.poisson.cdf, (k, mu)),
        (stats.binom.logpmf, ss.binom.logpmf, (k, n, p)),
        (stats.binom.pmf, ss.binom.pmf, (k, n, p)),
        (stats.geom.logpmf, ss.geom.logpmf, (k, p)),
        (stats.geom.pmf, ss.geom.pmf, (k, p)),
    ]
    for fn, ref, args in cases:
        _compare(fn, ref, args, atol=1e-5)


def test_discrete_edges():
    np.testing.assert_array_equal(stats.binom.logpmf(np.array([0.0, 3.0]), 3.0, 0.0), [0.0, -np.inf])
    np.testing.assert_array_equal(stats.binom.logpmf(np.array([0.0, 3.0]), 3.0, 1.0), [-np.inf, 0.0])
    np.testing.assert_array_equal(stats.poisson.logpmf(1.5, 2.0), -np.inf)  # not an integer
    assert np.isnan(stats.bernoulli.cdf(0.5, 1.5))
    mu = np.array([0.0, 0.5, 5.0, 30.0, 150.0], np.float32)
    np.testing.assert_allclose(stats.poisson.entropy(mu), ss.poisson.entropy(mu), rtol=1e-4)


@given(data=st.data())
def test_multivariate_normal(data):
    x = _floats(data, -3, 3, shape=(4, 3))
    mean = _floats(data, -1, 1, shape=(3,))
    a = _floats(data, -1, 1, shape=(3, 3))
    cov = (a @ a.T + np.eye(3, dtype=np.float32)).astype(np.float32)
    _compare(stats.multivariate_normal.logpdf, ss.multivariate_normal.logpdf, (x, mean, cov),
             rtol=1e-4, atol=1e-4)
    _compare(stats.multivariate_normal.pdf, ss.multivariate_normal.pdf, (x, mean, cov),
             rtol=1e-4, atol=1e-6)
    _compare(lambda x, m: stats.multivariate_normal.logpdf(x, m, 2.0),
             lambda x, m: ss.multivariate_normal.logpdf(x, m, 2.0), (x, mean), rtol=1e-4)
    _compare(lambda x: stats.multivariate_normal.logpdf(x, 0.5, 2.0),
             lambda x: ss.norm.logpdf(x, 0.5, np.sqrt(2.0)), (x[:, 0],), rtol=1e-4)
    with pytest.raises(ValueError, match="incompatible shapes"):
        stats.multivariate_normal.logpdf(x, mean, np.eye(2))


@given(data=st.data())
def test_dirichlet(data):
    alpha = _floats(data, 0.5, 4, shape=(3,))
    raw = _floats(data, 0.05, 1, shape=(3, 5)).astype(np.float64)
    x = (raw / raw.sum(0)).astype(np.float32)
    ref_x = x.astype(np.float64) / x.astype(np.float64).sum(0)  # scipy insists on a simplex
    for fn, ref in ((stats.dirichlet.logpdf, ss.dirichlet.logpdf),
                    (stats.dirichlet.pdf, ss.dirichlet.pdf)):
        expected = ref(ref_x, alpha.astype(np.float64))
        for out in (fn(x, alpha), _jit(fn)(x, alpha)):
            assert out.dtype == np.float32
            # x is normalized in float32 here and in float64 for scipy: a few ulps of x apart
            np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-6)
    # the last component may be left out
    np.testing.assert_allclose(stats.dirichlet.logpdf(x[:2], alpha), ss.dirichlet.logpdf(
        ref_x, alpha.astype(np.float64)), rtol=2e-4)
    assert stats.dirichlet.logpdf(np.array([0.5, 0.6, 0.1], np.float32), alpha) == -np.inf


@pytest.mark.usefixtures("x64")
def test_float64():
    x = np.linspace(-3, 3, 7)
    out = stats.norm.logcdf(x, 0.5, 2.0)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, ss.norm.logcdf(x, 0.5, 2.0), rtol=1e-12)
    np.testing.assert_allclose(stats.gamma.cdf(x + 3, 2.5, 0.0, 1.5),
                               ss.gamma.cdf(x + 3, 2.5, 0.0, 1.5), rtol=1e-10)
    np.testing.assert_allclose(stats.beta.sf(np.linspace(0.05, 0.95, 7), 2.0, 3.5),
                               ss.beta.sf(np.linspace(0.05, 0.95, 7), 2.0, 3.5), rtol=1e-10)


GRADS = {
    "norm.logpdf": (stats.norm.logpdf, [(-3, 3), (-1, 1), (0.5, 2)]),
    "norm.logcdf": (stats.norm.logcdf, [(-3, 3), (-1, 1), (0.5, 2)]),
    "t.logpdf": (stats.t.logpdf, [(-3, 3), (1, 8), (-1, 1), (0.5, 2)]),
    "beta.logpdf": (stats.beta.logpdf, [(0.1, 0.9), (0.5, 4), (0.5, 4)]),
    "gamma.logpdf": (stats.gamma.logpdf, [(0.5, 5), (0.5, 4)]),
    "gamma.cdf": (stats.gamma.cdf, [(0.5, 5), (0.5, 4)]),
    "laplace.logpdf": (stats.laplace.logpdf, [(0.5, 3), (-0.2, 0.2), (0.5, 2)]),
    "logistic.logpdf": (stats.logistic.logpdf, [(-3, 3), (-1, 1), (0.5, 2)]),
    "cauchy.logpdf": (stats.cauchy.logpdf, [(-3, 3), (-1, 1), (0.5, 2)]),
    "expon.logpdf": (stats.expon.logpdf, [(0.5, 3), (-0.2, 0.2), (0.5, 2)]),
    "poisson.logpmf_mu": (lambda mu: stats.poisson.logpmf(np.arange(8.0), mu),
                          [(0.5, 5)]),
    "binom.logpmf_p": (lambda p: stats.binom.logpmf(np.arange(8.0), 8.0, p),
                       [(0.1, 0.9)]),
}


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", sorted(GRADS))
@settings(max_examples=2)  # check_grads compiles afresh per call: many points per example instead
@given(data=st.data())
def test_grads(name, data):
    fn, domains = GRADS[name]
    args = [_floats(data, lo, hi, shape=(8,), dtype=np.float64) for lo, hi in domains]
    check_grads(fn, args, 1, jit=True, atol=1e-5, rtol=1e-5)


def test_mvn_grad():
    a = np.array([[1.0, 0.2], [0.2, 2.0]])
    x = np.array([[0.3, -0.5], [1.0, 0.2]], np.float32)
    mean = np.array([0.1, 0.0], np.float32)
    g = minijax.grad(lambda m: stats.multivariate_normal.logpdf(x, m, a).sum())(mean)
    expected = np.linalg.solve(a, (x - mean).T).sum(1)
    np.testing.assert_allclose(g, expected, rtol=1e-5)
