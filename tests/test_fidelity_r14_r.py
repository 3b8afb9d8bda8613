"""Run 17000, helper R: weak types of checkpoint's eager transpose and of quantile's
cotangent. Expected values and types were printed by JAX 0.10.2
(tests/data/record_fidelity_r14_r.py)."""

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax, nn


def _check(x, value, weak):
    assert x.dtype == np.float32
    assert jax.core.get_aval(x).weak_type == weak
    np.testing.assert_allclose(np.asarray(x), value, rtol=1e-6)


_FUNS = {"elu_recip": lambda x: jnp.reciprocal(nn.elu(x)), "mul2": lambda x: x * 2.0,
         "lgamma": lax.lgamma}
_WRAPS = {"remat": jax.checkpoint, "remat_jit": lambda f: jax.checkpoint(jax.jit(f)),
          "remat_dots_jit": lambda f: jax.checkpoint(
              jax.jit(f), policy=jax.checkpoint_policies.checkpoint_dots)}


# s17031-125: eagerly, checkpoint's transposed body is traced with the body's output types
# for its cotangents (JAX's _transpose_jaxpr), so a nested jit's transpose, traced at a weak
# cotangent, gives a weak result even for a strong cotangent; op by op the value's type wins.
@pytest.mark.parametrize("fun,wrap,value,weak", [
    ("elu_recip", "remat", -0.3770540654659271, True),
    ("elu_recip", "remat_jit", -0.3770540654659271, True),
    ("elu_recip", "remat_dots_jit", -0.3770540654659271, True),
    ("mul2", "remat", 1.0, False),
    ("mul2", "remat_jit", 1.0, True),
    ("mul2", "remat_dots_jit", 1.0, True),
    ("lgamma", "remat", 5.297375679016113, False),
    ("lgamma", "remat_jit", 5.297375679016113, True),
])
def test_eager_checkpoint_transpose_types_cotangents_as_body_outputs(fun, wrap, value, weak):
    h = _WRAPS[wrap](_FUNS[fun])
    _check(jax.vjp(h, -1.095883846282959)[1](np.float32(0.5))[0], value, weak)


# s17000-187: quantile keeps a weak operand weak inside and makes its result strong at the
# end, as JAX's _quantile, so the cotangent of a Python float is strong.
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_grad_of_python_float_is_strong(method):
    _check(jax.grad(lambda x: jnp.quantile(x, 0.3, method=method))(1.5), 1.0, False)


def test_median_grad_and_value_types():
    _check(jax.grad(jnp.median)(1.0), 1.0, False)
    _check(jax.grad(jnp.nanmedian)(1.0), 1.0, False)
    _check(jax.jit(jax.grad(jnp.median))(1.0), 1.0, False)
    _check(jnp.median(1.0), 1.0, False)
    _check(jnp.quantile(3, 0.5), 3.0, False)
    _check(jnp.median(np.array([1.0, 4.0, 2.0], np.float32)), 2.0, False)
    v, (ga, gb) = jax.value_and_grad(
        lambda a, b: jnp.sum(jnp.median(b) * 0.5) + jnp.sum(a * 0), argnums=(0, 1))(
            np.zeros((2, 0), np.float32), 1.0)
    _check(v, 0.5, False)
    _check(gb, 0.5, False)
    assert ga.shape == (2, 0)
