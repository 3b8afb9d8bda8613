"""Value/NaN cases of the 0.10.2-oracle run (FINDINGS 118-119): where minijax already agrees
with JAX 0.10.2 on the operation that the fuzzed case differs on, and where JAX is wrong.

Expected values were printed by JAX 0.10.2 (/work/venv_jax) on CPU for the same inputs; the
exact values come from NumPy float64 / the definition of the derivative.
"""
import ml_dtypes
import numpy as np

import minijax as jax
import minijax.numpy as jnp

_W4 = np.linspace(0.5, 1.5, 4).astype(ml_dtypes.bfloat16)


def test_bf16_sum_rounding_follows_xla_fusion():
    # FINDINGS 119 (s5023-179): eagerly the bf16 products are rounded before the f32
    # accumulation (4.53125); under jit XLA fuses the multiply into the reduction and keeps
    # the products unrounded (4.5625). JAX 0.10.2 prints the same two values.
    w = jnp.asarray(_W4)
    assert float(jnp.sum(w * _W4)) == 4.53125
    assert float(jax.jit(lambda a: jnp.sum(a * _W4))(w)) == 4.5625


def test_scatter_max_clip_mode_gradient_is_zero_where_update_wins():
    # FINDINGS 118 (s5047-154): rows -3 and 2 clip to rows 0 and 1, where 2.5 wins except over
    # the inf; those outputs are the constant 2.5, so their derivative is 0 (JAX 0.10.2
    # returns the cotangent there: its scatter-max JVP gathers and scatter-adds its
    # correction in the default fill/drop mode, which drops the out-of-range indices).
    x = jnp.asarray(np.array([[-0.43, -0.98, np.inf], [0.72, 0.25, 0.13]], np.float32))
    idx = jnp.asarray(np.array([-3, 2], np.int8))
    f = lambda a: a.at[idx].max(2.5, mode='clip')
    out, pullback = jax.vjp(f, x)
    np.testing.assert_array_equal(np.asarray(out), [[2.5, 2.5, np.inf], [2.5, 2.5, 2.5]])
    ct = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    (g,) = pullback(jnp.asarray(ct))
    np.testing.assert_array_equal(np.asarray(g), [[0, 0, 3], [0, 0, 0]])
    h = np.float32(1e-3)
    finite = np.isfinite(np.asarray(x))
    fd = (np.asarray(f(x + h))[finite] - np.asarray(f(x - h))[finite]) / (2 * h)
    np.testing.assert_array_equal(fd, 0)


def test_integer_pow_zero_tangent_is_materialized():
    # FINDINGS 129 (s5053-45): the JVP of x**0 is an array of zeros (JAX's `_zeros(g)`), so
    # inv's rule still runs on it: solve(ones, 0) is NaN for the singular all-ones matrix.
    # JAX 0.10.2: all NaN; minijax's symbolic zero gave 0.
    x = jnp.asarray(np.array([[1., 2.], [3., 4.]], np.float32))
    jac = jax.jacfwd(lambda a: jnp.linalg.inv(a ** 0))(x)
    assert np.isnan(np.asarray(jac)).all()
    np.testing.assert_array_equal(np.asarray(jax.grad(lambda a: jnp.sum(a ** 0))(x)), 0)
    primal, tangent = jax.jvp(lambda a: jax.lax.integer_pow(a, 0), (2.0,), (1.0,))
    assert float(primal) == 1.0 and float(tangent) == 0.0 and tangent.weak_type
