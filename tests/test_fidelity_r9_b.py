"""Cases of the oracle run of seeds 9000-9059 where minijax differed from JAX 0.10.2, each
against values recorded from JAX 0.10.2 (the snippet that made each is in its test)."""

import numpy as np

import minijax
import minijax.numpy as jnp


def test_asarray_with_a_dtype_makes_a_weak_array_strong():
    # s9053-200. JAX's asarray is array(copy=False): weak only when dtype is None, even where
    # the named dtype is the array's own:
    # x = jnp.asarray([[4, -1], [-2, 0]], jnp.int32) + 3.0          # float32, weak
    # [jnp.asarray(x, dtype=d).weak_type for d in (None, jnp.float32, jnp.float16)]
    # jax.jit(lambda x: jnp.asarray(x + 3.0, dtype=jnp.float32))(i).weak_type
    # jax.vmap(lambda x: jnp.asarray(x + 3.0, dtype=jnp.float32))(i).weak_type
    # JAX 0.10.2: [True, False, False], False, False
    i = jnp.asarray([[4, -1], [-2, 0]], jnp.int32)
    x = i + 3.0
    assert x.weak_type
    assert [jnp.asarray(x, dtype=d).weak_type for d in (None, jnp.float32, jnp.float16)] == [
        True, False, False]
    assert not minijax.jit(lambda x: jnp.asarray(x + 3.0, dtype=jnp.float32))(i).weak_type
    assert not minijax.vmap(lambda x: jnp.asarray(x + 3.0, dtype=jnp.float32))(i).weak_type


def test_inverse_second_derivatives_never_differentiate_the_lu():
    # s9050-45, s9047-271. JAX's inv is solve(a, I), a custom_linear_solve with the LU of
    # stop_gradient(a): every derivative order is again a solve with those factors, so an
    # infinite entry (whose LU holds infs) leaves the finite second derivatives finite:
    # a = np.array([[-np.inf, 1.], [2., 3.]], np.float32); f = lambda x: jnp.sum(jnp.linalg.inv(x))
    # jax.grad(lambda x: jnp.sum(jax.grad(f)(x)))(a); jax.jvp(jax.grad(f), (a,), (ones,))[1]
    # x2, w as below; g = lambda x: jnp.sum(jax.grad(lambda y: jnp.sum(
    #     jnp.linalg.inv(y) * w))(x) * w); jax.grad(g)(x2).view(np.uint32)
    # JAX 0.10.2: [[0, 0], [0, 0.07407408207654953]] (both), [[0, 0, 0], [0, 3218125523,
    # 3214540490], [0, 1099298069, 1093043052]]; minijax differentiated the LU: NaN at [0, 0]
    a = np.array([[-np.inf, 1.], [2., 3.]], np.float32)
    f = lambda x: jnp.sum(jnp.linalg.inv(x))
    expect = [[0.0, 0.0], [0.0, 0.07407408207654953]]
    assert np.asarray(minijax.grad(lambda x: jnp.sum(minijax.grad(f)(x)))(a)).tolist() == expect
    assert np.asarray(minijax.jvp(minijax.grad(f), (a,), (np.ones_like(a),))[1]).tolist() == expect
    x2 = np.frombuffer(bytes.fromhex("000080fffe0c9a3f2aa1cd3de7ac3e3e8e26323f03000000bdea163f"
                                     "811c053f5dae093f"), np.float32).reshape(3, 3)
    w = np.linspace(0.5, 1.5, 9).reshape(3, 3).astype(np.float32)
    g = lambda x: jnp.sum(minijax.grad(lambda y: jnp.sum(jnp.linalg.inv(y) * w))(x) * w)
    assert np.asarray(minijax.grad(g)(x2)).view(np.uint32).tolist() == [
        [0, 0, 0], [0, 3218125523, 3214540490], [0, 1099298069, 1093043052]]


def test_solve_hessian_in_a_and_b_under_vmap():
    # The transposed solve (reverse mode) and the batched forms, second order:
    # jax.hessian(lambda m, b: jnp.sum(jnp.sin(jax.vmap(lambda v: jnp.linalg.solve(m, v))(b))),
    #             argnums=(0, 1))(m, bs): sums of the (m, m), (m, b), (b, b) blocks and of
    # |(m, m)|; JAX 0.10.2: -2.2456462, -3.4350867, 0.4982481, 13.345102
    m = np.array([[2., 0.5, 0.1], [0.3, 1.5, -0.4], [0.2, -0.1, 1.8]], np.float32)
    bs = np.array([[1., -2., 0.5], [0.3, 0.7, -1.1]], np.float32)
    h = minijax.hessian(lambda m, b: jnp.sum(jnp.sin(minijax.vmap(
        lambda v: jnp.linalg.solve(m, v))(b))), argnums=(0, 1))(m, bs)
    got = [np.asarray(h[0][0]).sum(), np.asarray(h[0][1]).sum(), np.asarray(h[1][1]).sum(),
           np.abs(np.asarray(h[0][0])).sum()]
    np.testing.assert_allclose(got, [-2.2456462, -3.4350867, 0.4982481, 13.345102], rtol=1e-5)


def test_inverse_hessian_vector_product_matches_finite_differences():
    # d/dm of sum(inv(m) * W) is -inv(m)^T W inv(m)^T; its central difference along t (NumPy,
    # float64) is the hessian-vector product that jvp(grad) computes through the solves
    m = np.array([[2., 0.5, 0.1], [0.3, 1.5, -0.4], [0.2, -0.1, 1.8]])
    w = np.linspace(0.5, 1.5, 9).reshape(3, 3)
    t = np.linspace(-1, 1, 9).reshape(3, 3)

    def grad_np(x):
        inv_t = np.linalg.inv(x).T
        return -inv_t @ w @ inv_t

    eps = 1e-6
    fd = (grad_np(m + eps * t) - grad_np(m - eps * t)) / (2 * eps)
    f = lambda x: jnp.sum(jnp.linalg.inv(x) * w.astype(np.float32))
    hvp = minijax.jvp(minijax.grad(f), (m.astype(np.float32),), (t.astype(np.float32),))[1]
    np.testing.assert_allclose(np.asarray(hvp), fd, rtol=1e-4, atol=1e-5)
