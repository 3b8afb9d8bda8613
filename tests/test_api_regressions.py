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
    with pytest.raises(TypeError, match="slice_sizes"):
        jnp.zeros((0, 3))[jnp.zeros(2, int)]
