"""Records JAX's outcomes for tests/test_fidelity_r22_h.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_h.py \
        > tests/data/fidelity_r22_h_jax.json

Each result (or each array of a tuple) is recorded as dtype, weak type, shape and its values'
bit patterns, so values are compared bit for bit (NaN's and zero's signs included).
"""
import json
import pathlib
import sys

import jax
import jax.scipy.stats  # noqa: F401
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r22_h_cases import CASES  # noqa: E402


def outcome(out):
    outs = out if isinstance(out, tuple) else (out,)
    return [[str(x.dtype), bool(x.aval.weak_type), list(x.shape),
             np.asarray(x).view(f"u{x.dtype.itemsize}").tolist()] for x in outs]


if __name__ == "__main__":
    env = {"jax": jax, "jnp": jax.numpy, "np": np, "stats": jax.scipy.stats}
    print(json.dumps({"jax_version": jax.__version__,
                      "cases": [[src, outcome(eval(src, env))] for src in CASES]}))
