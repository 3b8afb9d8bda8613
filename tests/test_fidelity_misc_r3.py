"""Round-3 fidelity regressions (brief r3_misc): classes of the JAX 0.10.2-oracle difftest run
(seeds 5000-5059). The expected values and errors are JAX 0.10.2's, as noted per test; see
tools/difftest/FINDINGS.md for the plain-JAX reproducers."""

import ml_dtypes
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

BF16 = np.dtype(ml_dtypes.bfloat16)
_A = np.array([[4.0, 1.0], [1.0, 3.0]])


# --- LAPACK-backed linalg of float16/bfloat16 ----------------------------------------------------
# JAX 0.10.2 refuses these at lowering, in jaxlib's build_lapack_fn_target:
#   NotImplementedError: (KeyError(<class 'ml_dtypes.bfloat16'>), 'Unsupported dtype bfloat16.')
# so an unused factorization inside jit (dropped before lowering) raises nothing.

_REFUSED = {
    "cholesky": lambda x: jnp.linalg.cholesky(x),
    "qr": lambda x: jnp.linalg.qr(x),
    "svdvals": lambda x: jnp.linalg.svd(x, compute_uv=False),
    "solve": lambda x: jnp.linalg.solve(x, x),
    "inv": lambda x: jnp.linalg.inv(x),
    "eigh": lambda x: jnp.linalg.eigh(x),
    "lu": lambda x: lax.linalg.lu(x),
    "pinv": lambda x: jnp.linalg.pinv(x),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.float16)])
def test_low_precision_lapack_ops_raise_jaxs_error(name, dtype):
    x = jnp.asarray(_A.astype(dtype))
    f = _REFUSED[name]
    expected = f"Unsupported dtype {dtype.name}."
    for g in (f, minijax.jit(f)):
        with pytest.raises(NotImplementedError) as info:
            g(x)
        key_error, msg = info.value.args
        assert msg == expected
        assert isinstance(key_error, KeyError) and key_error.args == (dtype.type,)


def test_unused_low_precision_factorization_under_jit_computes():
    # JAX 0.10.2 (cases s5033-169, s5053-257): jit drops the dead cholesky/svd; result 2*x
    def f(x, y):
        jnp.linalg.cholesky(x)
        jnp.linalg.svd(x, compute_uv=False)
        return y * 2

    x = jnp.asarray(_A.astype(BF16))
    out = minijax.jit(f)(x, jnp.float32(1.5))
    assert out.dtype == np.float32 and float(out) == 3.0


@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.float16)])
def test_low_precision_triangular_solve_and_det_compute(dtype):
    # JAX 0.10.2 computes these (XLA's own triangular_solve; closed-form 2x2 determinant),
    # in the operand dtype (case s5034-314)
    a = np.array([[2.0, 0.0], [1.0, 4.0]], dtype)
    b = np.array([[2.0], [5.0]], dtype)
    x = lax.linalg.triangular_solve(a, b, left_side=True, lower=True)
    assert x.dtype == dtype
    np.testing.assert_allclose(np.asarray(x, np.float32), [[1.0], [1.0]])
    d = jnp.linalg.det(jnp.asarray(_A.astype(dtype)))
    assert d.dtype == dtype and float(d) == 11.0
    sign, logdet = jnp.linalg.slogdet(jnp.asarray(_A.astype(dtype)))
    assert sign.dtype == dtype and float(sign) == 1.0
    np.testing.assert_allclose(float(logdet), np.log(11.0), rtol=1e-2)
