"""Records JAX's outcomes for tests/test_fidelity_r18_n.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r18_n.py \
        > tests/data/fidelity_r18_n_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r18_n_cases import describe, inputs, program  # noqa: E402

run = program(jax, jnp)
results = {name: describe(run(x), jax.tree_util.tree_leaves, np)
           for name, x in inputs(np).items()}
print(json.dumps({"jax_version": jax.__version__, "cases": results}, indent=1))
