"""jax.lax.linalg names minijax lacked (issue 21, helper f of run 23000): the enums
EigImplementation, EighImplementation and SvdAlgorithm with eig's ``implementation`` (and its
deprecated ``use_magma``), eigh's ``implementation`` and svd's ``algorithm`` (on CPU: which
values compute, which are refused, how and when); lu_pivots_to_permutation_p, the primitive
behind lu_pivots_to_permutation (out-of-range pivots as JAX's loop treats them); and qdwh, the
QDWH polar decomposition with its (u, h, num_iters, is_converged). Expected outcomes were
recorded from JAX 0.10.2 by tests/data/record_fidelity_r19_f.py over the cases in
tests/data/fidelity_r19_f_cases.py.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
import minijax.scipy.linalg  # noqa: F401 - a case reads jax.scipy.linalg.lu
from minijax import lax
from minijax.lax import linalg as L

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r19_f_cases import CASES, SETUP, describe, warned  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r19_f_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "L": L, "np": np, "warned": warned}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcome_as_jax(src, expected):
    got = json.loads(json.dumps(describe(lambda: eval(src, _ENV), jax.tree_util.tree_leaves)))
    if "leaves" not in expected:
        assert got == expected
        return
    assert len(got.get("leaves", ())) == len(expected["leaves"]), got
    for g, e in zip(got["leaves"], expected["leaves"]):
        if "value" not in e or not e["dtype"].startswith(("float", "complex", "bfloat")):
            assert g == e
            continue
        # LAPACK's results are the same kernels'; qdwh run eagerly (op by op, where JAX's is
        # jitted) can differ from JAX's fused program in the last bits
        assert {k: v for k, v in g.items() if k != "value"} == {
            k: v for k, v in e.items() if k != "value"}
        np.testing.assert_allclose(np.asarray(g["value"], np.float64),
                                   np.asarray(e["value"], np.float64), rtol=2e-5, atol=2e-6)
