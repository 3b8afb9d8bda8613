"""jnp / nn differences from real JAX 0.10.2 found by the difftest (tools/difftest/FINDINGS.md
numbers in the test names' comments); expected values and errors were recorded from JAX 0.10.2.
"""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import errors, nn

nan, inf = np.nan, np.inf


def _same(got, want, dtype=None):
    got = np.asarray(got)
    np.testing.assert_array_equal(got, np.asarray(want, dtype=dtype or got.dtype))
    if dtype is not None:
        assert got.dtype == np.dtype(dtype)


# -- elementwise (FINDINGS 10, 19, 38, 42) --------------------------------------------------------


def test_hypot_refuses_complex_and_infinity_beats_nan():
    # 10. JAX 0.10.2: ValueError with these words.
    with pytest.raises(ValueError, match="jnp.hypot is not well defined for complex-valued"):
        jnp.hypot(jnp.ones(2, jnp.complex64), 1.0)
    # JAX 0.10.2: [inf, inf, inf, 0, 5]
    _same(jnp.hypot(jnp.array([inf, nan, -inf, 0.0, 3.0]), jnp.array([nan, inf, 1.0, 0.0, 4.0])),
          [inf, inf, inf, 0.0, 5.0], "float32")


def test_heaviside_propagates_nan():
    # 19. JAX 0.10.2: [nan, -1.5, 0, 1]
    _same(jnp.heaviside(jnp.array([nan, 0.0, -1.0, 2.0]), -1.5), [nan, -1.5, 0.0, 1.0], "float32")


def test_round_refuses_bool_and_negative_decimals_of_integers():
    # 38. JAX 0.10.2: ValueError "data type <class 'numpy.bool'> not inexact" for every decimals.
    for d in (-1, 0, 1):
        with pytest.raises(ValueError, match="not inexact"):
            jnp.round(jnp.array([True, False]), d)
    # JAX 0.10.2 refuses integers with decimals < 0 (NotImplementedError, these words).
    with pytest.raises(NotImplementedError, match="integer np.round not implemented"):
        jnp.round(jnp.array([15]), -1)
    _same(jnp.round(jnp.array([15], jnp.uint8), 1), [15], "uint8")


def test_floor_divide_by_zero_keeps_the_sign_of_the_infinity():
    # 42. JAX 0.10.2 values.
    x = jnp.array([1.0, -1.0, 0.0, inf, 3.0, nan])
    y = jnp.array([-0.0, -0.0, -0.0, 0.0, inf, 0.0])
    _same(jnp.floor_divide(x, y), [-inf, inf, nan, inf, 0.0, nan], "float32")
    q, r = jnp.divmod(jnp.array([1.0, -1.0, 0.0, 5.0]), jnp.array([0.0, 0.0, 0.0, -2.0]))
    _same(q, [inf, -inf, nan, -3.0], "float32")
    _same(r, [nan, nan, nan, -1.0], "float32")
    _same(jnp.floor_divide(jnp.array([1, -1, 0]), 0), [-2, -2, -1], "int32")  # JAX 0.10.2 (XLA)


# -- reductions (FINDINGS 24, 40) -----------------------------------------------------------------


def test_var_without_degrees_of_freedom_is_nan():
    # 40. JAX 0.10.2: NaN wherever count - ddof <= 0.
    _same(jnp.var(jnp.zeros((1, 0)), axis=-1, ddof=1), [nan], "float32")
    x = jnp.arange(6.0).reshape(2, 3)
    _same(jnp.var(x, axis=-1, ddof=4), [nan, nan], "float32")
    _same(jnp.std(x, axis=-1, ddof=3), [nan, nan], "float32")
    w = jnp.array([[True, False, False], [True, True, True]])
    _same(jnp.var(x, axis=-1, ddof=1, where=w, keepdims=True), [[nan], [1.0]], "float32")
    _same(jnp.var(x.astype(jnp.float16), ddof=7), nan, "float16")
    _same(jnp.nanvar(jnp.array([1.0, 2.0, nan]), ddof=3), nan, "float32")


def test_median_refuses_complex():
    # 24. JAX 0.10.2: ValueError with these words.
    with pytest.raises(ValueError, match="quantile does not support complex input"):
        jnp.median(jnp.ones(3, jnp.complex64))


# -- indexing (FINDINGS 22) -----------------------------------------------------------------------


def test_traced_boolean_mask_raises_non_concrete_boolean_index_error():
    # 22. JAX 0.10.2: jax.errors.NonConcreteBooleanIndexError, a JAXIndexError (an IndexError).
    assert issubclass(errors.NonConcreteBooleanIndexError, errors.JAXIndexError)
    assert issubclass(errors.JAXIndexError, IndexError)
    with pytest.raises(errors.NonConcreteBooleanIndexError,
                       match="Array boolean indices must be concrete; got bool\\[3\\]"):
        minijax.jit(lambda x, m: x[m])(jnp.ones(3), jnp.ones(3, bool))
    with pytest.raises(errors.NonConcreteBooleanIndexError):
        minijax.jit(lambda x, b: x[b])(jnp.ones(3), True)


# -- nn (FINDINGS 36) -----------------------------------------------------------------------------


def test_one_hot_default_dtype_and_named_axis():
    # 36. JAX 0.10.2: the default float (float64 under x64).
    with minijax.enable_x64(True):
        _same(nn.one_hot(jnp.int32(-3), 4), [0, 0, 0, 0], "float64")
    _same(nn.one_hot(jnp.array([0, 2, -1]), 3, dtype=jnp.bfloat16, axis=0),
          [[1, 0, 0], [0, 0, 0], [0, 1, 0]], jnp.bfloat16)
    # JAX 0.10.2: a mapped axis name compares with axis_index.
    out = minijax.vmap(lambda i: nn.one_hot(i, 3, axis="b"), axis_name="b")(jnp.array([0, 1, 1]))
    _same(out, [1.0, 1.0, 0.0], "float32")
    with pytest.raises(ValueError, match="Expected num_classes to match the size of axis b"):
        minijax.vmap(lambda i: nn.one_hot(i, 4, axis="b"), axis_name="b")(jnp.array([0, 1, 1]))
