"""lax ops whose operands must share one dtype, each met with a Python int, a Python float, a
NumPy scalar, a weakly typed array and an array of another dtype, written once against a
``jax``-like module: tests/data/record_same_dtypes.py runs them on real JAX and
tests/lax/test_same_dtypes.py on minijax, and the outcomes must agree."""

import numpy as np

# op -> the dtypes of the array operand it meets the others with
FLOAT_OPS = ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter",
             "eq", "ne", "lt", "le", "gt", "ge"]
INT_OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right_logical",
           "shift_right_arithmetic"]


def _others(jnp):
    return {
        "int": 2, "float": 1.5, "complex": 1j, "True": True,
        "np.float32": np.float32(1.5), "np.int32": np.int32(2), "np.float16": np.float16(1.5),
        "weak_f32": jnp.asarray(1.5), "weak_i32": jnp.asarray(2),
        "weak_f32_product": jnp.float32(1) * 2,
        "f32[2]": jnp.ones(2, jnp.float32), "f16[2]": jnp.ones(2, jnp.float16),
        "i8[2]": jnp.ones(2, jnp.int8), "i32[2]": jnp.ones(2, jnp.int32),
    }


def cases(jax):
    """name -> thunk, each one lax call."""
    jnp, lax = jax.numpy, jax.lax
    out = {}
    others = _others(jnp)
    bases = {"f16": jnp.full(2, 1.25, jnp.float16), "f32": jnp.full(2, 1.25, jnp.float32),
             "i8": jnp.full(2, 1, jnp.int8), "i32": jnp.full(2, 1, jnp.int32),
             "bool": jnp.ones(2, bool), "c64": jnp.ones(2, jnp.complex64)}
    for op in FLOAT_OPS + INT_OPS:
        f = getattr(lax, op)
        for bname in (("f16", "f32", "bool") if op in FLOAT_OPS else ("i8", "i32", "bool")):
            x = bases[bname]
            for oname, y in others.items():
                out[f"{op}({bname}, {oname})"] = (lambda f=f, x=x, y=y: f(x, y))
            out[f"{op}(float, {bname})"] = (lambda f=f, x=x: f(-1.5, x))
            out[f"{op}(int, {bname})"] = (lambda f=f, x=x: f(2, x))
    for op in ("add", "max", "rem", "eq"):
        f = getattr(lax, op)
        out[f"{op}(c64, complex)"] = lambda f=f: f(bases["c64"], 1j)
        out[f"{op}(c64, float)"] = lambda f=f: f(bases["c64"], 1.0)
        out[f"{op}(int, float)"] = lambda f=f: f(1, 2.0)
        out[f"{op}(int, int)"] = lambda f=f: f(1, 2)
        out[f"{op}(float, float)"] = lambda f=f: f(1.0, 2.0)
        out[f"{op}(np.float16, float)"] = lambda f=f: f(np.float16(1), 2.0)
    out["add(i32, 2**40)"] = lambda: lax.add(bases["i32"], 2**40)
    f16, f32, i8 = bases["f16"], bases["f32"], bases["i8"]
    out["clamp(float, f16, float)"] = lambda: lax.clamp(0.0, f16, 1.0)
    out["clamp(float, f32, float)"] = lambda: lax.clamp(0.0, f32, 1.0)
    out["clamp(int, f32, int)"] = lambda: lax.clamp(0, f32, 1)
    out["clamp(int, i8, int)"] = lambda: lax.clamp(0, i8, 1)
    out["select_n(bool, f16, f32[2])"] = lambda: lax.select_n(True, f16, others["f32[2]"])
    out["select_n(bool, f32, float)"] = lambda: lax.select_n(True, f32, 2.0)
    out["pad(f16, float)"] = lambda: lax.pad(f16, 0.0, [(1, 1, 0)])
    out["pad(f32, int)"] = lambda: lax.pad(f32, 0, [(1, 1, 0)])
    out["pad(f32, float)"] = lambda: lax.pad(f32, 0.0, [(1, 1, 0)])
    out["complex(f32, float)"] = lambda: lax.complex(f32, 1.0)
    out["complex(f32, int)"] = lambda: lax.complex(f32, 1)
    out["igamma(f16, float)"] = lambda: lax.igamma(f16, 1.0)
    out["igamma(f32, float)"] = lambda: lax.igamma(f32, 1.0)
    out["zeta(f16, float)"] = lambda: lax.zeta(f16, 1.0)
    out["polygamma(int, f32)"] = lambda: lax.polygamma(1, f32)
    out["polygamma(float, f32)"] = lambda: lax.polygamma(1.0, f32)
    out["pow(f16, i8[2])"] = lambda: lax.pow(f16, others["i8[2]"])
    out["jit add(f16, float)"] = lambda: jax.jit(lambda x: lax.add(x, 1.5))(f16)
    out["jit max(f32, float)"] = lambda: jax.jit(lambda x: lax.max(x, 1.5))(f32)
    return out


def x64_cases(jax):
    """Cases run with jax_enable_x64: a Python float is float64 there, an int int64."""
    jnp, lax = jax.numpy, jax.lax
    return {
        "add(f32, float)": lambda: lax.add(jnp.ones(2, jnp.float32), 2.0),
        "add(f64, float)": lambda: lax.add(jnp.ones(2, jnp.float64), 2.0),
        "add(i64, int)": lambda: lax.add(jnp.ones(2, jnp.int64), 2),
        "add(i32, int)": lambda: lax.add(jnp.ones(2, jnp.int32), 2),
        "add(int, float)": lambda: lax.add(1, 2.0),
        "pow(f32, int)": lambda: lax.pow(jnp.ones(2, jnp.float32), 2),
    }


def internal_cases(jax):
    """Functions built from lax ops with constants (derivative rules, special functions, nn,
    jnp) on half-precision, float64 and integer operands, where every constant must take the
    operand's dtype."""
    jnp, lax, nn = jax.numpy, jax.lax, jax.nn
    h = jnp.array([-1.5, 0.25, 2.0], jnp.float16)
    b = jnp.array([-1.5, 0.25, 2.0], jnp.bfloat16)
    pos = jnp.array([0.5, 1.25, 3.0], jnp.float16)
    grad = lambda f, x: jax.grad(lambda x: f(x).astype(jnp.float32).sum())(x)  # noqa: E731
    return {
        "nn.celu(f16, 2.0)": lambda: nn.celu(h, 2.0),
        "nn.selu(bf16)": lambda: nn.selu(b),
        "nn.gelu(f16)": lambda: nn.gelu(h),
        "nn.gelu(bf16, approximate=False)": lambda: nn.gelu(b, approximate=False),
        "nn.soft_sign(f16)": lambda: nn.soft_sign(h),
        "grad tanh f16": lambda: grad(jnp.tanh, h),
        "grad sqrt bf16": lambda: grad(jnp.sqrt, pos.astype(jnp.bfloat16)),
        "grad arcsinh f16": lambda: grad(jnp.arcsinh, h),
        "grad erf bf16": lambda: grad(lax.erf, b),
        "grad abs f16": lambda: grad(jnp.abs, h),
        "grad square f16": lambda: grad(jnp.square, h),
        "grad x**3 f16": lambda: grad(lambda x: x ** 3, h),
        "grad maximum f16": lambda: grad(lambda x: jnp.maximum(x, x[::-1]), h),
        "grad cbrt f16": lambda: grad(jnp.cbrt, pos),
        "grad digamma f16": lambda: grad(lax.digamma, pos),
        "lax.igamma f16": lambda: lax.igamma(pos, pos),
        "lax.igammac bf16": lambda: lax.igammac(pos.astype(jnp.bfloat16), pos.astype(jnp.bfloat16)),
        "lax.betainc f16": lambda: lax.betainc(pos, pos, pos / 4),
        "lax.bessel_i0e f16": lambda: lax.bessel_i0e(h),
        "jnp.linspace f16": lambda: jnp.linspace(0, 1, 5, dtype=jnp.float16),
        "jnp.eye int8 k=1": lambda: jnp.eye(3, k=1, dtype=jnp.int8),
        "jnp.mean f16": lambda: jnp.mean(h),
        "jnp.var f16 ddof=1": lambda: jnp.var(h, ddof=1),
        "jnp.hypot f16": lambda: jnp.hypot(h, h),
        "jnp.deg2rad bf16": lambda: jnp.deg2rad(b),
        "jnp.floor_divide int8": lambda: jnp.floor_divide(jnp.array([-7, 7], jnp.int8),
                                                          jnp.array([2, -2], jnp.int8)),
        "jnp.power int8": lambda: jnp.power(jnp.array([2, 3], jnp.int8), jnp.int8(3)),
        "jnp.signbit bf16": lambda: jnp.signbit(b),
        "jnp.cumsum grad f16": lambda: grad(lambda x: jnp.cumsum(x), h),
        "jnp.prod f16 odd": lambda: jnp.prod(h),
        "slice transpose f16": lambda: grad(lambda x: x[1:], h),
        "logaddexp.accumulate-like cumlogsumexp f16": lambda: grad(
            lambda x: lax.cumlogsumexp(x), h),
    }
