"""Cases S2 and S4 of oracle run 14000 (tools/difftest/triage_14000_s.md), against JAX 0.10.2's
outputs recorded by tests/data/record_fidelity_r14_t5.py."""
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_JAX = np.load(pathlib.Path(__file__).parent / "data" / "fidelity_r14_t5_jax.npz")


def _split(x):
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
    return jax.device_put(x, jax.NamedSharding(mesh, jax.P("d")))


def _spec(out):
    spec = list(out.sharding.spec)
    while spec and spec[-1] is None:
        spec.pop()
    return [str(p) for p in spec]


def _bits(x):
    return np.asarray(x).view(np.uint32)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_complex_convolve_is_jax_bit_for_bit(name, mode):
    # S2: one conv_general_dilated lowered as 3 real convolutions (Gauss's trick) rounds as JAX
    got = getattr(jnp, name)(_JAX["a"], _JAX["v"], mode=mode)
    want = _JAX[f"{name}_{mode}"]
    assert got.dtype == want.dtype == np.complex64
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_complex_convolve_keeps_the_split():
    # S2 (s14024-90): the split operand's sharding goes through the convolution
    out = jax.jit(lambda x: jnp.convolve(x + 0j, x + 0j, mode="same"))(_split(_JAX["x"]))
    np.testing.assert_array_equal(_bits(out), _bits(_JAX["convolve_split"]))
    assert _spec(out) == list(_JAX["convolve_split_spec"])
    x = _JAX["x"]
    out = jax.jit(jax.vmap(lambda x, y: jnp.convolve(x + 0j, y, mode="same"), (0, None)))(
        np.stack([x, x[::-1]]), _split(x))
    np.testing.assert_array_equal(_bits(out), _bits(_JAX["convolve_vmap_split"]))
    assert _spec(out) == list(_JAX["convolve_vmap_split_spec"])


def test_gamma_vmap_broadcasts_the_key():
    # S4 (s14047-375): random_gamma_p's batching rule broadcasts an unbatched key over the batch
    # and samples one flat vector, so the alphas' split does not reach the output
    k = jax.random.PRNGKey(217)
    out = jax.jit(jax.vmap(lambda a: jax.random.gamma(k, a), (-1,)))(_split(_JAX["gamma_a"]))
    # JAX's samples to the last bit or one: XLA's CPU log/exp code differs between CPUs
    np.testing.assert_allclose(out, _JAX["gamma_vmap"], rtol=4e-7, atol=0)
    assert out.dtype == np.float32
    assert _spec(out) == list(_JAX["gamma_vmap_spec"])
    jaxpr = str(jax.make_jaxpr(jax.vmap(lambda a: jax.random.gamma(k, a)))(_JAX["gamma_a"]))
    assert "random_gamma" in jaxpr
