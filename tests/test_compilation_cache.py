"""The persistent compilation cache: reused across fresh processes, robust to bad entries."""

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
from minijax.lowering import compile as _compile
from minijax.lowering import dispatch, jaxlib_ext, persistent_cache

# A child process: set up inputs, reset the counters, run one jitted program, print the result
# and the counters of that call alone.
CHILD = r"""
import json, sys
import numpy as np
import minijax, minijax.numpy as jnp
from minijax.lowering import compile as _compile

def program(x, w):
    for _ in range(3):
        x = jnp.tanh(x @ w) + 0.5
    return x.sum(axis=0)

x = minijax.device_put(np.linspace(-1, 1, 48, dtype=np.float32).reshape(6, 8))
w = minijax.device_put(np.eye(8, dtype=np.float32) * 0.7)
_compile.reset_cache_stats()
out = minijax.jit(program)(x, w)
print(json.dumps({"out": np.asarray(out).tolist(), "stats": _compile.cache_stats()}))
"""


def _run_child(cache_dir):
    env = dict(os.environ, MINIJAX_COMPILATION_CACHE_DIR=str(cache_dir), MINIJAX_PLATFORMS="cpu",
               MINIJAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0")
    return subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _result(proc):
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_second_fresh_process_loads_instead_of_compiling(tmp_path):
    cache = tmp_path / "cache"
    # Two processes race on an empty cache (both compile or one loads; both must succeed) ...
    first = [_result(p) for p in [_run_child(cache), _run_child(cache)]]
    for r in first:
        assert r["stats"]["persistent_errors"] == 0 and r["stats"]["persistent_corrupt"] == 0
        assert r["stats"]["persistent_hits"] + r["stats"]["persistent_misses"] == 1
    assert len([p for p in os.listdir(cache) if p.endswith(".mjxc")]) == 1
    assert not [p for p in os.listdir(cache) if p.endswith(".tmp")]
    # ... then a third, fresh process finds the executable on disk: a load, no XLA compile.
    third = _result(_run_child(cache))
    assert third["stats"]["persistent_hits"] == 1
    assert third["stats"]["persistent_misses"] == 0
    assert third["stats"]["xla_compiles"] == 0
    np.testing.assert_array_equal(third["out"], first[0]["out"])


@pytest.fixture
def cache_dir(tmp_path):
    keys = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
            "jax_persistent_cache_min_entry_size_bytes")
    old = {k: getattr(config, k) for k in keys}
    config.update("jax_compilation_cache_dir", str(tmp_path / "cache"))
    config.update("jax_persistent_cache_min_compile_time_secs", 0)
    _compile.reset_cache_stats()
    yield tmp_path / "cache"
    for k, v in old.items():
        config.update(k, v)


def _program(x):
    return jnp.cumsum(jnp.sin(x) * 3.0) - x


def _compile_fresh(x):
    """A new jit object (so its in-memory cache is empty): goes to the persistent cache."""
    return np.asarray(minijax.jit(_program)(x))


def _entries(cache):
    return sorted(p for p in os.listdir(cache) if p.endswith(".mjxc"))


X = np.linspace(0, 1, 13, dtype=np.float32)


def test_in_process_hit_and_counters(cache_dir):
    expected = _compile_fresh(X)
    stats = _compile.cache_stats()
    assert stats["persistent_misses"] >= 1 and stats["persistent_writes"] >= 1
    _compile.reset_cache_stats()
    np.testing.assert_array_equal(_compile_fresh(X), expected)
    stats = _compile.cache_stats()
    assert stats["persistent_hits"] == 1 and stats["xla_compiles"] == 0


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_damaged_entry_is_ignored_and_replaced(cache_dir, damage):
    expected = _compile_fresh(X)
    (entry,) = _entries(cache_dir)
    path = cache_dir / entry
    data = path.read_bytes()
    path.write_bytes({"truncate": data[: len(data) // 2], "garbage": b"\x00junk" * 100,
                      "empty": b""}[damage])
    _compile.reset_cache_stats()
    np.testing.assert_array_equal(_compile_fresh(X), expected)
    stats = _compile.cache_stats()
    assert stats["persistent_corrupt"] == 1 and stats["xla_compiles"] == 1
    assert stats["persistent_writes"] == 1  # the damaged entry was overwritten ...
    _compile.reset_cache_stats()
    np.testing.assert_array_equal(_compile_fresh(X), expected)
    assert _compile.cache_stats()["persistent_hits"] == 1  # ... with a good one


def test_entry_of_another_jaxlib_version_is_ignored(cache_dir, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(jaxlib_ext, "JAXLIB_VERSION", "0.0.1+other")
        expected = _compile_fresh(X)
    (other,) = _entries(cache_dir)
    # Another jaxlib means another key: this version misses and compiles.
    _compile.reset_cache_stats()
    np.testing.assert_array_equal(_compile_fresh(X), expected)
    stats = _compile.cache_stats()
    assert stats["persistent_hits"] == 0 and stats["xla_compiles"] == 1
    (mine,) = [e for e in _entries(cache_dir) if e != other]
    # An entry written by the other version, found under this version's key (copied caches,
    # a hash collision) is rejected by its header and replaced.
    (cache_dir / mine).write_bytes((cache_dir / other).read_bytes())
    _compile.reset_cache_stats()
    np.testing.assert_array_equal(_compile_fresh(X), expected)
    stats = _compile.cache_stats()
    assert stats["persistent_stale"] == 1 and stats["xla_compiles"] == 1
    _compile.reset_cache_stats()
    _compile_fresh(X)
    assert _compile.cache_stats()["persistent_hits"] == 1


def test_min_compile_time_threshold_skips_fast_compiles(cache_dir):
    config.update("jax_persistent_cache_min_compile_time_secs", 1e6)
    _compile_fresh(X)
    stats = _compile.cache_stats()
    assert stats["persistent_skipped"] >= 1 and stats["persistent_writes"] == 0
    assert not os.path.exists(cache_dir) or not _entries(cache_dir)


def test_eager_primitive_compiles_use_the_cache(cache_dir):
    x = minijax.device_put(np.full((5, 3, 2), 0.25, np.float32))
    dispatch._eager_cache.clear()
    expected = np.asarray(lax.atan2(x, x + 1))
    assert _compile.cache_stats()["persistent_writes"] >= 1
    dispatch._eager_cache.clear()  # as in a fresh process: the in-memory cache is empty
    _compile.reset_cache_stats()
    np.testing.assert_array_equal(np.asarray(lax.atan2(x, x + 1)), expected)
    stats = _compile.cache_stats()
    assert stats["persistent_hits"] >= 1 and stats["xla_compiles"] == 0


def test_key_is_stable_and_depends_on_compile_options():
    lowered = minijax.jit(_program).lower(X)
    dev = minijax.devices()[0]
    from minijax.lowering import backends

    opts = backends.compile_options([dev])
    k1, parts = persistent_cache.cache_key(lowered.compiler_ir(), [dev], opts)
    k2, _ = persistent_cache.cache_key(lowered.compiler_ir(), [dev], opts)
    assert k1 == k2 and len(k1) == 64
    assert parts["jaxlib"] == jaxlib_ext.JAXLIB_VERSION
    assert parts["platform"] == minijax.default_backend()
    jaxlib_ext.set_xla_dump_to(opts, "/tmp/somewhere")
    assert persistent_cache.cache_key(lowered.compiler_ir(), [dev], opts)[0] != k1
