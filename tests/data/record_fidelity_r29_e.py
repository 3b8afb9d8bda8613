"""Records JAX's outcomes for tests/test_fidelity_r29_e.py (run under /work/venv_jax, with the
8 host CPU devices tests/conftest.py gives minijax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r29_e.py \
        > tests/data/fidelity_r29_e_jax.json
"""
import json
import os
import pathlib
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r29_e_cases import CASES, SETUP  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, eval(src, env)] for src in CASES]}, indent=1))
