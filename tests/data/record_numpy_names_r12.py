"""Records JAX 0.10.2's results for tests/test_numpy_names_r12.py (jnp.mgrid/ogrid/r_/c_ and
friends): run with the JAX venv, `python tests/data/record_numpy_names_r12.py`. Each case is
an expression in `jnp` and `np`; the test evaluates it with minijax.numpy."""

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

CASES = [
    "jnp.mgrid[0:3]", "jnp.mgrid[0:2, 0:3]", "jnp.mgrid[0:1:3j]", "jnp.mgrid[0.:1:.5]",
    "jnp.mgrid[0:4:2, 0:1:3j]", "jnp.mgrid[-1:1:5j, 1:3]", "jnp.mgrid[()]", "jnp.mgrid[:3]",
    "jnp.ogrid[0:2, 0:3]", "jnp.ogrid[0:3]", "jnp.ogrid[0:1:3j, 0:2]", "jnp.ogrid[1:4:2, 0.5:2]",
    "jnp.r_[1, 2, jnp.array([3, 4])]", "jnp.r_[1.5, 2]", "jnp.r_[0:3, 5]",
    "jnp.r_['-1', jnp.ones((2, 2)), jnp.zeros((2, 1))]", "jnp.r_['0,2', [1, 2], [3, 4]]",
    "jnp.r_['r', [1, 2]]", "jnp.r_['c', [1, 2]]", "jnp.r_['1,2,0', [1, 2, 3], [4, 5, 6]]",
    "jnp.r_['0,2,0', [1, 2, 3], [4, 5, 6]]", "jnp.r_['0,3,-2', [1, 2], [3, 4]]",
    "jnp.r_[-1:1:6j, [0] * 3, 5, 6]", "jnp.r_[np.int8(3), np.arange(2, dtype=np.int8)]",
    "jnp.r_[jnp.array([1, 2], jnp.bfloat16), 3.5]", "jnp.r_[[True], [False]]",
    "jnp.c_[[1, 2], [3, 4]]", "jnp.c_[jnp.ones((2, 2)), [[5.], [6.]]]",
    "jnp.c_[np.array([[1, 2, 3]]), 0, 0, np.array([[4, 5, 6]])]", "jnp.c_['r', [1, 2], [3, 4]]",
    "jnp.c_['0,2,0', [1, 2, 3], [4, 5, 6]]", "jnp.c_[1:3, [7, 8]]",
]

# JAX's narrow dtypes on XLA CPU: each op below for each dtype T (int1/uint1 arrays fail in
# JAX 0.10.2 already at creation, so only their promotion is recorded).
NARROW = ["int2", "int4", "uint2", "uint4", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn",
          "float8_e3m4", "float8_e4m3", "float8_e8m0fnu"]
NARROW_OPS = [
    "jnp.array([1, 2, 3], dtype=T)", "jnp.array([1, 2, 3], T) * jnp.array([3, 2, 1], T)",
    "jnp.array([1, 2, 3], T) + 1", "jax.jit(lambda a: a + a)(jnp.array([1, 2, 3], T))",
    "jnp.array([1, 2, 3], T).astype(jnp.float32)", "jnp.arange(-2., 3.).astype(T)",
    "jnp.array([1, 2, 3], T).sum()", "jnp.array([1, 2, 3], T) + 1.0", "T(2.5)",
    "jnp.array([1, 2, 3], T).max()", "jnp.array([1, 2, 3], T).min()",
    "jnp.array([1, 2, 3], T) + jnp.array([1, 2, 3], jnp.int8)",
    "jnp.array([1, 2, 3], T) - jnp.array([1., 2., 3.], jnp.float32)",
]
PROMOTIONS = ["int1", "int2", "int4", "uint1", "uint2", "uint4", "float4_e2m1fn", "float6_e2m3fn",
              "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu"]

ERRORS = [
    "jnp.r_['x,y', [1]]", "jnp.r_[[1], 'r']", "jnp.c_[[1, 2], jnp.ones(3)]",
]


def record(value):
    if isinstance(value, (list, tuple)):
        return {"list": [record(v) for v in value]}
    return {"value": np.asarray(value, np.float64).tolist(), "shape": list(value.shape),
            "dtype": str(value.dtype), "weak_type": bool(value.weak_type)}


def error_of(case):
    try:
        eval(case)
    except Exception as e:  # the test compares the type (and the message of ours)
        return [type(e).__name__, str(e).split("\n")[0]]
    raise AssertionError(f"{case} did not fail")


def main():
    out = {"jax_version": jax.__version__, "cases": {}, "errors": {}, "promotions": {}}
    for case in CASES:
        out["cases"][case] = record(eval(case))
    for case in ERRORS:
        out["errors"][case] = error_of(case)
    for name in NARROW:
        for op in NARROW_OPS:
            case = op.replace("T", f"jnp.{name}")
            try:
                out["cases"][case] = record(eval(case))
            except Exception:
                out["errors"][case] = error_of(case)
    for name in PROMOTIONS:
        for other in ("jnp.float32", "jnp.int8", "int", "float", f"jnp.{name}"):
            case = f"jnp.promote_types(jnp.{name}, {other})"
            try:
                out["promotions"][case] = str(eval(case))
            except Exception:
                out["errors"][case] = error_of(case)
    path = pathlib.Path(__file__).with_name("numpy_names_r12.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
