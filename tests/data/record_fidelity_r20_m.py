"""Records JAX's outcomes for tests/test_fidelity_r20_m.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r20_m.py \
        > tests/data/fidelity_r20_m_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import jax.scipy.linalg as scipy_linalg
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r20_m_cases import CASES, SETUP, describe  # noqa: E402

env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "scipy_linalg": scipy_linalg}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, describe(lambda: eval(src, env), jax.tree_util.tree_leaves)]
                            for src in CASES]}, indent=1))
