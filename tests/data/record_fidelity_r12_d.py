"""Prints the JAX 0.10.2 values that tests/test_fidelity_r12_d.py holds (run it with the JAX
venv: /work/venv_jax/bin/python tests/data/record_fidelity_r12_d.py)."""
import jax
import numpy as np

jnp, nn = jax.numpy, jax.nn

print("jax", jax.__version__)

# s12030-65: softmax/log_softmax of integers shift in the integer dtype
for dt, a in (("uint32", [[2, 1], [3, 4]]), ("uint8", [[200, 1], [5, 5]]),
              ("int8", [[100, -100], [5, 5]]), ("int32", [[1, 2], [3, 4]])):
    x = jnp.array(a, dt)
    for f in (nn.softmax, nn.log_softmax):
        print(dt, f.__name__, np.asarray(f(x)).tolist(),
              np.asarray(jax.jit(f)(x)).tolist())
    w = jnp.array([[True, False], [True, True]])
    print(dt, "log_softmax where", np.asarray(nn.log_softmax(x, where=w)).tolist())
