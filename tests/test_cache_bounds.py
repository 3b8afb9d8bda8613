"""The caches of compiled programs stay bounded in a long-running process.

Each XLA:CPU executable holds a few memory mappings of JIT code; a cache that only grows once
took a CI worker past the kernel's 65,530-map limit after ~2,600 tests, and the next compile
segfaulted inside LLVM. The tests shrink the bounds to see eviction happen and the mappings
come back.
"""

import sys

import numpy as np
import pytest
import scipy.special

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax import caches
from minijax.caches import BoundedCache
from minijax.jitting import function
from minijax.lowering import backends, dispatch


def _maps():
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)


def test_bounded_cache_forgets_oldest_first_and_none_means_uncached():
    c = BoundedCache(2)
    c.put("a", 1), c.put("b", 2), c.put("a", 10), c.put("c", 3)
    assert c.data == {"b": 2, "c": 3}  # re-putting "a" kept its age; "c" pushed it out
    assert c.put(None, 4) == 4 and c.get(None) is None and len(c) == 2
    c.clear()
    assert not c and c.get("a") is None


def test_every_executable_cache_has_the_bound():
    assert dispatch._eager_cache.size == caches.EXECUTABLES
    assert function._programs.size == function._traces.size == caches.EXECUTABLES


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_eager_executables_are_freed_past_the_bound(monkeypatch):
    monkeypatch.setattr(dispatch._eager_cache, "size", 8)
    for n in range(1, 20):  # warm up: the first compiles map the client's own code
        lax.sin(np.ones(n, np.float32) * 0.5)
    before = _maps()
    for n in range(20, 120):  # 100 new shapes, each a new `sin` executable
        out = lax.sin(np.ones(n, np.float32) * 0.5)
        np.testing.assert_allclose(np.asarray(out), np.sin(np.float32(0.5)), rtol=1e-6)
    assert len(dispatch._eager_cache) <= 8
    # unbounded, 100 executables held ~3 mappings each (300 more); bounded, the count stays flat
    assert _maps() - before < 100


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_jitted_functions_share_one_bound(monkeypatch):
    # jnp functions are jitted functions living as long as the process: the bound is on all
    # of their executables together, not on each
    monkeypatch.setattr(function._programs, "size", 4)
    monkeypatch.setattr(function._traces, "size", 4)
    if backends.HAS_CPP_JIT:  # the C++ fast path's entries: the jits made below take this one
        monkeypatch.setattr(backends, "_CPP_CACHE", backends._jax.PjitFunctionCache(4))
    f = minijax.jit(lambda x: jnp.cos(x) * 2)
    g = minijax.jit(lambda x: jnp.sin(x) * 2)
    for n in range(1, 12):
        f(np.ones(n, np.float32)), g(np.ones(n, np.float32))
    before = _maps()
    for n in range(12, 80):
        x = np.ones(n, np.float32)
        np.testing.assert_allclose(np.asarray(f(x)), 2 * np.cos(1.0), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(g(x)), 2 * np.sin(1.0), rtol=1e-6)
    assert len(function._programs) <= 4 and len(function._traces) <= 4
    assert f._cache_size() + g._cache_size() <= 4
    assert _maps() - before < 100


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_mapping_pressure_empties_the_caches(monkeypatch, caplog):
    # a program of a few special functions can hold ~90 mappings (one set per kernel): entry
    # bounds alone cannot keep a process of such programs under the kernel's limit
    from minijax.lowering import compile as _compile
    from minijax.scipy import special

    x = np.linspace(0.5, 2.0, 3, dtype=np.float32)
    f = minijax.jit(lambda a: special.zeta(a + 2, a) + special.i0e(a))
    expected = scipy.special.zeta(x + 2, x) + scipy.special.i0e(x)
    np.testing.assert_allclose(np.asarray(f(x)), expected, rtol=2e-5)
    lax.sin(x)  # an eager primitive's executable
    assert f._cache_size() == 1 and len(dispatch._eager_cache.data) > 0
    monkeypatch.setattr(_compile._mappings, "limit", _maps() - 1)  # as if past half the limit
    monkeypatch.setattr(_compile._Mappings, "EVERY", 1)
    minijax.jit(lambda a: a * 3)(x)  # the next compile looks first
    assert "emptying the executable caches" in caplog.text
    assert f._cache_size() == 0 and len(dispatch._eager_cache.data) == 0
    np.testing.assert_allclose(np.asarray(f(x)), expected, rtol=2e-5)  # compiled again
