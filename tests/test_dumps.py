"""Per-compilation dumps: jaxpr, StableHLO, optimized HLO and the index, in-process and by env."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.config import config
from minijax.lowering import dumps


@pytest.fixture
def dump_dir(tmp_path):
    d = tmp_path / "dumps"
    old = {k: getattr(config, k) for k in ("minijax_dump_dir", "minijax_dump_eager",
                                            "minijax_dump_xla")}
    config.update("minijax_dump_dir", str(d))
    yield d
    for k, v in old.items():
        config.update(k, v)


def test_jit_compile_writes_three_files_and_an_index_line(dump_dir):
    def my_model(x, y):
        return jnp.sin(x) * y + 1.0

    out = minijax.jit(my_model)(np.ones((3, 5), np.float32), np.float32(2.0))
    np.testing.assert_allclose(np.asarray(out), np.sin(1.0) * 2 + 1, rtol=1e-6)

    records = [r for r in dumps.read_index(dump_dir) if r["function"] == "jit_my_model"]
    assert len(records) == 1
    rec = records[0]
    assert rec["kind"] == "jit" and len(rec["hash"]) == 12
    assert rec["in_avals"] == ["f32[3,5]", "f32[]"] and rec["out_avals"] == ["f32[3,5]"]
    assert rec["compile_seconds"] > 0 and rec["from_persistent_cache"] is False
    assert rec["pid"] == os.getpid() and "T" in rec["time"]
    stem = f"jit_my_model.{rec['hash']}"
    assert rec["files"] == {"jaxpr": f"{stem}.jaxpr.txt", "stablehlo": f"{stem}.stablehlo.mlir",
                            "hlo": f"{stem}.hlo.txt"}
    jaxpr = (dump_dir / rec["files"]["jaxpr"]).read_text()
    assert "sin" in jaxpr and "f32[3,5]" in jaxpr and jaxpr.startswith("{ lambda")
    shlo = (dump_dir / rec["files"]["stablehlo"]).read_text()
    assert "stablehlo.sine" in shlo and "func.func public @main" in shlo
    hlo = (dump_dir / rec["files"]["hlo"]).read_text()
    assert hlo.startswith("HloModule") and "sine" in hlo
    assert not [p for p in os.listdir(dump_dir) if p.endswith(".tmp")]


def test_each_compile_appends_one_json_line(dump_dir):
    f = minijax.jit(lambda x: x * 3)
    f(np.ones(4, np.float32))
    f(np.ones(6, np.float32))  # a second signature: a second compile
    lines = (dump_dir / dumps.INDEX_NAME).read_text().splitlines()
    records = [json.loads(line) for line in lines]
    mine = [r for r in records if r["function"] == "jit_<lambda>"]
    assert [r["in_avals"] for r in mine][-2:] == [["f32[4]"], ["f32[6]"]]
    assert mine[-1]["hash"] != mine[-2]["hash"]


def test_eager_compiles_are_dumped_only_on_request(dump_dir):
    x = np.full((3, 11, 7), 0.5, np.float32)  # a shape no other test compiles eagerly
    lax.cos(minijax.device_put(x))
    assert not [r for r in dumps.read_index(dump_dir) if r["kind"] == "eager"]
    config.update("minijax_dump_eager", True)
    lax.exp(minijax.device_put(x))
    eager = [r for r in dumps.read_index(dump_dir) if r["kind"] == "eager"]
    assert [r["function"] for r in eager] == ["exp"]
    assert (dump_dir / eager[0]["files"]["hlo"]).read_text().startswith("HloModule")


def test_dump_xla_asks_xla_for_its_own_dumps(dump_dir):
    config.update("minijax_dump_xla", True)
    minijax.jit(lambda x: jnp.tanh(x) + 2)(np.ones(9, np.float32))
    xla_files = os.listdir(dump_dir / "xla")
    assert any("after_optimizations" in name for name in xla_files), xla_files


def test_file_stems_are_safe():
    assert dumps.file_stem("jit_<lambda>") == "jit__lambda"
    assert dumps.file_stem("a/b c") == "a_b_c"
    assert dumps.file_stem("<>") == "module"


CHILD = r"""
import numpy as np, minijax, minijax.numpy as jnp
print(minijax.jit(lambda x: jnp.cos(x) * 2)(np.ones(5, np.float32)))
"""


def test_env_dump_dir_and_xla_flags_pass_through(tmp_path):
    env = dict(os.environ, MINIJAX_DUMP_DIR=str(tmp_path / "mj"), MINIJAX_PLATFORMS="cpu",
               XLA_FLAGS=f"--xla_dump_to={tmp_path / 'xla'}")
    subprocess.run([sys.executable, "-c", CHILD], env=env, check=True, capture_output=True,
                   timeout=120)
    records = dumps.read_index(tmp_path / "mj")
    assert [r["function"] for r in records if r["kind"] == "jit"][-1] == "jit_<lambda>"
    assert any(name.endswith(".txt") for name in os.listdir(tmp_path / "xla"))
