"""Records JAX's outcomes for tests/test_fidelity_r18_r.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r18_r.py \
        > tests/data/fidelity_r18_r_jax.json
"""
import json
import os
import pathlib
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r18_r_cases import CASES, SETUP, describe  # noqa: E402


def outcome(src, env):
    try:
        return describe(eval(src, env), jax.tree_util.tree_leaves)
    except Exception as e:  # the error's type is the outcome
        return ["error", type(e).__name__]


env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, outcome(src, env)] for src in CASES]}, indent=1))
