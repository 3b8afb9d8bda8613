"""Programs of tests/test_fidelity_r19_a.py (run 23000's s23013-128), shared with the JAX
recorder: each maker takes the ``jax`` and ``jax.numpy`` modules (JAX's or minijax's)."""
import numpy as np

# s23013-128's second input; the harness's weights for the (2, 1) output
ARGS = (np.array([[-1.0, 1.0, -1.0], [0.5, 4.5, 3.0]], np.float32),
        np.array([[np.nan], [0.5]], np.float32))
_W = np.linspace(0.5, 1.5, 2).reshape(2, 1).astype(np.float32)


def _case(jax, jnp):
    """The record's program under value_and_grad (logaddexp of prod with a NaN scalar)."""
    def f(x1, y):
        t3 = jnp.prod(x1 + x1, axis=1, keepdims=True)
        return jnp.sum(jnp.logaddexp(t3, float("nan")) * _W)
    return jax.value_and_grad(f)


def _array_operand(jax, jnp):
    """The same with logaddexp's second operand an argument (no scalar to replace inf in)."""
    def f(x1, y):
        t3 = jnp.prod(x1 + x1, axis=1, keepdims=True)
        return jnp.sum(jnp.logaddexp(t3, y) * _W)
    return jax.value_and_grad(f)


PROGRAMS = {"case": _case, "array_operand": _array_operand}
