"""Records JAX 0.10.2's outcomes for tests/test_fidelity_r18_w.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r18_w.py \
        > tests/data/fidelity_r18_w_jax.json

over the cases of fidelity_r18_w_cases.py: a jaxpr as printed, values as lists.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r18_w_cases import JAXPRS, SETUP, VALUES  # noqa: E402

if __name__ == "__main__":
    env = {"jax": jax, "jnp": jnp, "np": np}
    exec(SETUP, env)
    print(json.dumps({
        "jax_version": jax.__version__,
        "setup": SETUP,
        "jaxprs": [[src, str(eval(src, env))] for src in JAXPRS],
        "values": [[src, [np.asarray(leaf).tolist() for leaf in
                          jax.tree_util.tree_leaves(eval(src, env))]] for src in VALUES],
    }, indent=1))
