"""lax.custom_linear_solve / linear_solve_p, lax.custom_root: values against NumPy, implicit
derivatives against their closed forms (and finite differences), vmap, jit, and JAX 0.10.2's
errors."""

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

A = np.array([[4.0, 1.0], [2.0, 3.0]], np.float32)
S = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)  # symmetric
B = np.array([1.0, 2.0], np.float32)


def _solve(a, b, transpose_solve=True):
    return lax.custom_linear_solve(
        lambda x: a @ x, b, lambda mv, x: jnp.linalg.solve(a, x),
        (lambda vm, x: jnp.linalg.solve(a.T, x)) if transpose_solve else None)


def test_value_and_jit():
    want = np.linalg.solve(A, B)
    np.testing.assert_allclose(_solve(jnp.asarray(A), B), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(_solve)(A, B), want, rtol=1e-6)


def test_grad_is_implicit():
    # d sum(A^-1 b): db = A^-T 1, dA = -(A^-T 1) x^T
    ga, gb = jax.grad(lambda a, b: _solve(a, b).sum(), argnums=(0, 1))(A, B)
    x = np.linalg.solve(A, B)
    lam = np.linalg.solve(A.T, np.ones(2))
    np.testing.assert_allclose(gb, lam, rtol=1e-5)
    np.testing.assert_allclose(ga, -np.outer(lam, x), rtol=1e-5)
    # jit(grad) gives the same
    np.testing.assert_allclose(jax.jit(jax.grad(lambda a: _solve(a, B).sum()))(A), ga, rtol=1e-5)


def test_jvp_and_second_order_against_finite_differences():
    da = np.array([[0.3, -0.2], [0.1, 0.5]], np.float32)
    _, t = jax.jvp(lambda a: _solve(a, B), (A,), (da,))
    eps = 1e-3
    a64 = A.astype(np.float64)
    fd = (np.linalg.solve(a64 + eps * da, B) - np.linalg.solve(a64 - eps * da, B)) / (2 * eps)
    np.testing.assert_allclose(t, fd, rtol=1e-4, atol=1e-5)
    # the Hessian of sum(A^-1 b) in A, by forward-over-reverse, against finite differences of
    # the closed-form gradient
    h = jax.hessian(lambda a: _solve(a, B).sum())(A)

    def grad64(a):
        x, lam = np.linalg.solve(a, B), np.linalg.solve(a.T, np.ones(2))
        return -np.outer(lam, x)

    for i in range(2):
        for j in range(2):
            e = np.zeros((2, 2))
            e[i, j] = eps
            fd = (grad64(a64 + e) - grad64(a64 - e)) / (2 * eps)
            np.testing.assert_allclose(h[:, :, i, j], fd, rtol=1e-3, atol=1e-4)


def test_vmap_over_b_and_over_matrix():
    bs = np.stack([B, 2 * B + 1])
    out = jax.vmap(_solve, in_axes=(None, 0))(A, bs)
    np.testing.assert_allclose(out, np.linalg.solve(A, bs.T).T, rtol=1e-5)
    As = np.stack([A, 2 * A + np.eye(2, dtype=np.float32)])
    out = jax.vmap(_solve, in_axes=(0, None))(As, B)
    np.testing.assert_allclose(out, [np.linalg.solve(a, B) for a in As], rtol=1e-5)
    g = jax.vmap(jax.grad(lambda a, b: _solve(a, b).sum()), in_axes=(0, None))(As, B)
    for a, gi in zip(As, g):
        lam, x = np.linalg.solve(a.T, np.ones(2)), np.linalg.solve(a, B)
        np.testing.assert_allclose(gi, -np.outer(lam, x), rtol=1e-5)


def test_symmetric_has_aux_and_pytrees():
    def f(b):
        return lax.custom_linear_solve(
            lambda x: S @ x, b, lambda mv, x: (jnp.linalg.solve(S, x), jnp.sum(x)),
            symmetric=True, has_aux=True)

    x, aux = f(B)
    np.testing.assert_allclose(x, np.linalg.solve(S, B), rtol=1e-6)
    np.testing.assert_allclose(aux, 3.0)
    np.testing.assert_allclose(jax.jacrev(lambda b: f(b)[0])(B), np.linalg.inv(S), rtol=1e-5)
    xs, auxs = jax.vmap(f)(np.stack([B, B]))
    assert xs.shape == (2, 2) and auxs.shape == (2,)

    def diag(d):
        mv = lambda t: {"u": 2 * t["u"], "v": 3 * t["v"]}  # noqa: E731
        inv = lambda _, t: {"u": t["u"] / 2, "v": t["v"] / 3}  # noqa: E731
        return lax.custom_linear_solve(mv, d, inv, inv)

    d = {"u": np.float32(1.0), "v": np.ones(2, np.float32)}
    out = diag(d)
    np.testing.assert_allclose(out["v"], [1 / 3, 1 / 3], rtol=1e-6)
    g = jax.grad(lambda d: diag(d)["u"] + diag(d)["v"].sum())(d)
    np.testing.assert_allclose(g["u"], 0.5)
    np.testing.assert_allclose(g["v"], [1 / 3, 1 / 3], rtol=1e-6)


def test_jaxpr_holds_linear_solve():
    jaxpr = jax.make_jaxpr(_solve)(A, B)
    eqn, = jaxpr.jaxpr.eqns
    assert eqn.primitive is lax.linear_solve_p and eqn.primitive.name == "custom_linear_solve"
    assert tuple(eqn.params["const_lengths"]) == (1, 1, 1, 1)


def test_errors_as_jax():
    a = jnp.asarray(A)
    with pytest.raises(TypeError, match="transpose_solve required for backwards mode"):
        jax.grad(lambda b: _solve(a, b, transpose_solve=False).sum())(B)
    with pytest.raises(ValueError, match=r"solve\(\) output shapes must match b"):
        lax.custom_linear_solve(lambda x: a @ x, B, lambda mv, x: x[:1])
    with pytest.raises(TypeError, match=r"solve\(\) output pytree structure must match b"):
        lax.custom_linear_solve(lambda x: a @ x, B, lambda mv, x: [x])
    with pytest.raises(ValueError, match="because has_aux was set to True"):
        lax.custom_linear_solve(lambda x: a @ x, B, lambda mv, x: [x], has_aux=True)


# ------------------------------------------------------------------------------------------------
# custom_root


def _newton_sqrt(c):
    def solve(f, y0):
        return lax.while_loop(lambda y: jnp.abs(f(y)) > 1e-6, lambda y: y - f(y) / (2 * y), y0)

    return lax.custom_root(lambda y: y ** 2 - c, 1.0, solve, lambda g, y: y / g(1.0))


def test_custom_root_value_grad_vmap_jit():
    np.testing.assert_allclose(_newton_sqrt(2.0), np.sqrt(2.0), rtol=1e-6)
    # through the implicit function theorem, not through the while_loop (which has no
    # reverse-mode derivative)
    np.testing.assert_allclose(jax.grad(_newton_sqrt)(2.0), 0.5 / np.sqrt(2.0), rtol=1e-5)
    cs = np.array([2.0, 3.0], np.float32)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(_newton_sqrt)))(cs),
                               0.5 / np.sqrt(cs), rtol=1e-5)
    np.testing.assert_allclose(jax.jvp(_newton_sqrt, (4.0,), (1.0,))[1], 0.25, rtol=1e-5)
    eqn, = jax.make_jaxpr(_newton_sqrt)(2.0).jaxpr.eqns
    assert eqn.primitive.name == "custom_jvp_call"


def test_custom_root_pytree_and_aux():
    def r(c):
        f = lambda y: (y[0] * c - 1.0, y[1] - c)  # noqa: E731
        return lax.custom_root(f, (1.0, 1.0), lambda f, y0: ((1.0 / c, c), c * 10),
                               lambda g, y: (y[0] / g((1.0, 0.0))[0], y[1]), has_aux=True)

    (y0, y1), aux = r(2.0)
    np.testing.assert_allclose([np.asarray(v) for v in (y0, y1, aux)], [0.5, 2.0, 20.0])
    jac = jax.jacrev(lambda c: r(c)[0])(2.0)
    np.testing.assert_allclose(jac, [-0.25, 1.0], rtol=1e-6)
    with pytest.raises(TypeError, match=r"f\(\) output pytree structure must match "
                                        "initial_guess"):
        lax.custom_root(lambda y: [y], 1.0, lambda f, y: y, lambda g, y: y)


def _cg(matvec, b):
    """Conjugate gradients in a while_loop: no reverse-mode derivative of its own."""
    def body(state):
        x, r, p, k = state
        ap = matvec(p)
        alpha = (r @ r) / (p @ ap)
        x, r_new = x + alpha * p, r - alpha * ap
        return x, r_new, r_new + (r_new @ r_new) / (r @ r) * p, k + 1

    init = (jnp.zeros_like(b), b, b, 0)
    return lax.while_loop(lambda s: (s[3] < 10) & (jnp.linalg.norm(s[1]) > 1e-7), body, init)[0]


def test_iterative_solver_linearize_and_jacobians():
    s3 = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], np.float32)
    b3 = np.array([1.0, 2.0, 3.0], np.float32)
    f = lambda s, b: lax.custom_linear_solve(lambda x: s @ x, b, _cg, symmetric=True)  # noqa: E731
    np.testing.assert_allclose(f(s3, b3), np.linalg.solve(s3, b3), rtol=1e-5)
    inv = np.linalg.inv(s3)
    _, f_lin = jax.linearize(lambda b: f(s3, b), b3)
    np.testing.assert_allclose(f_lin(b3), inv @ b3, rtol=1e-5)
    x = inv @ b3
    want = -inv[:, :, None] * x[None, None, :]  # dx_i/ds_jk = -inv_ij x_k
    np.testing.assert_allclose(jax.jacfwd(lambda s: f(s, b3))(s3), want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(jax.jacrev(lambda s: f(s, b3))(s3), want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(lambda b: f(s3, b).sum()))(b3),
                               inv.T @ np.ones(3), rtol=1e-5)
