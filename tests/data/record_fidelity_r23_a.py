"""Records JAX's outcomes for tests/test_fidelity_r23_a.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r23_a.py \
        > tests/data/fidelity_r23_a_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r23_a_cases import (  # noqa: E402
    EINSUM_PATHS, ERROR_STARTS, ERRORS, JAXPRS, SETUP, VALUES)

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)


def value(x):
    return [str(x.dtype), list(x.shape), np.asarray(x).tolist()]


def path_info(spec, shapes, optimize):
    path, info = jnp.einsum_path(spec, *(np.ones(s, np.float32) for s in shapes),
                                 optimize=optimize)
    return {"path": [list(p) for p in path], "str": str(info), "repr": repr(info),
            "type": type(info).__name__,
            "contraction_list": [[list(c[0]), sorted(c[1]), c[2], list(c[3]), c[4]]
                                 for c in info.contraction_list],
            "naive_cost": str(info.naive_cost), "opt_cost": str(info.opt_cost),
            "speedup": str(info.speedup), "size_list": list(info.size_list),
            "scale_list": list(info.scale_list), "eq": info.eq,
            "shapes": [list(s) for s in info.shapes], "indices": sorted(info.indices),
            "largest_intermediate": str(info.largest_intermediate)}


print(json.dumps({
    "jax_version": jax.__version__,
    "errors": [[src, eval(src, env)] for src in ERRORS],
    "error_starts": [[src, eval(src, env)] for src, _ in ERROR_STARTS],
    "values": [[src, value(eval(src, env))] for src in VALUES],
    "jaxprs": [[src, str(eval(src, env))] for src in JAXPRS],
    "einsum_paths": [path_info(*case) for case in EINSUM_PATHS],
}, indent=1))
