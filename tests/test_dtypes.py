"""JAX's promotion lattice with weak types, and x64 canonicalization (on and off)."""

import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import minijax
from minijax import dtypes, lax

bf16 = np.dtype(ml_dtypes.bfloat16)

# Entries from JAX's documented promotion table (jax.numpy.promote_types).
PROMOTIONS = [
    (np.int8, np.uint8, np.int16),
    (np.uint8, np.int32, np.int32),
    (np.uint16, np.int16, np.int32),
    (np.uint32, np.int32, np.int64),
    (np.int32, np.float16, np.float16),
    (np.uint8, bf16, bf16),
    (bf16, np.float16, np.float32),
    (np.float32, np.complex64, np.complex64),
    (np.float64, np.complex64, np.complex128),
    (np.bool_, np.int8, np.int8),
    (np.bool_, np.float32, np.float32),
    (np.float32, np.float64, np.float64),
    (np.int64, np.float16, np.float16),
]


@pytest.mark.parametrize("a,b,expected", PROMOTIONS)
def test_promote_types_table(a, b, expected):
    assert dtypes.promote_types(a, b) == np.dtype(expected)
    assert dtypes.promote_types(b, a) == np.dtype(expected)


def test_float8_does_not_promote_implicitly():
    with pytest.raises(dtypes.TypePromotionError):
        dtypes.promote_types(ml_dtypes.float8_e4m3fn, bf16)
    with pytest.raises(dtypes.TypePromotionError):
        dtypes.promote_types(ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)


def test_weak_types():
    f32 = np.zeros(2, np.float32)
    assert dtypes.result_type(f32, 1.0, return_weak_type_flag=True) == (np.float32, False)
    assert dtypes.result_type(np.zeros(2, bf16), 2.0) == bf16
    assert dtypes.result_type(np.zeros(2, np.uint8), 3) == np.uint8
    assert dtypes.result_type(np.zeros(2, np.int32), 1.5, return_weak_type_flag=True) == (
        np.float32,
        True,
    )
    assert dtypes.result_type(True, 1, return_weak_type_flag=True) == (np.int32, True)
    assert dtypes.result_type(1, 2.0, return_weak_type_flag=True) == (np.float32, True)
    assert dtypes.result_type(np.zeros(2, np.int8), 1j, return_weak_type_flag=True) == (
        np.complex64,
        True,
    )


def test_lax_takes_a_python_scalar_at_its_default_dtype():
    # JAX 0.10.2: an int is int32 and a float float32 for lax, whatever the array's dtype
    with pytest.raises(TypeError, match="lax.mul requires arguments to have the same dtypes, "
                                        "got bfloat16, int32"):
        lax.mul(np.zeros(3, bf16), 2)
    jaxpr = minijax.make_jaxpr(lambda x: lax.mul(x, 2.0))(np.zeros(3, np.float32))
    assert "mul a 2.0:f32[]" in str(jaxpr)
    assert jaxpr.out_avals[0].dtype == np.float32 and not jaxpr.out_avals[0].weak_type


def test_x64_off_canonicalizes_before_the_device():
    x = minijax.device_put(np.arange(3, dtype=np.int64))
    assert x.dtype == np.int32 and np.asarray(x).dtype == np.int32
    y = minijax.device_put(np.ones(2, np.float64))
    assert y.dtype == np.float32 and np.asarray(y).dtype == np.float32
    f = minijax.jit(lambda a: lax.neg(a))
    assert f(np.ones(2, np.float64)).dtype == np.float32
    assert minijax.device_put(3).dtype == np.int32 and minijax.device_put(3).weak_type


def test_x64_config_update_in_process_retraces():
    f = minijax.jit(lambda a: lax.neg(a))
    assert f(np.ones(2, np.float64)).dtype == np.float32
    minijax.config.update("jax_enable_x64", True)
    try:
        out = f(np.ones(2, np.float64))
        assert out.dtype == np.float64 and np.asarray(out).dtype == np.float64
        assert minijax.device_put(np.int64(2**40)).dtype == np.int64
        assert int(minijax.device_put(np.int64(2**40))) == 2**40
        assert f._trace_count == 2
    finally:
        minijax.config.update("jax_enable_x64", False)
    assert f(np.ones(2, np.float64)).dtype == np.float32


def test_x64_from_environment_variable():
    code = (
        "import numpy as np, minijax; from minijax import lax;"
        "x = minijax.device_put(np.ones(2, np.float64));"
        "print(x.dtype, minijax.jit(lambda a: lax.mul(a, 2.0))(x).dtype, "
        "minijax.device_put(1).dtype)"
    )
    env = dict(os.environ, MINIJAX_ENABLE_X64="1", MINIJAX_PLATFORMS="cpu")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["float64", "float64", "int64"]


@pytest.mark.parametrize(
    "dtype",
    [
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.uint8,
        np.uint16,
        np.uint32,
        np.float16,
        bf16,
        np.float32,
        np.complex64,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
    ],
)
def test_every_dtype_round_trips_through_the_device(dtype):
    value = np.array([0, 1, 2, 3]).astype(dtype)
    x = minijax.device_put(value)
    assert x.dtype == np.dtype(dtype)
    back = np.asarray(x)
    assert back.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(
        back.astype(np.float32) if back.dtype.kind == "V" else back,
        value.astype(np.float32) if value.dtype.kind == "V" else value,
    )
    # through an executable too (neg is not defined on bool/unsigned; use an identity jit)
    y = minijax.jit(lambda a: a)(x)
    assert y.dtype == np.dtype(dtype)


def test_short_names():
    assert [
        dtypes.short_name(d)
        for d in (np.float32, bf16, np.uint8, np.bool_, np.complex64, ml_dtypes.float8_e4m3fn)
    ] == ["f32", "bf16", "u8", "bool", "c64", "f8_e4m3fn"]
