"""Op-table entries for the primitives autodiff itself uses: ``stop_gradient`` (the
identity, with a zero derivative) and ``polygamma`` (digamma's derivatives, which digamma's JVP
rule needs).

The polygamma reference is float64: the recurrence psi_m(x) = psi_m(x + 1) + (-1)^(m+1) m! /
x^(m+1) up to x >= 20, then the asymptotic series in Bernoulli numbers (scipy is not a test
dependency).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from minijax import lax
from tests.ops.op_db import FLOAT_DTYPES, ZERO_DERIVATIVE, GradSpec, array, register, shapes

_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510]


def _polygamma(m, x):
    """psi^(m)(x) for an integer m >= 1 and x > 0, in float64."""
    m = int(m)
    acc = 0.0
    sign = (-1) ** (m + 1)
    while x < 20:
        acc += sign * math.factorial(m) / x ** (m + 1)
        x += 1
    # psi_m(x) ~ (-1)^(m+1) [ (m-1)!/x^m + m!/(2 x^(m+1)) + sum_k B_2k (2k+m-1)!/((2k)! x^(2k+m)) ]
    series = math.factorial(m - 1) / x**m + math.factorial(m) / (2 * x ** (m + 1))
    for k, b in enumerate(_BERNOULLI, start=1):
        series += b * math.factorial(2 * k + m - 1) / (math.factorial(2 * k) * x ** (2 * k + m))
    return acc + sign * series


def _polygamma_args():
    @st.composite
    def strat(draw):
        shape = draw(shapes())
        dtype = draw(st.sampled_from(FLOAT_DTYPES))
        m = draw(array(shape, np.int8, 1, 3)).astype(dtype)
        return m, draw(array(shape, dtype, 0.5, 10))

    return strat()


def _polygamma_ref(m, x):
    out = np.vectorize(_polygamma, otypes=[np.float64])(m.astype(np.float64),
                                                        x.astype(np.float64))
    return out.astype(x.dtype)


register("polygamma", lax.polygamma, _polygamma_ref, _polygamma_args(),
         tol={"float32": (1e-4, 1e-5), "float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2)},
         # the order m is not differentiable; eager checks reuse polygamma's slow-to-compile
         # executable across examples (CPU s here: jitted 17, eager 2)
         grad=GradSpec(domain=[(0.5, 10)], fixed=(0,), jit=False))
register("stop_gradient", lax.stop_gradient, lambda x: x,
         st.sampled_from(FLOAT_DTYPES).flatmap(lambda d: st.tuples(array((2, 3), d))),
         grad=ZERO_DERIVATIVE)
# the identity on values; its derivative is the identity (the tangent through a barrier too)
register("optimization_barrier", lambda x, y: lax.optimization_barrier((x, y)),
         lambda x, y: (x, y),
         st.sampled_from(FLOAT_DTYPES).flatmap(
             lambda d: st.tuples(array((2, 3), d), array((3,), np.int32))))
