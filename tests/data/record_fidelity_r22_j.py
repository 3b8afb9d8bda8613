"""Records JAX 0.10.2's values for tests/test_fidelity_r22_j.py (exp1/expn):

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_j.py > tests/data/fidelity_r22_j_jax.json

JAX hangs on a vector holding an infinite/huge/-inf order (or a tiny x) beside other values, so
those are recorded one scalar at a time; the low-precision vectors hold none of them.
"""
import json

import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax.scipy.special import exp1, expn

ORDERS = [np.inf, 1e30, -np.inf, np.nan, 2.0, 1e-30, 6000.0]
X_SMALL = [0.5, np.nan, 1e-30]
LOW = [0.0, 1.0, -1.0, 0.5, 2.0, 0.9, 30.0, np.inf, np.nan]


def f32(v):
    return np.float32(v)


def value(x):
    return [str(x.dtype), np.asarray(x, np.float64).tolist()]


out = {
    # expn(n, 0.5) and the gradient of exp1, one scalar at a time
    "expn_orders": [float(expn(f32(n), f32(0.5))) for n in ORDERS],
    "exp1_small": [float(exp1(f32(x))) for x in X_SMALL],
    "exp1_grad_small": [float(__import__("jax").grad(exp1)(f32(x))) for x in X_SMALL],
}
for name, dt in [("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)]:
    x = jnp.asarray(np.asarray(LOW, np.float32).astype(dt))
    out["exp1_" + name] = value(exp1(x))
    out["expn2_" + name] = value(expn(jnp.asarray(2, dt), x))
print(json.dumps(out, indent=1))
