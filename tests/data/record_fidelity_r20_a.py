"""Records JAX 0.10.2's pinv derivatives for tests/test_fidelity_r20_a.py (run under real JAX):

    /work/venv_jax/bin/python tests/data/record_fidelity_r20_a.py > tests/data/fidelity_r20_a_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r20_a_cases import pinv_cases, pinv_derivatives  # noqa: E402

jax.config.update("jax_enable_x64", True)
print(json.dumps({"jax_version": jax.__version__,
                  "pinv": {name: pinv_derivatives(jax, jnp, x, h)
                           for name, x, h in pinv_cases()}}, indent=1))
