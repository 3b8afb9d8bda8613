"""Run 21000's s21000-362 (tools/difftest/triage_21000_p.md): ``vjp(grad(vmap(f)))`` with a
gamma sample whose alphas are eigenvalues of an empty batch of matrices. JAX 0.10.2 extracts
eigh's (and svd's) eigenvalue tangent by indexing ``s[..., i, i]``, and its indexing makes an
empty result a constant, so the tangent is a symbolic zero and random_gamma_grad's while loops
are never transposed; minijax sliced the diagonal out, kept the dependence, and refused to
transpose the loops. ``jnp.diagonal`` likewise. Expected outcomes were recorded from JAX
0.10.2 by tests/data/record_fidelity_r18_p.py over tests/data/fidelity_r18_p_cases.py.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r18_p_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_p_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcomes_dtypes_and_values_as_jax(src, expected):
    got = describe(eval(src, _ENV), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected
