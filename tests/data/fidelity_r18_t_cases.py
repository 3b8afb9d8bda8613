"""Cases shared by tests/test_fidelity_r18_t.py and tests/data/record_fidelity_r18_t.py: the
pullback of an RFFT (``jnp.fft.rfft``/``rfftn``) at a cotangent, some with NaN or infinite
parts, kept as dtype, shape and raw bits (NaN's spread and the rounding both matter)."""
import numpy as np

nan, inf = float("nan"), float("inf")
CASES = [  # (function, input shape, cotangent, dtype)
    ("rfft", (3,), [-0.5j, complex(0, nan)], "float32"),  # run 22000's s22044-49
    ("rfft", (3,), [complex(nan, 0), 1 + 2j], "float32"),
    ("rfft", (4,), [1 + 1j, complex(2, inf), 3 - 1j], "float32"),
    ("rfft", (5,), [0.5 + 0.25j, 1 - 2j, -3 + 1j], "float64"),
    ("rfft", (6,), [1j, 2 + 0j, 0.5 - 1j, -1 + 3j], "float32"),
    ("rfftn", (2, 4), [[1 + 1j, 2 - 1j, 0.5j], [-1 + 0j, 3 + 2j, 1 - 1j]], "float32"),
]


def describe(jax, name, shape, ct, dtype):
    """The pullback's result under ``jax`` (JAX or minijax; x64 on) as dtype, shape, bits."""
    x = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape).astype(dtype)
    cdtype = np.complex64 if dtype == "float32" else np.complex128
    _, vjp = jax.vjp(getattr(jax.numpy.fft, name), x)
    r = np.asarray(vjp(np.asarray(ct, cdtype))[0])
    return {"dtype": str(r.dtype), "shape": list(r.shape), "bits": r.tobytes().hex()}
