"""fori_loop's bounds as JAX 0.10.2 takes them (values printed by JAX 0.10.2 beside each test):
concrete bounds run ``range(int(lower), int(upper))``, traced bounds count in their own dtype,
so float bounds compare as floats (hyp2f1's terminating series relies on it)."""

import numpy as np
import scipy.special as ss

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.scipy import special


def test_concrete_float_bounds_truncate():
    # jax.lax.fori_loop(1.0, 3.5, lambda i, c: c + i, 0.) -> 3.0
    assert float(lax.fori_loop(1.0, 3.5, lambda i, c: c + i, 0.0)) == 3.0


def test_traced_float_bounds_count_in_floats():
    # jax.jit(lambda u: jax.lax.fori_loop(jnp.float32(1.), u, lambda i, c: c + i, 0.))(3.5)
    # -> 6.0 (i = 1, 2, 3: each compared with 3.5 as a float)
    f = minijax.jit(lambda u: lax.fori_loop(jnp.float32(1.0), u, lambda i, c: c + i, 0.0))
    assert float(f(jnp.float32(3.5))) == 6.0
    jaxpr = minijax.make_jaxpr(lambda u: lax.fori_loop(jnp.float32(1.0), u,
                                                       lambda i, c: c + i, 0.0))(2.5)
    (loop,) = [e for e in jaxpr.eqns if e.primitive.name == "while"]
    assert [str(v.aval.dtype) for v in loop.outvars[:2]] == ["float32", "float32"]


def test_hyp2f1_with_a_nearly_integer_terminating_parameter():
    # c - b is -0.9999997: the series terminates after one term only if the loop bound
    # |c - b| + 1 = 1.9999997 is compared as a float (JAX 0.10.2: 5.999998)
    a, b, c, y = (np.full(3, v, np.float32) for v in (1.0, 1.4999998, 0.50000006, 0.5))
    got = np.asarray(special.hyp2f1(a, b, c, y))
    np.testing.assert_allclose(got, ss.hyp2f1(1.0, 1.4999998, 0.50000006, 0.5), rtol=1e-5)
