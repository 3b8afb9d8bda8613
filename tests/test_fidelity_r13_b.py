"""Weak types of derivative-rule constants and of the real/imag transposes (round 13, helper b:
tools/difftest/triage_15000_v.md V3, V4; triage_14000_r.md s13044-66).

JAX's derivative rules write their constants with ``lax._const(x, v)``: a weak Python scalar
only when ``x`` is a weakly typed scalar, else a strong literal of x's dtype, so the derivative
at a weak ``f32[1]`` primal is strong. ``real`` / ``imag`` transpose with a strong NumPy zero.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r13_b.py.
"""
import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r13_b_jax.json").read_text())

UNARY = {
    "sqrt": lax.sqrt, "rsqrt": lax.rsqrt, "cbrt": lax.cbrt, "square": lax.square,
    "integer_pow2": lambda x: lax.integer_pow(x, 2),
    "integer_pow3": lambda x: lax.integer_pow(x, 3), "tan": lax.tan, "asin": lax.asin,
    "acos": lax.acos, "atan": lax.atan, "erf": lax.erf, "erfc": lax.erfc,
    "erf_inv": lax.erf_inv, "digamma": lax.digamma, "polygamma": lambda x: lax.polygamma(1.0, x),
    "polygamma_m1": lambda x: lax.polygamma(jnp.reshape(1.0, (1,)), x), "exp2": lax.exp2,
    "tanh": lax.tanh, "logistic": lax.logistic, "expm1": lax.expm1, "log1p": lax.log1p,
    "asinh": lax.asinh, "acosh": lax.acosh, "atanh": lax.atanh,
}
_POINT = {"acosh": 1.3}


def _primal(kind, v):
    return {"scalar": v, "rank1": jnp.reshape(v, (1,)), "strong": np.float32(v)}[kind]


def _seed(kind, shape):
    return np.ones(shape, np.float32) if kind == "strong" else jnp.reshape(1.0, shape)


def _check(got, expected):
    got = jnp.asarray(got)
    assert (str(got.dtype), bool(got.weak_type)) == (expected["dtype"], expected["weak"])
    v = np.asarray(got)
    want = expected["value"]
    if v.dtype.kind == "c":
        v = [[z.real, z.imag] for z in v.ravel().tolist()]
    np.testing.assert_allclose(np.asarray(v, np.float64), np.asarray(want), rtol=2e-6)


@pytest.mark.parametrize("kind", ["scalar", "rank1", "strong"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_derivative_constants_are_typed_as_jax_const(name, kind):
    # s15020-344 (sqrt), s13044-66 (erf): at a weak f32[1] primal JAX's derivative is strong
    f, expected = UNARY[name], _JAX["unary"][name][kind]
    x = _primal(kind, _POINT.get(name, 0.3))
    ct = _seed(kind, np.shape(f(x)))
    _check(jax.vjp(f, x)[1](ct)[0], expected["vjp"])
    _check(jax.jvp(f, (x,), (_seed(kind, np.shape(x)),))[1], expected["jvp"])
    _check(jax.jit(lambda x, t: jax.vjp(f, x)[1](t)[0])(x, ct), expected["jit_vjp"])


_S = {"a": np.float32([1.5]), "b": np.float32([2.0])}
SPECIAL = {
    "igamma_x": (lambda x: lax.igamma(_S["a"], x), 0.7),
    "igamma_a": (lambda a: lax.igamma(a, np.float32([0.7])), 1.5),
    "igammac_x": (lambda x: lax.igammac(_S["a"], x), 0.7),
    "igammac_a": (lambda a: lax.igammac(a, np.float32([0.7])), 1.5),
    "betainc_x": (lambda x: lax.betainc(_S["a"], _S["b"], x), 0.3),
}


@pytest.mark.parametrize("kind", ["scalar", "rank1"])
@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_rules_multiply_the_tangent_with_jnp_promotion(name, kind):
    # JAX's igamma/igammac/betainc rules write `g * ...`: a weak tangent meeting the strong
    # factor is converted, so the cotangent (its transpose) is weak and the tangent strong
    (f, v), expected = SPECIAL[name], _JAX["special"][name][kind]
    x = _primal(kind, v)
    ct = _seed(kind, np.shape(f(x)))
    _check(jax.vjp(f, x)[1](ct)[0], expected["vjp"])
    _check(jax.jvp(f, (x,), (_seed(kind, np.shape(x)),))[1], expected["jvp"])
    _check(jax.jit(lambda x, t: jax.vjp(f, x)[1](t)[0])(x, ct), expected["jit_vjp"])


@pytest.mark.parametrize("kind", ["scalar", "rank1"])
@pytest.mark.parametrize("name,f", [("real", lax.real), ("imag", lax.imag)])
def test_real_imag_transposes_are_strong(name, f, kind):
    # s15033-77: JAX's transposes are complex(t, np.zeros((), t.dtype)) and
    # complex(np.zeros(...), neg(t)): the NumPy zero makes the complex cotangent strong
    z = complex(1.2, -0.7) if kind == "scalar" else jnp.reshape(complex(1.2, -0.7), (1,))
    _check(jax.vjp(f, z)[1](_seed(kind, np.shape(z)))[0], _JAX["parts"][name][kind])


_W = np.linspace(0.5, 1.5, 2).astype(np.float32)


def test_jit_value_and_grad_of_erf_of_repeated_scalar():
    # s13044-66: erf's JVP constant is strong for the rank-1 repeat of a weak scalar
    f = lambda x: jnp.sum(lax.erf(jnp.repeat(x, 2)) * _W)  # noqa: E731
    value, grad = jax.jit(jax.value_and_grad(f))(0.3)
    expected_value, expected_grad = _JAX["programs"]["erf_repeat"]
    _check(value, expected_value)
    _check(grad, expected_grad)


def test_grad_of_hypot_of_reshaped_scalar():
    # s15020-344: hypot's sqrt at a weak f32[1] gives a strong gradient
    f = lambda x: jnp.sum(jnp.hypot(0.5, jnp.reshape(x, (-1,))))  # noqa: E731
    _check(jax.grad(f)(-1.39), _JAX["programs"]["hypot_reshaped"])
