"""Records JAX's var/std/nanvar/nanstd over int/bool/float inputs and dtypes (FINDINGS 157's
leftover: an integer ``dtype=`` computes in it). Run with JAX 0.10.2:
/work/venv_jax/bin/python tests/data/record_r9_c_var.py > tests/data/r9_c_var_jax.json
"""

import json

import jax
import jax.numpy as jnp
import numpy as np

INPUTS = {
    "int32": np.array([[3, -1, 4], [1, 5, -9]], np.int32),
    "int8": np.array([[3, -1, 4], [1, 5, -9]], np.int8),
    "bool": np.array([[True, False, True], [True, True, False]]),
    "float16": np.array([[3.5, -1.0, 4.25], [1.0, 5.5, -9.0]], np.float16),
}
# int8/uint8 wrap (uint8 of the negative values too); bool is div's TypeError
DTYPES = [None, "int32", "int8", "uint8", "bool"]
FUNCS = ["var", "std", "nanvar", "nanstd"]
OPTIONS = [{"ddof": 1}, {"axis": 0, "ddof": 2}]  # the first wraps in int8, the second leaves no dof


def record(fn, x, dtype, opts):
    try:
        out = getattr(jnp, fn)(x, dtype=dtype, **opts)
    except Exception as e:  # noqa: BLE001 (the error is the record)
        return {"error": type(e).__name__, "msg": str(e)[:200]}
    return {"dtype": str(out.dtype), "weak": bool(out.weak_type), "shape": list(out.shape),
            "value": np.asarray(out, np.float64).ravel().tolist()}


def main():
    rows = []
    for fn in FUNCS:
        for name, x in INPUTS.items():
            for dtype in DTYPES:
                for opts in OPTIONS:
                    rows.append({"fn": fn, "input": name, "dtype": dtype, "opts": opts,
                                 "jax": record(fn, x, dtype, opts)})
    inputs = {k: {"dtype": str(v.dtype), "value": v.tolist()} for k, v in INPUTS.items()}
    print(json.dumps({"jax_version": jax.__version__, "inputs": inputs, "rows": rows}))


if __name__ == "__main__":
    main()
