"""A long-lived worker: ``python -m tools.difftest.worker jax|minijax`` reads one case per
line on stdin and answers one result per line. Run it with /work/venv_jax/bin/python for
``jax`` and with the project's python3 for ``minijax``; it imports only that framework."""

import json
import os
import sys
import time
import warnings

import numpy as np

from tools.difftest.codegen import input_value, program_src
from tools.difftest.ops import PRELUDE

N_DEVICES = 4


def load_framework(name):
    if name == "jax":
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   f" --xla_force_host_platform_device_count={N_DEVICES}")
        import jax
    else:
        os.environ.setdefault("MINIJAX_PLATFORMS", "cpu")
        os.environ.setdefault("MINIJAX_NUM_CPU_DEVICES", str(N_DEVICES))
        import minijax as jax
    return jax


def structure(out):
    """The pytree shape as a string: tuples (namedtuples too) and lists are told apart."""
    if isinstance(out, tuple):
        return "(" + ",".join(structure(o) for o in out) + ")"
    if isinstance(out, list):
        return "[" + ",".join(structure(o) for o in out) + "]"
    if isinstance(out, dict):
        return "{" + ",".join(f"{k}:{structure(out[k])}" for k in sorted(out)) + "}"
    if out is None:
        return "N"
    return "L"


def leaves(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in leaves(o)]
    if isinstance(out, dict):
        return [x for k in sorted(out) for x in leaves(out[k])]
    return [] if out is None else [out]


def sharding_spec(leaf):
    """The output's PartitionSpec on the mesh, trailing Nones dropped (P('d') == P('d', None))."""
    spec = getattr(getattr(leaf, "sharding", None), "spec", None)
    if spec is None:
        return None
    spec = [None if s is None else str(s) for s in spec]
    while spec and spec[-1] is None:
        spec.pop()
    return spec


def encode_leaf(jax, leaf, sharded=False):
    if not hasattr(leaf, "dtype"):
        return {"pytype": type(leaf).__name__, "dtype": "python", "repr": repr(leaf)}
    dtype = str(leaf.dtype)
    if dtype.startswith("key"):
        arr = np.asarray(jax.random.key_data(leaf))
    elif dtype == "[('float0', 'V')]" or "float0" in dtype:
        return {"dtype": "float0", "shape": list(np.shape(leaf)), "hex": ""}
    else:
        arr = np.asarray(leaf)
        dtype = arr.dtype.name
    enc = {"dtype": dtype, "shape": list(np.shape(leaf)), "hex": arr.tobytes().hex(),
           "weak": getattr(leaf, "weak_type", None)}
    if sharded:
        enc["spec"] = sharding_spec(leaf)
    return enc


def first_line(e):
    msg = str(e).strip().splitlines()
    return msg[0][:300] if msg else ""


class Runner:
    def __init__(self, name):
        self.jax = load_framework(name)
        self.base = {"jax": self.jax}
        exec(compile(PRELUDE, "<prelude>", "exec"), self.base)
        self.x64 = False

    def run(self, case):
        t0 = time.perf_counter()
        res = self._run(case)
        res["seconds"] = round(time.perf_counter() - t0, 3)
        return res

    def _run(self, case):
        jax = self.jax
        try:
            if bool(case.get("x64")) != self.x64:
                self.x64 = bool(case.get("x64"))
                jax.config.update("jax_enable_x64", self.x64)
            ns = dict(self.base)
            for name, spec in zip(case["prog"]["params"], case["inputs"]):
                ns[name] = input_value(jax.numpy, spec)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(program_src(case), f"<case {case['id']}>", "exec"), ns)
                out = ns["result"]
                sharded = any(layer[0] in ("shard", "shmap") for layer in case["stack"])
                enc = [encode_leaf(jax, leaf, sharded) for leaf in leaves(out)]
            return {"id": case["id"], "status": "ok", "structure": structure(out),
                    "outputs": enc}
        except Exception as e:  # the comparison is about which errors each side raises
            return {"id": case["id"], "status": "error", "type": type(e).__name__,
                    "msg": first_line(e)}


def main():
    name = sys.argv[1]
    proto = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    # User-level prints must not corrupt the protocol, nor writes to fd 1 from C (XLA's and
    # host callbacks' printing): both go to the log.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    runner = Runner(name)
    proto.write(json.dumps({"ready": name}) + "\n")
    proto.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        res = runner.run(json.loads(line))
        proto.write(json.dumps(res) + "\n")
        proto.flush()


if __name__ == "__main__":
    main()
