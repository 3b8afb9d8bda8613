"""minijax.profiler: traces TensorBoard/Perfetto can open, with our annotations and XLA's ops."""

import glob
import gzip
import json
import os
import socket
import threading
import time
import urllib.request

import numpy as np
import pytest
from jaxlib._profile_data import ProfileData

import minijax
import minijax.numpy as jnp
from minijax import profiler


def _event_names(xplane_path):
    with open(xplane_path, "rb") as f:
        data = ProfileData.from_serialized_xspace(f.read())
    return {e.name for plane in data.planes for line in plane.lines for e in line.events}


@pytest.fixture
def program():
    f = minijax.jit(lambda x: jnp.tanh(x @ x) + 1.0)
    x = minijax.device_put(np.ones((32, 32), np.float32))
    f(x).block_until_ready()  # compiled before the trace: the trace shows only running
    return lambda: f(x).block_until_ready()


def test_trace_writes_an_xplane_with_annotations_and_xla_ops(tmp_path, program):
    @profiler.annotate_function
    def train_step():
        return program()

    with profiler.trace(tmp_path) as t:
        with profiler.TraceAnnotation("minijax_test_region", batch=3):
            program()
        with profiler.StepTraceAnnotation("train", step_num=7):
            train_step()
        with profiler.annotate("annotate_cm"):
            program()

    run_dir = t.run_dir
    assert os.path.dirname(run_dir) == str(tmp_path / "plugins" / "profile")
    (xplane,) = glob.glob(os.path.join(run_dir, "*.xplane.pb"))
    assert os.path.getsize(xplane) > 0
    names = _event_names(xplane)
    assert {"minijax_test_region", "train", "annotate_cm"} <= names
    assert any("train_step" in n for n in names)
    # XLA's side: the executable running (PjRt spans) and the CPU kernels it launched.
    assert any("Execute" in n for n in names), sorted(names)[:50]
    if minijax.default_backend() == "cpu":  # GPU kernels are traced only where CUPTI is
        assert any("fusion" in n or "tanh" in n for n in names), sorted(names)[:50]


def test_start_stop_and_one_trace_at_a_time(tmp_path, program):
    profiler.start_trace(str(tmp_path / "a"))
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(str(tmp_path / "b"))
        program()
    finally:
        run_dir = profiler.stop_trace()
    assert glob.glob(os.path.join(run_dir, "*.xplane.pb"))
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()


def test_perfetto_trace_and_link(tmp_path, program, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(profiler, "PERFETTO_PORT", port)
    fetched = {}

    def fetch():  # plays ui.perfetto.dev: fetches the file once the server is up
        for _ in range(200):
            try:
                url = f"http://127.0.0.1:{port}/perfetto_trace.json.gz"
                with urllib.request.urlopen(url, timeout=5) as r:
                    fetched["body"] = r.read()
                    fetched["cors"] = r.headers.get("Access-Control-Allow-Origin")
                return
            except OSError:
                time.sleep(0.05)

    thread = threading.Thread(target=fetch, daemon=True)
    thread.start()
    with profiler.trace(tmp_path, create_perfetto_link=True) as t:
        with profiler.annotate("perfetto_region"):
            program()
    thread.join(timeout=30)
    path = os.path.join(t.run_dir, "perfetto_trace.json.gz")
    with gzip.open(path) as f:
        trace = json.load(f)
    assert "metadata" not in trace and trace["traceEvents"]
    assert any(e.get("name") == "perfetto_region" for e in trace["traceEvents"])
    assert fetched["body"] == open(path, "rb").read()
    assert fetched["cors"] == "https://ui.perfetto.dev"


def test_device_memory_profile_is_a_gzipped_pprof(tmp_path):
    keep = minijax.device_put(np.ones((256,), np.float32))
    data = profiler.device_memory_profile()
    assert data[:2] == b"\x1f\x8b" and len(gzip.decompress(data)) > 0
    profiler.save_device_memory_profile(tmp_path / "mem.prof")
    assert (tmp_path / "mem.prof").stat().st_size > 0
    del keep


def test_annotations_are_cheap_without_a_trace():
    @profiler.annotate_function(name="named")
    def f(a, b=1):
        return a + b

    assert f(1, b=2) == 3 and f.__name__ == "f"
    with profiler.annotate("nothing"):
        pass

    @profiler.annotate("decorated")
    def g():
        return 5

    assert g() == 5
