"""minijax's tridiagonal_solve against real JAX's on the same device (dtypes, NaN and inf
positions, values to 1e-5 relative): float32/64 and complex64/128, m = 1, 2, 3, 9 (the GPU's lax fallback below 3,
cuSPARSE gtsv2 above), singular systems, with and without perturb_singular. Needs real JAX in
the same interpreter (the lent GPU machines have it); each framework runs in its own process:
    PYTHONPATH=. python3 tools/difftest/gpu_tridiagonal_vs_jax.py"""
import json
import subprocess
import sys

import numpy as np

code = r'''
import sys, json, numpy as np
name = sys.argv[1]
if name == "jax":
    import jax; jax.config.update("jax_enable_x64", True); from jax import lax
else:
    import minijax as jax; jax.config.update("jax_enable_x64", True); from minijax import lax
print(jax.devices()[0].platform, file=sys.stderr)
rng = np.random.default_rng(0)
out = {}
for dt in ["float32", "float64", "complex64", "complex128"]:
    for m in [1, 2, 3, 9]:
        for sing in [False, True]:
            for pert in [False, True]:
                dl, d, du = (rng.standard_normal((2, m)).astype(dt) for _ in range(3))
                b = rng.standard_normal((2, m, 3)).astype(dt)
                if sing and m > 1:
                    dl[:, 1] = 0; d[:, 1] = 0; du[:, 1] = 0
                x = jax.jit(lambda *a: lax.linalg.tridiagonal_solve(*a, perturb_singular=pert))(dl, d, du, b)
                x = np.asarray(x)
                out[f"{dt}-{m}-{sing}-{pert}"] = [x.dtype.str, x.real.tolist(), x.imag.tolist() if np.iscomplexobj(x) else None]
print(json.dumps(out))
'''
res = {}
for name in ["jax", "minijax"]:
    p = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True)
    print(name, p.stderr[-600:])
    res[name] = json.loads(p.stdout)
bad = 0
for k in res["jax"]:
    a, b = res["jax"][k], res["minijax"][k]
    ar = np.array(a[1]) + (1j * np.array(a[2]) if a[2] else 0)
    br = np.array(b[1]) + (1j * np.array(b[2]) if b[2] else 0)
    same_nan = np.array_equal(np.isnan(ar), np.isnan(br))
    fin = np.isfinite(ar) & np.isfinite(br)
    err = np.max(np.abs(ar[fin] - br[fin]) / (1 + np.abs(ar[fin]))) if fin.any() else 0
    ok = a[0] == b[0] and same_nan and np.array_equal(np.isinf(ar), np.isinf(br)) and err < 1e-5
    bad += not ok
    print(k, "ok" if ok else "DIFF", a[0], b[0], "maxrel %.2e" % err, "nan jax %d mj %d" % (np.isnan(ar).sum(), np.isnan(br).sum()))
print("cases", len(res["jax"]), "differ", bad)
