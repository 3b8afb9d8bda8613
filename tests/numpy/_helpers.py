"""Shared helpers for the jnp tests: NumPy references computed at the dtype JAX promotes to."""

import ml_dtypes
import numpy as np

import minijax
from minijax.dtypes import canonicalize_dtype

BF16 = np.dtype(ml_dtypes.bfloat16)
TOL = {
    "float32": (2e-5, 1e-6), "float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2),
    "complex64": (2e-5, 1e-6),
}


def check(result, expected, dtype=None, tol=None, check_dtype=True):
    """``result`` (an Array) matches ``expected`` in value, shape and (JAX-promoted) dtype."""
    assert isinstance(result, minijax.Array), type(result)
    expected = np.asarray(expected)
    # A reference's 64-bit dtype means the 32-bit one here (x64 is off), as jnp canonicalizes.
    want_dtype = np.dtype(dtype) if dtype is not None else canonicalize_dtype(expected.dtype)
    if check_dtype:
        assert result.dtype == want_dtype, (result.dtype, want_dtype)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    got = np.asarray(result)
    if want_dtype.kind in "fcV" or want_dtype == BF16:
        rtol, atol = tol or TOL.get(want_dtype.name, (1e-5, 1e-6))
        np.testing.assert_allclose(got.astype(np.float64) if want_dtype.kind != "c" else got,
                                   expected.astype(got.dtype).astype(np.float64)
                                   if want_dtype.kind != "c" else expected,
                                   rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected.astype(got.dtype))


def both(fn, *args, **kwargs):
    """``fn`` run eagerly and under jit (its array arguments traced)."""
    eager = fn(*args, **kwargs)
    jitted = minijax.jit(lambda *a: fn(*a, **kwargs))(*args)
    return eager, jitted


def rand(shape, dtype, seed=0):
    """Standard normal values of ``dtype`` (complex: independent real and imaginary parts)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def match_eigvals(got, want):
    """``got`` reordered (per row of the last axis) to line up with ``want``: greedy nearest
    neighbours, as sorting complex values is unstable when conjugate pairs share a real part."""
    got, want = np.asarray(got), np.asarray(want)
    if got.size == 0:
        return got
    g, w = got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])
    out = np.empty_like(g)
    for r in range(g.shape[0]):
        free = list(range(g.shape[1]))
        for j in range(w.shape[1]):
            k = min(free, key=lambda i: abs(g[r, i] - w[r, j]))
            out[r, j] = g[r, k]
            free.remove(k)
    return out.reshape(got.shape)
