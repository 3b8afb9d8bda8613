"""Prints the JAX 0.10.2 values held by tests/test_fidelity_r15_y.py.
Run: /work/venv_jax/bin/python tests/data/record_fidelity_r15_y.py"""
import jax
import jax.numpy as jnp
import numpy as np

print("jax", jax.__version__)
# s18004-114: hessian of cholesky beside an inf entry
a = np.array([[np.inf, 1.0], [-0.0, 1.5]], np.float32)
h = jax.hessian(lambda x: jnp.sum(jnp.linalg.cholesky(x)))(a)
print("cholesky_hessian", repr(np.asarray(h).reshape(4, 4).tolist()))
