"""``lax.linalg.qr``'s ``pivoting`` and ``use_magma`` (issue 21): the ``qr`` primitive carries
JAX 0.10.2's parameters (full_matrices, pivoting, use_magma), pivoted QR is LAPACK's geqp3 on
the CPU (the GPU's hybrid kernel is not run here), its JVP permutes the tangent's columns as
JAX's rule does, and ``scipy.linalg.qr`` / ``qr_multiply`` with ``pivoting=True`` use it.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r20_m.py over
the cases in tests/data/fidelity_r20_m_cases.py; values must be bit-equal.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from tests import jax_records
from tests.jax_records import assert_matches_one
import minijax.scipy.linalg as scipy_linalg
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r20_m_cases import CASES, SETUP, describe  # noqa: E402

_RECORDS = jax_records.load("fidelity_r20_m_jax.json")
_JAX = _RECORDS[0]
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "scipy_linalg": scipy_linalg}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_jax(i):
    got = json.loads(json.dumps(describe(lambda: eval(CASES[i], _ENV),
                                         jax.tree_util.tree_leaves)))
    assert_matches_one(lambda e: _equal(got, e), [r["cases"][i][1] for r in _RECORDS])


def _equal(got, expected):
    if expected[0] == "error":
        assert got == expected
        return
    assert [leaf[:4] for leaf in got] == [leaf[:4] for leaf in expected]
    for g, e in zip(got, expected):
        if g[0] == "Array" and e[4] is not None:  # bit-equal, NaNs included
            np.testing.assert_array_equal(np.asarray(g[4]), np.asarray(e[4]), strict=True)


def test_weak_typed_operand_gives_weak_typed_results_as_jax():
    # JAX 0.10.2: eval_shape(lambda x: qr(x, pivoting=True), lax.broadcast(1.0, (3, 3)))
    # gives weak_type=True on all three results, the int32 permutation included
    outs = jax.make_jaxpr(lambda x: lax.linalg.qr(x, pivoting=True))(
        lax.broadcast(1.0, (3, 3))).jaxpr.outvars
    assert [v.aval.weak_type for v in outs] == [True, True, True]
