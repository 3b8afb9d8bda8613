"""A jit's vjp traces each cotangent at its own weak type, and grad's seed under a trace is
weak as the output (JAX's `full_like(ans, 1)`), staged as a literal. Expected values, dtypes
and weak types are JAX 0.10.2's (tests/data/record_fidelity_r14_t4.py)."""

import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = json.loads(pathlib.Path(__file__).with_name("data").joinpath(
    "fidelity_r14_t4_jax.json").read_text())


@jax.custom_vjp
def _sin_cv(x):
    return jnp.sin(x)


# the bwd does arithmetic on the cotangent with a Python scalar: the seed must be an array
_sin_cv.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, g: (g * 2 * r,))

CASES = {
    # N4: s13040-136, s13044-66 (a strong cotangent of a jit's weak output stays strong)
    "vjp_jit_sin": lambda: jax.vjp(jax.jit(jnp.sin), 0.7)[1](np.float32(1))[0],
    "vjp_jit_softplus": lambda: jax.vjp(jax.jit(jax.nn.softplus), 0.7)[1](np.float32(1))[0],
    "grad_vjp_jit_sin": lambda: jax.grad(
        lambda x: jax.vjp(jax.jit(jnp.sin), x)[1](np.float32(1))[0])(0.7),
    # R6: s14037-81, s14059-415 (grad of grad at a Python float is weak)
    "grad_grad_exp": lambda: jax.grad(jax.grad(lax.exp))(-0.5),
    "grad3_exp2": lambda: jax.grad(jax.grad(jax.grad(jnp.exp2)))(-5.0),
    "jacfwd_grad_jit_sin": lambda: jax.jacfwd(jax.grad(jax.jit(jnp.sin)))(1.0),
    "jit_grad_identity": lambda: jax.jit(jax.grad(lambda x: x))(1.0),
    "jit_grad_custom_vjp": lambda: jax.jit(jax.grad(_sin_cv))(0.5),
    "grad_grad_custom_vjp": lambda: jax.grad(jax.grad(_sin_cv))(0.5),
    "vmap_grad_identity": lambda: jax.vmap(jax.grad(lambda x: x))(jnp.full(2, 0.5))[0],
    # R6: jacrev's basis is split and cast to its output's weak type (JAX's
    # _unravel_array_into_pytree), so the outer cotangent stays weak
    "vag_jacrev_exp": lambda: jax.value_and_grad(jax.jacrev(lax.exp))(-0.5)[1],
    "grad_jacrev_exp": lambda: jax.grad(lambda x: jax.jacrev(lax.exp)(x))(-0.5),
    "grad_hessian_exp2": lambda: jax.grad(jax.hessian(jnp.exp2))(-5.0),
}

JAXPRS = {
    "grad_identity": lambda: jax.make_jaxpr(jax.grad(lambda x: x))(1.0),
    "grad_grad_sin": lambda: jax.make_jaxpr(jax.grad(jax.grad(jnp.sin)))(1.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_dtype_weak_type(name):
    value, dtype, weak = _DATA["cases"][name]
    y = CASES[name]()
    assert (str(y.dtype), bool(y.weak_type)) == (dtype, weak)
    np.testing.assert_allclose(float(y), value, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxpr_text(name):
    assert str(JAXPRS[name]()) == _DATA["jaxprs"][name]
