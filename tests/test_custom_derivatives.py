"""custom_jvp / custom_vjp: the user's rules are used (checked against closed forms computed
with NumPy, including rules that deliberately differ from the true derivative), compose with
jit, vmap and higher-order differentiation, and report rule mistakes clearly."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import custom_jvp, custom_vjp

X = np.float32(0.3)
Y = np.float32(1.5)
XS = np.linspace(-1, 1, 5).astype(np.float32)


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=rtol,
                               atol=atol)


# ------------------------------------------------------------------------------------------------
# custom_jvp

# sin(x) * y with a rule that scales the x-part by 2: proves the rule (not autodiff) is used.
@custom_jvp
def f(x, y):
    return jnp.sin(x) * y


@f.defjvp
def f_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return f(x, y), 2.0 * jnp.cos(x) * y * tx + jnp.sin(x) * ty


def df_dx(x, y):
    return 2 * np.cos(x) * y


def test_custom_jvp_eager_and_jit_value():
    close(f(X, Y), np.sin(X) * Y)
    close(minijax.jit(f)(X, Y), np.sin(X) * Y)


def test_custom_jvp_rule_used_by_jvp_and_grad():
    _, t = minijax.jvp(f, (X, Y), (np.float32(1), np.float32(0)))
    close(t, df_dx(X, Y))
    gx, gy = minijax.grad(f, argnums=(0, 1))(X, Y)
    close(gx, df_dx(X, Y))
    close(gy, np.sin(X))
    gx, gy = minijax.jit(minijax.grad(f, argnums=(0, 1)))(X, Y)
    close(gx, df_dx(X, Y))
    close(gy, np.sin(X))


def test_custom_jvp_under_vmap_both_orders():
    close(minijax.vmap(f, (0, None))(XS, Y), np.sin(XS) * Y)
    close(minijax.vmap(minijax.grad(f), (0, None))(XS, Y), df_dx(XS, Y))
    g = minijax.grad(lambda xs: jnp.sum(minijax.vmap(f, (0, None))(xs, Y)))(XS)
    close(g, df_dx(XS, Y))
    g = minijax.jit(minijax.grad(lambda xs, y: jnp.sum(minijax.vmap(f)(xs, y)), (0, 1)))(XS, XS)
    close(g[0], df_dx(XS, XS))
    close(g[1], np.sin(XS))
    _, t = minijax.jvp(minijax.vmap(f), (XS, XS), (np.ones(5, np.float32), np.zeros(5, np.float32)))
    close(t, df_dx(XS, XS))


def test_custom_jvp_higher_order():
    # the rule calls f itself, so second derivatives use the rule again: d/dx (2 cos x y) is
    # autodiff of the rule's own expression
    close(minijax.grad(minijax.grad(f))(X, Y), -2 * np.sin(X) * Y)
    _, t = minijax.jvp(minijax.grad(f), (X, Y), (np.float32(1), np.float32(0)))
    close(t, -2 * np.sin(X) * Y)
    h = minijax.hessian(lambda v: f(v[0], v[1]))(np.array([X, Y]))
    # rows: d/dv_j of the rule's gradient (2 cos x y, sin x): not symmetric, as the rule is not
    # the true derivative
    close(h, [[-2 * np.sin(X) * Y, 2 * np.cos(X)], [np.cos(X), 0]])


def test_custom_jvp_numerically_stable_rule():
    @custom_jvp
    def log1pexp(x):
        return jnp.log1p(jnp.exp(x))

    @log1pexp.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * (1 - 1 / (1 + jnp.exp(x)))

    naive = minijax.grad(lambda x: jnp.log1p(jnp.exp(x)))(np.float32(100.0))
    assert np.isnan(naive)  # exp overflows: inf / inf
    close(minijax.grad(log1pexp)(np.float32(100.0)), 1.0)
    close(minijax.jit(minijax.vmap(minijax.grad(log1pexp)))(XS), 1 / (1 + np.exp(-XS)))


def test_defjvps():
    @custom_jvp
    def g(x, y):
        return x * y

    g.defjvps(lambda tx, ans, x, y: 3.0 * tx * y, None)
    gx, gy = minijax.grad(g, argnums=(0, 1))(X, Y)
    close(gx, 3 * Y)
    close(gy, 0.0)


def test_custom_jvp_nondiff_argnums():
    @functools.partial(custom_jvp, nondiff_argnums=(0,))
    def app(fn, x):
        return fn(x)

    @app.defjvp
    def app_jvp(fn, primals, tangents):
        (x,), (t,) = primals, tangents
        return app(fn, x), 10.0 * t

    close(app(jnp.sin, X), np.sin(X))
    close(minijax.grad(app, argnums=1)(jnp.sin, X), 10.0)
    close(minijax.jit(minijax.grad(lambda x: app(jnp.sin, x)))(X), 10.0)
    close(minijax.vmap(minijax.grad(lambda x: app(jnp.cos, x)))(XS), np.full(5, 10.0))


def test_custom_jvp_pytrees_and_jaxpr():
    @custom_jvp
    def h(d):
        return {"s": jnp.sum(d["a"] * d["b"]), "a2": d["a"] * 2}

    @h.defjvp
    def h_jvp(primals, tangents):
        (d,), (t,) = primals, tangents
        return h(d), {"s": jnp.sum(t["a"] * d["b"]), "a2": t["a"] * 2}  # ignores t["b"]

    d = {"a": XS, "b": XS * 2}
    g = minijax.grad(lambda d: h(d)["s"])(d)
    close(g["a"], XS * 2)
    close(g["b"], np.zeros(5))
    text = str(minijax.make_jaxpr(lambda d: h(d)["s"])(d))
    assert "custom_jvp_call" in text and "jvp=h_jvp" in text


def test_custom_jvp_rule_errors():
    @custom_jvp
    def bad(x):
        return jnp.sin(x)

    bad.defjvp(lambda p, t: (bad(p[0]), (t[0], t[0])))
    with pytest.raises(TypeError, match="equal container"):
        minijax.grad(bad)(X)
    bad.defjvp(lambda p, t: (bad(p[0]), jnp.ones(3)))
    with pytest.raises(TypeError, match="shapes and dtypes"):
        minijax.jvp(bad, (X,), (X,))
    with pytest.raises(AttributeError, match="No JVP defined"):
        custom_jvp(jnp.sin)(X)


def test_custom_jvp_closure_over_differentiated_value_raises():
    def outer(y):
        @custom_jvp
        def g(x):
            return x * y

        g.defjvp(lambda p, t: (g(p[0]), t[0] * y))
        return g(X)

    with pytest.raises(TypeError, match="closed-over value"):
        minijax.grad(outer)(Y)


# ------------------------------------------------------------------------------------------------
# custom_vjp

# sin(x) * y whose bwd scales the x-cotangent by 3, with residuals as a dict pytree.
@custom_vjp
def g(x, y):
    return jnp.sin(x) * y


def g_fwd(x, y):
    return g(x, y), {"cos": jnp.cos(x), "rest": (jnp.sin(x), y)}


def g_bwd(res, ct):
    sin_x, y = res["rest"]
    return 3.0 * res["cos"] * y * ct, sin_x * ct


g.defvjp(g_fwd, g_bwd)


def dg_dx(x, y):
    return 3 * np.cos(x) * y


def test_custom_vjp_values_and_grad():
    close(g(X, Y), np.sin(X) * Y)
    close(minijax.jit(g)(X, Y), np.sin(X) * Y)
    gx, gy = minijax.grad(g, argnums=(0, 1))(X, Y)
    close(gx, dg_dx(X, Y))
    close(gy, np.sin(X))
    gx, gy = minijax.jit(minijax.grad(g, argnums=(0, 1)))(X, Y)
    close(gx, dg_dx(X, Y))
    out, pullback = minijax.vjp(g, X, Y)
    ctx, cty = pullback(np.float32(2.0))
    close(ctx, 2 * dg_dx(X, Y))
    text = str(minijax.make_jaxpr(minijax.grad(g))(X, Y))
    assert "custom_vjp_call" in text


def test_custom_vjp_under_vmap_both_orders():
    close(minijax.vmap(g, (0, None))(XS, Y), np.sin(XS) * Y)
    close(minijax.jit(minijax.vmap(g, (0, None)))(XS, Y), np.sin(XS) * Y)
    close(minijax.vmap(minijax.grad(g), (0, None))(XS, Y), dg_dx(XS, Y))
    gx, gy = minijax.grad(lambda xs, y: jnp.sum(minijax.vmap(g, (0, None))(xs, y)), (0, 1))(XS, Y)
    close(gx, dg_dx(XS, Y))
    close(gy, np.sum(np.sin(XS)))  # unbatched input: per-example cotangents summed
    jac = minijax.jacrev(lambda xs: minijax.vmap(g, (0, None))(xs, Y))(XS)
    close(jac, np.diag(dg_dx(XS, Y)))


def test_custom_vjp_higher_order():
    # bwd is ordinary traced code: the outer derivative differentiates fwd and bwd
    close(minijax.grad(minijax.grad(g))(X, Y), -3 * np.sin(X) * Y)
    close(minijax.jit(minijax.grad(minijax.grad(g)))(X, Y), -3 * np.sin(X) * Y)


def test_custom_vjp_forward_mode_raises():
    with pytest.raises(TypeError, match="forward-mode"):
        minijax.jvp(g, (X, Y), (X, Y))
    with pytest.raises(TypeError, match="forward-mode"):
        minijax.jit(lambda x: minijax.jvp(g, (x, Y), (x, Y)))(X)


def test_custom_vjp_clip_gradient_nondiff_argnums():
    @functools.partial(custom_vjp, nondiff_argnums=(0,))
    def clip_grad(limit, x):
        return x

    clip_grad.defvjp(lambda limit, x: (x, None),
                     lambda limit, _, ct: (jnp.clip(ct, -limit, limit),))
    f = lambda x: jnp.sum(clip_grad(0.5, x) * jnp.array([1.0, -3.0, 0.2]))  # noqa: E731
    x = np.float32([1.0, 2.0, 3.0])
    close(minijax.grad(f)(x), [0.5, -0.5, 0.2])
    close(minijax.jit(minijax.grad(f))(x), [0.5, -0.5, 0.2])


def test_custom_vjp_none_cotangent_and_int_input():
    @custom_vjp
    def scale(x, n):
        return x * n

    scale.defvjp(lambda x, n: (scale(x, n), n), lambda n, ct: (ct * n, None))
    close(minijax.grad(scale)(np.float32(2.0), np.int32(4)), 4.0)
    gx, gn = minijax.grad(scale, argnums=(0, 1), allow_int=True)(np.float32(2.0), np.int32(4))
    close(gx, 4.0)
    assert np.asarray(gn).dtype == minijax.dtypes.float0


def test_custom_vjp_bwd_wrong_structure_raises():
    @custom_vjp
    def h(x, y):
        return x * y

    h.defvjp(lambda x, y: (h(x, y), (x, y)), lambda res, ct: (ct,))  # one entry, not two
    with pytest.raises(TypeError, match="length") as e:
        minijax.grad(h)(X, Y)
    msg = str(e.value)
    assert "expected structure" in msg and "PyTreeDef((*, *))" in msg and "got" in msg
    h.defvjp(lambda x, y: (h(x, y), (x, y)), lambda res, ct: ((ct, ct), ct))
    with pytest.raises(TypeError, match="same container") as e:
        minijax.grad(h)(X, Y)
    assert "expected structure PyTreeDef(*)" in str(e.value)
    assert "got structure PyTreeDef((*, *))" in str(e.value)


def test_custom_vjp_bwd_wrong_shape_raises():
    @custom_vjp
    def h(x):
        return jnp.sum(x)

    h.defvjp(lambda x: (h(x), None), lambda res, ct: (jnp.ones(2) * ct,))
    with pytest.raises(ValueError, match="shape/dtypes") as e:
        minijax.grad(h)(np.ones(3, np.float32))
    assert "f32[2]" in str(e.value) and "f32[3]" in str(e.value)


def test_custom_vjp_fwd_errors():
    @custom_vjp
    def h(x):
        return x

    h.defvjp(lambda x: x, lambda res, ct: (ct,))
    with pytest.raises(TypeError, match="pair"):
        minijax.grad(h)(X)
    with pytest.raises(AttributeError, match="No VJP defined"):
        custom_vjp(jnp.sin)(X)
