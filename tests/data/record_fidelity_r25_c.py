"""Records JAX's outcomes for tests/test_fidelity_r25_c.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r25_c.py \
        > tests/data/fidelity_r25_c_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r25_c_cases import (  # noqa: E402
    ERRORS, JIT_ARGS, REPRS, SETUP, TRACER_ERRORS, WARNINGS)

env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, env)

print(json.dumps({
    "jax_version": jax.__version__,
    "errors": [[src, env["both"](src)] for src in ERRORS],
    "reprs": [[src, env["reprs"](src)] for src in REPRS],
    "tracer_errors": [[src, env["outcome"](eval(src, env))] for src in TRACER_ERRORS],
    "jit_args": [[src, env["outcome"](eval(src, env))] for src in JIT_ARGS],
    "warnings": [[src, env["warned"](src)] for src in WARNINGS],
}, indent=1))
