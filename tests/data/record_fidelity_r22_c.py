"""Records JAX's outcomes for tests/test_fidelity_r22_c.py (run under /work/venv_jax, one CPU
device):

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_c.py \
        > tests/data/fidelity_r22_c_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r22_c_cases import FLOAT0, MEMORY, SETUP  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)

print(json.dumps({
    "jax_version": jax.__version__,
    "float0": [[src, eval(src, env)] for src in FLOAT0],
    "memory": [[src, eval(src, env)] for src in MEMORY],
}, indent=1))
