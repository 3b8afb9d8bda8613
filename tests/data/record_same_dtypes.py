"""Records what JAX's lax ops do with operands of another dtype, for tests/lax/test_same_dtypes.py.

Run with real JAX (not minijax): /work/venv_jax/bin/python tests/data/record_same_dtypes.py
It writes tests/data/same_dtypes_jax.json: per case ["ok", dtype, weak_type] or
["error", exception class, message]; per internal case [dtype, values].
"""

import json
import os
import sys

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from same_dtypes_cases import cases, internal_cases, x64_cases  # noqa: E402


def outcome(thunk):
    try:
        r = thunk()
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ["error", type(e).__name__, str(e)]
    return ["ok", str(r.dtype), bool(r.aval.weak_type)]


def values(thunk):
    r = thunk()
    return [str(r.dtype), np.asarray(r, np.float64).ravel().tolist()]


def main():
    out = {"jax_version": jax.__version__}
    out["cases"] = {name: outcome(t) for name, t in cases(jax).items()}
    out["internal"] = {name: values(t) for name, t in internal_cases(jax).items()}
    jax.config.update("jax_enable_x64", True)
    out["x64"] = {name: outcome(t) for name, t in x64_cases(jax).items()}
    path = os.path.join(os.path.dirname(__file__), "same_dtypes_jax.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
