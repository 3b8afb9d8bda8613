"""Cases of the 10000-seed oracle run (helper F's share, triage_10000_f.md).

Expected values were printed by JAX 0.10.2 (/work/venv_jax) on CPU for the same inputs.
"""
import numpy as np

import minijax as jax
import minijax.numpy as jnp

_INF = float("inf")


def test_complex_log2_divides_each_part_by_real_ln2():
    # s10035-142: JAX's log2 of a complex value scales the real and imaginary parts of log(z)
    # by the real ln 2; a complex divisor log(2+0j) made log2(-inf+0j)'s imaginary part NaN.
    z = jnp.asarray(np.array([complex(-_INF, 0.0), -1 + 0j, complex(_INF, -_INF), 2 + 2j],
                             np.complex64))
    expected = np.array([complex(_INF, 4.53236), 4.53236j, complex(_INF, -1.13309),
                         1.5 + 1.13309j], np.complex64)
    for got in (jnp.log2(z), jax.jit(jnp.log2)(z),
                jax.vmap(jax.vmap(jnp.log2))(z.reshape(2, 2)).reshape(4)):
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)
    g = jax.grad(lambda x: jnp.log2(x).real)(jnp.complex64(2 + 2j))
    np.testing.assert_allclose(np.asarray(g), np.complex64(0.36067376 - 0.36067376j), rtol=1e-6)
