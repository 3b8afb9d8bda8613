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


@pytest.mark.parametrize("policy", [None, minijax.checkpoint_policies.everything_saveable])
def test_float0_output_of_checkpoint_under_jit_is_returned_as_jax_does(policy):
    x = jnp.array([4.0, 0.5, 1.5])
    primal, tangent = minijax.jit(minijax.checkpoint(
        lambda x: minijax.jvp(jnp.isnan, (x,), (x,)), policy=policy))(x)
    np.testing.assert_array_equal(np.asarray(primal), JAX["remat_jvp_isnan_primal"])
    assert str(tangent.dtype) == str(JAX["remat_jvp_isnan_tangent_dtype"])
    assert isinstance(tangent, np.ndarray) and tangent.shape == (3,)


def test_float0_constant_of_checkpoint_under_jit_is_returned_as_jax_does():
    pred, zeros = minijax.jit(minijax.checkpoint(
        lambda x: (x > 0, np.zeros(3, minijax.dtypes.float0))))(jnp.array([4.0, -0.5, 1.5]))
    np.testing.assert_array_equal(np.asarray(pred), [True, False, True])
    assert zeros.dtype == minijax.dtypes.float0 and isinstance(zeros, np.ndarray)
    assert zeros.shape == (3,)
