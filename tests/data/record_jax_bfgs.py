"""Records jax.scipy.optimize.minimize (BFGS) results for tests/scipy/test_optimize.py.

Run with real JAX (not minijax): /work/venv_jax/bin/python tests/data/record_jax_bfgs.py
It writes tests/data/jax_bfgs.json, or the file its argument names (jax_bfgs.<cpu>.json: a
record from another kind of CPU, tests/jax_records.py): per case, x, fun, nit, nfev, njev,
status and success, in float32 and (x64 on) float64."""

import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.optimize import minimize

A = np.array([[3., 1., 0.], [1., 4., 1.], [0., 1., 2.]])
B = np.array([1., -2., 0.5])


def rosen(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def quad(x, a, b):
    return 0.5 * x @ a @ x - b @ x


CASES = {
    "rosen4_zeros": (rosen, [0., 0., 0., 0.], ()),
    "rosen2_classic": (rosen, [-1.2, 1.0], ()),
    "quad3": (quad, [0., 0., 0.], (A, B)),
}


def record(dtype):
    out = {}
    for name, (fun, x0, args) in CASES.items():
        args = tuple(jnp.asarray(a, dtype) for a in args)
        r = minimize(fun, jnp.asarray(x0, dtype), args, method="BFGS")
        out[name] = dict(x=np.asarray(r.x).tolist(), fun=float(r.fun), nit=int(r.nit),
                         nfev=int(r.nfev), njev=int(r.njev), status=int(r.status),
                         success=bool(r.success))
    return out


if __name__ == "__main__":
    data = {"jax_version": jax.__version__, "float32": record(np.float32)}
    jax.config.update("jax_enable_x64", True)
    data["float64"] = record(np.float64)
    name = sys.argv[1] if len(sys.argv) > 1 else "jax_bfgs.json"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
