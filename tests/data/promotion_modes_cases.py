"""The cases of jax_numpy_dtype_promotion and jax_numpy_rank_promotion, written once against a
``jax``-like module: tests/data/record_promotion_modes.py runs them on real JAX and
tests/test_leaks_promotion.py on minijax, and the outcomes must agree."""

import numpy as np


def dtype_cases(jax):
    """name -> thunk, each an implicit promotion (or none) in ``jax.numpy``."""
    jnp = jax.numpy
    i32, f32 = jnp.ones(3, jnp.int32), jnp.ones(3, jnp.float32)
    bf16, f16 = jnp.ones(3, jnp.bfloat16), jnp.ones(3, jnp.float16)
    b, u8, c64 = jnp.ones(3, bool), jnp.ones(3, jnp.uint8), jnp.ones(3, jnp.complex64)
    return {
        "i32+1.0": lambda: i32 + 1.0,
        "f32+1": lambda: f32 + 1,
        "i32+1": lambda: i32 + 1,
        "f32+bf16": lambda: f32 + bf16,
        "i32+f32": lambda: i32 + f32,
        "bool+1": lambda: b + 1,
        "bool+True": lambda: b + True,
        "bool&bool": lambda: b & b,
        "u8+i32": lambda: u8 + i32,
        "f32+1j": lambda: f32 + 1j,
        "c64+1.0": lambda: c64 + 1.0,
        "add(1,1.0)": lambda: jnp.add(1, 1.0),
        "f32+np.float32": lambda: f32 + np.float32(1),
        "f32+np.float64_array": lambda: f32 + np.ones(3),
        "weak_i32+weak_f32": lambda: jnp.asarray(1) + jnp.asarray(1.0),
        "f16+bf16": lambda: f16 + bf16,
        "i32/i32": lambda: i32 / i32,
        "sin(i32)": lambda: jnp.sin(i32),
        "bool+i32": lambda: b + i32,
        "where": lambda: jnp.where(b, i32, f32),
        "concatenate": lambda: jnp.concatenate([i32, f32]),
        "dot": lambda: jnp.dot(i32, f32),
        "lax.add(f32,1.0)": lambda: jax.lax.add(f32, 1.0),
        "astype": lambda: i32.astype(jnp.float32),
        "jit(i32+f32)": lambda: jax.jit(lambda x, y: x + y)(i32, f32),
        "promote_types(f32,f64)": lambda: jnp.promote_types(jnp.float32, jnp.float64),
        "promote_types(u8,int)": lambda: jnp.promote_types(jnp.uint8, int),
        "promote_types(f16,float)": lambda: jnp.promote_types(jnp.float16, float),
        "result_type(i32,f32)": lambda: jnp.result_type(jnp.int32, jnp.float32),
        "result_type(i32,1)": lambda: jnp.result_type(jnp.int32, 1),
        "float8+bf16": lambda: jnp.ones(2, jnp.float8_e4m3fn) + bf16,
    }


def rank_cases(jax):
    """name -> thunk, each a jnp broadcast (some promote a non-scalar operand's rank)."""
    jnp = jax.numpy
    x, y, s = jnp.ones((2, 3)), jnp.ones(3), jnp.ones(())
    xi, yi = x.astype(jnp.int32), y.astype(jnp.int32)
    return {
        "add": lambda: jnp.add(x, y),
        "x+y": lambda: x + y,
        "y+x": lambda: y + x,
        "x+np": lambda: x + np.ones(3, np.float32),
        "x+scalar_array": lambda: x + s,
        "x+1.0": lambda: x + 1.0,
        "x+x": lambda: x + x,
        "logical_and": lambda: jnp.logical_and(x, y),
        "power": lambda: jnp.power(x, y),
        "integer_power": lambda: jnp.power(xi, yi),
        "true_divide": lambda: x / y,
        "floor_divide": lambda: x // y,
        "remainder": lambda: x % y,
        "maximum": lambda: jnp.maximum(x, y),
        "arctan2": lambda: jnp.arctan2(x, y),
        "equal": lambda: x == y,
        "clip": lambda: jnp.clip(x, y, 2.0),
        "hypot": lambda: jnp.hypot(x, y),
        "logaddexp": lambda: jnp.logaddexp(x, y),
        "bitwise_and": lambda: jnp.bitwise_and(xi, yi),
        "copysign": lambda: jnp.copysign(x, y),
        "where": lambda: jnp.where(x > 0, y, x),
        "select": lambda: jnp.select([x > 0], [y]),
        "broadcast_arrays": lambda: jnp.broadcast_arrays(x, y),
        "matmul": lambda: x @ y,
    }
