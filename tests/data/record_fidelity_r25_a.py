"""Records JAX's printed jaxprs and values for tests/test_fidelity_r25_a.py (run under
/work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r25_a.py \
        > tests/data/fidelity_r25_a_jax.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from fidelity_r25_a_cases import CASES, SETUP, VALUE_CASES, X64_CASES  # noqa: E402

env = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, env)



def record(cases, jaxpr=True):
    out = []
    for fn_src, args_src in cases:
        fn, args = eval(fn_src, env), [jnp.asarray(a) for a in eval(args_src, env)]
        y = fn(*args)
        text = str(jax.make_jaxpr(fn)(*args)) if jaxpr else None
        out.append([fn_src, text, str(y.dtype), np.asarray(y).tolist()])
    return out


plain, values = record(CASES), record(VALUE_CASES, jaxpr=False)
jax.config.update("jax_enable_x64", True)
print(json.dumps({"jax_version": jax.__version__, "cases": plain, "values": values,
                  "x64": record(X64_CASES)}, indent=1))
