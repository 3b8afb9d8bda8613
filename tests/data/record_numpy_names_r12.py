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

# jnp.ufunc methods (the jnp ufuncs' own fast paths and the generic loops of frompyfunc's).
UFUNC_CASES = [
    "jnp.add.reduce(jnp.arange(6).reshape(2, 3))", "jnp.add.reduce(jnp.arange(6.).reshape(2, 3), axis=1, keepdims=True)",
    "jnp.add.reduce(jnp.arange(6).reshape(2, 3), axis=None, initial=10)",
    "jnp.add.reduce(jnp.array([True, True]))", "jnp.multiply.reduce(jnp.arange(1, 5), dtype=jnp.float32)",
    "jnp.add.accumulate(jnp.arange(4))", "jnp.multiply.accumulate(jnp.arange(1., 5.))",
    "jnp.subtract.accumulate(jnp.arange(4))", "jnp.maximum.accumulate(jnp.array([1, 3, 2, 5]))",
    "jnp.maximum.reduce(jnp.array([1, 5, 2]))", "jnp.minimum.reduce(jnp.arange(6.).reshape(2, 3), axis=1)",
    "jnp.maximum.reduce(jnp.array([1, 5, 2]), initial=7)",
    "jnp.maximum.reduce(jnp.array([1, 5, 2]), where=jnp.array([True, False, True]), initial=0)",
    "jnp.logaddexp.reduce(jnp.array([0., 0., 1.]))", "jnp.logaddexp2.reduce(jnp.array([[1., 2.], [3., 4.]]), axis=1)",
    "jnp.bitwise_or.reduce(jnp.array([1, 2, 4]))", "jnp.bitwise_and.reduce(jnp.array([7, 6, 14]))",
    "jnp.bitwise_xor.accumulate(jnp.array([1, 3, 7]))",
    "jnp.logical_and.reduce(jnp.array([True, False]))", "jnp.logical_or.reduce(jnp.array([0, 2]))",
    "jnp.logical_xor.reduce(jnp.array([True, True, True]))",
    "jnp.logical_and.reduce(jnp.array([True, True]), initial=False)",
    "jnp.add.at(jnp.zeros(3), jnp.array([0, 0, 2]), 1., inplace=False)",
    "jnp.multiply.at(jnp.ones(3), jnp.array([1, 1]), jnp.array([2., 3.]), inplace=False)",
    "jnp.subtract.at(jnp.arange(4), 1, 5, inplace=False)",
    "jnp.add.at(jnp.array([True, False]), jnp.array([1, 1]), True, inplace=False)",
    "jnp.maximum.at(jnp.zeros(3), jnp.array([1, 1]), jnp.array([2., 5.]), inplace=False)",
    "jnp.negative.at(jnp.arange(4), jnp.array([0, 2]), inplace=False)",
    "jnp.add.reduceat(jnp.arange(8), jnp.array([0, 4, 1, 5]))",
    "jnp.minimum.reduceat(jnp.arange(8.).reshape(2, 4), jnp.array([0, 2]), axis=1)",
    "jnp.multiply.outer(jnp.arange(3), jnp.arange(2))", "jnp.subtract.outer(jnp.ones((2, 2)), jnp.arange(3))",
    "jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1)(jnp.arange(3), 2)",
    "jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1).reduce(jnp.arange(1, 4))",
    "jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=0).reduce(jnp.arange(1, 4), initial=2)",
    "jnp.frompyfunc(lambda a, b: a - b, 2, 1).accumulate(jnp.arange(1., 5.))",
    "jnp.frompyfunc(lambda a, b: jnp.maximum(a, b), 2, 1).reduce(jnp.arange(6).reshape(2, 3), axis=1)",
    "jnp.frompyfunc(lambda a, b: a + b, 2, 1).outer(jnp.arange(2), jnp.arange(3))",
    "jnp.frompyfunc(lambda a, b: a + b, 2, 1).reduceat(jnp.arange(6), jnp.array([0, 3]))",
    "jnp.frompyfunc(lambda a, b: a + 2 * b, 2, 1).at(jnp.zeros(3), jnp.array([0, 0]), 1., inplace=False)",
    "jnp.frompyfunc(lambda a: -a, 1, 1)(jnp.arange(3.))",
    "jax.jit(jnp.add.reduce)(jnp.arange(3.))", "jax.grad(lambda x: jnp.logaddexp.reduce(x))(jnp.arange(3.))",
    "jax.vmap(jnp.maximum.reduce)(jnp.arange(6.).reshape(2, 3))",
]
CASES += UFUNC_CASES

UFUNC_ERRORS = [
    "jnp.add.at(jnp.zeros(3), 0, 1.)", "jnp.negative.reduce(jnp.arange(3))",
    "jnp.maximum.reduce(jnp.arange(3), where=jnp.array([True, False, True]))",
    "jnp.add.reduce(jnp.arange(3.), where=jnp.array([1, 0, 1]))",
    "jnp.frompyfunc(lambda a, b: a + b, 2, 1).reduce(jnp.zeros(0))",
    "jnp.frompyfunc(lambda a, b: a + b, 2, 1).accumulate(jnp.ones(3), axis=None)",
    "jnp.add.reduceat(jnp.arange(3), jnp.array([[0]]))",
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
    for case in ERRORS + UFUNC_ERRORS:
        out["errors"][case] = error_of(case)
    out["ufuncs"] = sorted(n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc))
    out["ufunc_attrs"] = {n: [getattr(jnp, n).nin, getattr(jnp, n).nout, getattr(jnp, n).nargs,
                              repr(getattr(jnp, n).identity), repr(getattr(jnp, n))]
                          for n in out["ufuncs"]}
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
