"""Inputs and comparisons shared by the jax.scipy tests."""

import numpy as np


def rand(seed, shape, dtype=np.float32):
    """Standard-normal values of ``dtype`` (complex: independent real and imaginary parts);
    ``seed`` is an int or a NumPy Generator."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def assert_close(actual, expected, tol):
    """Same shape, and equal to ``tol`` relative and absolute."""
    actual = np.asarray(actual)
    assert actual.shape == np.shape(expected), (actual.shape, np.shape(expected))
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)
