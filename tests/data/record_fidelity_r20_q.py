"""Records JAX's outcomes for tests/test_fidelity_r20_q.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r20_q.py \
        > tests/data/fidelity_r20_q_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r20_q_cases import CASES, SETUP, outcome, staged_outcome  # noqa: E402

env = {"jax": jax, "jnp": jnp}
exec(SETUP, env)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[lst, tup, outcome(env, lst, tup, jax.tree_util.tree_leaves),
                             staged_outcome(env, lst, jax.make_jaxpr)]
                            for lst, tup in CASES]}, indent=1))
