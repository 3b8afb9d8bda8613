"""Records JAX's outcomes for tests/test_fidelity_r22_f.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_f.py \
        > tests/data/fidelity_r22_f_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.scipy.special  # noqa: F401
import jax.scipy.stats  # noqa: F401
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r22_f_cases import CASES  # noqa: E402


def outcome(x):
    return [str(x.dtype), bool(x.aval.weak_type), list(x.shape), np.asarray(x).tolist()]


if __name__ == "__main__":
    env = {"jax": jax, "jnp": jax.numpy, "np": np, "special": jax.scipy.special,
           "stats": jax.scipy.stats}
    print(json.dumps({"jax_version": jax.__version__,
                      "cases": [[src, outcome(eval(src, env))] for src in CASES]}, indent=1))
