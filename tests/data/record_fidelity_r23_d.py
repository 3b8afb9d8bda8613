"""Records JAX's values for tests/test_fidelity_r23_d.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r23_d.py \
        > tests/data/fidelity_r23_d_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r23_d_cases import SETUP, VALUES  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)


def bits(out):
    """Each output's dtype and its bytes in hex: the test compares bit for bit."""
    outs = out if isinstance(out, tuple) else (out,)
    return [[str(x.dtype), np.asarray(x).tobytes().hex()] for x in outs]


print(json.dumps({
    "jax_version": jax.__version__,
    "values": [[src, bits(eval(src, env))] for src in VALUES],
}, indent=1))
