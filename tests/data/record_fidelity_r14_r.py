"""Prints the values and types that tests/test_fidelity_r14_r.py holds, under JAX 0.10.2:
/work/venv_jax/bin/python tests/data/record_fidelity_r14_r.py"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, nn


def show(name, x):
    print(name, x.dtype, x.weak_type, np.asarray(x).tolist())


ct = np.float32(0.5)
for name, f in [("elu_recip", lambda x: jnp.reciprocal(nn.elu(x))), ("mul2", lambda x: x * 2.0),
                ("lgamma", lax.lgamma)]:
    for tname, h in [("remat", jax.checkpoint(f)), ("remat_jit", jax.checkpoint(jax.jit(f))),
                     ("remat_dots_jit", jax.checkpoint(
                         jax.jit(f), policy=jax.checkpoint_policies.checkpoint_dots))]:
        show(f"{name} {tname}", jax.vjp(h, -1.095883846282959)[1](ct)[0])

for m in ("linear", "lower", "higher", "midpoint", "nearest"):
    show(f"grad quantile {m}", jax.grad(lambda x: jnp.quantile(x, 0.3, method=m))(1.5))
show("grad median", jax.grad(jnp.median)(1.0))
show("grad nanmedian", jax.grad(jnp.nanmedian)(1.0))
show("jit grad median", jax.jit(jax.grad(jnp.median))(1.0))
show("median", jnp.median(1.0))
show("quantile int", jnp.quantile(3, 0.5))
show("median f32", jnp.median(np.array([1.0, 4.0, 2.0], np.float32)))
print("vag case", jax.value_and_grad(
    lambda a, b: jnp.sum(jnp.median(b) * 0.5) + jnp.sum(a * 0), argnums=(0, 1))(
        np.zeros((2, 0), np.float32), 1.0))
