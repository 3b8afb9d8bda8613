"""Oracle run 14000's R1 and R2 (tools/difftest/triage_14000_r.md), against JAX 0.10.2's
outputs recorded by tests/data/record_fidelity_r14_t3.py."""

import pathlib

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

JAX = np.load(pathlib.Path(__file__).parent / "data" / "fidelity_r14_t3_jax.npz")


@pytest.mark.parametrize("name", ["sin", "cos"])
@pytest.mark.parametrize("jitted", [False, True])
def test_complex_sin_cos_at_infinite_and_nan_parts_match_jax(name, jitted):
    f = getattr(jnp, name)
    got = np.asarray((minijax.jit(f) if jitted else f)(JAX["trig_points"]))
    want = JAX[name]
    assert got.dtype == want.dtype == np.complex64
    for part in (np.real, np.imag):  # NaN/inf positions, signs of zeros, and values
        np.testing.assert_allclose(part(got), part(want), rtol=2e-6, atol=0, equal_nan=True)
        np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(want)))
