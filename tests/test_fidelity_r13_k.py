"""A jit's transpose is traced at its residuals' own types (round 13, helper k:
tools/difftest/triage_16000_w.md W1, case s16018-178).

The JVP of a jit is a callee whose tangent invar has the primal's (weak) type; fed a strong
tangent, that tangent is a residual of the transpose. JAX 0.10.2's ``_pjit_transpose_fancy``
traces the transposed body at ``typeof(x)`` of every operand, so the strong residual keeps the
cotangent strong. Expected values were recorded from JAX 0.10.2 (/work/venv_jax) with the
expressions below (dtype float32 throughout; ``weak`` is ``.weak_type``).
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax


def _jvp_jit(f, tangent):
    return lambda x: jax.jvp(jax.jit(f), (x,), (tangent,))[1]


_SIN_STRONG = _jvp_jit(jnp.sin, np.float32(.7))

# name -> (thunk, JAX 0.10.2's weak_type, JAX 0.10.2's value)
CASES = {
    "grad_strong_tangent": (lambda: jax.grad(_SIN_STRONG)(1.0), False, -0.5890296697616577),
    "grad_digamma": (lambda: jax.grad(_jvp_jit(lax.digamma, np.float32(.7)))(1.0),
                     False, -1.6828806400299072),
    "grad_weak_tangent": (lambda: jax.grad(_jvp_jit(jnp.sin, 0.7))(1.0),
                          True, -0.5890296697616577),
    "jit_grad": (lambda: jax.jit(jax.grad(_SIN_STRONG))(1.0), False, -0.5890296697616577),
    "vmap_grad": (lambda: jax.vmap(jax.grad(_SIN_STRONG))(jnp.array([1.0, 2.0])),
                  False, [-0.5890296697616577, -0.6365081667900085]),
    "grad_rank1": (lambda: jax.grad(
        lambda x: _jvp_jit(jnp.sin, np.full((2,), .7, np.float32))(x).sum())(
            jnp.asarray([1.0, 2.0])),
        False, [-0.5890296697616577, -0.6365081667900085]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_transpose_residual_types(name):
    thunk, weak, value = CASES[name]
    r = thunk()
    assert (r.dtype, r.weak_type) == (np.float32, weak)
    np.testing.assert_allclose(np.asarray(r), value, rtol=1e-6)


def test_vjp_of_jvp_of_jit_stays_weak():
    # the output of the jit's JVP has the callee's weak type, and so does the cotangent
    f = _jvp_jit(lambda y: y * jnp.cos(y), np.float32(.5))
    y, vjp = jax.vjp(f, 2.0)
    ct = vjp(1.0)[0]
    assert (y.dtype, y.weak_type, ct.dtype, ct.weak_type) == (np.float32, True, np.float32, True)
    np.testing.assert_allclose([float(y), float(ct)], [-1.117370843887329, -0.4931505620479584],
                               rtol=1e-6)
