"""Records JAX's outcomes for tests/test_fidelity_r13_p.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r13_p.py > tests/data/fidelity_r13_p_jax.json
"""
import json
import warnings

import jax
import jax.numpy as jnp
import numpy as np

warnings.simplefilter("ignore")

ASARRAY = [(-1, "uint32"), (-1.0, "uint32"), (-1.5, "uint32"), (300.0, "uint8"), (1.5, "int32"),
           (float("nan"), "int32"), (float("inf"), "uint8"), (1e20, "int32"), (2 + 1j, "uint32"),
           (True, "uint8"), (-3, "bool"), (2 ** 32 - 1, "uint32")]
FOLD_IN = [-1, -1.0, 2 ** 32, 2 ** 32 - 1, 1.5, True, "np.int64(-1)", "f32(2.5)", "c64(2+1j)",
           "f32[2]"]


def outcome(thunk):
    try:
        return {"value": np.asarray(thunk()).tolist()}
    except Exception as e:  # noqa: BLE001 - the error is the recorded outcome
        return {"error": type(e).__name__, "msg": str(e)}


def fold_in_data(spec):
    return {"np.int64(-1)": np.int64(-1), "f32(2.5)": jnp.float32(2.5),
            "c64(2+1j)": jnp.complex64(2 + 1j), "f32[2]": jnp.ones(2)}.get(spec, spec)


out = {
    "jax_version": jax.__version__,
    "asarray": [[repr(v), d, outcome(lambda: jnp.asarray(v, dtype=d))] for v, d in ASARRAY],
    "fold_in": [[repr(s), outcome(lambda: jax.random.key_data(
        jax.random.fold_in(jax.random.key(0), fold_in_data(s))))] for s in FOLD_IN],
}
print(json.dumps(out, indent=1))
