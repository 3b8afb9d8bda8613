"""Regressions for differences from real JAX 0.10.2; expected values were recorded from JAX
0.10.2 (comments say so) or are JAX's documented behaviour (errors it raises)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes, lax, nn


def _close(got, want, **kw):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), **kw)


# -- dtypes, copies ------------------------------------------------------------------------------


def test_result_type_of_numpy_dtype_is_not_a_python_type():
    # JAX 0.10.2: result_type(np.dtype('float64')) is float32 (x64 off), strongly typed.
    assert dtypes.result_type(np.dtype("float64"), return_weak_type_flag=True) == (
        np.dtype("float32"), False)
    assert dtypes.result_type(np.dtype("int64")) == np.dtype("int32")
    assert dtypes.result_type(float, return_weak_type_flag=True) == (np.dtype("float32"), True)


def test_copy_survives_donation_of_its_source():
    x = jnp.arange(3.0)
    y = jnp.copy(x)
    assert y is not x and jnp.array(x) is not x
    minijax.jit(lambda a: a * 2, donate_argnums=0)(x)
    _close(y, [0.0, 1.0, 2.0])


# -- nn dtype rules -------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [nn.sigmoid, nn.silu, nn.swish])
@pytest.mark.parametrize("x", [jnp.array([1, 2]), jnp.array([True, False]), 1])
def test_logistic_activations_refuse_integers(fn, x):
    # JAX 0.10.2: "logistic does not accept dtype int32/bool"
    with pytest.raises(TypeError, match="logistic does not accept dtype"):
        fn(x)


@pytest.mark.parametrize("fn", [nn.log_sigmoid, nn.softmax, nn.log_softmax])
def test_bool_refused_where_jax_negates_or_subtracts_first(fn):
    with pytest.raises(TypeError):
        fn(jnp.array([True, False]))
    # JAX 0.10.2: log_sigmoid of int32 [1, 2] is float32 [-0.31326169, -0.12692805]
    if fn is nn.log_sigmoid:
        _close(fn(jnp.array([1, 2])), [-0.31326169, -0.12692805], rtol=1e-6)


def test_hard_tanh_keeps_integer_dtype():
    out = nn.hard_tanh(jnp.array([-3, 0, 2]))
    assert out.dtype == np.int32  # JAX 0.10.2
    _close(out, [-1, 0, 1])


def test_vmap_of_custom_jvp_keeps_weak_types():
    # JAX 0.10.2: vmap(relu)(bool [T, F]) -> Array([1, 0], dtype=int32, weak_type=True)
    out = minijax.vmap(nn.relu)(jnp.array([True, False]))
    assert out.dtype == np.int32 and out.aval.weak_type
    _close(out, [1, 0])
    out = minijax.vmap(nn.relu6)(jnp.array([1, 7]))
    assert out.dtype == np.float32 and out.aval.weak_type  # JAX 0.10.2
    _close(out, [1.0, 6.0])


# -- autodiff ------------------------------------------------------------------------------------


def test_grad_at_python_scalar_primals():
    # JAX 0.10.2: grad(jnp.abs)(0.0) == 1.0, grad(jnp.log1p)(0.5) == 2/3
    _close(minijax.grad(jnp.abs)(0.0), 1.0)
    _close(minijax.grad(jnp.log1p)(0.5), 2 / 3, rtol=1e-6)
    _close(minijax.jvp(jnp.abs, (0.0,), (1.0,))[1], 1.0)


# -- indexing and scatters -----------------------------------------------------------------------


def test_static_out_of_bounds_index_updates_drop_reads_clamp():
    x = jnp.arange(5.0)
    # JAX 0.10.2: the update is dropped; reads clamp (or fill)
    for out in (x.at[6].set(1.0), x.at[-6].set(1.0), x.at[6].add(1.0), x.at[6].mul(2.0),
                x.at[6].set(1.0, mode="promise_in_bounds"),
                minijax.jit(lambda a: a.at[6].set(1.0))(x)):
        _close(out, [0.0, 1.0, 2.0, 3.0, 4.0])
    _close(x.at[6].set(1.0, mode="clip"), [0.0, 1.0, 2.0, 3.0, 1.0])
    _close(jnp.zeros((2, 3)).at[1, 6].set(1.0), np.zeros((2, 3)))
    assert float(x[6]) == 4.0 and float(x[-6]) == 0.0
    assert np.isnan(float(x.at[6].get(mode="fill")))


def test_zero_size_axis_gathers():
    z, z2 = jnp.zeros((0, 3)), jnp.zeros((3, 0))
    with pytest.raises(IndexError, match="Cannot do a non-empty jnp.take"):
        jnp.take(z, jnp.array([0, 1]), axis=0)
    with pytest.raises(IndexError, match="with size 0"):
        minijax.jit(lambda a, i: a[i])(z, 0)
    # JAX 0.10.2: empty results, or zeros from take_along_axis
    assert jnp.take(z, jnp.array([], jnp.int32), axis=0).shape == (0, 3)
    assert jnp.take(z2, jnp.array([0, 1]), axis=0).shape == (2, 0)
    _close(jnp.take_along_axis(z2, jnp.zeros((3, 2), jnp.int32), axis=1), np.zeros((3, 2)))
    assert z.at[jnp.array([0, 1])].set(1.0).shape == (0, 3)
    assert z2.at[jnp.array([0, 1])].add(1.0).shape == (3, 0)


def test_bool_scatter_max_min():
    b = jnp.array([True, False])
    # JAX 0.10.2: [True, True] and [False, False]
    _close(b.at[1].max(True), [True, True])
    _close(b.at[0].min(False), [False, False])


def test_integer_scatter_combines_in_promoted_dtype():
    # JAX 0.10.2 (with its FutureWarning): [1, 3] and [2, 2, 3]
    with pytest.warns(FutureWarning, match="scatter inputs have incompatible types"):
        out = jnp.array([3, 3]).at[0].mul(0.5)
    assert out.dtype == np.int32
    _close(out, [1, 3])
    with pytest.warns(FutureWarning):
        out = jnp.array([1, 2, 3], jnp.int32).at[jnp.array([-3, 1, 0])].add(0.5)
    _close(out, [2, 2, 3])
    _close(jnp.array([1, 2, 3], jnp.int8).at[0].add(jnp.array(300)), [45, 2, 3])  # JAX 0.10.2


def test_scatter_mul_differentiable_in_updates_at_a_scalar_index():
    f = lambda y: jnp.arange(1.0, 4.0).at[1].mul(y)  # noqa: E731
    _close(minijax.grad(lambda y: f(y).sum())(2.0), 2.0)  # JAX 0.10.2
    _close(minijax.jvp(f, (2.0,), (1.0,))[1], [0.0, 2.0, 0.0])
    # JAX 0.10.2: slices are unique too (5.0 and 6.0)
    _close(minijax.grad(lambda y: jnp.arange(1.0, 4.0).at[1:].mul(y).sum())(2.0), 5.0)
    _close(minijax.grad(lambda y: jnp.arange(1.0, 4.0).at[::-1].mul(y).sum())(2.0), 6.0)


# -- gradients -----------------------------------------------------------------------------------


def test_grad_of_out_of_bounds_gather_is_dropped():
    x = jnp.arange(3.0)
    # JAX 0.10.2: [0, 1, 0] (promise_in_bounds: the read clamps, the transpose drops);
    # mode='clip' gives the clamped position the gradient: [0, 1, 1]
    _close(minijax.grad(lambda a: a[jnp.array([1, 7])].sum())(x), [0.0, 1.0, 0.0])
    _close(minijax.grad(lambda a: a.at[jnp.array([1, 7])].get(mode="clip").sum())(x),
           [0.0, 1.0, 1.0])
    _close(minijax.grad(lambda a: a[7])(x), [0.0, 0.0, 1.0])


def test_grad_of_scatter_max_min_with_nan_operand():
    x = jnp.array([np.nan, 2.0, 3.0, np.nan, 5.0])
    idx = jnp.array([0, 1, 1, 4, 2])
    u = jnp.array([1.0, 2.0, 2.0, 7.0, 1.0])
    w = jnp.arange(1.0, 6.0)
    gx, gu = minijax.grad(lambda x, u: (x.at[idx].max(u) * w).sum(), argnums=(0, 1))(x, u)
    _close(gx, [0.0, 2 / 3, 3.0, 4.0, 0.0], rtol=1e-6)  # JAX 0.10.2
    _close(gu, [0.0, 2 / 3, 2 / 3, 5.0, 0.0], rtol=1e-6)
    gx, gu = minijax.grad(lambda x, u: (x.at[idx].min(u) * w).sum(), argnums=(0, 1))(x, u)
    _close(gx, [0.0, 2 / 3, 0.0, 4.0, 5.0], rtol=1e-6)  # JAX 0.10.2
    _close(gu, [0.0, 2 / 3, 2 / 3, 0.0, 3.0], rtol=1e-6)


@pytest.mark.parametrize("fn,x,want", [  # JAX 0.10.2
    (lax.cummax, [1.0, np.inf, 3.0, 2.0], [1.0, 9.0, 0.0, 0.0]),
    (lax.cummin, [np.inf, np.inf, 1.0, 2.0], [2.0, 1.0, 7.0, 0.0]),
    (lax.cummax, [-np.inf, -np.inf, 2.0], [2.0, 1.0, 3.0]),
    (lax.cummax, [1.0, 1.0, 1.0], [2.75, 1.75, 1.5]),
    (lax.cummin, [np.nan, 1.0, 2.0], [1.0, 0.0, 0.0]),
    (lax.cumlogsumexp, [1.0, np.inf, 3.0, 2.0], [9.154845, 3.0, 40.171074, 7.389056]),
    (lax.cumlogsumexp, [np.inf, -np.inf, np.inf], [3.0, 0.0, 1.0]),
])
def test_grad_of_cumulative_extremes_as_jax(fn, x, want):
    x = jnp.array(x, jnp.float32)
    w = jnp.arange(1.0, x.shape[0] + 1)
    f = (lambda v: fn(v).sum()) if fn is lax.cumlogsumexp else (lambda v: (fn(v) * w).sum())
    _close(minijax.grad(f)(x), want, rtol=1e-5)


def test_grad_through_checkpoint_of_loops():
    loop = lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, x)  # noqa: E731
    scan = lambda x: lax.scan(lambda c, _: (c * x / 3.0, None), x, None, length=3)[0]  # noqa
    # JAX 0.10.2: 32.0 and 1.1851853
    _close(minijax.grad(minijax.checkpoint(loop))(2.0), 32.0)
    _close(minijax.grad(minijax.checkpoint(scan))(2.0), 1.1851853, rtol=1e-6)
    _close(minijax.jit(minijax.grad(minijax.checkpoint(loop)))(2.0), 32.0)
    _close(minijax.vmap(minijax.grad(minijax.checkpoint(loop)))(jnp.arange(3.0)),
           [0.0, 4.0, 32.0])
    branches = [lambda y: y * y, lambda y: jnp.sort(jnp.stack([y, y * y]))[1] / y]
    _close(minijax.grad(minijax.checkpoint(lambda x: lax.switch(1, branches, x)))(2.0), 1.0)


# -- rounding, broadcasting, zero-size values ----------------------------------------------------


def test_round_float16_does_not_overflow():
    out = jnp.round(jnp.array([65504, 7000.5, 1.25], jnp.float16), 1)
    assert out.dtype == np.float16
    _close(out, np.array([65504, 7000, 1.2002], np.float16))  # JAX 0.10.2
    _close(jnp.round(jnp.array([1.5, 2.25]), 40), [1.5, 2.25])  # no-op past the precision


def test_vmap_broadcasts_zero_size_against_size_one():
    # JAX 0.10.2: shapes (4, 0) and (3, 0)
    out = minijax.vmap(lambda a, b: a + b, in_axes=(None, 0))(jnp.zeros((0,)), jnp.zeros((4, 1)))
    assert out.shape == (4, 0)
    out = minijax.vmap(lambda a, b: a * b, in_axes=(0, None))(jnp.ones((3, 1)), jnp.ones((0,)))
    assert out.shape == (3, 0)


def test_zero_size_values_under_autodiff_and_repr():
    g = minijax.grad(lambda x, y: jnp.sin(x).sum() + y * jnp.zeros((0, 2)).sum(),
                     argnums=(0, 1))(jnp.zeros((0, 3)), 1.0)
    assert g[0].shape == (0, 3) and float(g[1]) == 0.0
    p, t = minijax.jvp(lambda x: jnp.cumsum(jnp.exp(x), 0) @ jnp.ones((3, 2)),
                       (jnp.zeros((0, 3)),), (jnp.zeros((0, 3)),))
    assert p.shape == t.shape == (0, 2)
    assert repr(jnp.zeros((0, 3))) == "Array([], shape=(0, 3), dtype=float32)"  # JAX 0.10.2


def test_gamma_family_samples_differentiate_in_their_shape_parameters():
    from minijax import random

    key = random.PRNGKey(0)
    # JAX 0.10.2 (implicit reparameterization gradients)
    _close(minijax.grad(lambda a: random.gamma(key, a))(2.0), 0.9656762, rtol=1e-5)
    _close(minijax.grad(lambda a: random.loggamma(key, a))(2.0), 0.60742456, rtol=1e-5)
    _close(minijax.grad(lambda a: random.beta(key, a, 3.0))(2.0), 0.11043036, rtol=1e-5)
    _close(minijax.grad(lambda a: random.dirichlet(key, a)[0])(jnp.array([1.0, 2.0, 3.0])),
           [0.17946114, -0.03331973, -0.02779958], rtol=1e-5, atol=1e-7)
    _close(minijax.grad(lambda a: random.gamma(random.PRNGKey(1), a, (3,)).sum())(
        jnp.float32(0.5)), 1.6857935, rtol=1e-5)


def test_reshape_and_ravel_in_fortran_order():
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(jnp.reshape(x, (4, 6), order="F"), x.reshape(4, 6, order="F"))
    np.testing.assert_array_equal(jnp.ravel(x, order="F"), x.ravel(order="F"))
    with pytest.raises(NotImplementedError, match="order=A"):  # as JAX 0.10.2
        jnp.reshape(x, (4, 6), order="A")
