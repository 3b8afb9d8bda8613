"""Weak types through cond/switch's partial evaluation and transpose (round 13, helper h:
tools/difftest/triage_16000_w.md W2, cases s16014-252 and s16029-254).

JAX 0.10.2 transposes each branch at the actual cotangents' and residuals' types
(``_cond_transpose_fancy``), and splits each branch at its own input types
(``partial_eval_jaxpr_nounits``), so a strong cotangent of a weak branch output gives a strong
input cotangent, while a strong tangent fed to a weak branch input leaves weak residuals.
The expected (value, weak_type) pairs, all float32, were printed by JAX 0.10.2 running the same
programs (jax.* in place of minijax.*).
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax


def _cond(x):
    return lax.cond(x > 0, jnp.sin, jnp.cos, x)


def _cond2(x, y):
    return lax.cond(x > 0, lambda a, b: a * b, lambda a, b: jnp.sin(a) + b, x, y)


def _switch(i, x):
    return lax.switch(i, [jnp.sin, lambda x: x * 3, jnp.exp], x)


def _jvp_of_cond(x):
    return jax.jvp(_cond, (x,), (np.float32(.7),))[1]


def _jvp_of_cond2(x):
    return jax.jvp(lambda y: _cond2(y, y), (x,), (np.float32(.5),))[1]


CASES = {
    # s16014-252, reduced: the strong cotangent makes the input cotangent strong
    "vjp_cond": (lambda: jax.vjp(_cond, -0.2)[1](np.float32(1)), [(0.19866933, False)]),
    "jit_vjp_cond": (lambda: jax.jit(lambda x, c: jax.vjp(_cond, x)[1](c))(-0.2, np.float32(1)),
                     [(0.19866933, False)]),
    "vjp_cond_square": (
        lambda: jax.vjp(lambda x: lax.cond(x > 0, lambda x: x * 2, jnp.square, x), -0.2)[1](
            np.float32(1)), [(-0.4, False)]),
    # the output type is branch 0's, whose zero cotangent is weak: stays weak
    "vjp_switch_pow0": (
        lambda: jax.vjp(lambda x: lax.switch(1, [lambda x: x ** 0, jnp.sin], x), -0.2)[1](
            np.float32(1)), [(0.9800666, True)]),
    # s16029-254's shape: switch over three branches
    "vjp_switch": (lambda: jax.vjp(lambda x: _switch(2, x), 0.3)[1](np.float32(1)),
                   [(1.3498588, False)]),
    "vjp_cond_two_args": (lambda: jax.vjp(_cond2, 1.0, 2.0)[1](np.float32(1)),
                          [(2.0, False), (1.0, False)]),
    "grad_mixed": (lambda: jax.grad(_cond2, (0, 1))(1.0, np.float32(2)),
                   [(2.0, True), (1.0, False)]),
    "jit_grad_weak": (lambda: jax.jit(jax.grad(_cond2, (0, 1)))(-1.0, 2.0),
                      [(0.5403023, True), (1.0, True)]),
    # the strong tangent is a residual typed at the (weak) branch input: the result is weak
    "grad_jvp_cond": (lambda: jax.grad(_jvp_of_cond)(1.0), [(-0.58902967, True)]),
    "jit_grad_jvp_cond": (lambda: jax.jit(jax.grad(_jvp_of_cond))(1.0), [(-0.58902967, True)]),
    "jit_grad_jvp_cond2": (lambda: jax.jit(jax.grad(_jvp_of_cond2))(-0.7), [(0.3221088, True)]),
    "linearize": (lambda: jax.linearize(lambda x: _cond2(x, 2.0), 1.0)[1](np.float32(1)),
                  [(2.0, True)]),
    "vmap_grad_switch": (
        lambda: jax.vmap(jax.grad(_switch, 1))(jnp.array([0, 1, 2]), jnp.array([.5, .5, .5])),
        [([0.87758255, 3.0, 1.6487213], False)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cond_transpose_types_as_jax(name):
    fn, expected = CASES[name]
    leaves = jax.tree_util.tree_leaves(fn())
    assert len(leaves) == len(expected)
    for got, (value, weak) in zip(leaves, expected):
        assert got.dtype == np.float32
        assert got.weak_type is weak, name
        np.testing.assert_allclose(np.asarray(got), value, rtol=1e-5)
