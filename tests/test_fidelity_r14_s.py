"""Oracle run 17000, helper S: the three NaN cases where JAX 0.10.2 is wrong and minijax keeps the
exact derivative (tools/difftest/triage_17000_s.md). Each expected value is analytic or from
NumPy float64 central differences, not from minijax or JAX."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax, nn


def test_eigh_eigenvector_jvp_beside_a_large_eigenvalue():
    # JAX 0.10.2 gives [[-5e-9, inf], [0, nan]]: its F = 1 / ((I + w_j) - w_i) - I loses the 1
    # to a float32 eigenvalue of 1e8, so the diagonal is 1 / 0. The exact dV = V (F * V^T dA V).
    a = np.array([[1e8, 0.], [0., 1.]], np.float32)
    t = np.array([[1., .5], [.5, 1.]], np.float32)
    dv = minijax.jvp(lambda m: jnp.linalg.eigh(m)[1], (a,), (t,))[1]
    w, v = np.linalg.eigh(a.astype(np.float64))
    f = 1 / (w[None, :] - w[:, None] + np.eye(2)) - np.eye(2)
    np.testing.assert_allclose(np.asarray(dv), v @ (f * (v.T @ t @ v)), rtol=1e-6, atol=1e-15)


def test_jvp_of_grad_of_softmax_of_eigvalsh_at_float32_max():
    # s17112-121: JAX 0.10.2 all NaN (the same F), float64 central differences 0
    x = np.array([[0., -0., 1.], [3.4028234663852886e38, 1., 1.5], [0., 0., 1.]], np.float32)
    t = np.linspace(.5, 1.5, 9, dtype=np.float32).reshape(3, 3) * .7
    wt = np.linspace(.5, 1.5, 3, dtype=np.float32)

    def h(m):
        return jnp.sum(nn.softmax(jnp.linalg.eigh(m)[0]) * wt)

    got = np.asarray(minijax.jvp(minijax.grad(h), (x,), (t,))[1])

    def grad64(m):  # d/dA sum(softmax(w) * wt) = V diag(s * (wt - s.wt)) V^T, A symmetrized
        w, v = np.linalg.eigh((m + m.T) / 2)
        s = np.exp(w - w.max())
        s /= s.sum()
        return v @ np.diag(s * (wt - s @ wt)) @ v.T

    x64, eps = x.astype(np.float64), 1e-3
    fd = (grad64(x64 + eps * t) - grad64(x64 - eps * t)) / (2 * eps)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, fd, atol=1e-6)


def test_grad_grad_of_a_scan_of_logaddexp_at_inf():
    # s17117-195 reduced: JAX 0.10.2 NaN through lax.scan, 0 for the same program unrolled (its
    # loop partial eval differentiates logaddexp's implementation, FINDINGS 165). The function
    # is w0 * (p + log 2) + (w1 + w2) * (cbrt(p) + log 2) with p = ptp(x) = inf, whose second
    # derivative is 0 (ptp is piecewise linear, cbrt' and cbrt'' vanish at inf).
    x0 = np.array([[-1.3991804, 3.4028235e38, np.inf], [-3.4028235e38, -.37915975, .53593338]],
                  np.float32)
    x1 = np.array([-.05, -.02, .06], np.float32)
    w = np.linspace(.5, 1.5, 3, dtype=np.float32)
    ww = np.linspace(.5, 1.5, 6, dtype=np.float32).reshape(2, 3)

    def f(a):
        p = jnp.ptp(a)
        ys = lax.scan(lambda c, x: (jnp.cbrt(p), jnp.logaddexp(c, c)), p, x1)[1]
        return jnp.sum(ys * w)

    got = minijax.grad(lambda a: jnp.sum(minijax.grad(f)(a) * ww))(x0)
    np.testing.assert_array_equal(np.asarray(got), np.zeros((2, 3), np.float32))


@pytest.mark.devices(2)
def test_shard_map_jvp_of_clip_mode_scatter_min():
    # s17010-331 reduced: each shard holds one row, so the indices uint8[1, 0] both clip to row
    # 0, which becomes the constant -1.5: the tangent is 0. JAX 0.10.2 gives -2 per element (its
    # _scatter_extremal_jvp counts the winners without mode='clip': FINDINGS 118).
    mesh = minijax.sharding.Mesh(np.array(minijax.devices()[:2]), ("d",))
    x = np.array([[0., 1., 0.], [1.5, 1., 3.]], np.float32)
    idx = np.array([1, 0], np.uint8)

    def shard(t):
        f = lambda u: u.at[idx].min(-1.5, mode='clip')  # noqa: E731
        return lax.psum(minijax.jvp(f, (t,), (jnp.ones_like(t),))[1], "d")

    got = minijax.shard_map(shard, mesh=mesh, in_specs=(minijax.P("d"),),
                            out_specs=minijax.P())(x)
    np.testing.assert_array_equal(np.asarray(got), np.zeros((1, 3), np.float32))
