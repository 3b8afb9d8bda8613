"""Records JAX 0.10.2's results for tests/test_fidelity_r18_t.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r18_t.py \
        > tests/data/fidelity_r18_t_jax.json
"""
import json
import pathlib
import sys

import jax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r18_t_cases import CASES, describe  # noqa: E402

jax.config.update("jax_enable_x64", True)
print(json.dumps({"jax_version": jax.__version__,
                  "cases": [[repr(c), describe(jax, *c)] for c in CASES]}, indent=1))
