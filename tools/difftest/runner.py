"""Drives the two long-lived workers (real JAX in its venv, minijax in the project's python),
one case at a time on both, with a timeout per case (a hung or crashed worker is restarted)."""

import json
import os
import queue
import subprocess
import sys
import threading

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHONS = {"jax": os.environ.get("DIFFTEST_JAX_PYTHON", "/work/venv_jax/bin/python"),
           "minijax": os.environ.get("DIFFTEST_MINIJAX_PYTHON", sys.executable)}


class Worker:
    def __init__(self, framework, log_dir="/tmp", nice=10):
        self.framework, self.nice = framework, nice
        self.log = open(os.path.join(log_dir, f"difftest_{framework}_{os.getpid()}.log"), "a")
        self.proc = None
        self.start()

    def start(self):
        env = dict(os.environ, PYTHONPATH=REPO, PYTHONHASHSEED="0",
                   # one XLA thread each: the comparison needs no speed and the cores are shared
                   XLA_FLAGS="--xla_cpu_multi_thread_eigen=false")
        cmd = ["nice", "-n", str(self.nice), PYTHONS[self.framework], "-m",
               "tools.difftest.worker", self.framework]
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        ready = self.lines.get(timeout=120)
        assert ready and json.loads(ready).get("ready") == self.framework, ready

    @staticmethod
    def _read(proc, q):
        for line in proc.stdout:
            q.put(line)
        q.put(None)

    def send(self, case):
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()

    def receive(self, case, timeout):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            line, why = None, "Timeout"
        else:
            why = "WorkerDied"
        if line is None:
            self.restart()
            return {"id": case["id"], "status": "harness", "type": why, "msg": ""}
        return json.loads(line)

    def restart(self):
        self.close()
        self.start()

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Pair:
    """Both frameworks; ``run(case)`` -> (jax_result, minijax_result)."""

    def __init__(self, frameworks=("jax", "minijax"), timeout=60):
        self.workers = {f: Worker(f) for f in frameworks}
        self.timeout = timeout

    def run(self, case):
        for w in self.workers.values():
            w.send(case)
        return tuple(w.receive(case, self.timeout) for w in self.workers.values())

    def close(self):
        for w in self.workers.values():
            w.close()
