"""Cases of the 11000-seed oracle run (tools/difftest/triage_11000_a.md).

Expected values were printed by JAX 0.10.2 (/work/venv_jax) on CPU for the same inputs.
"""
import numpy as np

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_NAN = float("nan")


def _leaves(tree):
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def test_cond_branches_share_residual_slots_of_one_type():
    # s11020-242: JAX's cond partial evaluation gives the k-th residual of a type in every
    # branch one shared slot. Branch 0's float(d) (d = int8 0) and branch 1's y share an f32[]
    # slot, whose tangent is then nonzero (from y), so differentiating the gradient ct / float(d)
    # again meets an instantiated zero tangent: -ct * 0 / 0**2 is NaN. JAX 0.10.2 printed
    # ((nan, nan), (0, 0)) for both hessian forms; with branch 1 taken, ((0, 1), (1, 0)).
    d = jnp.asarray(np.int8(0))
    x, y = jnp.float32(0.5), jnp.float32(1.7)

    def f(i):
        return lambda x, y: lax.switch(i, [lambda x: x / d, lambda x: y * x], x)

    for h in (jax.hessian(f(0), (0, 1)), jax.jacfwd(jax.grad(f(0), (0, 1)), (0, 1))):
        np.testing.assert_array_equal(_leaves(h(x, y)), [_NAN, _NAN, 0.0, 0.0])
    np.testing.assert_array_equal(_leaves(jax.hessian(f(1), (0, 1))(x, y)), [0.0, 1.0, 1.0, 0.0])

    # residuals of different types share nothing: the zeros stay symbolic (JAX: all 0)
    def g(x, y):
        return lax.switch(0, [lambda x: x / d,
                              lambda x: (y * x.astype(jnp.float16)).astype(jnp.float32)], x)

    np.testing.assert_array_equal(_leaves(jax.hessian(g, (0, 1))(x, jnp.float16(1.7))),
                                  [0.0, 0.0, 0.0, 0.0])


def test_scalar_update_of_a_nan_constant_folds_as_in_jax():
    # s11029-276: std over an empty axis is a constant NaN (0/0). XLA:CPU computes exp of a
    # NaN constant inside a fused loop as garbage: JAX 0.10.2's own
    # jit(lambda v: jnp.exp(jnp.full((2,), jnp.nan) + v))(2.) returns it. JAX's program for
    # the case escapes because all of it is constant: the update 2 is a literal, and XLA folds
    # the scatter and the exp on the host. minijax passed the scalar 2 as an executable
    # argument, so the fused kernel ran and gave [1e-45, 1e-45]. Since de4b496 a jit bakes its
    # scalar constants as JAX's literals. JAX 0.10.2 printed [nan, nan] (eager too).
    x = jnp.zeros((2, 0), jnp.float32)

    def f(x):
        return jnp.exp(jnp.std(x, axis=1).at[1:].mul(2))

    for g in (f, jax.jit(f), jax.jit(jax.jit(f))):
        np.testing.assert_array_equal(np.asarray(g(x)), [_NAN, _NAN])
