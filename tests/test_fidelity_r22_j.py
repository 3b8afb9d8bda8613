"""exp1/expn against JAX 0.10.2 (values recorded by tests/data/record_fidelity_r22_j.py).

minijax evaluates expn's branches on every element (as JAX's vectorized piecewise does) but
gives the loops points of their own region elsewhere, so a vector holding an infinite, huge or
-inf order or a tiny x returns (JAX hangs) with JAX's scalar values; a NaN x stays NaN; float16
and bfloat16 inputs keep their dtype in the loops' carries (minijax raised a carry TypeError).
"""
import json
import pathlib

import ml_dtypes
import numpy as np

import minijax
import minijax.numpy as jnp
from minijax.scipy.special import exp1, expn

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r22_j_jax.json").read_text())
ORDERS = [np.inf, 1e30, -np.inf, np.nan, 2.0, 1e-30, 6000.0]
X_SMALL = [0.5, np.nan, 1e-30]
LOW = [0.0, 1.0, -1.0, 0.5, 2.0, 0.9, 30.0, np.inf, np.nan]


def _close(got, want, dtype, ulps):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    ok = ~np.isnan(want) & (got != want)  # equal values (infinities included) pass
    spacing = np.abs(np.spacing(want[ok].astype(dtype))).astype(np.float64)
    assert np.all(np.abs(got[ok] - want[ok]) <= ulps * spacing), (got, want)


def test_expn_vector_of_extreme_orders_returns_jax_scalar_values():
    got = expn(jnp.asarray(ORDERS, jnp.float32), np.float32(0.5))
    _close(got, _JAX["expn_orders"], np.float32, 1)


def test_exp1_tiny_and_nan_in_a_vector_and_its_gradient():
    x = jnp.asarray(X_SMALL, jnp.float32)
    # JAX's values were recorded one scalar at a time (its vector hangs); its vectorized exp1
    # rounds 1-4 ulp from its scalar one (exp1([1e-30, 1e-30]) is 4 ulp from exp1(1e-30)), and
    # minijax's vector is JAX's vector bit for bit (test_fidelity_r30_d)
    _close(exp1(x), _JAX["exp1_small"], np.float32, 4)
    _close(minijax.vmap(minijax.grad(exp1))(x), _JAX["exp1_grad_small"], np.float32, 1)


def test_exp1_expn_low_precision():
    # bfloat16 expn(2, 0.9) was 4 ulp from JAX's: the series' term update is grouped as JAX's
    # now (tools/difftest/triage_r23_b.md)
    for name, dt, ulps in [("float16", np.float16, 1), ("bfloat16", ml_dtypes.bfloat16, 0)]:
        with np.errstate(over="ignore"):
            x = jnp.asarray(np.asarray(LOW, np.float32).astype(dt))
        for key, got in [("exp1_", exp1(x)), ("expn2_", expn(jnp.asarray(2, dt), x))]:
            dtype, want = _JAX[key + name]
            assert str(got.dtype) == dtype
            _close(got, want, dt, ulps)
