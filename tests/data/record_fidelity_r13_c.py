"""Prints, under real JAX 0.10.2 (/work/venv_jax/bin/python), the values, weak types and
jaxprs that tests/test_fidelity_r13_c.py holds (add_any, JAX's add_jaxvals_p)."""
import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.interpreters import ad
print(jax.__version__)
f = jax.grad(jax.jit(lambda x, c: jnp.where(c, x, lax.div(x, np.float32(2)))))
r = f(0.58, jnp.asarray(True)); print(repr(r), r.weak_type)
print(repr(str(jax.make_jaxpr(jax.grad(lambda x: jnp.sin(x) * x))(1.))))
print(repr(str(jax.make_jaxpr(lambda x, y, tx, ty: jax.jvp(lambda a, b: a * b, (x, y), (tx, ty)))(1., 2., 3., 4.))))
g = lambda x: jax.jvp(lambda a, b: a * b, (x, 2.), (1., 3.))[1]
print(repr(jax.vmap(g)(jnp.arange(3.))))
print(repr(str(jax.make_jaxpr(jax.vmap(g))(jnp.arange(3.)))))
print(repr(jax.hessian(lambda x: jnp.sin(x) * x)(1.)))
print(repr(str(jax.make_jaxpr(jax.hessian(lambda x: jnp.sin(x) * x))(1.))))
for a, b in [(1.0, np.float32(2)), (np.float32(2), 1.0)]:
    r = jax.jit(lambda x, y: ad.add_jaxvals_p.bind(x, y))(a, b); print('jit', repr(r), r.weak_type)
    r = ad.add_jaxvals_p.bind(jnp.asarray(a), jnp.asarray(b)); print('eager', repr(r), r.weak_type)
print(repr(str(jax.make_jaxpr(lambda x, y: ad.add_jaxvals_p.bind(x, y))(1.0, np.float32(2)))))
