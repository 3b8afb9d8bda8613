"""Records JAX 0.10.2's jax.image outputs for tests/test_names_r12_m.py.

    /work/venv_jax/bin/python tests/data/record_r12_m.py   # writes r12_m_image_jax.npz
"""

import pathlib

import jax
import jax.numpy as jnp
import numpy as np

METHODS = ["nearest", "linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area"]
# (input shape, output shape): down and up along both spatial axes, a channel axis kept
SHAPES = [((5, 6, 2), (3, 9, 2)), ((4, 4, 2), (7, 2, 2))]
rng = np.random.default_rng(0)
IMAGES = {s: rng.standard_normal(s).astype(np.float32) for s, _ in SHAPES}
out = {"jax_version": np.array(jax.__version__)}
for i, (s_in, s_out) in enumerate(SHAPES):
    x = IMAGES[s_in]
    out[f"image{i}"] = x
    for m in METHODS:
        for aa in (True, False):
            key = f"resize{i}_{m}_{aa}"
            out[key] = np.asarray(jax.image.resize(x, s_out, m, antialias=aa))
            if m != "nearest":
                w = np.linspace(-1, 1, int(np.prod(s_out)), dtype=np.float32).reshape(s_out)
                out["grad_" + key] = np.asarray(jax.grad(
                    lambda im: jnp.sum(jax.image.resize(im, s_out, m, antialias=aa) * w))(x))
out["resize_int_nearest"] = np.asarray(jax.image.resize(
    np.arange(12, dtype=np.int32).reshape(3, 4), (5, 2), "nearest"))
out["resize_int_linear"] = np.asarray(jax.image.resize(
    np.arange(12, dtype=np.int32).reshape(3, 4), (5, 2), "linear"))
x = IMAGES[(5, 6, 2)]
for m in METHODS[1:]:
    for aa in (True, False):
        args = (x, (4, 8, 2), (0, 1), jnp.array([0.7, 1.4]), jnp.array([0.3, -0.6]))
        out[f"sat_{m}_{aa}"] = np.asarray(jax.image.scale_and_translate(
            *args, m, antialias=aa))
        g_s, g_t = jax.grad(lambda s, t: jnp.sum(jax.image.scale_and_translate(
            x, (4, 8, 2), (0, 1), s, t, m, antialias=aa) ** 2), (0, 1))(args[3], args[4])
        out[f"sat_grad_{m}_{aa}"] = np.concatenate([np.asarray(g_s), np.asarray(g_t)])
np.savez(pathlib.Path(__file__).with_name("r12_m_image_jax.npz"), **out)
