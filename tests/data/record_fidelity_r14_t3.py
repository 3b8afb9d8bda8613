"""Records JAX 0.10.2's outputs for tests/test_fidelity_r14_t3.py.

    /work/venv_jax/bin/python tests/data/record_fidelity_r14_t3.py   # writes fidelity_r14_t3_jax.npz
"""

import pathlib

import jax
import jax.numpy as jnp
import numpy as np

inf, nan = np.inf, np.nan
# complex sin/cos at infinite and NaN parts, zero real parts of both signs, and finite points
TRIG_POINTS = np.array([
    complex(0, -inf), complex(0, inf), complex(-0.0, inf), complex(1, inf), complex(-2, -inf),
    complex(0, nan), complex(inf, 0), complex(nan, 0), complex(0.5, -2), complex(1e-3, 1e-4),
    complex(0, 0), complex(-0.0, -0.0), complex(2, 100), complex(0, 100), complex(-3, 1e-7),
], np.complex64)

out = {"jax_version": np.array(jax.__version__), "trig_points": TRIG_POINTS}
for name in ("sin", "cos"):
    out[name] = np.asarray(getattr(jnp, name)(TRIG_POINTS))

x = jnp.array([4.0, 0.5, 1.5])
primal, tangent = jax.jit(jax.checkpoint(lambda x: jax.jvp(jnp.isnan, (x,), (x,))))(x)
out["remat_jvp_isnan_primal"] = np.asarray(primal)
out["remat_jvp_isnan_tangent_dtype"] = np.array(str(tangent.dtype))
out["remat_jvp_isnan_tangent_type"] = np.array(type(tangent).__name__)

np.savez(pathlib.Path(__file__).with_name("fidelity_r14_t3_jax.npz"), **out)
