"""Round 13 fixes U1 and U3 (tools/difftest/triage_15000_u.md). Expected values are JAX 0.10.2's,
recorded by running the same calls in /work/venv_jax."""

import warnings

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

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


def test_convert_python_complex_to_real_raises_numpy_typeerror():
    # s15020-321: JAX converts a Python scalar to a strong dtype with np.asarray on the host.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        with pytest.raises(TypeError, match=r"float\(\) argument must be a string or a real "
                                            r"number, not 'complex'"):
            lax.convert_element_type(complex(-1.5, -.5), jnp.float32)
        with pytest.raises(TypeError, match=r"int\(\) argument must be a string, a bytes-like "
                                            r"object or a real number, not 'complex'"):
            lax.convert_element_type(complex(1, 2), jnp.int32)


@pytest.mark.parametrize(
    "value, dtype, expected",
    [
        (np.complex64(-1.5 - .5j), np.float32, -1.5),  # NumPy scalars drop the imaginary part
        (complex(1, 0), np.bool_, True),
        (complex(1.5, 2), np.complex64, 1.5 + 2j),
        (3e9, np.int32, 2147483647),  # NumPy overflows: XLA saturates
        (-3.7, np.uint8, 0),
        (float("nan"), np.int32, 0),  # non-finite to integer skips the host
        (np.float16(np.inf), np.int16, 32767),
        (np.int64(300), np.uint8, 44),
        (1e10, np.float16, np.inf),
    ],
)
def test_convert_scalar_to_strong_dtype(value, dtype, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = lax.convert_element_type(value, dtype)
    assert out.dtype == np.dtype(dtype) and not out.weak_type
    assert np.asarray(out).item() == expected
