"""Records JAX's outcomes for tests/test_fidelity_r21_c.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r21_c.py \
        > tests/data/fidelity_r21_c_jax.json
"""
import json
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r21_c_cases import CASES, SETUP, describe  # noqa: E402

warnings.simplefilter("ignore")
env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, describe(eval(src, env), jax.tree_util.tree_leaves)]
                            for src in CASES]}, indent=1))
