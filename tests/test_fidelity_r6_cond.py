"""Control flow under vmap and grad, against values and errors recorded from JAX 0.10.2."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax


def _switch_arctan2(r):
    index = (jnp.sum(r) > 10).astype(jnp.int32)
    return lax.switch(index, [lambda x: 1 - x, lambda x: jnp.arctan2(x, x)], r)


def test_batched_switch_untaken_branch_gives_no_nan_gradient():
    # s6008-53 / s6049-1: the arctan2 branch (NaN partial at 0) is taken by no example.
    # JAX 0.10.2: [[-1, -1], [-1, -1]].
    x = jnp.array([[.5, -0.], [.2, .3]])
    g = minijax.grad(lambda x: jnp.sum(minijax.vmap(_switch_arctan2)(x)))(x)
    np.testing.assert_array_equal(np.asarray(g), -np.ones((2, 2), np.float32))


def test_batched_cond_unbatched_operand_untaken_branch():
    # The operand is not mapped, the predicate is: JAX 0.10.2 gives [[1, 1], [1, 1]] (no
    # NaN from log(0) in the untaken branch).
    def f(y0):
        return minijax.vmap(lambda r: lax.cond(r > 0, lambda x: jnp.sum(jnp.log(x)),
                                               lambda x: jnp.sum(x), y0))(jnp.array([-1., -2.]))

    j = minijax.jacrev(f)(jnp.array([0., 2.]))
    np.testing.assert_array_equal(np.asarray(j), np.ones((2, 2), np.float32))


def test_batched_switch_mixed_branches_value_and_grad():
    # s6034-224 reduced: per example the index picks x % x, exp or x * 2; x % x at the 0
    # entry of row 0 (which takes exp) has a NaN partial. JAX 0.10.2 (value, gradient):
    def f(x):
        i = jnp.clip(jnp.floor(jnp.sum(x)), 0, 2).astype(jnp.int32)
        return lax.switch(i, [lambda v: v % v, lambda v: jnp.exp(v), lambda v: v * 2], x)

    x = jnp.array([[1., 0.], [1., 1.], [-1., -1.]])
    v, g = minijax.value_and_grad(lambda x: jnp.sum(minijax.vmap(f)(x)))(x)
    np.testing.assert_allclose(float(v), 7.7182817, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(g), [[2.7182817, 1.], [2., 2.], [0., 0.]],
                               rtol=1e-6)
