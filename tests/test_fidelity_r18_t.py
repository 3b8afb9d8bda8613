"""Run 22000's s22044-49 (tools/difftest/triage_22000_t.md): RFFT's transpose built as JAX
0.10.2's (an IRFFT of the conjugated, halved cotangent), so NaN spreads as in JAX: a NaN
imaginary part of a cotangent reaches every output, where minijax's padded FFT kept the DC
output finite. Expected results were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r18_t.py over the cases in tests/data/fidelity_r18_t_cases.py.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r18_t_cases import CASES, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_t_jax.json").read_text())
pytestmark = pytest.mark.usefixtures("x64")


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == [repr(c) for c in CASES]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_rfft_pullback_bits_as_jax(i):
    assert describe(jax, *CASES[i]) == _JAX["cases"][i][1]


def test_s22044_49_grad_of_grad_through_rfft_imag_sinh():
    # JAX 0.10.2 gives [nan, nan, nan] (the record); minijax gave [0, nan, nan]
    x = np.array([-0.181121364235878, -0.0, np.nan], np.float32)
    w1, w2 = np.linspace(0.5, 1.5, 2, dtype=np.float32), np.linspace(0.5, 1.5, 3, dtype=np.float32)
    g = jax.grad(lambda x: jnp.sum(jnp.sinh(jnp.imag(jnp.fft.rfft(x))) * w1))
    gg = jax.grad(lambda x: jnp.sum(g(x) * w2))(x)
    assert gg.dtype == np.float32 and np.isnan(np.asarray(gg)).all()
