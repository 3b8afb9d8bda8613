"""Records JAX's outcomes for tests/test_fidelity_r19_g.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r19_g.py \
        > tests/data/fidelity_r19_g_jax.json
"""
import json
import pathlib
import sys
import warnings

import jax
import jax.extend.core  # noqa: F401  (the cases name jax.extend.core.AbstractToken)
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r19_g_cases import CASES, SETUP, describe  # noqa: E402

warnings.simplefilter("ignore")
env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, describe(lambda: eval(src, env), jax.tree_util.tree_leaves)]
                            for src in CASES]}, indent=1))
