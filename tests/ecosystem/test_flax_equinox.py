"""flax.linen, flax.nnx and equinox on minijax: the training programs of
tests/ecosystem/flax_equinox_programs.py (100 float32 steps each) run through ``python -m
minijax.run_as_jax`` in one subprocess and must give the losses real JAX gave
(tests/data/flax_equinox_jax.json, recorded by tests/data/record_flax_equinox.py with JAX
0.10.2), without loading any module of the real jax package installed beside minijax."""

import importlib.util
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "ecosystem" / "flax_equinox_programs.py"
JAX = json.loads((ROOT / "tests" / "data" / "flax_equinox_jax.json").read_text())

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("flax", "equinox", "optax", "sklearn")),
    reason="needs flax, equinox, optax and scikit-learn (the test and examples extras)")


def test_losses_match_jax_and_real_jax_is_never_loaded():
    # One process for all programs: the imports (flax, equinox, optax) are paid once.
    out = subprocess.run([sys.executable, "-m", "minijax.run_as_jax", str(PROGRAMS)],
                         capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["real_jax"] == []
    assert sorted(result["losses"]) == sorted(JAX["losses"])
    mismatched = {}
    for name, want in JAX["losses"].items():
        got = np.asarray(result["losses"][name])
        assert got.shape == (100,) and got[-1] < 0.5 * got[0], name  # it trains
        # float32 steps: XLA may fuse differently than JAX's programs, a few ulps apart
        rel = np.max(np.abs(got - want) / np.abs(want))
        if not rel <= 1e-5:
            mismatched[name] = rel
    assert not mismatched, f"max relative difference from JAX's losses: {mismatched}"
