"""Records JAX's outcomes for tests/test_fidelity_r25_b.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r25_b.py \
        > tests/data/fidelity_r25_b_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import jax.scipy.special as special
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r25_b_cases import ERRORS, JAXPRS, VALUES  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np, "lax": lax, "special": special}


def value(x):
    leaves = jax.tree.leaves(x)
    return [[str(v.dtype), np.asarray(v).tolist()] for v in leaves]


def error(src):
    try:
        eval(src, env)
    except Exception as e:  # noqa: BLE001 - any error is the outcome
        return [type(e).__name__, str(e)]
    return None


print(json.dumps({
    "jax_version": jax.__version__,
    "jaxprs": [[src, str(eval(src, env))] for src in JAXPRS],
    "values": [[src, value(eval(src, env))] for src in VALUES],
    "errors": [[src, error(src)] for src in ERRORS],
}, indent=1))
