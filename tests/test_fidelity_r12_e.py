"""Cases of the oracle run of seeds 12000-12059 (helper E's share) where minijax differed from
JAX 0.10.2, each against JAX 0.10.2's recorded behaviour (the snippet that showed it is in each
test)."""

import numpy as np

import minijax
import minijax.numpy as jnp


def test_complex_scatter_min_max_order_lexicographically():
    # s12053-0. lax.min/max order complex numbers by real part, then imaginary part; the
    # combining scatters too. JAX 0.10.2:
    # x = jnp.array([1, 1, 2+2j, 2-1j, -1+3j], jnp.complex64); i = jnp.array([0, 2, 3, 4, 4])
    # u = jnp.array([5j, 2, 2, -1+2j, -1+4j], jnp.complex64)
    # x.at[i].min(u) -> [5j, 1, 2, 2-1j, -1+2j]; x.at[i].max(u) -> [1, 1, 2+2j, 2, -1+4j]
    x = jnp.array([1, 1, 2 + 2j, 2 - 1j, -1 + 3j], jnp.complex64)
    i = jnp.array([0, 2, 3, 4, 4])
    u = jnp.array([5j, 2, 2, -1 + 2j, -1 + 4j], jnp.complex64)
    want_min = [5j, 1, 2, 2 - 1j, -1 + 2j]
    np.testing.assert_array_equal(x.at[i].min(u), np.array(want_min, np.complex64))
    np.testing.assert_array_equal(minijax.jit(lambda x, u: x.at[i].min(u))(x, u),
                                  np.array(want_min, np.complex64))
    np.testing.assert_array_equal(x.at[i].max(u), np.array([1, 1, 2 + 2j, 2, -1 + 4j],
                                                           np.complex64))
    # the update wins at index 2, so the operand's cotangent there is 0:
    # jax.vjp(lambda x: x.at[jnp.array([0, 2])].min(jnp.array([0, 2]), mode='drop'),
    #         jnp.array([1, 1, 2+2j], jnp.complex64)) -> out [0, 1, 2]; pullback([.5, 1, 1.5])
    #         -> [0, 1, 0]
    out, pullback = minijax.vjp(
        lambda x: x.at[jnp.array([0, 2])].min(jnp.array([0, 2]), mode="drop"),
        jnp.array([1, 1, 2 + 2j], jnp.complex64))
    np.testing.assert_array_equal(out, np.array([0, 1, 2], np.complex64))
    (ct,) = pullback(jnp.array([0.5, 1, 1.5], jnp.complex64))
    np.testing.assert_array_equal(ct, np.array([0, 1, 0], np.complex64))
