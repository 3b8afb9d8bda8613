"""Records JAX's outcomes for tests/test_fidelity_r22_g.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_g.py \
        > tests/data/fidelity_r22_g_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r22_g_cases import ERRORS, PY, SETUP, VALUES  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)


def value(x):
    return [str(x.dtype), bool(x.aval.weak_type), list(x.shape), np.asarray(x).tolist()]


def error(src):
    try:
        eval(src, env)
    except Exception as e:  # noqa: BLE001 -- the error is the record
        return [type(e).__name__, str(e)]
    raise AssertionError(f"{src} did not raise")


def py(x):
    return json.loads(json.dumps(x))


print(json.dumps({
    "jax_version": jax.__version__,
    "values": [[src, value(eval(src, env))] for src in VALUES],
    "errors": [[src, error(src)] for src in ERRORS],
    "py": [[src, py(eval(src, env))] for src in PY],
}, indent=1))
