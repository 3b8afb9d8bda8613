"""Round 12's small ``jax.lax`` names, against NumPy and finite differences; JAX 0.10.2's
values where NumPy has no twin are written inline, as tests/data/record_lax_names_r12.py
prints them.
"""

import ml_dtypes
import numpy as np
import pytest

import minijax
from minijax import lax


def _fd_grad(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


# ------------------------------------------------------------------------------------------------
# stack / unstack


def test_stack_unstack_values_and_jaxpr():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(lax.stack([x, 2 * x], axis=1), np.stack([x, 2 * x], axis=1))
    np.testing.assert_array_equal(lax.stack([x, x], axis=-1), np.stack([x, x], axis=-1))
    pieces = lax.unstack(x, axis=1)
    assert isinstance(pieces, tuple) and len(pieces) == 3
    for got, want in zip(pieces, np.moveaxis(x, 1, 0)):
        np.testing.assert_array_equal(got, want)
    assert lax.unstack(np.ones((0, 3), np.float32)) == ()
    assert str(lax.stack([1.0, 2.0]).aval) == "~float32[2]"
    jaxpr = minijax.make_jaxpr(lambda a, b: lax.stack([a, b], 1))(x[0], x[1])
    assert "stack[axis=1]" in str(jaxpr)
    assert "unstack[axis=0]" in str(minijax.make_jaxpr(lax.unstack)(x))
    assert lax.stack_p.name == "stack" and lax.unstack_p.name == "unstack"


def test_stack_unstack_transforms():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    w = np.arange(3.0, dtype=np.float32)

    def f(a):  # reverses the rows through an unstack and a stack
        return (lax.stack(lax.unstack(a)[::-1], 0) * w).sum()

    np.testing.assert_allclose(minijax.grad(f)(x), np.broadcast_to(w, (2, 3)))

    def g(a):
        return (lax.stack([a, a * a], axis=1) * np.arange(2.0, dtype=np.float32)[:, None]).sum()

    np.testing.assert_allclose(minijax.jit(minijax.grad(g))(x), 2 * x, rtol=1e-6)
    np.testing.assert_allclose(minijax.grad(g)(x), _fd_grad(lambda v: (
        np.stack([v, v * v], 1) * np.arange(2.0)[:, None]).sum(), x), rtol=1e-3)
    got = minijax.vmap(lambda a, b: lax.stack([a, b], 0), (0, None))(x, w)
    np.testing.assert_array_equal(got, np.stack([x, np.broadcast_to(w, x.shape)], 1))
    got = minijax.vmap(lambda a: lax.stack([a, -a], 0), 1)(x)
    np.testing.assert_array_equal(got, np.stack([x.T, -x.T], 1))
    got = minijax.vmap(lambda a: lax.unstack(a, 0), 1)(x)
    for g_, want in zip(got, x):
        np.testing.assert_array_equal(g_, want)


def test_stack_unstack_errors():
    with pytest.raises(ValueError, match=r"All input arrays must have the same shape\. "
                                         r"Got \(2,\), \(3,\)\."):
        lax.stack([np.ones(2, np.float32), np.ones(3, np.float32)])
    with pytest.raises(TypeError, match="lax.stack requires arguments to have the same dtypes"):
        lax.stack([np.ones(2, np.float32), np.ones(2, np.int32)])
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 2"):
        lax.stack([np.ones(2, np.float32)], axis=3)
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 1"):
        lax.unstack(np.ones(2, np.float32), axis=2)


# ------------------------------------------------------------------------------------------------
# mulhi, scatter_sub


def test_mulhi_against_wide_products():
    rng = np.random.default_rng(0)
    for dtype, wide in [(np.int32, np.int64), (np.uint32, np.uint64), (np.int8, np.int16),
                        (np.uint8, np.uint16)]:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, 16, endpoint=True).astype(dtype)
        y = rng.integers(info.min, info.max, 16, endpoint=True).astype(dtype)
        bits = info.bits
        want = ((x.astype(wide) * y.astype(wide)) >> bits).astype(dtype)
        got = lax.mulhi(x, y)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)
    assert str(minijax.numpy.asarray(lax.mulhi(3, 4)).aval) == "~int32[]"
    assert lax.mulhi_p.name == "mulhi"
    got = minijax.vmap(lax.mulhi)(np.arange(3, dtype=np.uint32) * 1000000000,
                                  np.full(3, 3000000000, np.uint32))
    np.testing.assert_array_equal(got, [0, 698491930, 1396983861])  # JAX 0.10.2's values
    assert minijax.grad(lambda x: lax.mulhi(3, 4) * x)(1.0) == 0.0
    with pytest.raises(TypeError, match="mulhi does not accept dtype float32"):
        lax.mulhi(1.0, 2.0)


_DN1 = lax.ScatterDimensionNumbers((), (0,), (0,))
_IDX = np.array([[1], [1], [3]], np.int32)


def _np_scatter_sub(x, u):
    out = np.array(x, np.float64)
    np.subtract.at(out, _IDX[:, 0], u)
    return out


def test_scatter_sub_values_and_derivatives():
    x = np.arange(4.0, dtype=np.float32)
    u = np.array([1.0, 2.0, 3.0], np.float32)
    f = lambda x, u: lax.scatter_sub(x, _IDX, u, _DN1)
    np.testing.assert_array_equal(f(x, u), _np_scatter_sub(x, u))
    assert "scatter-sub[" in str(minijax.make_jaxpr(f)(x, u))
    assert lax.scatter_sub_p.name == "scatter-sub"
    w = np.arange(4.0)
    gx, gu = minijax.grad(lambda x, u: (f(x, u) * w).sum(), (0, 1))(x, u)
    np.testing.assert_allclose(gx, _fd_grad(lambda v: (_np_scatter_sub(v, u) * w).sum(), x))
    np.testing.assert_allclose(gu, _fd_grad(lambda v: (_np_scatter_sub(x, v) * w).sum(), u))
    _, t = minijax.jvp(f, (x, u), (np.ones(4, np.float32), np.ones(3, np.float32)))
    np.testing.assert_array_equal(t, [1.0, -1.0, 1.0, 0.0])
    got = minijax.vmap(f, (None, 0))(x, np.stack([u, 2 * u]))
    np.testing.assert_array_equal(got, [_np_scatter_sub(x, u), _np_scatter_sub(x, 2 * u)])


# ------------------------------------------------------------------------------------------------
# collapse, broadcast_like, index_take, empty, shape_as_value


def test_shape_helpers():
    x = np.arange(60.0, dtype=np.float32).reshape(3, 4, 5)
    np.testing.assert_array_equal(lax.collapse(x, 0, 2), x.reshape(12, 5))
    np.testing.assert_array_equal(lax.collapse(x, -2), x.reshape(3, 20))
    with pytest.raises(ValueError, match=r"Invalid dimension range passed to collapse: "
                                         r"\(3, 4, 5\)\[2:1\]"):
        lax.collapse(x, 2, 1)
    got = lax.broadcast_like(1.0, np.ones((2, 3), np.int32))
    assert str(got.aval) == "~float32[2,3]"
    np.testing.assert_array_equal(lax.broadcast_like(x[0, :1], x), np.broadcast_to(x[0, :1], x.shape))
    with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input "
                                         r"type=float32\[3\] and requested type=float32\[2,4\]"):
        lax.broadcast_like(np.ones(3, np.float32), np.ones((2, 4)))
    with pytest.raises(ValueError, match="Cannot broadcast to shape with fewer dimensions"):
        lax.broadcast_like(np.ones((2, 3), np.float32), np.ones(3))
    e = lax.empty((2, 3), np.int32)
    assert e.shape == (2, 3) and e.dtype == np.int32
    assert lax.empty(3, np.float32).shape == (3,)
    s = lax.shape_as_value((2, 3))
    assert s.dtype == np.int32
    np.testing.assert_array_equal(s, [2, 3])
    assert lax.shape_as_value(()).shape == (0,)


def test_index_take():
    x = np.arange(60.0, dtype=np.float32).reshape(3, 4, 5)
    i0, i2 = np.array([1, -1, 4], np.int32), np.array([0, 2, 7], np.int32)
    got = lax.index_take(x, (i0, i2), (0, 2))
    np.testing.assert_array_equal(got, x[i0 % 3, :, i2 % 5])
    got = minijax.jit(lambda v, i: lax.index_take(v, (i,), (1,)))(x, i0)
    np.testing.assert_array_equal(got, np.moveaxis(x[:, i0 % 4], 1, 0))
    g = minijax.grad(lambda v: lax.index_take(v, (np.array([1, 1]),), (0,)).sum())(
        np.arange(3.0, dtype=np.float32))
    np.testing.assert_array_equal(g, [0.0, 2.0, 0.0])
    with pytest.raises(ValueError, match="indices must have an integer type"):
        lax.index_take(x, (np.array([1.0]),), (0,))


# ------------------------------------------------------------------------------------------------
# conv shape tuples (JAX 0.10.2's values), primitives exported under JAX's names

_NHWC = ("NHWC", "HWIO", "NHWC")


def test_conv_shape_tuples():
    assert lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), "SAME") == (2, 4, 5, 8)
    assert lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 3), [(1, 0), (2, 2)]) == (
        2, 4, 4, 4)
    assert lax.conv_shape_tuple((4, 3, 9, 8), (4, 3, 3, 2), (1, 1), "VALID", 2) == (2, 4, 7, 7)
    assert lax.conv_general_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 1), "SAME", _NHWC) == (
        2, 5, 8, 4)
    assert lax.conv_general_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (1, 2), "VALID", _NHWC) == (
        2, 7, 4, 4)
    tshape = lax.conv_transpose_shape_tuple
    assert tshape((2, 9, 8, 3), (3, 2, 3, 4), (2, 1), "SAME", _NHWC) == (2, 18, 8, 4)
    assert tshape((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), "VALID", _NHWC) == (2, 19, 24, 4)
    assert tshape((2, 9, 8, 3), (3, 2, 3, 4), (2, 1), [(1, 1), (0, 2)], _NHWC) == (2, 17, 9, 4)
    with pytest.raises(TypeError, match="Wrong number of explicit pads for convolution: "
                                        "expected 2, got 1."):
        lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), [(1, 1)])
    with pytest.raises(ValueError, match="Negative padding is larger than the size"):
        lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), [(-10, 0), (0, 0)])
    # agrees with the shape a real convolution gets
    x, w = np.ones((2, 9, 8, 3), np.float32), np.ones((3, 2, 3, 4), np.float32)
    out = lax.conv_general_dilated(x, w, (2, 1), "SAME", dimension_numbers=_NHWC)
    assert out.shape == lax.conv_general_shape_tuple(x.shape, w.shape, (2, 1), "SAME", _NHWC)
    out = lax.conv_transpose(x, w, (2, 3), "VALID", dimension_numbers=_NHWC)
    assert out.shape == tshape(x.shape, w.shape, (2, 3), "VALID", _NHWC)


def test_primitives_under_jax_names():
    assert lax.sharding_constraint_p.name == "sharding_constraint"
    assert lax.select_and_gather_add_p.name == "select_and_gather_add"

    def f(x):
        return minijax.jvp(lambda y: lax.reduce_window(y, -np.inf, lax.max, (2,), (1,), "VALID"),
                           (x,), (x,))

    assert "select_and_gather_add[" in str(minijax.make_jaxpr(f)(np.ones(4, np.float32)))


# ------------------------------------------------------------------------------------------------
# rng_uniform, dce_sink


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint32])
def test_rng_uniform(dtype):
    lo, hi = np.asarray(2, dtype), np.asarray(9, dtype)
    r = lax.rng_uniform(lo, hi, (64,))
    assert r.dtype == dtype and r.shape == (64,)
    r = np.asarray(r)
    assert (r >= 2).all() and (r < 9).all() and len(np.unique(r)) > 3
    assert str(minijax.jit(lambda: lax.rng_uniform(0.0, 1.0, (2,)))().aval) == "~float32[2]"
    assert lax.rng_uniform(0.0, 1.0, ()).aval.weak_type


def test_rng_uniform_errors():
    with pytest.raises(ValueError, match="Arguments to rng_uniform must have identical dtypes, "
                                         "got float32 and int32."):
        lax.rng_uniform(0.0, np.int32(1), (2,))
    with pytest.raises(ValueError, match=r"must be scalars; got shapes \(2,\) and \(\)\."):
        lax.rng_uniform(np.zeros(2, np.float32), 1.0, (2,))
    with pytest.raises(NotImplementedError, match="Batching rule for 'rng_uniform' not "
                                                  "implemented"):
        minijax.vmap(lambda a: lax.rng_uniform(a, 1.0, (2,)))(np.zeros(2, np.float32))
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'rng_uniform'"):
        minijax.grad(lambda a: lax.rng_uniform(a, 1.0, ()))(0.0)
    with pytest.raises(TypeError, match="rng_uniform does not accept dtype uint8"):
        lax.rng_uniform(np.uint8(0), np.uint8(3), (2,))


def test_dce_sink_keeps_its_operand():
    def f(x):
        lax.dce_sink({"a": minijax.numpy.sin(x)})
        return x + 1

    jaxpr = minijax.make_jaxpr(f)(1.0)
    assert [e.primitive.name for e in jaxpr.eqns][:2] == ["sin", "dce_sink"]
    assert lax.dce_sink(1.0) is None
    assert minijax.jit(f)(1.0) == 2.0
    g = minijax.jit(lambda x: (lax.dce_sink(x, prevent_mlir_dce=True), x * 3)[1])
    assert g(2.0) == 6.0
    assert "custom_call @dce_sink" in g.lower(2.0).as_text()
    assert minijax.grad(f)(1.0) == 1.0
    assert "dce_sink" in str(minijax.make_jaxpr(minijax.vmap(f))(np.ones(2, np.float32)))


# ------------------------------------------------------------------------------------------------
# approx_max_k / approx_min_k (exact on CPU: XLA's fallback sorts)


def test_approx_top_k_values():
    rng = np.random.default_rng(1)
    x = rng.permutation(24).reshape(4, 6).astype(np.float32)  # distinct: no ties
    vals, idx = lax.approx_max_k(x, 2)
    np.testing.assert_array_equal(vals, -np.sort(-x, axis=-1)[:, :2])
    np.testing.assert_array_equal(idx, np.argsort(-x, axis=-1)[:, :2])
    assert idx.dtype == np.int32
    vals, idx = lax.approx_min_k(x, 3, reduction_dimension=0)
    np.testing.assert_array_equal(vals, np.sort(x, axis=0)[:3])
    np.testing.assert_array_equal(idx, np.argsort(x, axis=0)[:3])
    out = lax.approx_max_k(np.arange(1000.0, dtype=np.float32), 5, aggregate_to_topk=False)
    assert out[0].shape == (1000,)  # JAX 0.10.2's reduced size on CPU
    jaxpr = str(minijax.make_jaxpr(lambda v: lax.approx_max_k(v, 2))(x))
    assert "approx_top_k[" in jaxpr and "reduction_dimension=-1" in jaxpr
    assert "ApproxTopK" in minijax.jit(lambda v: lax.approx_min_k(v, 2)).lower(x).as_text()


def test_approx_top_k_transforms_and_errors():
    x = np.array([[3.0, 1.0, 4.0, 1.5, 9.0, 2.6], [5.0, 3.5, 8.9, 7.9, 3.2, 3.8]], np.float32)
    g = minijax.grad(lambda v: (lax.approx_max_k(v, 2)[0] * np.array([1.0, 2.0])).sum())(x)
    np.testing.assert_array_equal(g, [[0, 0, 2, 0, 1, 0], [0, 0, 1, 2, 0, 0]])  # JAX's
    np.testing.assert_array_equal(minijax.vmap(lambda v: lax.approx_min_k(v, 2)[1])(x),
                                  [[1, 3], [4, 1]])
    np.testing.assert_array_equal(minijax.vmap(lambda v: lax.approx_min_k(v, 1, 0)[1], 1)(x),
                                  [[0], [0], [0], [0], [1], [0]])
    with pytest.raises(ValueError, match="operand must be a floating type"):
        lax.approx_max_k(np.arange(4), 2)
    with pytest.raises(ValueError, match="k must be smaller than the size of reduction_dim 6, "
                                         "got 7"):
        lax.approx_max_k(x, 7)
    with pytest.raises(ValueError, match="k must be positive, got 0"):
        lax.approx_max_k(x, 0)
    with pytest.raises(TypeError, match=r"approx_top_k operand must have >= 1 dimension"):
        lax.approx_max_k(np.float32(1), 1)


# ------------------------------------------------------------------------------------------------
# DotAlgorithm / DotAlgorithmPreset as dot_general's precision (values: JAX 0.10.2 on CPU)

_X = (np.arange(6, dtype=np.float32).reshape(2, 3) / 7 + 1).astype(np.float32)
_Y = (np.arange(6, dtype=np.float32).reshape(3, 2) / 3 + 0.1).astype(np.float32)
_F16_PRODUCT = [[2.8203125, 3.9609375], [3.8046875, 5.375]]  # JAX's, through f16 inputs


@pytest.mark.parametrize("preset,dtype,want", [
    ("F16_F16_F16", np.float32, _F16_PRODUCT),
    ("F32_F32_F32", np.float16, _F16_PRODUCT),
    ("BF16_BF16_F32", np.float16, [[2.826171875, 3.966796875], [3.8046875, 5.37109375]]),
    ("BF16_BF16_F32_X3", np.float32, None),
    ("F64_F64_F64", np.float32, None),
    ("DEFAULT", np.float32, None),
])
def test_dot_algorithm_presets(preset, dtype, want):
    x, y = _X.astype(dtype), _Y.astype(dtype)
    for p in (preset, lax.DotAlgorithmPreset[preset]):
        got = lax.dot(x, y, precision=p)
        assert got.dtype == dtype
        if want is None:
            np.testing.assert_allclose(got, _X @ _Y, rtol=1e-6)
        else:
            np.testing.assert_array_equal(np.asarray(got, np.float32), want)


def test_dot_algorithm_unsupported_on_cpu_and_transforms():
    with pytest.raises(ValueError, match="The precision 'TF32_TF32_F32' is not supported by "
                                         "dot_general on CPU"):
        lax.dot(_X, _Y, precision=lax.DotAlgorithmPreset.TF32_TF32_F32)
    with pytest.raises(ValueError, match="is not supported by dot_general on CPU"):
        lax.dot(_X, _Y, precision=lax.DotAlgorithm(np.float16, np.float16, np.float32))
    got = lax.dot(_X, _Y, precision=lax.DotAlgorithmPreset.BF16_BF16_F32,
                  preferred_element_type=ml_dtypes.bfloat16)
    assert got.dtype == ml_dtypes.bfloat16
    jaxpr = minijax.make_jaxpr(lambda a, b: lax.dot_general(
        a, b, (((1,), (0,)), ((), ())), precision=lax.DotAlgorithmPreset.F32_F32_F32))(_X, _Y)
    assert "precision=F32_F32_F32" in str(jaxpr)
    g = minijax.grad(lambda a: lax.dot(a, _Y, precision="BF16_BF16_F32_X3").sum())(_X)
    np.testing.assert_allclose(g, np.broadcast_to(_Y.sum(1), (2, 3)), rtol=1e-6)
    got = minijax.vmap(lambda a: lax.dot(a, _Y, precision="F32_F32_F32"))(_X)
    np.testing.assert_allclose(got, _X @ _Y, rtol=1e-6)
    preset = lax.DotAlgorithmPreset
    assert preset.F16_F16_F32.supported_output_types(np.float16, np.float16) == (
        np.float32, np.float16)
    assert preset.BF16_BF16_F32.supported_lhs_types == (ml_dtypes.bfloat16, np.float32)
    assert preset.F64_F64_F64.accumulation_type is np.float64
    assert repr(preset.F32_F32_F32) == "DotAlgorithmPreset.F32_F32_F32"
    assert str(preset.F32_F32_F32) == "F32_F32_F32"


# ------------------------------------------------------------------------------------------------
# platform_dependent (this machine lowers for CPU)


def test_platform_dependent():
    f = lambda x: lax.platform_dependent(x, cpu=minijax.numpy.sin, default=minijax.numpy.cos)
    s, c = np.sin(np.float32(1)), np.cos(np.float32(1))
    np.testing.assert_allclose(f(1.0), s, rtol=1e-6)
    np.testing.assert_allclose(minijax.jit(f)(1.0), s, rtol=1e-6)
    np.testing.assert_allclose(minijax.grad(f)(1.0), c, rtol=1e-6)
    np.testing.assert_allclose(minijax.jit(minijax.grad(f))(1.0), c, rtol=1e-6)
    np.testing.assert_allclose(minijax.vmap(f)(np.ones(2, np.float32)), [s, s], rtol=1e-6)
    assert "platform_index[" in str(minijax.make_jaxpr(f)(1.0))
    g = lambda x: lax.platform_dependent(x, cuda=minijax.numpy.sin, default=minijax.numpy.cos)
    np.testing.assert_allclose(minijax.jit(g)(1.0), c, rtol=1e-6)
    with pytest.raises(NotImplementedError, match=r"MLIR translation rule for primitive "
                       r"'platform_index\(platforms=\(\('tpu',\),\)\)' not found for platform cpu"):
        minijax.jit(lambda x: lax.platform_dependent(x, tpu=minijax.numpy.sin))(1.0)
    with pytest.raises(TypeError, match="the 'cpu' branch must be a callable"):
        lax.platform_dependent(1.0, cpu=3)
    with pytest.raises(ValueError, match="Use 'cuda' or 'rocm' for lax.platform_dependent."):
        lax.platform_dependent(1.0, gpu=minijax.numpy.sin)


# ------------------------------------------------------------------------------------------------
# composite


_C = np.arange(3.0, dtype=np.float32)


def _my_tan(x, *, scale, **attrs):
    return {"y": minijax.numpy.sin(x) / minijax.numpy.cos(x) * scale + _C}


def test_composite():
    f = lax.composite(_my_tan, name="my.tangent", version=2)
    x = np.array([0.1, 0.2, 0.3], np.float32)
    want = np.tan(x) * 2 + _C
    np.testing.assert_allclose(f(x, scale=2.0)["y"], want, rtol=1e-6)
    np.testing.assert_allclose(minijax.jit(lambda v: f(v, scale=2.0))(x)["y"], want, rtol=1e-6)
    jaxpr = str(minijax.make_jaxpr(lambda v: f(v, scale=2.0))(x))
    assert "composite[" in jaxpr and "name=my.tangent" in jaxpr and "version=2" in jaxpr
    text = minijax.jit(lambda v: f(v, scale=2.0, arr=np.array([1, 2], np.int32), s="hi")).lower(
        x).as_text()
    assert ('stablehlo.composite "my.tangent"' in text and "arr = dense<[1, 2]> : tensor<2xi32>"
            in text and 's = "hi"' in text and "scale = 2.000000e+00 : f64" in text)
    with pytest.raises(ValueError, match="JVP rule for composite not implemented"):
        minijax.grad(lambda v: f(v, scale=1.0)["y"].sum())(x)
    with pytest.raises(NotImplementedError, match="Batching rule for 'composite' not implemented"):
        minijax.vmap(lambda v: f(v, scale=1.0))(x[None])


# ------------------------------------------------------------------------------------------------
# ragged_dot / ragged_dot_general, against NumPy loops over the groups

_RNG = np.random.default_rng(0)
_LHS = _RNG.normal(size=(7, 3)).astype(np.float32)
_RHS = _RNG.normal(size=(3, 3, 2)).astype(np.float32)
_GS = np.array([2, 0, 4], np.int32)


def _np_ragged_dot(lhs, rhs, gs):
    out = np.zeros((lhs.shape[0], rhs.shape[2]), np.float64)
    start = 0
    for j, size in enumerate(gs):
        out[start:start + size] = lhs[start:start + size] @ rhs[j]
        start += size
    return out


def test_ragged_dot():
    np.testing.assert_allclose(lax.ragged_dot(_LHS, _RHS, _GS), _np_ragged_dot(_LHS, _RHS, _GS),
                               rtol=1e-5, atol=1e-6)
    gs2 = np.array([3, 3, 0], np.int32)
    np.testing.assert_allclose(minijax.jit(lax.ragged_dot)(_LHS, _RHS, gs2),
                               _np_ragged_dot(_LHS, _RHS, gs2), rtol=1e-5, atol=1e-6)
    loss = lambda a, b: (lax.ragged_dot(a, b, _GS) ** 2).sum()
    ga, gb = minijax.grad(loss, (0, 1))(_LHS, _RHS)
    np.testing.assert_allclose(ga, _fd_grad(lambda v: (_np_ragged_dot(v, _RHS, _GS) ** 2).sum(),
                                            _LHS), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(gb, _fd_grad(lambda v: (_np_ragged_dot(_LHS, v, _GS) ** 2).sum(),
                                            _RHS), rtol=2e-3, atol=2e-3)
    got = minijax.vmap(lambda a: lax.ragged_dot(a, _RHS, _GS))(np.stack([_LHS, 2 * _LHS]))
    np.testing.assert_allclose(got[1], 2 * _np_ragged_dot(_LHS, _RHS, _GS), rtol=1e-5, atol=1e-5)
    out = lax.ragged_dot(_LHS.astype(ml_dtypes.bfloat16), _RHS.astype(ml_dtypes.bfloat16), _GS,
                         preferred_element_type=np.float32)
    assert out.dtype == np.float32
    with pytest.raises(NotImplementedError, match="Unimplemented group_offset support."):
        lax.ragged_dot(_LHS, _RHS, _GS, group_offset=np.array([0], np.int32))


def test_ragged_dot_general_contracting_and_batch_modes():
    # ragged contracting axis: one [m, n] product per group of k
    dn = lax.RaggedDotDimensionNumbers((((1,), (0,)), ((), ())), (1,), ())
    lhs, rhs = _RNG.normal(size=(2, 5)).astype(np.float32), _RNG.normal(size=(5, 3)).astype(
        np.float32)
    got = lax.ragged_dot_general(lhs, rhs, np.array([2, 3], np.int32), dn)
    np.testing.assert_allclose(got, [lhs[:, :2] @ rhs[:2], lhs[:, 2:] @ rhs[2:]], rtol=1e-5,
                               atol=1e-6)
    assert dn.dot_dimension_numbers == (((1,), (0,)), ((), ()))
    # ragged batch axis: a plain batched product
    dn = lax.RaggedDotDimensionNumbers((((2,), (1,)), ((0,), (0,))), (0,), ())
    lhs = _RNG.normal(size=(2, 2, 3)).astype(np.float32)
    rhs = _RNG.normal(size=(2, 3, 2)).astype(np.float32)
    got = lax.ragged_dot_general(lhs, rhs, np.array([1, 1], np.int32), dn)
    np.testing.assert_allclose(got, lhs @ rhs, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------------
# pbroadcast (under vmap; XLA on CPU has no collective-broadcast, as JAX 0.10.2 says)


def test_pbroadcast():
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    got = minijax.vmap(lambda v: lax.pbroadcast(v, "i", 1), axis_name="i")(x)
    np.testing.assert_array_equal(got, np.broadcast_to(x[1], (3, 2)))
    got = minijax.vmap(lambda v: lax.pbroadcast(v, "i", 2), axis_name="i", in_axes=1,
                       out_axes=1)(x.T)
    np.testing.assert_array_equal(got, np.broadcast_to(x[2], (3, 2)).T)
    w = np.arange(6.0).reshape(3, 2)
    g = minijax.grad(lambda v: (minijax.vmap(lambda r: lax.pbroadcast(r, "i", 1),
                                             axis_name="i")(v) * w).sum())(x)
    np.testing.assert_array_equal(g, [[0, 0], [6, 9], [0, 0]])  # the source gets every sum
    # JAX 0.10.2's: no evaluation rule eagerly; traced, its check of the names (as ppermute's)
    with pytest.raises(NotImplementedError, match="^Evaluation rule for 'pbroadcast' not impl"):
        lax.pbroadcast(x, "i", 0)
    with pytest.raises(NameError, match="^Found an unbound axis name: i. To fix this, please "
                                        "call ppermute under `jax.shard_map`."):
        minijax.jit(lambda v: lax.pbroadcast(v, "i", 0))(x)


# ------------------------------------------------------------------------------------------------
# eq_to_p / le_to_p / lt_to_p: XLA's total order (values: JAX 0.10.2)


def test_total_order_comparisons():
    x = np.array([-0.0, 0.0, np.nan, -np.nan, 1.0, -np.inf], np.float32)
    y = np.array([0.0, -0.0, np.nan, np.nan, 2.0, np.inf], np.float32)
    np.testing.assert_array_equal(lax.eq_to_p.bind(x, y), [0, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(lax.le_to_p.bind(x, y), [1, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(lax.lt_to_p.bind(x, y), [1, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(minijax.vmap(lax.lt_to_p.bind)(x, y), [1, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(minijax.jit(lax.le_to_p.bind)(x, y), [1, 0, 1, 1, 1, 1])
    assert lax.lt_to_p.bind(np.uint8(3), np.uint8(200))  # unsigned order
    assert lax.eq_to_p.bind(np.int32(3), np.int32(3)).dtype == np.bool_
    assert "eq_to" in str(minijax.make_jaxpr(lax.eq_to_p.bind)(x, y))


def test_copy_p():
    x = minijax.numpy.arange(3.0)
    y = lax.copy_p.bind(x)
    assert y is not x and y.dtype == x.dtype
    np.testing.assert_array_equal(y, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(minijax.grad(lambda v: (lax.copy_p.bind(v) * 2).sum())(x), 2.0)
    assert "copy" in str(minijax.make_jaxpr(lax.copy_p.bind)(x))
