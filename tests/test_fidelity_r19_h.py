"""JAX 0.10.2 public names added in run 23000 (tools/difftest/triage_23000_h.md), each checked
against outcomes recorded from real JAX 0.10.2."""
import json
import pathlib

import pytest

import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"


@pytest.mark.parametrize("name", ["fromfile", "fromiter"])
def test_fromfile_fromiter_refused_with_jax_message(name, tmp_path):
    # JAX's messages, as tests/data/record_not_implemented.py recorded them from JAX 0.10.2
    rows = json.loads((_DATA / "not_implemented_jax_0102.json").read_text())["rows"]
    (message,) = {r["jax_message"] for r in rows if r["function"] == name}
    path = tmp_path / "data.bin"
    path.write_bytes(b"\0" * 8)
    with pytest.raises(NotImplementedError) as e:
        getattr(jnp, name)(str(path) if name == "fromfile" else iter([1.0]), dtype=float)
    assert str(e.value) == message
