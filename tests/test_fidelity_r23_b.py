"""jax.scipy.special against JAX 0.10.2 (helper r23_b), every outcome recorded from JAX by
tests/data/record_fidelity_r23_b.py (which holds the cases) into fidelity_r23_b_jax.json:

1. bfloat16 ``expn``: the series' term update grouped as JAX's (``yk * (z / xk)``).
2. ``hyp2f1``: products grouped as JAX's in-place updates (a diverging series' sign, last
   bits), and 2F1 and its derivatives jitted as JAX's (eager values round as JAX's fusions).
3. ``kl_div``/``rel_entr`` of weak inputs are weak; ``multigammaln`` keeps float16; ``zeta``'s
   JVP primal is the series' (strong), as JAX's.
4. Complex ``gamma``/``loggamma`` (JAX's Lanczos approximation; SciPy's branch for loggamma);
   complex inputs elsewhere meet the lax primitive's TypeError, as in JAX.
5. Printed jaxprs of xlogy/xlog1py/logit/zeta (the custom_jvp is the public function, promoting
   inside), kl_div, entr, loggamma; ``dir()`` lists the public names only.
"""
import json
import math
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
import minijax.scipy.special as jsp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
import record_fidelity_r23_b as rec  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r23_b_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np, "jsp": jsp}
exec(rec.SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["values"]] == rec.VALUES
    assert [src for src, _ in _JAX["errors"]] == rec.ERRORS
    assert [src for src, _ in _JAX["jaxprs"]] == rec.JAXPRS


def _same(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and a in ("nan", "inf", "-inf"):
        return isinstance(b, str) and (a == b or math.isnan(float(a)) and math.isnan(float(b)))
    return a == b


@pytest.mark.parametrize("src,expected", _JAX["values"], ids=range(len(rec.VALUES)))
def test_values_bit_exact_as_jax(src, expected):
    got = rec.outcome(eval(src, _ENV), np)
    assert _same(got, expected), (src, got, expected)


@pytest.mark.parametrize("src,expected", _JAX["errors"], ids=range(len(rec.ERRORS)))
def test_complex_errors_as_jax(src, expected):
    assert rec.error(src, _ENV) == expected


@pytest.mark.parametrize("src,expected", _JAX["jaxprs"], ids=range(len(rec.JAXPRS)))
def test_jaxprs_as_jax(src, expected):
    assert str(eval(src, _ENV)) == expected


def test_dir_lists_public_names_only():
    assert eval(rec.DIR, _ENV) == _JAX["dir"]
