"""Multi-process minijax: 2 processes x 2 CPU devices on 127.0.0.1 (tests/multiprocess_worker.py
runs a psum over all 4 devices, a sharded jit and a data-parallel training step, checking each
against NumPy), and the clear timeout of an unreachable coordinator."""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env():
    env = dict(os.environ, MINIJAX_NUM_CPU_DEVICES="2", MINIJAX_PLATFORMS="cpu",
               TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("XLA_FLAGS", None)
    return env


def _run_processes(commands, env, timeout):
    """Starts one process per command, waits for all; their outputs. Never leaves a child
    behind (one may hang in a collective when another failed)."""
    procs = []
    try:
        for cmd in commands:
            procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True))
        outs = [p.communicate(timeout=timeout)[0] for p in procs]
        for rank, (p, out) in enumerate(zip(procs, outs)):
            assert p.returncode == 0, f"process {rank} failed:\n{out[-3000:]}"
        return outs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_two_processes_psum_sharded_jit_and_training_step():
    port = _free_port()
    outs = _run_processes(
        [[sys.executable, "-m", "tests.multiprocess_worker", str(port), str(rank)]
         for rank in (0, 1)], _env(), timeout=120)
    for rank, out in enumerate(outs):
        assert f"OK {rank}" in out


@pytest.mark.devices(4)
@pytest.mark.parametrize("mode", ["fsdp", "tp"])
def test_sharded_training_example_across_two_processes(tmp_path, mode):
    """examples/sharded_training.py as a 2-process job (2 CPU devices each, gloo): its losses
    equal the same run in this one process on 4 devices (same init, same batches)."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import sharded_training as ex

    flags = ["--quick", "--steps", "6", "--bench", "--no-progress", "--parallel", mode]
    port = _free_port()
    env = dict(_env(), PYTHONPATH=ROOT)
    _run_processes(
        [[sys.executable, os.path.join(ROOT, "examples", "sharded_training.py"), *flags,
          "--cpu-devices", "2", "--coordinator", f"127.0.0.1:{port}", "--num-processes", "2",
          "--process-id", str(rank), "--json", str(tmp_path / "run.json")]
         for rank in (0, 1)], env, timeout=180)
    with open(tmp_path / "run.json") as f:
        job = json.load(f)  # written by process 0 only
    assert job["processes"] == 2 and job["devices"] == 4
    one = ex.main([*flags, "--num-devices", "4"])["summary"]
    assert one["processes"] == 1 and one["mesh"] == job["mesh"]
    np.testing.assert_allclose(job["losses"], one["losses"], rtol=2e-5)


def test_unreachable_coordinator_times_out_clearly():
    port = _free_port()  # nothing listens there
    code = (
        "import minijax.distributed as d\n"
        "try:\n"
        f"    d.initialize('127.0.0.1:{port}', 2, 1, initialization_timeout=2)\n"
        "except TimeoutError as e:\n"
        "    print('TIMEOUT', e)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert "TIMEOUT" in out, out[-3000:]
    assert f"127.0.0.1:{port}" in out and "within 2 s" in out


@pytest.mark.parametrize("bad", [(2, 2), (2, -1)])
def test_bad_process_id(bad):
    from minijax import distributed

    with pytest.raises(ValueError, match="process_id"):
        distributed.initialize("127.0.0.1:1", bad[0], bad[1])
