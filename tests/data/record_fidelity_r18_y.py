"""Records JAX's outcomes for tests/test_fidelity_r18_y.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r18_y.py \
        > tests/data/fidelity_r18_y_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r18_y_cases import describe, make  # noqa: E402

print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[name, describe(jax, f())]
                            for name, f in make(jax, jnp, lax).items()]}, indent=1))
