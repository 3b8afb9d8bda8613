"""Run 19000, helper e (tools/difftest/triage_19000_e.md): s19025-505 is JAX 0.10.2 being
wrong, as run 17000's s17112-121 (triage_17000_s.md S3, tests/test_fidelity_r14_s.py). JAX's
eigh JVP builds F = ((I + w_j) - w_i) ** -1 - I; once 1 + w_i rounds (|w_i| >= 2**24 in
float32) F's diagonal is 1/0 (inf/NaN derivatives) or 1/2 - 1 (a wrong finite one) instead of
0. minijax keeps F_ii = 0 exactly. Expected values are analytic or float64 central
differences, not from minijax or JAX."""

import numpy as np

import minijax
import minijax.numpy as jnp

W3 = np.linspace(0.5, 1.5, 3).astype(np.float32)
W9 = np.linspace(0.5, 1.5, 9).reshape(3, 3).astype(np.float32)


def test_s19025_505_grad_of_value_and_grad_of_vmapped_eigvalsh():
    # The record's batch element 1 (eigenvalues +-1.7014116e38, -1.0998046 once symmetrized;
    # JAX 0.10.2: [[inf, nan, nan], [nan, inf, nan], [nan, nan, nan]]) beside an ordinary
    # matrix, batched along axis 2 as in the record.
    a1 = np.array([[0.5, 2.3645227, 0.5], [-3.4028235e38, 0.5, 0.8336592],
                   [0.0, -0.7086988, -1.0998046]], np.float32)
    a2 = np.array([[2.0, 0.5, 0.0], [0.5, -1.0, 0.25], [0.0, 0.25, 3.0]], np.float32)
    x = np.stack([a1, a2], axis=2)

    def f(a):
        return jnp.sum(jnp.linalg.eigvalsh(a) * W3)

    def g(a):  # the harness's scalarized value_and_grad
        return f(a) + jnp.sum(minijax.grad(f)(a) * W9)

    got = np.asarray(minijax.grad(lambda x: jnp.sum(minijax.vmap(g, in_axes=2)(x)))(x))

    def grad_f64(a):  # V diag(W3) V^T of the symmetrized matrix
        w, v = np.linalg.eigh((a + a.T) / 2)
        return v @ np.diag(W3.astype(np.float64)) @ v.T

    for k in range(2):
        a = x[:, :, k].astype(np.float64)
        eps = 1e-4 * np.abs(a).max()
        expected = grad_f64(a)
        for i, j in np.ndindex(3, 3):
            d = np.zeros((3, 3))
            d[i, j] = eps
            expected[i, j] += np.sum(W9 * (grad_f64(a + d) - grad_f64(a - d))) / (2 * eps)
        np.testing.assert_allclose(got[:, :, k], expected, atol=2e-5, err_msg=str(k))


def test_eigh_eigenvector_jvp_where_one_plus_w_rounds_up():
    # 1 + 16777218 rounds to 16777220 in float32, so JAX 0.10.2's F_ii is 1/2 - 1 and its dV
    # is the finite, wrong [[-3e-8, -0.5], [0, 3e-8]] (a unit eigenvector's tangent has no
    # component along itself). Exact: dV = V (F * V^T dA V) with F_ii = 0.
    a = np.array([[16777218.0, 0.0], [0.0, 1.0]], np.float32)
    t = np.array([[1.0, 0.5], [0.5, 1.0]], np.float32)
    dv = np.asarray(minijax.jvp(lambda m: jnp.linalg.eigh(m)[1], (a,), (t,))[1])
    gap = 16777218.0 - 1.0
    np.testing.assert_allclose(dv, [[-0.5 / gap, 0.0], [0.0, 0.5 / gap]], rtol=1e-6, atol=1e-15)
