"""Records JAX's behaviour for tests/symbolic_zeros_cases.py.

Run with real JAX from the repository root:
    JAX_PLATFORMS=cpu /work/venv_jax/bin/python tests/data/record_symbolic_zeros.py
"""

import json
import os
import sys

import jax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from tests.symbolic_zeros_cases import CASES  # noqa: E402

out = {"jax_version": jax.__version__, **{name: case(jax) for name, case in CASES.items()}}
path = os.path.join(os.path.dirname(__file__), "symbolic_zeros_jax.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print(json.dumps(out, indent=1))
