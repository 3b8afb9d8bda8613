"""jax.scipy.stats bernoulli, beta, betabinom, cauchy, chi2 and gamma as JAX 0.10.2's term by
term (helper r22_h): weak types (JAX's lax._const constants), values bit for bit (its order of
operations) and gradients (lax.clamp's, zero at the bound: gamma/chi2 cdf family at x = inf).
Each case is recorded from JAX 0.10.2 by tests/data/record_fidelity_r22_h.py: dtype, weak type,
shape and the values' bit patterns."""
import json
import pathlib
import sys
import warnings

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.scipy import stats

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r22_h_cases import CASES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r22_h_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np, "stats": stats}


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(CASES)))
def test_as_jax(src, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 1e30 cast to float16 overflows
        out = eval(src, _ENV)
    outs = out if isinstance(out, tuple) else (out,)
    got = [[str(x.dtype), bool(x.aval.weak_type), list(x.shape),
            np.asarray(x).view(f"u{x.dtype.itemsize}").tolist()] for x in outs]
    assert got == expected
