"""Records JAX 0.10.2's outcomes for tests/test_fidelity_r19_a.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r19_a.py \
        > tests/data/fidelity_r19_a_jax.json

For each program: the primitives of make_jaxpr's equations, in order (nested jaxprs left out),
and the outputs of the program run op by op (disable_jit), as float lists.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r19_a_cases import ARGS, PROGRAMS  # noqa: E402

out = {"jax_version": jax.__version__, "primitives": {}, "op_by_op": {}}
for name, make in PROGRAMS.items():
    fn = make(jax, jnp)
    out["primitives"][name] = [e.primitive.name for e in jax.make_jaxpr(fn)(*ARGS).jaxpr.eqns]
    with jax.disable_jit():
        leaves = jax.tree_util.tree_leaves(fn(*ARGS))
    out["op_by_op"][name] = [np.asarray(x).ravel().tolist() for x in leaves]
print(json.dumps(out, indent=1))
