"""Records how JAX treats typed PRNG key arrays in pytrees (tests/test_key_leaves.py compares).

Run with the JAX venv: ``/work/venv_jax/bin/python tests/data/record_key_leaves.py``; writes
``tests/data/key_leaves_jax.json``.
"""

import json
import os

import jax
import numpy as np


def _describe(x):
    return str(x.dtype) if hasattr(x, "dtype") else type(x).__name__


def record():
    key = jax.random.key(0)
    tree = {"k": key, "x": 1.0, "ks": jax.random.split(key, 3), "n": None, "t": (2, key)}
    leaves, treedef = jax.tree.flatten(tree)
    out = {
        "jax_version": jax.__version__,
        "num_leaves": len(leaves),
        "leaf_kinds": [_describe(x) for x in leaves],
        "leaf_shapes": [list(np.shape(x)) if hasattr(x, "shape") else None for x in leaves],
        "structure": str(treedef),
        "map_dtype": jax.tree.map(_describe, tree),
        "paths": [jax.tree_util.keystr(p)
                  for p, _ in jax.tree_util.tree_flatten_with_path(tree)[0]],
        "typeof": [str(jax.typeof(key)), str(jax.typeof(jax.random.split(key, 3)))],
        "jit_in_tree": str(jax.jit(lambda t: t).lower(tree).in_tree),
        "split_data": np.asarray(jax.random.key_data(jax.random.split(key, 3))).tolist(),
    }
    return out


if __name__ == "__main__":
    path = os.path.join(os.path.dirname(__file__), "key_leaves_jax.json")
    with open(path, "w") as f:
        json.dump(record(), f, indent=1, sort_keys=True)
        f.write("\n")
