"""Multi-process minijax: 2 processes x 2 CPU devices on 127.0.0.1 (tests/multiprocess_worker.py
runs a psum over all 4 devices, a sharded jit and a data-parallel training step, checking each
against NumPy), and the clear timeout of an unreachable coordinator."""

import os
import socket
import subprocess
import sys

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


def test_two_processes_psum_sharded_jit_and_training_step():
    port = _free_port()
    procs = []
    try:
        for rank in (0, 1):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "tests.multiprocess_worker", str(port), str(rank)],
                cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True))
        outs = []
        for p in procs:
            out, _ = p.communicate(timeout=120)
            outs.append(out)
        for rank, (p, out) in enumerate(zip(procs, outs)):
            assert p.returncode == 0, f"process {rank} failed:\n{out[-3000:]}"
            assert f"OK {rank}" in out
    finally:
        for p in procs:  # never leave a child behind (one may hang in a collective)
            if p.poll() is None:
                p.kill()
                p.wait()


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
