"""Records JAX's outcomes for tests/test_fidelity_r25_f.py (run under /work/venv_jax; 8 CPU
devices, as the tests have):

    /work/venv_jax/bin/python tests/data/record_fidelity_r25_f.py \
        > tests/data/fidelity_r25_f_jax.json
"""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import json  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r25_f_cases import CASES, SETUP  # noqa: E402

env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)

print(json.dumps({
    "jax_version": jax.__version__,
    "cases": [[src, env["outcome"](lambda: eval(src, env))] for src in CASES],
}, indent=1))
