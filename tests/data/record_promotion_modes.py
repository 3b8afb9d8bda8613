"""Records what JAX does in each jax_numpy_dtype_promotion / jax_numpy_rank_promotion mode for
tests/test_leaks_promotion.py.

Run with real JAX (not minijax): /work/venv_jax/bin/python tests/data/record_promotion_modes.py
It writes tests/data/promotion_modes_jax.json: per mode and case, ["ok", dtype, weak_type],
["error", exception class, message] or, for rank promotion 'warn', ["warn", [messages]].
JAX caches traces, so its caches are cleared before each case: every case is a fresh trace.
"""

import json
import os
import sys
import warnings

import jax

sys.path.insert(0, os.path.dirname(__file__))
from promotion_modes_cases import dtype_cases, rank_cases  # noqa: E402


def outcome(thunk):
    jax.clear_caches()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = thunk()
        except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
            return ["error", type(e).__name__, str(e)]
    messages = [str(w.message) for w in caught]
    if messages:
        return ["warn", messages]
    if isinstance(r, (list, tuple)):
        r = r[0]
    return ["ok", str(getattr(r, "dtype", r)), bool(getattr(getattr(r, "aval", None),
                                                            "weak_type", False))]


def main():
    out = {"jax_version": jax.__version__, "dtype": {}, "rank": {}}
    for mode in ("standard", "strict"):
        with jax.numpy_dtype_promotion(mode):
            out["dtype"][mode] = {k: outcome(f) for k, f in dtype_cases(jax).items()}
    for mode in ("allow", "warn", "raise"):
        with jax.numpy_rank_promotion(mode):
            out["rank"][mode] = {k: outcome(f) for k, f in rank_cases(jax).items()}
    path = os.path.join(os.path.dirname(__file__), "promotion_modes_jax.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
