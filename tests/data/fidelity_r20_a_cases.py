"""The cases of tests/test_fidelity_r20_a.py, shared with its JAX recorder."""
import numpy as np


def pinv_cases():
    """(name, matrix, hermitian): tall, rank-deficient, repeated singular values (the identity:
    the SVD's own derivative is undefined there), complex wide, Hermitian, float32."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 2))
    c = rng.standard_normal((2, 4)) + 1j * rng.standard_normal((2, 4))
    return [("tall", a, False), ("rank1", np.array([[1., 2.], [2., 4.]]), False),
            ("eye", np.eye(3), False), ("wide_complex", c, False),
            ("hermitian", np.array([[2., 1.], [1., 2.]]), True),
            ("tall_f32", a.astype(np.float32), False)]


def pinv_derivatives(jax, jnp, x, hermitian):
    """grad of a weighted |pinv| sum and the jvp along ones, as [re, im] nested lists."""
    x = jnp.asarray(x)
    weights = jnp.arange(1, x.size + 1).reshape(x.shape[::-1])
    loss = lambda x: jnp.sum(jnp.abs(jnp.linalg.pinv(x, hermitian=hermitian) * weights))
    grad = np.asarray(jax.grad(loss)(x))
    tangent = np.asarray(jax.jvp(lambda x: jnp.linalg.pinv(x, hermitian=hermitian), (x,),
                                 (jnp.ones_like(x),))[1])
    return {"grad": [grad.real.tolist(), grad.imag.tolist()], "dtype": str(grad.dtype),
            "jvp": [tangent.real.tolist(), tangent.imag.tolist()]}
