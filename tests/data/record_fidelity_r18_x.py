"""Records JAX's outcomes for tests/test_fidelity_r18_x.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r18_x.py \
        > tests/data/fidelity_r18_x_jax.json
"""
import json
import pathlib
import sys

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r18_x_cases import CASES, SETUP, describe  # noqa: E402

env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, describe(lambda: eval(src, env), jax.tree_util.tree_leaves)]
                            for src in CASES]}, indent=1))
