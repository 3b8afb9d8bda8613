"""conv_general_dilated and reduce_window beyond the op table: the wrappers' argument forms,
conv_transpose against the VJP of a convolution, the dispatch of reduce_window to its
specialised primitives, and the errors (naming the op and the shapes)."""

import numpy as np
import pytest

import minijax
from minijax import lax
from tests.ops.op_entries_conv import conv_reference
from tests.ops.op_entries_windows import window_reference


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_dimension_numbers_forms():
    lhs, rhs = (1, 5, 6, 2), (3, 3, 2, 4)
    dn = lax.conv_dimension_numbers(lhs, rhs, ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert lax.conv_dimension_numbers(lhs, rhs, dn) is not None
    assert lax.conv_dimension_numbers(lhs, rhs, None) == lax.ConvDimensionNumbers(
        (0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))
    x, k = _rand(*lhs), _rand(*rhs, seed=1)
    by_string = lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
    by_numbers = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=dn)
    np.testing.assert_array_equal(np.asarray(by_string), np.asarray(by_numbers))
    ref = conv_reference(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    np.testing.assert_allclose(np.asarray(by_string), ref, rtol=1e-5, atol=1e-5)
    # the spatial order follows the kernel's: 'NWHC' lhs with an 'HWIO' kernel
    x2 = np.transpose(x, (0, 2, 1, 3))
    out = lax.conv_general_dilated(x2, k, (1, 1), "VALID",
                                   dimension_numbers=("NWHC", "HWIO", "NHWC"))
    ref2 = conv_reference(x, k, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    np.testing.assert_allclose(np.asarray(out), ref2, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv_transpose_with_transposed_kernel_is_the_conv_vjp(padding):
    x, k = _rand(1, 8, 8, 2), _rand(3, 3, 2, 4, seed=1)
    dn = ("NHWC", "HWIO", "NHWC")

    def f(x):
        return lax.conv_general_dilated(x, k, (2, 2), padding, dimension_numbers=dn)

    out, pullback = minijax.vjp(f, x)
    ct = _rand(*out.shape, seed=2)
    (expected,) = pullback(ct)
    got = lax.conv_transpose(ct, k, (2, 2), padding, dimension_numbers=dn,
                             transpose_kernel=True)
    expected = np.asarray(expected)
    if padding == "VALID":  # the last row and column are in no window: a zero gradient there
        assert got.shape == (1, 7, 7, 2)
        assert not expected[:, 7:].any() and not expected[:, :, 7:].any()
        expected = expected[:, :7, :7]
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(minijax.default_backend() != "cpu",
                    reason="XLA on GPUs has no integer convolution (UNIMPLEMENTED; JAX too)")
def test_preferred_element_type_and_integers():
    x = np.arange(32, dtype=np.int8).reshape(1, 2, 4, 4) % 5
    k = np.ones((3, 2, 2, 2), np.int8)
    out = lax.conv(x, k, (1, 1), "VALID", preferred_element_type=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out),
                                  conv_reference(x.astype(np.int32), k.astype(np.int32), (1, 1),
                                                 "VALID"))


def test_conv_errors():
    x, k = np.ones((1, 4, 5, 5), np.float32), np.ones((3, 2, 2, 2), np.float32)
    with pytest.raises(ValueError, match=r"conv_general_dilated.*input feature dimension 2"):
        lax.conv(x, k, (1, 1), "VALID")
    with pytest.raises(TypeError, match=r"conv_general_dilated.*same dtype.*f32\[1,4,5,5\]"):
        lax.conv(x, k.astype(np.int32), (1, 1), "VALID")
    with pytest.raises(TypeError, match="same rank"):
        lax.conv(x, k[0], (1, 1), "VALID")
    with pytest.raises(ValueError, match="feature_group_count"):
        lax.conv_general_dilated(x, k, (1, 1), "VALID", feature_group_count=3)
    with pytest.raises(ValueError, match="Unknown padding"):
        lax.conv(x, k, (1, 1), "FULL")
    with pytest.raises(TypeError, match="exactly once"):
        lax.conv_general_dilated(x, k, (1, 1), "VALID",
                                 dimension_numbers=("NHWW", "OIHW", "NCHW"))
    with pytest.raises(ValueError, match="window_strides must be positive"):
        lax.conv(x[:, :2], k, (0, 1), "VALID")


def test_reduce_window_dispatch_and_jaxprs():
    x = _rand(4, 5)

    def prims(f):
        return [e.primitive.name for e in minijax.make_jaxpr(f)(x).eqns]

    assert prims(lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1),
                                             "VALID")) == ["reduce_window_sum"]
    assert prims(lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 1),
                                             "SAME")) == ["reduce_window_max"]
    assert prims(lambda x: lax.reduce_window(x, np.inf, lax.min, (2, 2), (2, 2),
                                             "VALID")) == ["reduce_window_min"]
    assert prims(lambda x: lax.reduce_window(x, 1.0, lax.mul, (2, 2), (1, 1),
                                             "VALID")) == ["reduce_window"]
    # a user computation that is not a lax function: traced to a jaxpr of scalars
    got = lax.reduce_window(x, -np.inf, lambda a, b: lax.max(a, b), (2, 3), (1, 2), "SAME")
    ref = window_reference([x], [-np.inf], lambda a, b: [np.maximum(a[0], b[0])], (2, 3),
                           (1, 2), "SAME")[0]
    np.testing.assert_array_equal(np.asarray(got), ref)


def test_reduce_window_max_grad_picks_the_window_maximum():
    x = np.array([[1.0, 5.0, 2.0], [3.0, 0.0, 4.0]], np.float32)
    g = minijax.grad(lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 1),
                                                 "VALID").sum())(x)
    np.testing.assert_array_equal(np.asarray(g), [[0, 2, 0], [0, 0, 0]])


def test_reduce_window_errors():
    x = np.ones((4, 5), np.float32)
    with pytest.raises(TypeError, match=r"reduce_window.*one entry per operand axis"):
        lax.reduce_window(x, 0.0, lax.add, (2,), (1, 1), "VALID")
    with pytest.raises(ValueError, match=r"reduce_window_sum: window_dimensions must be "
                                          r"positive.*f32\[4,5\]"):
        lax.reduce_window(x, 0.0, lax.add, (0, 2), (1, 1), "VALID")
    with pytest.raises(TypeError, match="structure"):
        lax.reduce_window((x, x), 0.0, lax.add, (2, 2), (1, 1), "VALID")
    with pytest.raises(TypeError, match="must return"):
        lax.reduce_window(x, 1.0, lambda a, b: (a, b), (2, 2), (1, 1), "VALID")
