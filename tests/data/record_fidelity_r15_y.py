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

# s18013-99: the cotangent of a weak scan const stays weak under a strong carry cotangent
from jax import lax  # noqa: E402

f = lambda c, y: lax.scan(lambda c, _: (lax.max(c, y), None), c, None, length=2)[0]
g = lambda c, y: lax.scan(lambda c, _: (c * y, None), c, None, length=2)[0]
for name, fun, y in [("scan_const_max", f, -1.58), ("scan_const_mul", g, 0.75)]:
    dc, dy = jax.vjp(fun, -0.0888, y)[1](np.float32(1.0))
    print(name, [(float(v), jax.typeof(v).weak_type) for v in (dc, dy)])
