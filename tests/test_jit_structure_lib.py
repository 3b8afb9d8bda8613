"""nn / scipy / jnp.linalg / jnp.fft / jnp statistics calls make the jit equations JAX 0.10.2
makes (FINDINGS 123).

JAX defines many of these functions as ``jax.jit``s without ``inline=True``: under staging each
call is a ``jit[name=...]`` equation, lowered as a function call in partitioned programs, where
Shardy propagates shardings differently from inlined ops. The nesting of jit equations
(``[[name, children], ...]``, found recursively, also inside other equations' sub-jaxprs) is
recorded from JAX by tests/data/record_jit_structure_lib.py and compared here.
"""
import json
import os
import sys

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
import record_jit_structure_lib as rec  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "jit_structure_lib_jax.json")) as fh:
    DATA = json.load(fh)

CASES = {c["id"]: c for c in DATA["cases"]}

# Cases whose inner structure still differs: the outermost jits match (test_outer_jits), the
# nesting below them does not, for the reason given.
_HOST = "built on the host as a constant; JAX computes it traced, with inner jits"
LEFT = {
    "special.expi": "another implementation inside the jit (JAX's _piecewise/polyval/expn jits)",
    "sla.sqrtm": "JAX's scipy schur is the jit _schur and the triangular root _sqrtm_triu",
    "sla.solve_sylvester": "JAX's scipy schur is the jit _schur; another back-substitution",
    "sla.expm_frechet": "expm is another implementation (see sla.expm)",
    "sla.eigh_tridiagonal": "another implementation inside the jit",
    "sla.expm": "another implementation (JAX's _calc_P_Q/_squaring jits, digitize)",
    "sla.polar": "JAX's polar is itself a jit, and its qdwh calls jitted jnp helpers (norm, "
                 "where, dynamic_index_in_dim); minijax's qdwh is lax ops",
    "sla.invhilbert": _HOST,
    "sla.pascal": _HOST,
    "sla.invpascal": _HOST,
    "sla.hadamard": _HOST,
    "sla.helmert": _HOST,
}
# Cases whose outermost jits differ too.
LEFT_OUTER = {
    "sla.polar": LEFT["sla.polar"],
}


def _structure(case):
    return rec.structure_of(minijax, minijax.make_jaxpr, case["path"], case["args"],
                            case["kwargs"])


def _left(cid, table):
    if cid in table:
        # strict: a case that starts to match fails until its line in LEFT goes
        return pytest.param(cid, marks=pytest.mark.xfail(reason=table[cid], strict=True))
    return cid


def test_recorded_from_jax_0_10_2():
    assert DATA["jax_version"] == "0.10.2"
    assert set(LEFT) <= set(CASES) and set(LEFT_OUTER) <= set(LEFT)


@pytest.mark.parametrize("cid", [_left(c, LEFT) for c in sorted(CASES)])
def test_jit_structure(cid):
    assert _structure(CASES[cid]) == CASES[cid]["structure"], cid


@pytest.mark.parametrize("cid", [_left(c, LEFT_OUTER) for c in sorted(LEFT)])
def test_outer_jits(cid):
    """The jits a call makes at its top level: what becomes a function call in a partitioned
    program around the rest."""
    def names(st):
        return [name for name, _ in st]
    assert names(_structure(CASES[cid])) == names(CASES[cid]["structure"]), cid


def test_linalg_cond_tensorinv_tensorsolve_multi_dot_cross_match_numpy():
    """The jnp.linalg functions added beside the jits (cond is one) compute NumPy's values."""
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(3, 3)) + 3 * np.eye(3)).astype(np.float32)
    for p in (None, 2, -2, 1, -1, np.inf, "fro"):
        np.testing.assert_allclose(jnp.linalg.cond(a, p), np.linalg.cond(a, p), rtol=1e-4)
    assert jnp.linalg.cond(np.array([[1., 2.], [2., 4.]], np.float32), 1) == np.inf
    t = (6 * np.eye(6) + rng.normal(size=(6, 6))).astype(np.float32).reshape(2, 3, 6)
    np.testing.assert_allclose(jnp.linalg.tensorinv(t, ind=2), np.linalg.tensorinv(t, ind=2),
                               rtol=1e-4, atol=1e-5)
    b = rng.normal(size=(2, 3)).astype(np.float32)
    np.testing.assert_allclose(jnp.linalg.tensorsolve(t, b), np.linalg.tensorsolve(t, b),
                               rtol=1e-4, atol=1e-5)
    v, w = rng.normal(size=3).astype(np.float32), rng.normal(size=3).astype(np.float32)
    np.testing.assert_allclose(jnp.linalg.multi_dot([v, a, a.T, w]),
                               np.linalg.multi_dot([v, a, a.T, w]), rtol=1e-4)
    np.testing.assert_allclose(jnp.linalg.multi_dot([a, a.T]), a @ a.T, rtol=1e-5)
    np.testing.assert_allclose(jnp.linalg.cross(a, a[::-1]), np.cross(a, a[::-1]), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError, match="3-dimensional vectors"):
        jnp.linalg.cross(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="must be at least 2D"):
        jnp.linalg.cond(np.ones(3))
