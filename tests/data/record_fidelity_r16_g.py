"""Records JAX's outcomes for tests/test_fidelity_r16_g.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r16_g.py \
        > tests/data/fidelity_r16_g_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r16_g_cases import CASES  # noqa: E402


def outcome(src):
    return [{"value": np.asarray(x).tolist(), "dtype": str(x.dtype),
             "weak_type": bool(x.aval.weak_type)}
            for x in jax.tree_util.tree_leaves(eval(src, {"jax": jax, "jnp": jnp, "lax": lax,
                                                            "np": np}))]


print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[src, outcome(src)] for src in CASES]}, indent=1))
