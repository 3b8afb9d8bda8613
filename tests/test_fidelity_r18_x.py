"""lax.linalg.tridiagonal, tridiagonal_solve, symmetric_product, cholesky_update and ormqr,
added to match JAX 0.10.2 (brief x, run 22000; tools/difftest/triage_22000_x.md): values,
dtypes, weak types, errors, jit, vmap (both of tridiagonal_solve's batching paths; none for
cholesky_update), tridiagonal_solve's JVP and transpose, and the others' missing JVPs.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r18_x.py over
the cases in tests/data/fidelity_r18_x_cases.py."""
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
from fidelity_r18_x_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_x_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)  # numpy data and a function: nothing here depends on x64

pytestmark = pytest.mark.usefixtures("x64")  # recorded with jax_enable_x64


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_as_jax(src, expected):
    got = json.loads(json.dumps(describe(lambda: eval(src, _ENV), jax.tree_util.tree_leaves)))
    if isinstance(expected, dict):
        assert got == expected
        return
    assert [{k: v for k, v in g.items() if k != "values"} for g in got] == \
        [{k: v for k, v in e.items() if k != "values"} for e in expected]
    for g, e in zip(got, expected):
        # the same LAPACK kernels; the derivatives' lax arithmetic may round differently
        np.testing.assert_allclose(g["values"], e["values"], rtol=1e-6, atol=1e-6)


def test_gpu_lowering_lax_fallback_matches_lapack():
    # The GPU rule emits JAX's lax fallback (the Thomas algorithm, batch axes elementwise) for
    # m <= 2, as JAX's; no GPU here, so check the fallback itself against the CPU gtsv kernel
    from minijax.lax.linalg import _tridiagonal_solve_lax
    rng = np.random.default_rng(1)
    for shape in [(1,), (2, 5)]:  # m == 1, and a batch (the vmapped fallback)
        dl, d, du = rng.standard_normal((3, *shape)).astype(np.float32)
        b = rng.standard_normal((*shape, 3)).astype(np.float32)
        got = jax.jit(lambda *a: _tridiagonal_solve_lax(*a, perturb_singular=False))(
            dl, d + 4, du, b)
        np.testing.assert_allclose(got, lax.linalg.tridiagonal_solve(dl, d + 4, du, b),
                                   rtol=1e-5, atol=1e-6)
