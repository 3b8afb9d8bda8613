"""Records tests/data/fidelity_r25_lead_jax.json from JAX 0.10.2 (run with
XLA_FLAGS=--xla_force_host_platform_device_count=8 under the real-JAX environment):
make_mesh's default axis types, the deprecated ``with mesh:`` block, where results of a
computation under ``set_mesh`` live, and shard_map's in_specs against an argument's type.
The same cases run under minijax in tests/test_fidelity_r25_lead.py (``CASES``)."""

import json
import sys
import warnings
from pathlib import Path

import jax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fidelity_r25_lead_cases import CASES  # noqa: E402


def run(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(jax)
        except Exception as e:  # noqa: BLE001 - the error is the recorded fact
            out = f"ERR {type(e).__name__}: {str(e).splitlines()[0]}"
    warned = sorted({f"{w.category.__name__}: {w.message}" for w in caught
                     if w.category is DeprecationWarning and "mesh" in str(w.message)})
    return {"out": out, "warnings": warned}


if __name__ == "__main__":
    assert jax.__version__ == "0.10.2", jax.__version__
    rec = {"jax_version": jax.__version__,
           "cases": {name: run(fn) for name, fn in CASES.items()}}
    out = Path(__file__).resolve().parent / "fidelity_r25_lead_jax.json"
    out.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out}")
