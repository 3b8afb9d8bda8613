"""Compare two results of one case: dtype, shape, weak type and pytree structure exactly,
NaN/inf positions exactly, values to a tolerance per dtype.

Tolerances: both sides compile with the same XLA (jaxlib 0.10.2) for the same CPU, so an op
lowered the same way agrees bit for bit; differences come from lowering choices (another
decomposition, a fused or reassociated sum), a few ulps per op, amplified by the conditioning
of what follows. The relative tolerance is about 10-100 ulp of the dtype: float32 1e-5 (84 ulp
of 2^-23), float16 1e-2 (10 ulp of 2^-10), bfloat16 6e-2 (8 ulp of 2^-7), float64 1e-12; the
absolute floor is rtol times the largest finite magnitude in the output (cancellation in a sum
is bounded by eps * sum|terms|). Linear algebra multiplies the tolerance by 100 (condition
numbers of random 3x3 matrices reach ~1e2), and each derivative layer past the first by 10 (a
second derivative differences first ones).
Integers, bools and PRNG bits are exact.
"""

import math

import numpy as np

from tools.difftest.codegen import decode_array

RTOL = {"float16": 1e-2, "bfloat16": 6e-2, "float32": 1e-5, "float64": 1e-12,
        "complex64": 1e-5, "complex128": 1e-12}
LINALG_OPS = {"solve", "inv", "cholesky", "qr_r", "qr", "svdvals", "eigvalsh", "eigh_vals",
              "det", "slogdet", "triangular_solve", "spd"}
DERIV = {"grad", "vag", "jvp", "vjp", "linearize", "jacfwd", "jacrev", "hessian"}
# JAX refuses these on purpose and minijax goes beyond them (docs/sharp_bits.md says so).
INTENDED = ["Reverse-mode differentiation does not work for lax.while_loop"]
SEVERITY = {"crash": 3, "accepts": 3, "value": 3, "nan": 3, "inf": 3, "dtype": 2, "shape": 2,
            "structure": 2, "sharding": 2, "weak_type": 1, "error_type": 1, "harness": 1,
            "intended": 0}


def ops_of(body):
    for st in body["stmts"]:
        yield st["op"]
        for b in st.get("bodies", []):
            yield from ops_of(b)


def tolerance_scale(case):
    scale = 1.0
    if LINALG_OPS & set(ops_of(case["prog"])):
        scale *= 100
    n_deriv = sum(layer[0] in DERIV for layer in case["stack"])
    return scale * 10 ** max(n_deriv - 1, 0)


def mismatch(kind, detail):
    return {"kind": kind, "severity": SEVERITY[kind], "detail": detail}


def compare(case, expected, actual):
    """None when `actual` (minijax) agrees with `expected` (JAX); else a mismatch record."""
    es, as_ = expected["status"], actual["status"]
    if "harness" in (es, as_):
        return mismatch("harness", f"jax {expected.get('type')} / minijax {actual.get('type')}")
    if es == "error" and as_ == "error":
        if expected["type"] != actual["type"]:
            return mismatch("error_type", f"jax {expected['type']}: {expected['msg']} | "
                                          f"minijax {actual['type']}: {actual['msg']}")
        return None
    if es == "error":
        kind = "intended" if any(s in expected["msg"] for s in INTENDED) else "accepts"
        return mismatch(kind, f"jax raised {expected['type']}: {expected['msg']}")
    if as_ == "error":
        return mismatch("crash", f"minijax raised {actual['type']}: {actual['msg']}")
    if expected["structure"] != actual["structure"]:
        return mismatch("structure", f"{expected['structure']} vs {actual['structure']}")
    scale = tolerance_scale(case)
    for k, (e, a) in enumerate(zip(expected["outputs"], actual["outputs"])):
        m = compare_leaf(e, a, scale)
        if m:
            m["detail"] = f"leaf {k}: {m['detail']}"
            return m
    return None


def compare_leaf(e, a, scale):
    if e["dtype"] != a["dtype"]:
        return mismatch("dtype", f"{e['dtype']} vs {a['dtype']}")
    if e.get("shape") != a.get("shape"):
        return mismatch("shape", f"{e.get('shape')} vs {a.get('shape')}")
    if e["dtype"] == "python":
        return None if e["repr"] == a["repr"] else mismatch("value", f"{e['repr']} vs {a['repr']}")
    if e["dtype"] == "float0":
        return None
    if e.get("spec") != a.get("spec"):
        return mismatch("sharding", f"PartitionSpec {e.get('spec')} vs {a.get('spec')}")
    if e.get("weak") is not None and a.get("weak") is not None and e["weak"] != a["weak"]:
        return mismatch("weak_type", f"weak_type {e['weak']} vs {a['weak']}")
    dt = e["dtype"][4:-1] if e["dtype"].startswith("key<") else e["dtype"]
    ea = decode_array({"dtype": "uint32" if e["dtype"].startswith("key<") else dt,
                       "shape": [-1], "hex": e["hex"]})
    aa = decode_array({"dtype": "uint32" if e["dtype"].startswith("key<") else dt,
                       "shape": [-1], "hex": a["hex"]})
    if dt not in RTOL:  # bools, integers, PRNG key data
        bad = np.flatnonzero(ea != aa)
        if bad.size:
            i = bad[0]
            return mismatch("value", f"[{i}] {ea[i]} vs {aa[i]} ({bad.size} differ)")
        return None
    parts = [(ea.real, aa.real), (ea.imag, aa.imag)] if ea.dtype.kind == "c" else [(ea, aa)]
    rtol = RTOL[dt] * scale
    for x, y in parts:
        x, y = x.astype(np.float64), y.astype(np.float64)
        nx, ny = np.isnan(x), np.isnan(y)
        if (nx != ny).any():
            i = np.flatnonzero(nx != ny)[0]
            return mismatch("nan", f"[{i}] jax {x[i]} vs minijax {y[i]}")
        ix, iy = np.isinf(x), np.isinf(y)
        if (ix != iy).any() or (x[ix] != y[iy]).any():
            i = np.flatnonzero((ix != iy) | (ix & (x != y)))[0]
            return mismatch("inf", f"[{i}] jax {x[i]} vs minijax {y[i]}")
        fin = ~(nx | ix)
        if fin.any():
            big = np.abs(x[fin]).max()
            atol = rtol * max(1.0, big if math.isfinite(big) else 1.0)
            err = np.abs(x[fin] - y[fin])
            bad = err > atol + rtol * np.abs(x[fin])
            if bad.any():
                i = np.flatnonzero(fin)[np.flatnonzero(bad)[0]]
                return mismatch("value", f"[{i}] jax {x[i]!r} vs minijax {y[i]!r} "
                                         f"(rtol {rtol:g}, {bad.sum()} of {fin.sum()} differ)")
    return None
