"""Records JAX's values, dtypes and weak types for tests/test_fidelity_r14_t4.py (a jit's vjp
cotangent keeps its own weak type; grad's seed under a trace is weak as the output).

Run with the JAX venv: /work/venv_jax/bin/python tests/data/record_fidelity_r14_t4.py
"""

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


@jax.custom_vjp
def _sin_cv(x):
    return jnp.sin(x)


_sin_cv.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, g: (g * 2 * r,))

CASES = {
    "vjp_jit_sin": lambda: jax.vjp(jax.jit(jnp.sin), 0.7)[1](np.float32(1))[0],
    "vjp_jit_softplus": lambda: jax.vjp(jax.jit(jax.nn.softplus), 0.7)[1](np.float32(1))[0],
    "grad_vjp_jit_sin": lambda: jax.grad(
        lambda x: jax.vjp(jax.jit(jnp.sin), x)[1](np.float32(1))[0])(0.7),
    "grad_grad_exp": lambda: jax.grad(jax.grad(lax.exp))(-0.5),
    "grad3_exp2": lambda: jax.grad(jax.grad(jax.grad(jnp.exp2)))(-5.0),
    "jacfwd_grad_jit_sin": lambda: jax.jacfwd(jax.grad(jax.jit(jnp.sin)))(1.0),
    "jit_grad_identity": lambda: jax.jit(jax.grad(lambda x: x))(1.0),
    "jit_grad_custom_vjp": lambda: jax.jit(jax.grad(_sin_cv))(0.5),
    "grad_grad_custom_vjp": lambda: jax.grad(jax.grad(_sin_cv))(0.5),
    "vmap_grad_identity": lambda: jax.vmap(jax.grad(lambda x: x))(jnp.full(2, 0.5))[0],
    "vag_jacrev_exp": lambda: jax.value_and_grad(jax.jacrev(lax.exp))(-0.5)[1],
    "grad_jacrev_exp": lambda: jax.grad(lambda x: jax.jacrev(lax.exp)(x))(-0.5),
    "grad_hessian_exp2": lambda: jax.grad(jax.hessian(jnp.exp2))(-5.0),
}

JAXPRS = {
    "grad_identity": lambda: jax.make_jaxpr(jax.grad(lambda x: x))(1.0),
    "grad_grad_sin": lambda: jax.make_jaxpr(jax.grad(jax.grad(jnp.sin)))(1.0),
}


def main():
    out = {"jax_version": jax.__version__, "cases": {}, "jaxprs": {}}
    for name, f in CASES.items():
        y = f()
        out["cases"][name] = [float(y), str(y.dtype), bool(y.weak_type)]
    for name, f in JAXPRS.items():
        out["jaxprs"][name] = str(f())
    path = pathlib.Path(__file__).with_name("fidelity_r14_t4_jax.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
