"""jax_debug_nans / jax_debug_infs: the FloatingPointError names the primitive and the line."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import config, lax


@pytest.fixture
def nans_on():
    config.update("jax_debug_nans", True)
    yield
    config.update("jax_debug_nans", False)


@pytest.fixture
def infs_on():
    config.update("jax_debug_infs", True)
    yield
    config.update("jax_debug_infs", False)


def _f(x):
    y = jnp.sin(x) * 2.0
    z = jnp.log(y - 5.0)  # the nan comes from here
    return z + 1.0


def test_jitted_nan_names_primitive_and_line(nans_on):
    jf = minijax.jit(_f)
    with pytest.raises(FloatingPointError) as e:
        jf(np.float32(1.0))
    msg = str(e.value)
    assert "invalid value (nan) encountered in log" in msg
    assert f"{__file__}:" in msg and "the nan comes from here" in msg


def test_flag_turned_on_after_the_call_was_cached():
    jf = minijax.jit(_f)
    for _ in range(3):  # cached (in C++ where available)
        assert np.isnan(np.asarray(jf(np.float32(1.0))))
    config.update("jax_debug_nans", True)
    try:
        with pytest.raises(FloatingPointError, match="in log"):
            jf(np.float32(1.0))
        with pytest.raises(FloatingPointError):
            jf(np.float32(6.0))  # 2 sin(6) - 5 < 0 as well
    finally:
        config.update("jax_debug_nans", False)
    assert np.isnan(np.asarray(jf(np.float32(1.0))))  # off again: no error, cached path


def test_clean_values_pass_and_give_right_results(nans_on, infs_on):
    jf = minijax.jit(lambda x: jnp.sqrt(x) + 1.0)
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(jf(np.float32(4.0))), 3.0)
    np.testing.assert_allclose(np.asarray(jnp.sqrt(np.float32(9.0))), 3.0)
    # integer outputs are never checked
    assert int(minijax.jit(lambda i: i // 2)(np.int32(7))) == 3


def test_eager_op_nan_names_primitive_and_line(nans_on):
    with pytest.raises(FloatingPointError) as e:
        lax.log(np.float32(-1.0))  # eager log of a negative
    msg = str(e.value)
    assert "encountered in log" in msg and "eager log of a negative" in msg


def test_infs(infs_on):
    def g(x):
        return lax.div(np.float32(1.0), x) - 3.0  # division by zero

    with pytest.raises(FloatingPointError) as e:
        minijax.jit(g)(np.float32(0.0))
    msg = str(e.value)
    assert "(inf)" in msg and "div" in msg and "division by zero" in msg
    # nans are not reported by the infs flag alone
    np.testing.assert_equal(np.asarray(minijax.jit(g)(np.float32(np.nan))), np.float32(np.nan))


def test_nan_in_gradient_under_jit(nans_on):
    def loss(x):
        return jnp.sum(jnp.sqrt(x))  # sqrt'(0) = inf, times 0 cotangent path -> nan/inf

    g = minijax.jit(minijax.grad(lambda x: loss(x) * 0.0))
    with pytest.raises(FloatingPointError) as e:
        g(np.zeros(3, np.float32))
    assert __file__ in str(e.value)


def test_nan_inside_control_flow_names_the_control_flow_line(nans_on):
    def h(x):
        return lax.cond(x > 0, lambda v: jnp.log(-v), lambda v: v, x)  # cond with a log

    with pytest.raises(FloatingPointError) as e:
        minijax.jit(h)(np.float32(2.0))
    assert "cond with a log" in str(e.value)
