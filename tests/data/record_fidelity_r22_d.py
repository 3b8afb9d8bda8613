"""Records JAX's outcomes for tests/test_fidelity_r22_d.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_d.py \
        > tests/data/fidelity_r22_d_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r22_d_cases import SETUP, VALUES  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)


def value(x):
    leaves = x if isinstance(x, tuple) else (x,)
    return [[str(v.dtype), np.asarray(v).tolist()] for v in leaves]


print(json.dumps({
    "jax_version": jax.__version__,
    "values": [[src, value(eval(src, env))] for src in VALUES],
}, indent=1))
