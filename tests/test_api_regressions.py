"""Regression tests: lax.cond's older call forms, scatters into empty arrays, and
test_util.check_grads' tolerances and step sizes (JAX 0.10's)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

# ------------------------------------------------------------------------------------ lax.cond


def test_cond_operand_keyword():
    x = np.float32(2.0)
    assert lax.cond(True, lambda v: v + 1, lambda v: v - 1, operand=x) == 3.0
    assert lax.cond(False, lambda v: v + 1, lambda v: v - 1, operand=x) == 1.0
    f = minijax.jit(lambda v: lax.cond(v > 0, lambda y: y * 10, lambda y: -y, operand=v))
    np.testing.assert_array_equal(f(x), 20.0)
    np.testing.assert_array_equal(f(-x), 2.0)


def test_cond_operand_none_is_an_operand():
    # operand=None passes None (an empty pytree) to the branch, as in JAX
    assert lax.cond(True, lambda v: v is None, lambda v: False, operand=None)


def test_cond_operand_keyword_and_positional_operands_conflict():
    with pytest.raises(TypeError, match="if 'operand' keyword is passed"):
        lax.cond(True, lambda a, b: a, lambda a, b: b, 1.0, operand=2.0)


def test_cond_five_argument_form():
    # cond(pred, true_operand, true_fun, false_operand, false_fun), still accepted by JAX 0.10
    assert lax.cond(False, 3.0, lambda x: x + 1, 4.0, lambda x: x * 10) == 40.0
    assert lax.cond(True, 3.0, lambda x: x + 1, 4.0, lambda x: x * 10) == 4.0


def test_cond_float_predicate():
    assert lax.cond(np.float32(0.5), lambda: 1, lambda: 2) == 1
    assert lax.cond(np.float32(0.0), lambda: 1, lambda: 2) == 2


def test_cond_not_callable():
    with pytest.raises(TypeError, match="should be callable"):
        lax.cond(True, 1, 2)


# --------------------------------------------------------------------- scatter into empty arrays


def test_scatter_add_into_empty_array():
    out = jnp.zeros(0, int).at[jnp.zeros(0, int)].add(1)
    assert out.shape == (0,) and out.dtype == np.int32


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
def test_scatter_into_empty_array_with_indices(method):
    # every position of an empty axis is out of bounds: the updates drop, x comes back
    out = getattr(jnp.zeros((0, 3)).at[jnp.zeros(2, int)], method)(1.0)
    assert out.shape == (0, 3) and out.dtype == np.float32


@pytest.mark.parametrize("mode", ["clip", "drop", "fill", "promise_in_bounds"])
def test_scatter_into_empty_array_modes(mode):
    assert jnp.zeros((0, 3)).at[jnp.zeros(2, int)].add(1.0, mode=mode).shape == (0, 3)


def test_scatter_into_empty_array_checks_the_update_and_index():
    with pytest.raises(ValueError, match="Incompatible shapes"):
        jnp.zeros((0, 3)).at[jnp.zeros(2, int)].add(jnp.ones(5))
    with pytest.raises(IndexError, match="out of bounds"):
        jnp.zeros(0).at[1].add(2.0)


def test_scatter_empty_under_jit_grad_vmap():
    idx = jnp.zeros(0, int)
    out = minijax.jit(lambda x: x.at[idx].add(1.0))(jnp.zeros(0))
    assert out.shape == (0,)
    g = minijax.grad(lambda x: x.at[idx].add(x[:0]).sum())(jnp.zeros(0))
    assert g.shape == (0,)
    v = minijax.vmap(lambda x: x.at[idx].add(1.0))(jnp.zeros((2, 0)))
    assert v.shape == (2, 0)


def test_gather_from_empty_array_with_no_indices():
    np.testing.assert_array_equal(jnp.zeros(0)[jnp.zeros(0, int)], np.zeros(0, np.float32))
    np.testing.assert_array_equal(jnp.take(jnp.zeros(0), jnp.zeros(0, int)), np.zeros(0))
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    out = lax.gather(jnp.zeros(0), jnp.zeros((0, 1), jnp.int32), dn, (1,))
    assert out.shape == (0,)


def test_gather_from_empty_array_with_indices_still_raises():
    # as in JAX: x[idx] reads an empty axis (the scatter above drops instead)
    with pytest.raises(TypeError, match="Slice size at index 0 in gather op is out of range"):
        jnp.zeros((0, 3))[jnp.zeros(2, int)]  # JAX 0.10.2's words


# ------------------------------------------------------------------------- test_util.check_grads

from unittest import mock  # noqa: E402

from minijax import test_util  # noqa: E402


def _chex_assert_numerical_grads(f, f_args, order, atol=0.01):
    # chex.assert_numerical_grads, which calls jax.test_util.check_grads this way
    atol *= f_args[0].size
    with mock.patch("minijax.lax.stop_gradient",
                    lambda t: minijax.tree_util.tree_map(jnp.ones_like, t)):
        test_util.check_grads(f, f_args, order=order, atol=atol)


def _chex_random_args(init_args, seed, n):
    key = minijax.random.PRNGKey(seed)
    for _ in range(n):
        key, *keys = minijax.random.split(key, len(init_args) + 1)
        yield [minijax.random.uniform(k, shape=x.shape) for k, x in zip(keys, init_args)]


def _f_hard(stop_gradient):
    def f(lr, x):
        inner_loss = lambda y: jnp.sum((y - 1.0) ** 2)  # noqa: E731
        g = minijax.grad(inner_loss)
        sg = lax.stop_gradient if stop_gradient else (lambda v: v)
        for _ in range(10):
            x1 = x - lr * g(x) + 100 * sg(lr) ** 2
            x2 = x - lr * g(x) - 100 * lr ** 2
            x = lax.select((x > 3.0).any(), x1, x2 + sg(lr))
        return jnp.sum(inner_loss(x))

    return f


@pytest.mark.parametrize("stop_gradient", [False, True])
@pytest.mark.parametrize("shape,seed", [([1], 24), ([3, 5], 20)])
def test_check_grads_passes_chex_numerical_grads_cases(stop_gradient, shape, seed):
    # chex's NumericalGradsAssertTest.test_hard*: JAX passes them; float64 finite differences
    # with size-independent tolerances failed them
    init = (jnp.zeros([1] * len(shape)), jnp.zeros(shape))
    for args in _chex_random_args(init, seed, n=2):
        _chex_assert_numerical_grads(_f_hard(stop_gradient), args, order=1)


def test_check_grads_tolerance_scales_with_size():
    # JAX multiplies atol and rtol by the number of elements compared: an error of 5e-3 in one
    # of 10 elements passes the float32 defaults (2e-3 * 10), but not for one element
    @minijax.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (jnp.sin(p[0]), (jnp.cos(p[0]) + 5e-3) * t[0]))
    test_util.check_grads(f, (np.full(10, 0.3, np.float32),), order=1, modes=["fwd"])
    with pytest.raises(AssertionError):
        test_util.check_grads(f, (np.float32(0.3),), order=1, modes=["fwd"])


@pytest.mark.parametrize("mode", ["fwd", "rev", "lin"])
def test_check_grads_catches_a_wrong_derivative(mode):
    @minijax.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (jnp.sin(p[0]), 1.1 * jnp.cos(p[0]) * t[0]))
    x = np.linspace(-1, 1, 4).astype(np.float32)
    with pytest.raises(AssertionError):
        test_util.check_grads(f, (x,), order=1, modes=[mode])
    test_util.check_grads(jnp.sin, (x,), order=2, modes=[mode])


def test_check_jvp_and_check_vjp_take_jax_signatures():
    import functools

    f = lambda x, y: jnp.sin(x) * y  # noqa: E731
    args = (np.float32(0.5), np.arange(3, dtype=np.float32))
    test_util.check_jvp(f, functools.partial(minijax.jvp, f), args)
    test_util.check_vjp(f, functools.partial(minijax.vjp, f), args)


def test_numerical_jvp_in_the_arguments_dtype():
    # the step is taken in float32 (as JAX): the difference quotient of x**2 at 1 along 1 is
    # computed from float32 values, not the exact 2
    out = test_util.numerical_jvp(lambda x: x * x, (np.float32(1.0),), (np.float32(1.0),))
    assert out.dtype == np.float32
    xp, xm = np.float32(1) + np.float32(1e-4), np.float32(1) - np.float32(1e-4)
    expected = (xp * xp - xm * xm) * np.float32(0.5 / 1e-4)
    np.testing.assert_array_equal(out, expected)


def test_check_grads_integer_argument_gets_float0_tangent():
    f = lambda x, n: x * n  # noqa: E731
    test_util.check_grads(f, (np.float32(2.0), np.int32(3)), order=2)
    test_util.check_grads(f, (np.float32(2.0), np.int32(3)), order=1, jit=True)
