"""The NumPy coverage table (docs/numpy_coverage.md): regenerated, at least 250 functions, and
the committed file current."""

import importlib.util
import pathlib

import numpy as np
import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "make_numpy_coverage.py"


def _load():
    spec = importlib.util.spec_from_file_location("make_numpy_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_coverage_table_is_current_and_large_enough():
    mod = _load()
    text, done = mod.render(mod.coverage())
    assert done >= 250, f"minijax.numpy implements only {done} NumPy functions"
    committed = mod.OUT.read_text()
    if f"NumPy {np.__version__}:" not in committed:  # NumPy's own list differs by version
        pytest.skip(f"docs/numpy_coverage.md was made with another NumPy than {np.__version__}")
    assert committed == text, (
        "docs/numpy_coverage.md is stale: run `python3 docs/make_numpy_coverage.py` and commit it")
