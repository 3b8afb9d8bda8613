"""minijax's GPU linear algebra kernels against real JAX's on the same device: every result's
shape, dtype, NaN and inf positions, and values to 1e-5. Needs real JAX in the same interpreter
(the lent GPU machines have it); each framework runs in its own process:
    PYTHONPATH=. python3 tools/difftest/gpu_linalg_vs_jax.py
Cases: tridiagonal_solve in float32/64 and complex64/128 with m = 1, 2, 3, 9 (JAX's lax fallback
below 3, cuSPARSE gtsv2 above), singular systems, with and without perturb_singular; svd of
square, tall, wide, batched and 36 x 40 matrices with every SvdAlgorithm (the default is
cuSOLVER's Jacobi up to 1024 x 1024, so both gesvdj paths: batched up to 32 x 32, economy
above), full_matrices and compute_uv both ways; eig of real and complex, single and batched matrices
with every EigImplementation and left/right eigenvectors both ways (cuSOLVER's Xgeev, or the
hybrid kernel: host LAPACK's geev or MAGMA's), under jax_use_magma "auto" and "off"; QR with
column pivoting (the hybrid geqp3 kernel) through lax.linalg.qr and scipy.linalg.qr."""
import json
import subprocess
import sys

import numpy as np

CASES = r'''
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
if sys.argv[1] == "jax":
    import jax; import jax.scipy.linalg; from jax import lax
else:
    import minijax as jax; import minijax.scipy.linalg; from minijax import lax
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(0)
out = {}

def record(key, fn):
    try:
        res = fn()
        out[key] = [[np.asarray(r).dtype.str, np.asarray(r).shape, np.asarray(r).real.ravel().tolist(),
                     np.asarray(r).imag.ravel().tolist()]
                    for r in (res if isinstance(res, (tuple, list)) else [res])]
    except Exception as e:  # a refusal must be the same one
        out[key] = ["error", type(e).__name__, str(e)[:200]]

for dt in ["float32", "float64", "complex64", "complex128"]:
    for m in [1, 2, 3, 9]:
        for singular in [False, True]:
            for perturb in [False, True]:
                dl, d, du = (rng.standard_normal((2, m)).astype(dt) for _ in range(3))
                b = rng.standard_normal((2, m, 3)).astype(dt)
                if singular and m > 1:
                    dl[:, 1] = d[:, 1] = du[:, 1] = 0
                record(f"tridiagonal_solve {dt} m={m} singular={singular} perturb={perturb}",
                       lambda: jax.jit(lambda *a: lax.linalg.tridiagonal_solve(
                           *a, perturb_singular=perturb))(dl, d, du, b))

A = lax.linalg.SvdAlgorithm
for dt in ["float32", "float64", "complex64"]:
    for shape in [(4, 4), (5, 3), (3, 5), (2, 6, 4), (40, 36), (36, 40)]:
        x = rng.standard_normal(shape).astype(dt)
        if dt.startswith("complex"):
            x = (x + 1j * rng.standard_normal(shape)).astype(dt)
        for alg in [None, A.DEFAULT, A.JACOBI, A.POLAR, A.QR]:
            for full in [False, True]:
                for uv in [True, False]:
                    record(f"svd {dt} {shape} {alg} full_matrices={full} compute_uv={uv}",
                           lambda: jax.jit(lambda x: lax.linalg.svd(
                               x, full_matrices=full, compute_uv=uv, algorithm=alg))(x))
E = lax.linalg.EigImplementation
for magma in ["auto", "off"]:
    jax.config.update("jax_use_magma", magma)
    for dt in ["float32", "float64", "complex64", "complex128"]:
        for shape in [(4, 4), (2, 5, 5), (0, 0)]:
            x = rng.standard_normal(shape).astype(dt)
            if dt.startswith("complex"):
                x = (x + 1j * rng.standard_normal(shape)).astype(dt)
            for impl in [None, E.CUSOLVER, E.LAPACK, E.MAGMA]:
                for left in [False, True]:
                    for right in [False, True]:
                        record(f"eig magma={magma} {dt} {shape} {impl} left={left} right={right}",
                               lambda: jax.jit(lambda x: lax.linalg.eig(
                                   x, compute_left_eigenvectors=left,
                                   compute_right_eigenvectors=right, implementation=impl))(x))
jax.config.update("jax_use_magma", "auto")
for dt in ["float32", "float64", "complex64", "complex128"]:
    for shape in [(4, 4), (5, 3), (3, 5), (2, 4, 3)]:
        x = rng.standard_normal(shape).astype(dt)
        if dt.startswith("complex"):
            x = (x + 1j * rng.standard_normal(shape)).astype(dt)
        x[..., 1] = x[..., 0]  # a tie in the column norms
        for full in [False, True]:
            for magma in [None, False, True]:
                record(f"qr pivoting {dt} {shape} full_matrices={full} use_magma={magma}",
                       lambda: jax.jit(lambda x: lax.linalg.qr(
                           x, pivoting=True, full_matrices=full, use_magma=magma))(x))
        if len(shape) == 2:
            record(f"scipy qr pivoting {dt} {shape}",
                   lambda: jax.jit(lambda x: jax.scipy.linalg.qr(x, pivoting=True))(x))
print(json.dumps(out))
'''


def run(framework, cases=CASES):
    """The JSON the ``cases`` script prints, run in a fresh process under ``framework``."""
    p = subprocess.run([sys.executable, "-c", cases, framework], capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"{framework} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def same(a, b):
    if a[0] == "error" or b[0] == "error":
        return a == b
    for (dt_a, shape_a, re_a, im_a), (dt_b, shape_b, re_b, im_b) in zip(a, b):
        x, y = np.array(re_a) + 1j * np.array(im_a), np.array(re_b) + 1j * np.array(im_b)
        if (dt_a, shape_a) != (dt_b, shape_b) or not np.array_equal(np.isnan(x), np.isnan(y)) \
                or not np.array_equal(np.isinf(x), np.isinf(y)):
            return False
        finite = np.isfinite(x) & np.isfinite(y)
        if not np.allclose(x[finite], y[finite], rtol=1e-5, atol=1e-5):
            return False
    return len(a) == len(b)


def main():
    jax_out, minijax_out = run("jax"), run("minijax")
    differ = [k for k in jax_out if not same(jax_out[k], minijax_out[k])]
    for k in differ:
        print("DIFF", k, "| jax:", str(jax_out[k])[:200], "| minijax:", str(minijax_out[k])[:200])
    print(f"cases {len(jax_out)}, differ {len(differ)}")


if __name__ == "__main__":
    main()
