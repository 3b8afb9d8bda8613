"""examples/flax_char_transformer.py (flax.linen + optax, unchanged JAX code) trains through
``python -m minijax.run_as_jax``: a short run lowers the loss, samples text and plots."""

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("flax", "optax")),
    reason="needs flax and optax (the test extra)")


def test_flax_char_transformer_short_run_learns_and_samples(tmp_path):
    env = dict(os.environ, MINIJAX_PLATFORMS="cpu", MINIJAX_NUM_CPU_DEVICES="1")
    out = subprocess.run(
        [sys.executable, "-m", "minijax.run_as_jax", str(ROOT / "examples" /
                                                          "flax_char_transformer.py"),
         "--quick", "--steps", "30", "--sample-length", "60", "--no-progress",
         "--out-dir", str(tmp_path)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "jax 0.10.2 (minijax)" in out.stdout
    m = re.search(r"loss: first \d+ steps ([\d.]+) -> last \d+ steps ([\d.]+)", out.stdout)
    assert m and float(m.group(2)) < 0.85 * float(m.group(1)), out.stdout
    sample = out.stdout.split("--- sample ")[1].split("\n", 1)[1].split("\n" + "-" * 71)[0]
    assert sample.startswith("Shall I ") and len(sample) == len("Shall I ") + 60
    if importlib.util.find_spec("matplotlib") is not None:
        assert (tmp_path / "flax_char_transformer_loss.png").read_bytes()[:4] == b"\x89PNG"
