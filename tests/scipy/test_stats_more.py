"""minijax.scipy.stats, the remaining distributions (gumbel_l/r, pareto, truncnorm, gennorm,
vonmises, wrapcauchy, betabinom, nbinom, multinomial) and mode/rankdata/sem/gaussian_kde,
against scipy.stats: hypothesis-drawn points eagerly and under jit (one jit per function at
module level, so every example reuses its executable), edge values, gradients by central
differences."""

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
_JITTED = {}


def _jit(fn):
    if fn not in _JITTED:
        _JITTED[fn] = minijax.jit(fn)
    return _JITTED[fn]


def _floats(data, lo, hi, shape=(N,), dtype=np.float32):
    width = 32 if dtype == np.float32 else 64
    lo_d = float(np.nextafter(dtype(lo), dtype(np.inf)))
    hi_d = float(np.nextafter(dtype(hi), dtype(-np.inf)))
    # no subnormals: XLA's CPU flushes them to zero (as under JAX), SciPy does not
    return data.draw(hnp.arrays(dtype, shape, elements=st.floats(
        lo_d, hi_d, width=width, allow_subnormal=False)))


def _compare(fn, ref, args, rtol=2e-4, atol=1e-5):
    with np.errstate(all="ignore"):
        expected = ref(*[np.asarray(a, np.float64) for a in args])
    for out in (fn(*args), _jit(fn)(*args)):
        assert out.dtype == np.float32, out.dtype
        np.testing.assert_allclose(np.asarray(out, np.float64), expected, rtol=rtol, atol=atol,
                                   equal_nan=True)


# name: (minijax module, scipy distribution, parameter domains, point domain)
CONTINUOUS = {
    "gumbel_l": (stats.gumbel_l, ss.gumbel_l, [(-2, 2), (0.5, 3)], (-8, 4)),
    "gumbel_r": (stats.gumbel_r, ss.gumbel_r, [(-2, 2), (0.5, 3)], (-4, 8)),
    "pareto": (stats.pareto, ss.pareto, [(0.5, 4), (-1, 1), (0.5, 2)], (-2, 10)),
    "truncnorm": (stats.truncnorm, ss.truncnorm, [(-3, -0.2), (0.2, 3), (-1, 1), (0.5, 2)],
                  (-5, 5)),
    "gennorm": (stats.gennorm, ss.gennorm, [(0.5, 4)], (-4, 4)),
    "vonmises": (stats.vonmises, ss.vonmises, [(0.1, 20)], (-3, 3)),
    "wrapcauchy": (stats.wrapcauchy, ss.wrapcauchy, [(0.05, 0.95)], (-1, 7)),
}
_FUNCS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


def _all_funcs(mod, names):
    """One jitted program computing every function ``names`` of ``mod`` at the same arguments:
    one compile per distribution instead of one per function."""
    funcs = [getattr(mod, f) for f in names if hasattr(mod, f)]
    return [getattr(mod, f) for f in names if hasattr(mod, f)], minijax.jit(
        lambda *args: [f(*args) for f in funcs])


_CONTINUOUS_JITS = {name: _all_funcs(mod, _FUNCS) for name, (mod, *_) in CONTINUOUS.items()}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
@given(data=st.data())
def test_continuous(name, data):
    mod, dist, domains, (lo, hi) = CONTINUOUS[name]
    params = [_floats(data, a, b) for a, b in domains]
    x = _floats(data, lo, hi)
    if name == "pareto":  # not within float32 noise of the support's edge loc + scale
        edge = params[1] + params[2]
        x = np.where(np.abs(x - edge) < 1e-3, edge + 0.01, x).astype(np.float32)
    funcs, jitted = _CONTINUOUS_JITS[name]
    ref_args = [np.asarray(a, np.float64) for a in (x, *params)]
    for f, out in zip(funcs, jitted(x, *params)):
        assert out.dtype == np.float32
        with np.errstate(all="ignore"):
            expected = getattr(dist, f.__name__)(*ref_args)
        np.testing.assert_allclose(out, expected, rtol=2e-4, atol=1e-5, equal_nan=True,
                                   err_msg=f.__name__)
    if hasattr(mod, "ppf"):
        q = _floats(data, 0.01, 0.99)
        _compare(mod.ppf, dist.ppf, (q, *params), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_eager(name):
    """The same functions outside jit, at fixed points inside and outside the support."""
    mod, dist, domains, (lo, hi) = CONTINUOUS[name]
    params = [np.float32((a + b) / 2) for a, b in domains]
    x = np.linspace(lo, hi, 7, dtype=np.float32)
    for f in _FUNCS:
        if hasattr(mod, f):
            out = getattr(mod, f)(x, *params)
            with np.errstate(all="ignore"):
                expected = getattr(dist, f)(x.astype(np.float64), *params)
            np.testing.assert_allclose(out, expected, rtol=2e-4, atol=1e-5, err_msg=f)


def test_truncnorm_tails():
    # Far in one tail the mass is computed by mirroring: scipy agrees to float32 precision.
    x = np.linspace(8.1, 11.9, 7, dtype=np.float32)
    for f in ("logpdf", "logcdf", "logsf"):
        np.testing.assert_allclose(getattr(stats.truncnorm, f)(x, 8.0, 12.0),
                                   getattr(ss.truncnorm, f)(x.astype(np.float64), 8.0, 12.0),
                                   rtol=1e-4)
    assert np.isnan(stats.truncnorm.logpdf(0.0, 1.0, 1.0))  # a >= b
    np.testing.assert_array_equal(stats.truncnorm.logpdf(np.float32([-2, 2]), -1, 1), -np.inf)


def test_edges():
    nan = np.nan
    for mod in (stats.gumbel_l, stats.gumbel_r):
        for f in ("logpdf", "logcdf", "logsf"):
            assert np.isnan(getattr(mod, f)(0.5, 0.0, -1.0))
        np.testing.assert_array_equal(mod.ppf(np.float32([0, 1, -0.5]), 0.0, 1.0), [nan] * 3)
    np.testing.assert_array_equal(stats.pareto.logpdf(np.float32([0.5, 0.9]), 2.0), -np.inf)
    np.testing.assert_array_equal(stats.pareto.cdf(np.float32([0.5]), 2.0), [0.0])
    np.testing.assert_array_equal(stats.pareto.ppf(np.float32([-0.1, 1.1, nan]), 2.0), [nan] * 3)
    assert np.isnan(stats.vonmises.logpdf(0.5, 0.0))
    assert np.isnan(stats.wrapcauchy.logpdf(0.5, 1.0))
    np.testing.assert_array_equal(stats.wrapcauchy.logpdf(np.float32([-0.1, 6.3]), 0.5),
                                  -np.inf)
    assert stats.gumbel_r.logpdf(1).dtype == np.float32  # integers become the default float


@given(data=st.data())
def test_discrete(data):
    k = data.draw(hnp.arrays(np.float32, (N,), elements=st.integers(-2, 12).map(float)))
    n = data.draw(hnp.arrays(np.float32, (N,), elements=st.integers(0, 10).map(float)))
    a, b = _floats(data, 0.3, 5), _floats(data, 0.3, 5)
    p = _floats(data, 0.05, 0.95)
    r = _floats(data, 0.5, 6)  # nbinom's n need not be an integer
    cases = [
        (stats.betabinom.logpmf, ss.betabinom.logpmf, (k, n, a, b)),
        (stats.betabinom.pmf, ss.betabinom.pmf, (k, n, a, b)),
        (stats.nbinom.logpmf, ss.nbinom.logpmf, (k, r, p)),
        (stats.nbinom.pmf, ss.nbinom.pmf, (k, r, p)),
    ]
    for fn, ref, args in cases:
        _compare(fn, ref, args)


def test_discrete_edges():
    assert np.isnan(stats.betabinom.logpmf(1.0, 3.0, -1.0, 2.0))
    assert np.isnan(stats.betabinom.logpmf(1.0, -3.0, 1.0, 2.0))
    assert stats.betabinom.logpmf(0.0, 0.0, 1.0, 2.0) == 0.0
    assert stats.betabinom.logpmf(4.0, 3.0, 1.0, 2.0) == -np.inf
    assert stats.nbinom.logpmf(-1.0, 3.0, 0.5) == -np.inf


@given(data=st.data())
def test_multinomial(data):
    counts = data.draw(hnp.arrays(np.int32, (4, 3), elements=st.integers(0, 5)))
    raw = _floats(data, 0.05, 1, shape=(3,)).astype(np.float64)
    p = (raw / raw.sum()).astype(np.float32)
    for row in counts:
        n = int(row.sum())
        for fn, ref in ((stats.multinomial.logpmf, ss.multinomial.logpmf),
                        (stats.multinomial.pmf, ss.multinomial.pmf)):
            expected = ref(row, n, p.astype(np.float64) / p.astype(np.float64).sum())
            for out in (fn(row, n, p), _jit(fn)(row, n, p)):
                assert out.dtype == np.float32
                np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-6)
    assert stats.multinomial.logpmf(np.array([1, 2]), 4, np.float32([0.5, 0.5])) == -np.inf
    with pytest.raises(ValueError, match="integer type"):
        stats.multinomial.logpmf(np.float32([1, 2]), 3, np.float32([0.5, 0.5]))


GRADS = {
    "gumbel_l.logpdf": (stats.gumbel_l.logpdf, [(-3, 3), (-1, 1), (0.5, 2)]),
    "gumbel_r.logcdf": (stats.gumbel_r.logcdf, [(-3, 3), (-1, 1), (0.5, 2)]),
    "pareto.logpdf": (stats.pareto.logpdf, [(2.5, 5), (0.5, 3), (-0.5, 0.5), (0.5, 1.5)]),
    "truncnorm.logcdf": (lambda x: stats.truncnorm.logcdf(x, -2.0, 2.5), [(-1.5, 2)]),
    "vonmises.logpdf": (stats.vonmises.logpdf, [(-3, 3), (0.2, 5)]),
    "wrapcauchy.logpdf": (stats.wrapcauchy.logpdf, [(0.2, 6), (0.1, 0.9)]),
    "nbinom.logpmf_p": (lambda p: stats.nbinom.logpmf(np.arange(8.0), 3.0, p), [(0.1, 0.9)]),
    "betabinom.logpmf_ab": (lambda a, b: stats.betabinom.logpmf(np.arange(8.0), 7.0, a, b),
                            [(0.5, 4), (0.5, 4)]),
}


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", sorted(GRADS))
@settings(max_examples=1)  # check_grads compiles afresh per call: many points per example instead
@given(data=st.data())
def test_grads(name, data):
    fn, domains = GRADS[name]
    args = [_floats(data, lo, hi, shape=(8,), dtype=np.float64) for lo, hi in domains]
    check_grads(fn, args, 1, jit=True, atol=1e-5, rtol=1e-5)


def test_functions_match_jax():
    """Each module has exactly the functions jax.scipy.stats 0.10.2's has."""
    expected = {
        "betabinom": "logpmf pmf", "gennorm": "cdf logpdf pdf",
        "gumbel_l": "cdf logcdf logpdf logsf pdf ppf sf",
        "gumbel_r": "cdf logcdf logpdf logsf pdf ppf sf", "multinomial": "logpmf pmf",
        "nbinom": "logpmf pmf", "pareto": "cdf logcdf logpdf logsf pdf ppf sf",
        "truncnorm": "cdf logcdf logpdf logsf pdf sf", "vonmises": "logpdf pdf",
        "wrapcauchy": "logpdf pdf",
    }
    for name, funcs in expected.items():
        mod = getattr(stats, name)
        have = {f for f in dir(mod) if not f.startswith("_") and callable(getattr(mod, f))
                and getattr(getattr(mod, f), "__module__", "") == mod.__name__}
        assert have == set(funcs.split()), (name, have)


# ------------------------------------------------------------------------------------------------
# mode, rankdata, sem

_ints_2d = hnp.arrays(np.float32, (4, 6), elements=st.integers(-3, 3).map(float))


@given(x=_ints_2d)
def test_mode(x):
    for axis in (0, 1, None):
        res, ref = stats.mode(x, axis=axis), ss.mode(x, axis=axis)
        np.testing.assert_array_equal(res.mode, ref.mode)
        np.testing.assert_array_equal(res.count, ref.count)
    res = stats.mode(x, axis=1, keepdims=True)
    assert res.mode.shape == (4, 1)
    with pytest.raises(NotImplementedError):
        stats.mode(x, nan_policy="omit")


@given(x=_ints_2d)
def test_rankdata(x):
    for method in ("average", "min", "max", "dense", "ordinal"):
        out = stats.rankdata(x, method)
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, ss.rankdata(x, method))
        np.testing.assert_array_equal(stats.rankdata(x, method, axis=1),
                                      ss.rankdata(x, method, axis=1))
    np.testing.assert_array_equal(stats.rankdata(np.float32([1, np.nan, 0])), [np.nan] * 3)
    with pytest.raises(ValueError, match="unknown method"):
        stats.rankdata(x, "first")


@given(data=st.data())
def test_sem(data):
    x = _floats(data, -5, 5, shape=(4, 6))
    for axis in (0, 1, None):
        for ddof in (0, 1):
            np.testing.assert_allclose(stats.sem(x, axis=axis, ddof=ddof),
                                       ss.sem(x, axis=axis, ddof=ddof), rtol=1e-4, atol=1e-6)
    x[1, 2] = np.nan
    np.testing.assert_allclose(stats.sem(x, axis=1, nan_policy="omit"),
                               ss.sem(x, axis=1, nan_policy="omit"), rtol=1e-4)
    np.testing.assert_allclose(stats.sem(x, axis=0, keepdims=True),
                               ss.sem(x, axis=0, keepdims=True), rtol=1e-4)


# ------------------------------------------------------------------------------------------------
# gaussian_kde

_kde_pdf = minijax.jit(lambda kde, pts: kde.pdf(pts))


@given(data=st.data())
def test_gaussian_kde(data):
    # drawn offsets of a fixed well-spread sample: the covariance stays invertible
    base = np.random.default_rng(0).normal(size=(2, 12)).astype(np.float32)
    dataset = base + _floats(data, -0.5, 0.5, shape=(2, 12))
    weights = _floats(data, 0.1, 1, shape=(12,))
    pts = _floats(data, -4, 4, shape=(2, 5))
    for kw in ({}, {"bw_method": "silverman"}, {"bw_method": 0.7}, {"weights": weights}):
        ref_kw = {k: (np.asarray(v, np.float64) if k == "weights" else v) for k, v in kw.items()}
        kde = stats.gaussian_kde(dataset, **kw)
        ref = ss.gaussian_kde(dataset.astype(np.float64), **ref_kw)
        np.testing.assert_allclose(kde(pts), ref(pts), rtol=2e-3, atol=1e-7)
        np.testing.assert_allclose(_kde_pdf(kde, pts), ref(pts), rtol=2e-3, atol=1e-7)
        np.testing.assert_allclose(kde.logpdf(pts), ref.logpdf(pts), rtol=2e-3, atol=1e-4)
        np.testing.assert_allclose(kde.integrate_gaussian(np.zeros(2), np.eye(2)),
                                   ref.integrate_gaussian(np.zeros(2), np.eye(2)), rtol=2e-3)
    kde_2 = stats.gaussian_kde(dataset[:, :5])
    np.testing.assert_allclose(
        kde.integrate_kde(kde_2),
        ref.integrate_kde(ss.gaussian_kde(dataset[:, :5].astype(np.float64))), rtol=2e-3)


def test_gaussian_kde_1d():
    data = np.float32([-1.0, 0.2, 0.5, 1.5, 2.0])
    kde, ref = stats.gaussian_kde(data), ss.gaussian_kde(data.astype(np.float64))
    np.testing.assert_allclose(kde.integrate_box_1d(-0.5, 1.0), ref.integrate_box_1d(-0.5, 1.0),
                               rtol=1e-5)
    np.testing.assert_allclose(kde.d, 1)
    np.testing.assert_allclose(kde.neff, 5.0, rtol=1e-6)
    samples = kde.resample(minijax.random.key(0), (2000,))
    assert samples.shape == (1, 2000)
    # resampling draws from the estimate: its mean is the data's (within 4 standard errors)
    sd = np.sqrt(ref.covariance[0, 0] + data.var())
    assert abs(float(samples.mean()) - data.mean()) < 4 * sd / np.sqrt(2000)
    leaves, treedef = minijax.tree_util.tree_flatten(kde)
    assert len(leaves) == 5
    rebuilt = minijax.tree_util.tree_unflatten(treedef, leaves)
    np.testing.assert_allclose(rebuilt.covariance, ref.covariance, rtol=1e-5)
    with pytest.raises(ValueError, match="multiple elements"):
        stats.gaussian_kde(np.float32([1.0]))
    with pytest.raises(NotImplementedError):
        kde.integrate_box(0.0, 1.0)
