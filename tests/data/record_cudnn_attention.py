"""Records real JAX's StableHLO for the cuDNN attention cases of tests/cudnn_attention_cases.py
into tests/data/cudnn_attention_jax.json. Needs JAX with its CUDA plugin on a GPU machine:

    PYTHONPATH=. python3 tests/data/record_cudnn_attention.py
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import jax  # noqa: E402

from tests.cudnn_attention_cases import CASES, build  # noqa: E402

out = {"jax_version": jax.__version__, "device": jax.devices()[0].device_kind, "cases": {}}
for name, case in CASES.items():
    fn, args = build(jax, case)
    out["cases"][name] = jax.jit(fn).lower(*args).as_text()
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cudnn_attention_jax.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print("wrote", path, "jax", jax.__version__)
