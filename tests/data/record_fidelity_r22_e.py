"""Records JAX's outcomes for tests/test_fidelity_r22_e.py (run under /work/venv_jax, on CPU):

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_e.py \
        > tests/data/fidelity_r22_e_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r22_e_cases import CASES, SETUP, outcome  # noqa: E402

env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, outcome(src, env, jax.tree_util.tree_leaves)]
                            for src in CASES]}, indent=1))
