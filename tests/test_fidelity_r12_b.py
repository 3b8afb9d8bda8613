"""Cases of the 11000-seed oracle run (tools/difftest/triage_11000_b.md).

Expected values were printed by JAX 0.10.2 (/work/venv_jax) on CPU for the same inputs:
tests/data/record_fidelity_r12_b.py. They are the float32 rounding residue of derivatives of
``x / x`` (exactly 0 or a tangent-only term), so they only match where minijax hands XLA the
same programs as JAX: op by op, or one program with the same constants.
"""
import numpy as np

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

X = np.float32(0.005192937329411507)
T = np.float32(0.7)


def _f(x):
    return lax.sin(x) / lax.sin(x)  # `/` is jnp.true_divide, a jit with inline=True


def _third(x, t):
    return jax.jvp(jax.grad(jax.grad(_f)), (x,), (t,))[1]


def test_inline_jit_stays_inline_through_partial_eval_and_transpose():
    # s11016-258: the known part and the transpose of an inline=True jit are inline=True jits
    # in JAX (pjit.py passes `inline` on), so a second linearization inlines their tangents
    # again and an eager jvp(grad(grad)) runs the transposes op by op (JAX 0.10.2: -2.0).
    # minijax's known part lost the flag: its transpose ran as one program (XLA: -4.0).
    assert float(_third(jnp.asarray(X), T)) == -2.0
    x0 = np.array([[0.005192937329411507, 0.259591668844223, 0.6539704203605652]], np.float32)
    w = np.linspace(0.5, 1.5, 6).reshape(1, 3, 2).astype(np.float32)
    w3 = np.linspace(0.5, 1.5, 3).reshape(1, 3).astype(np.float32)

    def inner(x):
        t2 = jnp.stack([jnp.cumprod(x, axis=1)] * 2, axis=-1)
        return jnp.sum(t2 / t2 * w) + jnp.sum(t2 * w)

    outer = jax.grad(lambda x: jnp.sum(jax.grad(inner)(x) * w3))
    got = jax.jvp(outer, (x0,), (w3 * np.float32(0.7),))[1]
    np.testing.assert_allclose(np.asarray(got), [[5.661229133605957, 2.9429285526275635,
                                                  1.9682199954986572]], rtol=1e-6)


def test_jit_bakes_closed_over_scalar_arrays_into_the_program():
    # A scalar Array closed over by a jitted function is a literal in JAX's jaxpr, a constant
    # XLA folds (0.7 * cos(x) ...); passed as an argument the same program rounds otherwise.
    # JAX 0.10.2: -2.0 with the closed-over tangent, -4.0 with the tangent an argument.
    assert float(jax.jit(lambda x: _third(x, jnp.float32(0.7)))(X)) == -2.0
    assert float(jax.jit(_third)(X, T)) == -4.0

    def jvp_jvp_grad(x):
        t = jnp.float32(0.7)
        return jax.jvp(lambda y: jax.jvp(jax.grad(_f), (y,), (t,))[1], (x,), (t,))[1]

    def jvp_jvp_jvp(x):
        t = jnp.float32(0.7)
        return jax.jvp(lambda y: jax.jvp(lambda z: jax.jvp(_f, (z,), (t,))[1], (y,), (t,))[1],
                       (x,), (t,))[1]

    assert float(jax.jit(jvp_jvp_grad)(X)) == 0.0
    assert float(jax.jit(jvp_jvp_jvp)(X)) == -1.0
