"""Records JAX 0.10.2's outcomes for tests/test_fidelity_r17_l.py (run under /work/venv_jax):

    XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python \
        tests/data/record_fidelity_r17_l.py > tests/data/fidelity_r17_l_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r17_l_cases import JAXPRS, SETUP, s20026_654  # noqa: E402

env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "jaxprs": [[src, str(eval(src, env))] for src in JAXPRS],
                  "s20026_654": s20026_654(jax, jnp)}, indent=1))
