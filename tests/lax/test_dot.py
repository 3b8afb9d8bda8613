"""dot_general, dot and batch_matmul: errors, params, precision, dtypes and accumulation."""

import ml_dtypes
import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.core import pp_param
from minijax.lax.dot import dot_general_p

BF16 = ml_dtypes.bfloat16
MATMUL = (((1,), (0,)), ((), ()))


# XLA on NVIDIA GPUs computes float32 dots with TF32 tensor cores at DEFAULT precision (as JAX).
F32_DOT_TOL = 2e-2 if minijax.default_backend() == "gpu" else 1e-5


def rand(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# --- errors --------------------------------------------------------------------------------------


def _text(e):
    """An error's message (JAX's) and the notes minijax adds to it (the user's line)."""
    return "\n".join([str(e), *getattr(e, "__notes__", ())])


def test_contracting_size_mismatch_names_primitive_sizes_and_line():
    def f(a, b):
        return lax.dot_general(a, b, MATMUL)  # the mismatched matmul

    for run in (f, minijax.jit(f)):
        with pytest.raises(TypeError) as e:
            run(np.zeros((3, 4), np.float32), np.zeros((5, 2), np.float32))
        msg = _text(e.value)
        assert msg.startswith("dot_general requires contracting dimensions to have the same "
                              "shape, got (4,) and (5,).")  # JAX's words
        assert f"{__file__}:" in msg and "the mismatched matmul" in msg


@pytest.mark.parametrize("lhs, rhs, dims, match", [
    ((2, 3, 4), (5, 4, 6), (((2,), (1,)), ((0,), (0,))), "batch dimensions to have the same shape"),
    ((3, 4), (4, 2), (((2,), (0,)), ((), ())), "lhs dimension numbers to be nonnegative"),
    ((3, 4), (4, 2), (((1,), (-1,)), ((), ())), "rhs dimension numbers to be nonnegative"),
    ((2, 3, 4), (2, 4), (((2,), (1,)), ((0,), ())), "equal numbers of lhs_batch and rhs_batch"),
    ((4, 4), (4, 4), (((1, 1), (0, 1)), ((), ())), "to be distinct"),
    ((2, 4), (2, 4), (((0,), (0,)), ((0,), (0,))), "disjoint from contracting"),
])
def test_bad_dimension_numbers(lhs, rhs, dims, match):
    with pytest.raises(TypeError, match=match):
        lax.dot_general(np.zeros(lhs, np.float32), np.zeros(rhs, np.float32), dims)


def test_malformed_dimension_numbers():
    with pytest.raises(TypeError, match="dimension_numbers must be"):
        lax.dot_general(rand(2, 2), rand(2, 2), ((1,), (0,)))


def test_preferred_element_type_narrower():
    # JAX 0.10.2 (XLA's MaybeUpcast) refuses only a type narrower than a non-floating result;
    # float operands with an integer preferred type are tests/test_fidelity_r22_e.py's
    i32 = np.ones((2, 2), np.int32)
    with pytest.raises(TypeError, match="^`preferred_element_type` must not be narrower"):
        lax.dot(i32, i32, preferred_element_type=np.int8)
    with pytest.raises(TypeError, match="float16 for result type of int32"):
        lax.dot(i32, i32, preferred_element_type=np.float16)


def test_dot_requires_rank_1_or_2():
    with pytest.raises(TypeError, match="dot requires operands of rank 1 or 2"):
        lax.dot(rand(2, 2, 2), rand(2, 2))


# --- params and printing -------------------------------------------------------------------------


def _jaxpr_text(**kw):
    return str(minijax.make_jaxpr(lambda a, b: lax.dot_general(a, b, MATMUL, **kw))(
        rand(2, 3), rand(3, 4)))


# The default precision's own params (a GPU run of the suite sets "highest" process-wide).
_default_precision = minijax.default_matmul_precision(None)


@_default_precision
def test_params_are_hashable_tuples():
    lists = (([1], [0]), ([], []))  # users may pass lists; the params hold tuples
    jaxpr = minijax.make_jaxpr(lambda a, b: lax.dot_general(a, b, lists))(rand(2, 3), rand(3, 4))
    params = jaxpr.eqns[0].params
    assert params["dimension_numbers"] == (((1,), (0,)), ((), ()))
    assert params["precision"] is None and params["preferred_element_type"] is None
    hash(tuple(params.items()))
    params = minijax.make_jaxpr(
        lambda a, b: lax.dot_general(a, b, ((1, 0), ([], [])), precision="highest",
                                     preferred_element_type=np.float32))(rand(2, 3), rand(3, 4))
    p = params.eqns[0].params
    assert p["dimension_numbers"] == (((1,), (0,)), ((), ()))
    assert p["precision"] == (lax.Precision.HIGHEST, lax.Precision.HIGHEST)
    assert p["preferred_element_type"] == np.dtype(np.float32)


def test_pp_params_hook_gives_jax_text():
    params = dict(dimension_numbers=MATMUL, precision=None,
                  preferred_element_type=np.dtype(np.float32))
    printed = dot_general_p.pp_params(params)
    text = " ".join(f"{k}={pp_param(v)}" for k, v in sorted(printed.items()))
    assert text == "dimension_numbers=(([1], [0]), ([], [])) preferred_element_type=float32"
    printed = dot_general_p.pp_params(dict(params, precision=(lax.Precision.HIGH,) * 2))
    assert pp_param(printed["precision"]) == "(Precision.HIGH, Precision.HIGH)"


@_default_precision
def test_jaxpr_prints_dot_general_as_jax():
    text = _jaxpr_text(preferred_element_type=np.float32)
    # JAX 0.10.2's text of jax.make_jaxpr(jnp.matmul) at these shapes: the params overflow
    # the line, so they are one a line
    assert ("c:f32[2,4] = dot_general[\n      dimension_numbers=(([1], [0]), ([], []))\n"
            "      preferred_element_type=float32\n    ] a b") in text


@pytest.mark.parametrize("precision, emitted", [
    ("highest", "HIGHEST, HIGHEST"), ("float32", "HIGHEST, HIGHEST"),
    (lax.Precision.HIGH, "HIGH, HIGH"), (("high", "default"), "HIGH, DEFAULT"),
    ((lax.Precision.DEFAULT, lax.Precision.HIGHEST), "DEFAULT, HIGHEST"),
])
def test_precision_is_accepted_and_emitted(precision, emitted):
    a, b = rand(3, 4), rand(4, 5)
    f = minijax.jit(lambda a, b: lax.dot(a, b, precision=precision))
    np.testing.assert_allclose(np.asarray(f(a, b)), a @ b, rtol=F32_DOT_TOL, atol=F32_DOT_TOL)
    assert f"precision = [{emitted}]" in f.lower(a, b).as_text()


def test_no_precision_config_without_precision():
    with minijax.default_matmul_precision(None):  # the GPU test run sets "highest" (conftest)
        assert "precision" not in minijax.jit(lax.dot).lower(rand(3, 4), rand(4, 5)).as_text()


def test_bad_precision():
    with pytest.raises(ValueError, match="Precision argument must be"):
        lax.dot(rand(2, 2), rand(2, 2), precision="ultra")


def test_precision_enum():
    assert lax.Precision("highest") is lax.Precision.HIGHEST
    assert lax.Precision("bfloat16") is lax.Precision.DEFAULT
    assert str(lax.Precision.HIGH) == "HIGH" and repr(lax.Precision.HIGH) == "Precision.HIGH"


def test_default_matmul_precision_fills_in_unset_precision_and_retraces():
    traces = []

    def f(a, b):
        traces.append(1)
        return a @ b

    jf = minijax.jit(f)
    a, b = minijax.numpy.asarray(rand(3, 4)), minijax.numpy.asarray(rand(4, 5))
    with minijax.default_matmul_precision(None):
        jf(a, b)
        jf(a, b)
        assert len(traces) == 1 and "precision" not in str(minijax.make_jaxpr(f)(a, b))
        for name, emitted in (("float32", "HIGHEST"), ("tensorfloat32", "HIGH"),
                              ("bfloat16", "DEFAULT")):
            with minijax.default_matmul_precision(name):
                np.testing.assert_allclose(np.asarray(jf(a, b)), np.asarray(a) @ np.asarray(b),
                                           rtol=F32_DOT_TOL, atol=F32_DOT_TOL)
                assert f"precision=(Precision.{emitted}, Precision.{emitted})" in str(
                    minijax.make_jaxpr(f)(a, b))
                assert f"precision = [{emitted}, {emitted}]" in jf.lower(a, b).as_text()
                # an explicit precision= wins over the default
                assert "Precision.HIGH, Precision.HIGH" in str(minijax.make_jaxpr(
                    lambda a, b: lax.dot(a, b, precision="high"))(a, b))
        n = len(traces)
        assert n > 1  # each setting traced its own program (the C++ fast path too) ...
        jf(a, b)
        assert len(traces) == n  # ... and the unset one is still cached
        assert minijax.config.jax_default_matmul_precision is None


def test_default_matmul_precision_rejects_unknown_names():
    with pytest.raises(ValueError, match="jax_default_matmul_precision must be None or one of"):
        minijax.config.update("jax_default_matmul_precision", "fast")
    with pytest.raises(ValueError, match="got 'ultra'"):
        with minijax.default_matmul_precision("ultra"):
            pass


# --- dtypes and accumulation ---------------------------------------------------------------------


def test_bf16_inputs_with_preferred_f32_accumulate_in_f32():
    a, b = rand(64, 512, dtype=BF16), rand(512, 32, dtype=BF16, seed=1)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    magnitude = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    out = lax.dot(a, b, preferred_element_type=np.float32)
    assert out.dtype == np.float32
    err = np.abs(np.asarray(out).astype(np.float64) - exact)
    # bf16 products are exact in f32, so only f32 accumulation error remains (eps_f32 ~ 1e-7);
    # a bf16 accumulation or a bf16 result would be off by ~1e-3 of the magnitude.
    assert np.all(err <= 1e-5 * magnitude), err.max()
    plain = lax.dot(a, b)
    assert plain.dtype == BF16
    plain_err = np.abs(np.asarray(plain).astype(np.float64) - exact)
    assert plain_err.max() > err.max()


def test_int8_with_preferred_int32_does_not_wrap():
    a = np.full((2, 64), 100, np.int8)
    b = np.full((64, 3), 100, np.int8)
    out = lax.dot(a, b, preferred_element_type=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 640000))


def test_mixed_operand_dtypes_follow_xla_precision_order():
    a32, b16 = rand(3, 4), rand(4, 5, dtype=BF16)
    out = lax.dot(a32, b16)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), a32 @ b16.astype(np.float32),
                               rtol=F32_DOT_TOL, atol=F32_DOT_TOL)
    out = lax.dot(np.arange(4, dtype=np.int32), np.ones(4, np.float32))
    assert out.dtype == np.float32 and float(out) == 6.0
    jaxpr = minijax.make_jaxpr(lax.dot)(a32, b16)
    assert jaxpr.out_avals[0].dtype == np.float32


def test_bool_and_unsigned_dot():
    a = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(np.asarray(lax.dot(a, a)), (a.astype(int) @ a.astype(int)) > 0)
    u = np.array([200, 100], np.uint8)
    assert int(lax.dot(u, u)) == (200 * 200 + 100 * 100) % 256


# --- wrappers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("lhs, rhs", [((4,), (4,)), ((3, 4), (4,)), ((3, 4), (4, 5)),
                                      ((4,), (4, 2))])
def test_dot_shapes_match_numpy(lhs, rhs):
    a, b = rand(*lhs), rand(*rhs, seed=1)
    np.testing.assert_allclose(np.asarray(lax.dot(a, b)), np.dot(a, b),
                               rtol=F32_DOT_TOL, atol=F32_DOT_TOL)


def test_batch_matmul_matches_numpy():
    a, b = rand(2, 3, 4, 5), rand(2, 3, 5, 6, seed=1)
    np.testing.assert_allclose(np.asarray(lax.batch_matmul(a, b)), a @ b,
                               rtol=F32_DOT_TOL, atol=F32_DOT_TOL)
    with pytest.raises(ValueError, match="batch_matmul requires arrays of equal rank"):
        lax.batch_matmul(rand(3, 4), rand(2, 4, 5))


def test_general_contraction_under_jit_matches_einsum():
    a, b = rand(4, 2, 3, 5), rand(5, 2, 6, 3, seed=1)
    dims = (((2, 3), (3, 0)), ((1,), (1,)))  # out: (batch 2, lhs free 4, rhs free 6)
    out = minijax.jit(lambda a, b: lax.dot_general(a, b, dims))(a, b)
    np.testing.assert_allclose(np.asarray(out), np.einsum("xbkm,mbyk->bxy", a, b),
                               rtol=F32_DOT_TOL, atol=F32_DOT_TOL)
