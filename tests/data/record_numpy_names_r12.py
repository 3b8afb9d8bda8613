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

ERRORS = [
    "jnp.r_['x,y', [1]]", "jnp.r_[[1], 'r']", "jnp.c_[[1, 2], jnp.ones(3)]",
]


def record(value):
    if isinstance(value, (list, tuple)):
        return {"list": [record(v) for v in value]}
    return {"value": np.asarray(value, np.float64).tolist(), "shape": list(value.shape),
            "dtype": str(value.dtype), "weak_type": bool(value.weak_type)}


def main():
    out = {"jax_version": jax.__version__, "cases": {}, "errors": {}}
    for case in CASES:
        out["cases"][case] = record(eval(case))
    for case in ERRORS:
        try:
            eval(case)
        except Exception as e:  # the test compares the type and message
            out["errors"][case] = [type(e).__name__, str(e).split("\n")[0]]
    path = pathlib.Path(__file__).with_name("numpy_names_r12.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
