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


def test_heaviside_of_a_python_scalar():
    # 26. JAX 0.10.2 values (the first argument a Python scalar: no comparison TypeError).
    _same(minijax.jacfwd(lambda x: jnp.heaviside(0.5, x) * x)(1.0), 1.0, "float32")
    out = jnp.heaviside(0.5, 2)
    _same(out, 1.0, "float32")
    assert out.weak_type
    _same(jnp.heaviside(0.0, jnp.array([2.0, 3.0], jnp.float16)), [2, 3], "float16")
    _same(jnp.heaviside(jnp.array([-1, 0, 3]), 2), [0, 2, 1], "float32")


def test_round_refuses_bool_and_negative_decimals_of_integers():
    # 38. JAX 0.10.2: ValueError "data type <class 'numpy.bool'> not inexact" for every decimals
    # (NumPy's np.finfo error, worded "not compatible with finfo" from NumPy 2.5).
    for d in (-1, 0, 1):
        with pytest.raises(ValueError, match="not inexact|not compatible with finfo"):
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
    x16 = jnp.array([1.0, -2.0, 0.0], jnp.float16)  # a scalar divisor broadcasts
    _same(jnp.floor_divide(x16, 0.0), [inf, -inf, nan], "float16")
    _same(jnp.floor_divide(2.0, x16), [2, -1, inf], "float16")


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


def test_integer_scalar_into_an_empty_axis_raises():
    # 11. JAX 0.10.2: an integer scalar (static, concrete or traced) indexing a size-0 axis
    # raises IndexError in updates and in gets of every mode; joined with an array index it
    # is a gather and drops.
    z = jnp.zeros(0)
    for f in (lambda: z.at[jnp.int32(0)].set(2.0),
              lambda: minijax.jit(lambda z, i: z.at[i].set(2.0))(z, 0),
              lambda: jnp.zeros((0, 2)).at[np.int64(0)].get(mode="fill"),
              lambda: jnp.zeros((2, 0)).at[..., jnp.int32(0)].set(1.0),
              lambda: jnp.zeros((2, 0, 3)).at[..., 0, :].set(1.0)):
        with pytest.raises(IndexError, match="index is out of bounds for axis . with size 0"):
            f()
    assert jnp.zeros((0, 2)).at[..., jnp.int32(0)].set(1.0).shape == (0, 2)
    assert jnp.zeros((2, 0)).at[jnp.array([True, False]), 0].set(1.0).shape == (2, 0)
    assert jnp.zeros((2, 0, 3)).at[1, ..., 2].set(1.0).shape == (2, 0, 3)


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


# -- jnp.pad: every mode JAX has (FINDINGS 2) -----------------------------------------------------

_PAD_WIDTHS = [(2, 3), 5, ((0, 1), (2, 0)), (9, 0)]  # 3, 5 and 9 exceed the axes (2 to 4)
_PAD_MODES = [
    ("wrap", {}), ("reflect", {}), ("symmetric", {}), ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {"reflect_type": "odd"}), ("edge", {}), ("linear_ramp", {}),
    ("linear_ramp", {"end_values": (-5, 10)}), ("maximum", {}), ("minimum", {}), ("mean", {}),
    ("median", {}), ("mean", {"stat_length": 2}), ("maximum", {"stat_length": (1, 9)}),
    ("constant", {"constant_values": (5, 6)}),
]


@pytest.mark.parametrize("mode,kw", _PAD_MODES)
@pytest.mark.parametrize("width", _PAD_WIDTHS)
def test_pad_modes_match_numpy(mode, kw, width):
    # JAX 0.10.2 agrees with NumPy on each of these (checked case by case).
    for x in (np.array([1.0, 2.0, 4.0, 7.0], np.float32),
              np.arange(6.0, dtype=np.float32).reshape(2, 3)):
        if np.ndim(width) == 2 and x.ndim != len(width):
            continue
        got = jnp.pad(x, width, mode=mode, **kw)
        want = np.pad(x, width, mode=mode, **kw)
        assert got.dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


def test_pad_integer_statistics_and_edge_cases():
    # Values recorded from JAX 0.10.2.
    _same(jnp.pad(jnp.arange(3.0), 1, mode="mean"), [1, 0, 1, 2, 1], "float32")
    _same(jnp.pad(jnp.array([1, 2], jnp.uint8), 1, mode="mean"), [2, 1, 2, 2], "uint8")
    _same(jnp.pad(jnp.array([1, 8]), 3, mode="linear_ramp"), [0, 0, 0, 1, 8, 5, 2, 0], "int32")
    _same(jnp.pad(jnp.array([1 + 1j, 2]), 1, mode="mean"), [1.5 + 0.5j, 1 + 1j, 2, 1.5 + 0.5j],
          "complex64")
    _same(jnp.pad(jnp.array([True, False, True]), 1, mode="maximum"),
          [True, True, False, True, True], "bool")
    _same(jnp.pad(jnp.float32(3), 2, mode="mean"), 3.0, "float32")  # rank 0: unchanged
    _same(jnp.pad(jnp.arange(2.0), 1, mode="empty"), [0, 0, 1, 0], "float32")
    with pytest.raises(ValueError, match="stat_length of 0 yields no value for padding"):
        jnp.pad(jnp.arange(3.0), 1, mode="mean", stat_length=0)
    with pytest.raises(ValueError, match="Cannot apply 'wrap' padding to empty axis"):
        jnp.pad(jnp.zeros((0, 2)), 1, mode="wrap")
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
        jnp.pad(jnp.arange(3.0), 1, mode="edge", constant_values=1)
    with pytest.raises(TypeError, match="`pad_width` must be of integral type"):
        jnp.pad(jnp.arange(3.0), 1.5)
    with pytest.raises(ValueError, match="index can't contain negative values"):
        jnp.pad(jnp.arange(3.0), -1)
    with pytest.raises(NotImplementedError, match="Unimplemented padding mode 'bogus'"):
        jnp.pad(jnp.arange(3.0), 1, mode="bogus")  # JAX 0.10.2 refuses it alike


def test_pad_callable_mode_jit_and_gradients():
    x = jnp.arange(6.0).reshape(2, 3)
    # JAX 0.10.2 values.
    out = jnp.pad(x, 1, mode=lambda v, w, i, kw: v.at[:w[0]].set(kw.get("k", -1.0)), k=5.0)
    _same(out, [[5, 5, 5, 5, 5], [5, 0, 1, 2, 0], [5, 3, 4, 5, 0], [5, 0, 0, 0, 0]], "float32")
    v = jnp.array([1.0, 2.0, 4.0, 7.0])
    _same(minijax.jit(lambda x, c: jnp.pad(x, 2, constant_values=c))(v, 3.0),
          [3, 3, 1, 2, 4, 7, 3, 3], "float32")
    _same(minijax.grad(lambda x: jnp.pad(x, 2, mode="mean").sum())(v), [2, 2, 2, 2], "float32")
    _same(minijax.grad(lambda x: (jnp.pad(x, 2, mode="linear_ramp", end_values=1.0) ** 2).sum())(
        v), [3, 4, 8, 18], "float32")
    _same(minijax.grad(lambda x: (jnp.pad(x, 5, mode="reflect", reflect_type="odd") ** 2).sum())(
        v), [-244, -12, 8, 356], "float32")


# -- sorting (FINDINGS 31) ------------------------------------------------------------------------


def test_descending_sort_is_the_ascending_sort_reversed():
    # 31. JAX 0.10.2: ties come out last-first, and so do their gradients.
    w = jnp.array([0.5, 1.0, 1.5])
    _same(minijax.grad(lambda x: jnp.sum(jnp.sort(x, descending=True) * w))(jnp.ones(3)),
          [1.5, 1.0, 0.5], "float32")
    x = jnp.array([1, 3, 1, 3, 2])
    _same(jnp.argsort(x, descending=True), [1, 3, 4, 0, 2], "int32")  # JAX 0.10.2
    _same(jnp.argsort(x, descending=True, stable=False), [3, 1, 4, 2, 0], "int32")  # JAX 0.10.2
    _same(jnp.argsort(x, dtype=jnp.int8), [0, 2, 4, 1, 3], "int8")
    _same(jnp.sort(jnp.array([1.0, nan, -0.0, 0.0, 3.0]), descending=True),
          [nan, 3, 1, 0, -0.0], "float32")
    with pytest.raises(TypeError, match="'kind' argument to sort is not supported"):
        jnp.sort(x, kind="stable")
    with pytest.raises(TypeError, match="'kind' argument to argsort is not supported"):
        x.argsort(kind="stable")


# -- NotImplementedError audit (issue 21): cases JAX 0.10.2 handles -------------------------------


def test_polyfit_covariance():
    # JAX 0.10.2 computes it (NumPy's formula): compare with NumPy.
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32)
    y = np.array([1.0, 2.5, 4.1, 9.0, 15.0], np.float32)
    for kw in ({"cov": True}, {"cov": "unscaled", "w": np.arange(1.0, 6.0)}):
        p, c = jnp.polyfit(x, y, 2, **kw)
        want_p, want_c = np.polyfit(x.astype(np.float64), y.astype(np.float64), 2, **kw)
        np.testing.assert_allclose(np.asarray(p), want_p, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(np.asarray(c), want_c, rtol=1e-3, atol=1e-4)
    y2 = np.stack([y, 2 * y + 1], 1)
    _, c = jnp.polyfit(x, y2, 2, cov=True)
    np.testing.assert_allclose(np.asarray(c), np.polyfit(x, y2, 2, cov=True)[1], rtol=1e-3,
                               atol=1e-4)
    with pytest.raises(ValueError, match="the number of data points must exceed order"):
        jnp.polyfit(x[:3], y[:3], 2, cov=True)


def test_vector_norm_of_all_axes_keeps_dims():
    # JAX 0.10.2: [[7.4161983]]
    x = jnp.arange(6.0).reshape(2, 3)
    out = jnp.linalg.vector_norm(x, keepdims=True)
    assert out.shape == (1, 1)
    np.testing.assert_allclose(np.asarray(out), [[np.sqrt(55.0)]], rtol=1e-6)
    _same(jnp.linalg.vector_norm(x, keepdims=True, ord=1), [[15.0]], "float32")


def test_gradient_refuses_every_edge_order():
    # JAX 0.10.2 refuses edge_order, even 1, with this NotImplementedError.
    for order in (1, 2):
        with pytest.raises(NotImplementedError, match="'edge_order' argument to jnp.gradient"):
            jnp.gradient(jnp.arange(6.0), edge_order=order)


def test_asarray_refuses_orders_but_k_for_every_input():
    # JAX 0.10.2: NotImplementedError for lists, NumPy arrays and Arrays alike.
    for a in ([1, 2], np.ones(2), jnp.ones(2)):
        with pytest.raises(NotImplementedError, match="Only implemented for order='K'"):
            jnp.asarray(a, order="F")
        assert jnp.asarray(a, order="K").shape == (2,)


def test_histogram_bins_must_be_arraylike():
    # JAX 0.10.2: TypeError for a list (histogram checks bins like its other arguments) and
    # for a string (which passes that check and fails at asarray); histogram_bin_edges refuses
    # a string with NotImplementedError.
    with pytest.raises(TypeError, match="histogram requires ndarray or scalar arguments"):
        jnp.histogram(jnp.arange(3.0), bins=[0, 1, 2.0])
    with pytest.raises(TypeError, match="asarray: expected ArrayLike, got auto"):
        jnp.histogram(jnp.arange(3.0), bins="auto")
    with pytest.raises(NotImplementedError, match="string values for `bins` not implemented"):
        jnp.histogram_bin_edges(jnp.arange(3.0), bins="auto")
    counts, edges = jnp.histogram(jnp.arange(3.0), bins=np.array([0, 1, 2.0]))
    _same(counts, [1, 2], "float32")


def test_linspace_dtype_is_the_inexact_result_type_of_its_bounds():
    # JAX 0.10.2: to_inexact_dtype(result_type(start, stop)); a float16 bound stays float16.
    cases = [((jnp.float16(0), jnp.float16(1)), "float16"), ((0, 1), "float32"),
             ((jnp.int8(0), 4), "float32"), ((np.int32(0), 4), "float32"),
             ((jnp.bfloat16(0), 1.0), "bfloat16"), ((0, jnp.ones(2, jnp.float16)), "float16")]
    for (start, stop), want in cases:
        assert jnp.linspace(start, stop, 3).dtype == want, (start, stop)
    np.testing.assert_array_equal(jnp.linspace(0, 10, 5, dtype=jnp.int32), [0, 2, 5, 7, 10])
