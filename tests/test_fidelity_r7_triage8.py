"""Cases of the oracle run of seeds 8000-8059 where minijax differed from JAX 0.10.2, each
against values recorded from JAX 0.10.2 (the snippet that made each is in its test)."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax, nn


def test_erf_family_derivatives_round_as_jax_in_half_precision():
    # s8053-92, s8006-181. JAX's erf/erfc/erf_inv JVPs multiply g by the exp first and the
    # constant last; in float16/bfloat16 the other order rounds differently:
    # x16 = np.array([-1.927734375, 0.58349609375, -1.5341796875, 0.251953125], np.float16)
    # t16 = np.linspace(0.5, 1.5, 4).astype(np.float16) * np.float16(0.7)
    # jax.jvp(lambda x: jax.nn.gelu(x, approximate=False), (x16,), (t16,))[1].view(np.uint16)
    # jax.jvp(lax.erf, (x16,), (t16,))[1].view(np.uint16)
    # jax.jit(jax.grad(lambda x: jnp.sum(lax.erf_inv(x.astype(jnp.bfloat16)).astype(
    #     jnp.float32) * jnp.linspace(0.5, 1.5, 4))))(xb)
    # jax.jvp(lax.erf_inv, (xb.astype(jnp.bfloat16),), (jnp.full(4, 0.7, jnp.bfloat16),))[1]
    # JAX 0.10.2: [43050, 14407, 44698, 14812], [8426, 14205, 11675, 15475],
    # [0.4883880615234375, 0.847869873046875, 1.667724609375, 1.9818115234375],
    # [0.68359375, 0.71484375, 1.0078125, 0.9296875]
    x16 = np.array([-1.927734375, 0.58349609375, -1.5341796875, 0.251953125], np.float16)
    t16 = np.linspace(0.5, 1.5, 4).astype(np.float16) * np.float16(0.7)
    gelu_t = minijax.jvp(lambda x: nn.gelu(x, approximate=False), (x16,), (t16,))[1]
    assert np.asarray(gelu_t).view(np.uint16).tolist() == [43050, 14407, 44698, 14812]
    erf_t = minijax.jvp(lax.erf, (x16,), (t16,))[1]
    assert np.asarray(erf_t).view(np.uint16).tolist() == [8426, 14205, 11675, 15475]

    xb = jnp.asarray([0.34087860584259033, -0.39897599816322327, -0.6708468198776245,
                      0.630724310874939], jnp.float32)
    g = minijax.jit(minijax.grad(lambda x: jnp.sum(lax.erf_inv(x.astype(jnp.bfloat16)).astype(
        jnp.float32) * jnp.linspace(0.5, 1.5, 4))))(xb)
    assert np.asarray(g).tolist() == [0.4883880615234375, 0.847869873046875, 1.667724609375,
                                      1.9818115234375]
    t = minijax.jvp(lax.erf_inv, (xb.astype(jnp.bfloat16),), (jnp.full(4, 0.7, jnp.bfloat16),))[1]
    assert np.asarray(t.astype(jnp.float32)).tolist() == [0.68359375, 0.71484375, 1.0078125,
                                                          0.9296875]
