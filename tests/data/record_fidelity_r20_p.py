"""Records JAX's outcomes for tests/test_fidelity_r20_p.py (run under /work/venv_jax):

    XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python \
        tests/data/record_fidelity_r20_p.py > tests/data/fidelity_r20_p_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r20_p_cases import CASES, SETUP, describe  # noqa: E402

env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, describe(eval(src, env), jax.tree_util.tree_leaves)]
                            for src in CASES]}, indent=1))
