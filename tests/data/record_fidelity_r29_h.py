"""Records JAX's outcomes for tests/test_fidelity_r29_h.py (run under /work/venv_jax):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/venv_jax/bin/python tests/data/record_fidelity_r29_h.py \
        > tests/data/fidelity_r29_h_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r29_h_cases import CASES, SETUP  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, eval(src, env)] for src in CASES]}, indent=1))
