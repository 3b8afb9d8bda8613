"""Round-9 fidelity fixes, helper C (the oracle run of seeds 9000-9059 against JAX 0.10.2).

Every expected value or error was recorded from real JAX 0.10.2 (/work/venv_jax) running the
same program; each block names the case it came from.
"""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

_FWD_ERROR = r"^can't apply forward-mode autodiff \(jvp\) to a custom_vjp function\."


@minijax.custom_vjp
def _cv(x):
    return x


_cv.defvjp(lambda x: (x, None), lambda _, g: (3.0 * g,))


# --- a plain jvp's custom_lin under an outer linearization (s9000-198, s9033-261, s9048-196):
# JAX's JVPTrace binds a custom_vjp's tangent (custom_lin) on its parent, and a linearization
# below (grad, linearize, vjp) passes it on when its operands are known (a constant tangent), so
# it runs and raises. Only a linearization's own custom_lin is staged on known operands.

_X = jnp.array([1.5, -2.0])
_T = np.full(2, 0.7, np.float32)


def _jvp_sum(f):
    return lambda x: sum(o.sum() for o in minijax.jvp(f, (x,), (_T,)))


def _switch(x):
    return lax.cond(x[0] > 0, _cv, jnp.sin, x)


@pytest.mark.parametrize("program", [
    lambda: minijax.grad(_jvp_sum(_cv))(_X),
    lambda: minijax.grad(lambda x: minijax.jvp(_cv, (x,), (_T,))[1].sum())(_X),
    lambda: minijax.linearize(lambda x: minijax.jvp(_cv, (x,), (_T,)), _X)[1](_X),
    lambda: minijax.vjp(lambda x: minijax.jvp(_cv, (x,), (_T,)), _X)[1]((_X, _X)),
    lambda: minijax.grad(_jvp_sum(_switch))(_X),
    lambda: minijax.grad(_jvp_sum(minijax.jit(_cv)))(_X),
    lambda: minijax.grad(_jvp_sum(minijax.checkpoint(_cv)))(_X),
    lambda: minijax.grad(_jvp_sum(
        lambda x: lax.scan(lambda c, _: (_cv(c), None), x, None, length=2)[0]))(_X),
    lambda: minijax.grad(lambda x: (minijax.checkpoint(
        lambda x: _cv(lax.integer_pow(x, 0)))(x) * x).sum())(_X),
])
def test_a_jvps_custom_vjp_tangent_under_a_linearization_raises(program):
    with pytest.raises(TypeError, match=_FWD_ERROR):
        program()


def test_a_linearizations_own_custom_vjp_tangent_still_computes():
    # JAX 0.10.2: [1, 1] for each (jit: the custom_lin is staged and pruned as unused)
    np.testing.assert_array_equal(minijax.jit(minijax.grad(_jvp_sum(_cv)))(_X), [1.0, 1.0])
    np.testing.assert_array_equal(
        minijax.jit(minijax.grad(lambda x: minijax.jvp(_switch, (x,), (_T,))[1].sum()))(_X),
        [0.0, 0.0])
    g = minijax.grad(lambda x: lax.scan(lambda c, _: (_cv(lax.integer_pow(c, 0)) * c, None),
                                        x, None, length=2)[0].sum())(_X)
    np.testing.assert_array_equal(g, [1.0, 1.0])
    g = minijax.grad(lambda x: lax.cond(True, lambda x: (_cv(lax.integer_pow(x, 0)) * x).sum(),
                                        lambda x: x.sum(), x))(_X)
    np.testing.assert_array_equal(g, [1.0, 1.0])
    np.testing.assert_array_equal(minijax.jit(lambda x: minijax.jvp(_cv, (x,), (_T,))[0])(_X),
                                  [1.5, -2.0])
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'custom_lin'"):
        minijax.grad(lambda x: minijax.jvp(_cv, (x,), (x,))[1].sum())(_X)


def test_a_jit_bodys_cached_jvp_keeps_its_context():
    # the jit's JVP is cached: a plain jvp's body must not be reused inside a linearization
    g = minijax.jit(lambda x: (_cv(lax.integer_pow(x, 0)) * x).sum())
    with pytest.raises(TypeError, match=_FWD_ERROR):
        minijax.jvp(g, (_X,), (_X,))
    np.testing.assert_array_equal(minijax.grad(g)(_X), [1.0, 1.0])  # JAX 0.10.2
    with pytest.raises(TypeError, match=_FWD_ERROR):
        minijax.grad(lambda x: minijax.jvp(g, (x,), (np.ones(2, np.float32),))[1])(_X)


# --- vmap of a lax binary op with an unbatched operand of a lower nonzero rank, over an empty
# batch (s9056-45): JAX's broadcast batcher does not pad an unbatched operand, so lax refuses
# the ranks whatever the batch size; a batched lower-rank operand is padded and computes.

@pytest.mark.parametrize("op", [lax.max, lax.add, lax.sub])
def test_vmap_over_an_empty_batch_refuses_an_unbatched_lower_rank_operand(op):
    with pytest.raises(TypeError, match="rank|number of dimensions"):
        minijax.vmap(op, (0, None))(jnp.zeros((0, 3, 1)), jnp.ones(1))
    with pytest.raises(TypeError, match="rank|number of dimensions"):
        minijax.grad(lambda a, b: minijax.vmap(op, (0, None))(a, b).sum(), (0, 1))(
            jnp.zeros((0, 3, 1)), jnp.ones(1))
    out = minijax.vmap(op, (0, 0))(jnp.zeros((0, 3, 1)), jnp.ones((0, 1)))
    assert out.shape == (0, 3, 1) and out.dtype == jnp.float32
