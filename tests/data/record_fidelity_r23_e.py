"""Records JAX's outcomes for tests/test_fidelity_r23_e.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r23_e.py \
        > tests/data/fidelity_r23_e_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r23_e_cases import ERRORS, JAXPRS, SETUP, VALUES  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)


def leaf(x):
    """dtype, weak type and values (none for float0) of one result leaf."""
    if x.dtype == jax.dtypes.float0:
        return ["float0", list(np.shape(x))]
    return [str(x.dtype), bool(getattr(x, "weak_type", False)), np.asarray(x).tolist()]


def outcome(src):
    try:
        return ["value", jax.tree.map(leaf, eval(src, env))]
    except Exception as e:  # noqa: BLE001 - the error is the recorded outcome
        return [type(e).__name__, str(e).split("\n")[0]]


print(json.dumps({
    "jax_version": jax.__version__,
    "values": [[src, jax.tree.map(leaf, eval(src, env))] for src in VALUES],
    "jaxprs": [[src, str(eval(src, env))] for src in JAXPRS],
    "errors": [[src, outcome(src)] for src in ERRORS],
}, indent=1))
