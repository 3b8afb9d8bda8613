"""Records JAX's outcomes for tests/test_fidelity_r18_u.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r18_u.py \
        > tests/data/fidelity_r18_u_jax.json
"""
import json
import os
import pathlib
import sys
import warnings

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r18_u_cases import CASES, SETUP, describe  # noqa: E402

warnings.simplefilter("ignore")
env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)
out = []
for src in CASES:
    env["TYPES"].clear()
    out.append([src, describe(lambda: eval(src, env), jax.tree_util.tree_leaves, np)])
print(json.dumps({"jax_version": jax.__version__, "cases": out}, indent=1))
