"""lax.linalg.eigh's ``sort_eigenvalues`` and ``subset_by_index``, lax.linalg.svd's
``subset_by_index`` and jnp.linalg.svd's (issue 21, helper j of run 23000): on CPU JAX 0.10.2
computes only the whole range and refuses any other when compiling (svd with full_matrices
already while tracing; eigh's derivative while tracing), the shapes follow the range, and
sort_eigenvalues=False still sorts. jnp.linalg.svd's ``hermitian=True`` takes JAX's route
through eigh. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r19_j.py over the cases in tests/data/fidelity_r19_j_cases.py.
"""
import json
import pathlib
import re
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.lax import linalg as L

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r19_j_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r19_j_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "L": L, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcome_as_jax(src, expected):
    got = json.loads(json.dumps(describe(lambda: eval(src, _ENV), jax.tree_util.tree_leaves)))
    if "error" in expected:
        # minijax names the jnp function called before JAX's message (test_errors_teach.py)
        message = re.sub(r"^jnp\.\w+: ", "", got.get("message", ""))
        assert (got.get("error"), message) == (expected["error"], expected["message"]), got
        return
    if "leaves" not in expected:
        assert got == expected
        return
    assert len(got.get("leaves", ())) == len(expected["leaves"]), got
    for g, e in zip(got["leaves"], expected["leaves"]):
        if "value" not in e or not e["dtype"].startswith(("float", "complex")):
            assert g == e
            continue
        # the same LAPACK kernels; the derivatives' matmuls may round differently
        assert {k: v for k, v in g.items() if k != "value"} == {
            k: v for k, v in e.items() if k != "value"}
        np.testing.assert_allclose(np.asarray(g["value"], np.float64),
                                   np.asarray(e["value"], np.float64), rtol=2e-6, atol=2e-7)
