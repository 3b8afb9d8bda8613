"""Records JAX 0.10.2's outputs for tests/test_fidelity_r14_t5.py.

    XLA_FLAGS=--xla_force_host_platform_device_count=2 \
        /work/venv_jax/bin/python tests/data/record_fidelity_r14_t5.py   # fidelity_r14_t5_jax.npz
"""

import pathlib

import jax
import jax.numpy as jnp
import numpy as np

X = np.linspace(-1.3, 0.7, 4).astype(np.float32)
A = (X + 1j * np.array([0.9, 0.9, -1.1, -1.1], np.float32)).astype(np.complex64)
V = np.array([0.3 - 0.45j, -1.1 + 0.55j, 0.9 - 0.15j], np.complex64)
GAMMA_A = np.linspace(0.2, 3.0, 12).astype(np.float32).reshape(2, 3, 2)

mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))


def split(x):
    return jax.device_put(x, jax.NamedSharding(mesh, jax.P("d")))


def spec(out):
    s = list(out.sharding.spec)
    while s and s[-1] is None:
        s.pop()
    return np.array([str(p) for p in s], dtype=object).astype(str)


out = {"jax_version": np.array(jax.__version__), "x": X, "a": A, "v": V, "gamma_a": GAMMA_A}
# S2: complex convolve/correlate, one conv_general_dilated (3 real convolutions on CPU)
for mode in ("full", "same", "valid"):
    out[f"convolve_{mode}"] = np.asarray(jnp.convolve(A, V, mode=mode))
    out[f"correlate_{mode}"] = np.asarray(jnp.correlate(A, V, mode=mode))
r = jax.jit(lambda x: jnp.convolve(x + 0j, x + 0j, mode="same"))(split(X))
out["convolve_split"], out["convolve_split_spec"] = np.asarray(r), spec(r)
r = jax.jit(jax.vmap(lambda x, y: jnp.convolve(x + 0j, y, mode="same"), (0, None)))(
    np.stack([X, X[::-1]]), split(X))
out["convolve_vmap_split"], out["convolve_vmap_split_spec"] = np.asarray(r), spec(r)
# S4: gamma under vmap with an unbatched key (random_gamma_p's batching broadcasts the key)
k = jax.random.PRNGKey(217)
r = jax.jit(jax.vmap(lambda a: jax.random.gamma(k, a), (-1,)))(split(GAMMA_A))
out["gamma_vmap"], out["gamma_vmap_spec"] = np.asarray(r), spec(r)

np.savez(pathlib.Path(__file__).with_name("fidelity_r14_t5_jax.npz"), **out)
