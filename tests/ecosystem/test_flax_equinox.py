"""flax.linen, flax.nnx and equinox on minijax: three small training programs
(tests/ecosystem/flax_equinox_programs.py) run through ``python -m minijax.run_as_jax`` and must
give the losses real JAX gave (tests/data/flax_equinox_jax.json, recorded by
tests/data/record_flax_equinox.py with JAX 0.10.2)."""

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
    any(importlib.util.find_spec(m) is None for m in ("flax", "equinox", "optax")),
    reason="needs flax and equinox, which the test extra does not install "
           "(benchmarks/ecosystem_suites.py --setup makes a venv with them)")


@pytest.mark.parametrize("name", sorted(JAX["losses"]))
def test_losses_match_jax(name):
    out = subprocess.run([sys.executable, "-m", "minijax.run_as_jax", str(PROGRAMS), name],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    losses = json.loads(out.stdout.strip().splitlines()[-1])
    # float32 training steps: XLA may fuse differently than JAX's programs, a few ulps apart.
    np.testing.assert_allclose(losses, JAX["losses"][name], rtol=1e-5)
    assert losses[-1] < losses[0]  # it trains
