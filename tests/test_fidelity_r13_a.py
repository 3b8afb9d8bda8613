"""Round 13 fixes U1 and U3 (tools/difftest/triage_15000_u.md). Expected values are JAX 0.10.2's,
recorded by running the same calls in /work/venv_jax."""

import warnings

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

# s15039-133: a complex Hermitian-ish matrix with a -inf diagonal entry.
_A_INF = np.array(
    [[1.64 + .37j, .998 - .868j, 1.41 - .364j],
     [.375 - 1.28j, -np.inf + 0j, -.0765 + .0293j],
     [4.2e-45 + 0j, 1.15 + 1.03j, -.663 + 1.23j]],
    np.complex64,
)
_T = (np.linspace(.5, 1.5, 9).reshape(3, 3) * .7).astype(np.complex64)


@pytest.mark.parametrize("jit", [False, True])
def test_eigh_jvp_resymmetrizes_its_input(jit):
    # JAX's eigh JVP binds eigh on symmetrize(a) after eigh already symmetrized a; with the
    # -inf entry that second pass makes the eigenvectors (so the tangent) NaN in JAX 0.10.2.
    f = lambda a, t: minijax.jvp(jnp.linalg.eigvalsh, (a,), (t,))
    w, dw = (minijax.jit(f) if jit else f)(_A_INF, _T)
    assert w.dtype == dw.dtype == np.float32
    assert np.isnan(np.asarray(w)).all()
    assert np.isnan(np.asarray(dw)).all()  # not diag(t) = [.35, .7, 1.05]


def test_eigh_jvp_finite_input_unchanged():
    b = np.array([[2., 1., .5], [.25, -1., .75], [1.5, .3, 3.]], np.float32)
    tb = np.linspace(.5, 1.5, 9).reshape(3, 3).astype(np.float32)
    w, dw = minijax.jvp(jnp.linalg.eigvalsh, (b,), (tb,))
    np.testing.assert_allclose(w, [-1.1517725, 1.4063696, 3.7454033], rtol=1e-5)
    np.testing.assert_allclose(dw, [0.5641914, -0.11831178, 2.5541215], rtol=1e-4, atol=1e-5)

