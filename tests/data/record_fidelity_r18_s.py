"""Records JAX's results for tests/test_fidelity_r18_s.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r18_s.py \
        > tests/data/fidelity_r18_s_jax.json
"""
import json
import pathlib
import sys

import jax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r18_s_cases import cases, describe  # noqa: E402

print(json.dumps({"jax_version": jax.__version__,
                  "cases": {name: describe(jax.tree_util.tree_leaves(fn()))
                            for name, fn in cases(jax).items()}}, indent=1))
