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
