"""Records what JAX gives for tests/shard_map_api_cases.py (4 CPU devices).

Run with real JAX from the repository root:
    JAX_PLATFORMS=cpu /work/venv_jax/bin/python tests/data/record_shard_map_api.py
"""

import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from tests.shard_map_api_cases import CASES, api  # noqa: E402

ns = api(jax)
out = {"jax_version": jax.__version__, **{name: case(ns) for name, case in CASES.items()}}
path = os.path.join(os.path.dirname(__file__), "shard_map_api_jax.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print(json.dumps(out, indent=1))
