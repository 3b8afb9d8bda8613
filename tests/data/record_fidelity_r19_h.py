"""Records JAX's outcomes for tests/test_fidelity_r19_h.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r19_h.py \
        > tests/data/fidelity_r19_h_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r19_h_cases import CASES, SETUP, describe  # noqa: E402


def outcome(src, env):
    try:
        return describe(eval(src, env), jax.tree_util.tree_leaves)
    except Exception as e:  # noqa: BLE001 - the refusal is the record
        return {"error": type(e).__name__, "message": str(e)}


from jax._src.cudnn.scaled_matmul_stablehlo import quantize  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np, "Q": quantize}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, outcome(src, env)] for src in CASES]}, indent=1))
