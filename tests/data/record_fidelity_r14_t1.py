"""Records JAX's outcomes for tests/test_fidelity_r14_t1.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r14_t1.py \
        > tests/data/fidelity_r14_t1_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r14_t1_cases import CASES  # noqa: E402


def outcome(src):
    x = eval(src, {"jax": jax, "jnp": jnp, "lax": lax, "np": np})
    return {"value": np.asarray(x).tolist(), "dtype": str(x.dtype),
            "weak_type": bool(x.aval.weak_type)}


print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, outcome(src)] for src in CASES]}, indent=1))
