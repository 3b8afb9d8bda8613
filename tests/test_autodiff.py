"""End-to-end tests of minijax's differentiation API on model-shaped code.

Derivatives are checked against finite differences (``check_grads``) or against NumPy
implementations differentiated numerically in float64; never against minijax itself, except
where the test *is* a consistency property (jit vs eager).
"""

from __future__ import annotations

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes
from minijax.test_util import check_grads


def _rng(seed=0):
    return np.random.default_rng(seed)


# ------------------------------------------------------------------------------------------------
# Models: minijax versions and NumPy references


def mlp(params, x):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return jnp.sum((h @ w + b) ** 2) / x.shape[0]


def xent(logits, labels):
    logp = minijax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.sum(labels * logp, axis=-1))


def xent_np(logits, labels):
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -np.mean(np.sum(labels * logp, axis=-1))


def layernorm(x, gamma, beta, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return jnp.sum(((x - mean) / jnp.sqrt(var + eps) * gamma + beta) ** 3)


def attention(wq, wk, wv, x):
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / np.sqrt(q.shape[-1])
    return jnp.sum(jnp.tanh(minijax.nn.softmax(scores, axis=-1) @ v))


def attention_np(wq, wk, wv, x):
    q, k, v = x @ wq, x @ wk, x @ wv
    s = q @ k.T / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.sum(np.tanh(p @ v))


def _mlp_params(rng, sizes, dtype=np.float64):
    return [(rng.normal(size=(m, n)).astype(dtype) / np.sqrt(m), rng.normal(size=n).astype(dtype))
            for m, n in zip(sizes[:-1], sizes[1:])]


def numerical_grad(f, args, argnum=0, eps=1e-6):
    """Central differences of the float64 NumPy function ``f`` w.r.t. ``args[argnum]``."""
    x = np.array(args[argnum], np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        for sign in (1, -1):
            xp = x.copy()
            xp[i] += sign * eps
            a = list(args)
            a[argnum] = xp
            g[i] += sign * f(*a) / (2 * eps)
    return g


def numerical_jacobian(f, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    y = np.asarray(f(x))
    jac = np.zeros(y.shape + x.shape)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        jac[(...,) + i] = (np.asarray(f(xp)) - np.asarray(f(xm))) / (2 * eps)
    return jac


# ------------------------------------------------------------------------------------------------
# Models vs finite differences


def test_mlp_grad_matches_finite_differences(x64):
    rng = _rng(0)
    params = _mlp_params(rng, [4, 8, 8, 3])
    x = rng.normal(size=(5, 4))
    check_grads(mlp, (params, x), order=2, modes=("rev",), jit=True)
    check_grads(mlp, (params, x), order=1, modes=("fwd",), jit=True)


def test_softmax_cross_entropy_grad(x64):
    rng = _rng(1)
    logits = rng.normal(size=(4, 6)) * 3
    labels = np.eye(6)[rng.integers(0, 6, size=4)]
    check_grads(xent, (logits, labels), order=2, jit=True)
    g = minijax.grad(xent)(logits, labels)
    np.testing.assert_allclose(g, numerical_grad(xent_np, (logits, labels)), rtol=1e-6,
                               atol=1e-8)
    # the closed form: (softmax - labels) / batch
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(g, (p - labels) / 4, rtol=1e-10, atol=1e-12)


def test_layernorm_grad(x64):
    rng = _rng(2)
    x = rng.normal(size=(3, 8))
    gamma, beta = rng.normal(size=8), rng.normal(size=8)
    check_grads(layernorm, (x, gamma, beta), order=2, jit=True)


def test_attention_grad(x64):
    rng = _rng(3)
    d = 4
    ws = [rng.normal(size=(d, d)) / 2 for _ in range(3)]
    x = rng.normal(size=(5, d))
    check_grads(attention, (*ws, x), order=1, jit=True)
    for i in range(4):
        g = minijax.grad(attention, argnums=i)(*ws, x)
        np.testing.assert_allclose(g, numerical_grad(attention_np, (*ws, x), i), rtol=1e-5,
                                   atol=1e-7)


def test_grad_under_jit_equals_eager():
    rng = _rng(4)
    params = _mlp_params(rng, [4, 16, 2], np.float32)
    x = rng.normal(size=(8, 4)).astype(np.float32)
    eager = minijax.grad(mlp)(params, x)
    jitted = minijax.jit(minijax.grad(mlp))(params, x)
    # Eager runs op by op, jit fuses: float32 sums reassociate. On a GPU, float32 matmuls run
    # in TF32 (as in JAX), so there the gap is ~1e-3 of the gradient's scale.
    tol = 1e-5 if minijax.default_backend() == "cpu" else 2e-3
    for (ge_w, ge_b), (gj_w, gj_b) in zip(eager, jitted):
        for got, want in ((gj_w, ge_w), (gj_b, ge_b)):
            scale = float(np.max(np.abs(want)))
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


# ------------------------------------------------------------------------------------------------
# grad's options


def f3(x, y, z):
    return jnp.sum(jnp.sin(x) * y) + z**2


def test_argnums_int_and_tuple():
    x, y, z = np.float32([0.1, 0.2]), np.float32([3.0, 4.0]), np.float32(1.5)
    gx = minijax.grad(f3)(x, y, z)
    np.testing.assert_allclose(gx, np.cos(x) * y, rtol=1e-6)
    gz = minijax.grad(f3, argnums=2)(x, y, z)
    np.testing.assert_allclose(gz, 3.0, rtol=1e-6)
    gx, gy = minijax.grad(f3, argnums=(0, 1))(x, y, z)
    np.testing.assert_allclose(gy, np.sin(x), rtol=1e-6)
    (gy2,) = minijax.grad(f3, argnums=(1,))(x, y, z)
    np.testing.assert_allclose(gy2, np.sin(x), rtol=1e-6)
    gz2 = minijax.grad(f3, argnums=-1)(x, y, z)
    np.testing.assert_allclose(gz2, 3.0, rtol=1e-6)
    val, g = minijax.value_and_grad(f3, argnums=(0, 2))(x, y, z)
    np.testing.assert_allclose(val, np.sum(np.sin(x) * y) + 1.5**2, rtol=1e-6)


def test_grad_pytree_argument():
    params = {"w": np.float32([1.0, 2.0]), "b": (np.float32(0.5),)}
    g = minijax.grad(lambda p: jnp.sum(p["w"] ** 2) * p["b"][0])(params)
    assert set(g) == {"w", "b"} and isinstance(g["b"], tuple)
    np.testing.assert_allclose(g["w"], 2 * params["w"] * 0.5)
    np.testing.assert_allclose(g["b"][0], 5.0)


def test_has_aux():
    def loss(x):
        y = jnp.sin(x)
        return jnp.sum(y), {"y": y, "n": 3}

    x = np.float32([0.3, 0.4])
    g, aux = minijax.grad(loss, has_aux=True)(x)
    np.testing.assert_allclose(g, np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(aux["y"], np.sin(x), rtol=1e-6)
    (val, aux2), g2 = minijax.value_and_grad(loss, has_aux=True)(x)
    np.testing.assert_allclose(val, np.sin(x).sum(), rtol=1e-6)
    np.testing.assert_allclose(g2, np.cos(x), rtol=1e-6)
    assert aux2["n"] == 3


def test_allow_int_gives_float0():
    def f(x, n):
        return x * n

    gx, gn = minijax.grad(f, argnums=(0, 1), allow_int=True)(np.float32(2.0), 3)
    np.testing.assert_allclose(gx, 3.0)
    assert np.asarray(gn).dtype == dtypes.float0 and np.shape(gn) == ()
    gi = minijax.grad(lambda x, i: jnp.sum(x[i]), argnums=1, allow_int=True)(
        np.float32([1, 2, 3]), np.int32([0, 2]))
    assert gi.dtype == dtypes.float0 and gi.shape == (2,)


def test_jvp_and_vjp_with_int_inputs_use_float0():
    f = lambda x, i: x * i  # noqa: E731
    out, t = minijax.jvp(f, (np.float32(2.0), np.int32(3)),
                         (np.float32(1.0), np.zeros((), dtypes.float0)))
    np.testing.assert_allclose(t, 3.0)
    _, pullback = minijax.vjp(f, np.float32(2.0), np.int32(3))
    ct_x, ct_i = pullback(np.float32(1.0))
    np.testing.assert_allclose(ct_x, 3.0)
    assert np.asarray(ct_i).dtype == dtypes.float0
    with pytest.raises(TypeError, match="float0"):
        minijax.jvp(f, (np.float32(2.0), np.int32(3)), (np.float32(1.0), np.float32(0.0)))


# ------------------------------------------------------------------------------------------------
# Higher order


def test_grad_of_grad_and_jvp_of_grad():
    f = lambda x: jnp.sin(x) * x**2  # noqa: E731
    x = 0.7
    d2 = minijax.grad(minijax.grad(f))(np.float32(x))
    exact = -np.sin(x) * x**2 + 4 * x * np.cos(x) + 2 * np.sin(x)
    np.testing.assert_allclose(d2, exact, rtol=1e-5)
    _, t = minijax.jvp(minijax.grad(f), (np.float32(x),), (np.float32(2.0),))
    np.testing.assert_allclose(t, 2 * exact, rtol=1e-5)
    d3 = minijax.grad(minijax.grad(minijax.grad(f)))(np.float32(x))
    exact3 = -np.cos(x) * x**2 - 6 * x * np.sin(x) + 6 * np.cos(x)
    np.testing.assert_allclose(d3, exact3, rtol=1e-4)
    np.testing.assert_allclose(minijax.jit(minijax.grad(minijax.grad(f)))(np.float32(x)), exact,
                               rtol=1e-5)


def _vec_f(x):
    return jnp.stack([jnp.sin(x[0]) * x[1], jnp.exp(x[1]) * x[2], x[0] * x[2] ** 2, x[1]])


def _vec_f_np(x):
    return np.stack([np.sin(x[0]) * x[1], np.exp(x[1]) * x[2], x[0] * x[2] ** 2, x[1]])


def test_jacfwd_jacrev_vs_numpy_finite_differences(x64):
    x = np.array([0.3, -0.5, 1.2])
    expected = numerical_jacobian(_vec_f_np, x)
    np.testing.assert_allclose(minijax.jacfwd(_vec_f)(x), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(minijax.jacrev(_vec_f)(x), expected, rtol=1e-6, atol=1e-8)
    m = _rng(5).normal(size=(2, 3))
    g = lambda m: jnp.tanh(m) @ jnp.ones(3)  # noqa: E731
    jac = minijax.jacrev(g)(m)
    assert jac.shape == (2, 2, 3)
    np.testing.assert_allclose(jac, numerical_jacobian(lambda m: np.tanh(m) @ np.ones(3), m),
                               rtol=1e-6, atol=1e-8)


def test_hessian_vs_numpy_finite_differences(x64):
    def f(x):
        return jnp.sum(jnp.sin(x) * x[::-1]) + jnp.prod(x)

    def grad_np(x):
        return numerical_jacobian(lambda x: np.sum(np.sin(x) * x[::-1]) + np.prod(x), x)

    x = np.array([0.3, -0.5, 1.2])
    expected = numerical_jacobian(grad_np, x, eps=1e-4)
    h = minijax.hessian(f)(x)
    np.testing.assert_allclose(h, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h, h.T, rtol=1e-12)


# ------------------------------------------------------------------------------------------------
# Staging


def test_make_jaxpr_of_grad_prints_backward_pass():
    f = lambda x: jnp.sum(jnp.tanh(x) ** 2)  # noqa: E731
    text = str(minijax.make_jaxpr(minijax.grad(f))(np.ones(3, np.float32)))
    assert text.startswith("{ lambda ; a:f32[3]. let")
    assert "tanh" in text and "mul" in text
    assert text.rstrip().endswith("}")


def test_jit_grad_lowers_to_one_module():
    f = lambda w, x: jnp.sum(jnp.tanh(x @ w))  # noqa: E731
    w, x = np.ones((3, 2), np.float32), np.ones((4, 3), np.float32)
    text = minijax.jit(minijax.grad(f)).lower(w, x).as_text()
    assert text.count("module @") == 1
    assert text.count("func.func") == 1  # everything inlined into main
    assert "stablehlo.dot_general" in text and "stablehlo.tanh" in text


# ------------------------------------------------------------------------------------------------
# Errors


def test_grad_of_non_scalar_output_raises():
    with pytest.raises(TypeError, match="scalar") as e:
        minijax.grad(lambda x: jnp.sin(x))(np.ones(3, np.float32))
    assert "vjp" in str(e.value) and "jacrev" in str(e.value)
    with pytest.raises(TypeError, match="scalar"):
        minijax.grad(lambda x: (jnp.sum(x), jnp.sum(x)))(np.ones(3, np.float32))


def test_grad_wrt_int_without_allow_int_raises():
    with pytest.raises(TypeError, match="allow_int") as e:
        minijax.grad(lambda x: x * 2.0)(3)
    assert "int32" in str(e.value)
    with pytest.raises(TypeError, match="allow_int"):
        minijax.grad(lambda x, n: x * n, argnums=1)(1.0, np.int32(2))


def test_stop_gradient_and_unused_inputs_cost_nothing():
    def f(x, y):
        return jnp.sum(jnp.sin(x) + minijax.lax.stop_gradient(jnp.cos(y)))

    jaxpr = minijax.make_jaxpr(minijax.grad(f, argnums=1))(np.ones(3, np.float32),
                                                           np.ones(3, np.float32))
    names = [e.primitive.name for e in jaxpr.eqns]
    assert "mul" not in names  # no tangent work at all
    g = minijax.grad(f, argnums=1)(np.ones(3, np.float32), np.ones(3, np.float32))
    np.testing.assert_array_equal(g, np.zeros(3, np.float32))
