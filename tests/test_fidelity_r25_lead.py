"""make_mesh's Explicit default, the deprecated ``with mesh:`` block, results under
``set_mesh`` on the mesh's devices, and shard_map's in_specs checked against an argument's
type, against JAX 0.10.2 (tests/data/record_fidelity_r25_lead.py recorded the expected
strings; the cases are in tests/data/fidelity_r25_lead_cases.py)."""

import json
import sys
import warnings
from pathlib import Path

import pytest

import minijax

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from fidelity_r25_lead_cases import CASES  # noqa: E402

RECORDED = json.loads((DATA / "fidelity_r25_lead_jax.json").read_text())


@pytest.mark.devices(8)
@pytest.mark.parametrize("name", sorted(CASES))
def test_as_jax_0102(name):
    assert RECORDED["jax_version"] == "0.10.2"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = CASES[name](minijax)
        except Exception as e:  # noqa: BLE001 - compared with JAX's error
            out = f"ERR {type(e).__name__}: {str(e).splitlines()[0]}"
    warned = sorted({f"{w.category.__name__}: {w.message}" for w in caught
                     if w.category is DeprecationWarning and "mesh" in str(w.message)})
    assert {"out": out, "warnings": warned} == RECORDED["cases"][name]
